#pragma once
// A run's shown iteration in a point view: labels, bounds status, projected
// centroids and their trails; centroids editable before the first step. Used by
// the single view and by every panel of a comparison.
namespace kms::ui {

class PointCloudView;
class RunController;

void show_run_in_view(const RunController& run, PointCloudView& view);

}  // namespace kms::ui
