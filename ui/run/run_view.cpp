#include "run/run_view.hpp"

#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

void show_run_in_view(const RunController& run, PointCloudView& view) {
    const Projection2D& projection = run.dataset().projection;
    const int shown = run.displayed_iteration();
    const auto& history = run.history();
    std::vector<QPointF> centroids;
    std::vector<std::vector<QPointF>> trails;
    if (!history.empty() && projection.input_dimensions() > 0) {
        const Matrix<double>& current = history[static_cast<std::size_t>(shown)].centroids;
        const std::size_t k = current.rows();
        if (current.cols() == projection.input_dimensions()) {
            trails.resize(k);
            for (std::size_t c = 0; c < k; ++c) {
                const auto p = projection.project(current.row(c));
                centroids.emplace_back(p[0], p[1]);
                for (int i = 0; i <= shown; ++i) {
                    const Matrix<double>& at = history[static_cast<std::size_t>(i)].centroids;
                    if (c >= at.rows()) continue;
                    const auto q = projection.project(at.row(c));
                    trails[c].emplace_back(q[0], q[1]);
                }
            }
        }
    }
    view.set_centroids(std::move(centroids), std::move(trails));
    view.set_labels(run.displayed_labels(), run.initial_centroids().rows(), shown);
    view.set_point_status(run.displayed_point_status());
    view.set_centroids_editable(run.ready() && !run.running() && run.latest_iteration() == 0);
}

}  // namespace kms::ui
