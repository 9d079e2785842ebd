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

// The bounds' work in one iteration for a caption or status line:
// "   skips 9,120 (91.2%)" — points whose full search the bounds avoided, of n —
// then, for a solver with centroid groups (Yinyang), "   group skips 30,400
// (60.8% of n·t, t = 5)". Empty for Lloyd (no bounds: nothing to say).
QString bounds_work_text(const IterationStats& stats, std::size_t n, bool bounded);

}  // namespace kms::ui
