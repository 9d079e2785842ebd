#pragma once
// A run's shown iteration in a point view: labels, bounds status, projected
// centroids and their trails; centroids editable before the first step. Used by
// the single view and by every panel of a comparison.
#include <QString>

#include <cstddef>

#include "kms/stats.hpp"

namespace kms::ui {

class PointCloudView;
class RunController;

void show_run_in_view(const RunController& run, PointCloudView& view);

// CUDA back end: the solver's labels colour `view`'s buffer on the GPU (CUDA–OpenGL
// interop) instead of building colours on the host, whenever the run's set-up is on a
// device back end, interop works (and has not failed for this view) and
// KMS_STUDIO_INTEROP is not "off" (the host path, to time the two on the same run).
// The single view and every compare panel go through this.
void connect_device_colours(RunController& run, PointCloudView& view);

// The bounds' work in one iteration for a caption or status line:
// "   skips 9,120 (91.2%)" — points whose full search the bounds avoided, of n —
// then, for a solver with centroid groups (Yinyang), "   group skips 30,400
// (60.8% of n·t, t = 5)". Empty for Lloyd (no bounds: nothing to say).
QString bounds_work_text(const IterationStats& stats, std::size_t n, bool bounded);
// Whether the solver a run's description names ("hamerly/omp/f64 ...") skips points by
// bounds (AlgorithmInfo::prunes): its skips are worth showing.
bool solver_prunes(const QString& solver_description);

}  // namespace kms::ui
