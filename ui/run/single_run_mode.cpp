#include "run/single_run_mode.hpp"

#include <algorithm>

#include "charts/iteration_charts.hpp"
#include "run/run_controller.hpp"
#include "run/run_view.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

SingleRunMode::SingleRunMode(RunController& run, IterationCharts& charts, PointCloudView& view, QObject* parent)
    : QObject(parent), run_(run), charts_(charts), view_(view) {
    // Connected before the window's own setupChanged handler, which refreshes the charts.
    connect(&run_, &RunController::setupChanged, this, [this] { ++setup_serial_; });
}

RunMode::TransportState SingleRunMode::transport_state() const {
    TransportState state;
    state.ready = run_.ready();
    state.running = run_.running();
    state.converged = run_.converged();
    state.shown = run_.displayed_iteration();
    state.replay = run_.displayed_iteration() < run_.latest_iteration();
    return state;
}

void SingleRunMode::step() { run_.step(); }
void SingleRunMode::step_back() { run_.step_back(); }
void SingleRunMode::run() { run_.run(); }
void SingleRunMode::pause() { run_.pause(); }
void SingleRunMode::run_to_convergence() { run_.run_to_convergence(); }
void SingleRunMode::reset() { run_.reset(); }
void SingleRunMode::fit_view() { view_.fit(); }
QWidget* SingleRunMode::centre() const { return &view_; }
int SingleRunMode::iterations_at_stake() const { return run_.latest_iteration(); }

void SingleRunMode::show_iteration(int iteration) {
    while (run_.displayed_iteration() > iteration && run_.displayed_iteration() > 0) run_.step_back();
    while (run_.displayed_iteration() < iteration && run_.displayed_iteration() < run_.latest_iteration()) run_.step();
}

void SingleRunMode::refresh_charts() {
    const int iterations = run_.latest_iteration();
    if (charted_setup_ == setup_serial_ && iterations == charted_iterations_ + 1 && iterations >= 1 &&
        charts_.runCount() == 1) {
        charts_.appendIteration(run_.history().back().stats);
    } else {
        charts_.setRun(run_.dataset().n(), run_.initial_centroids().rows(), run_.stats_history(), run_.solver_description());
    }
    charted_iterations_ = iterations;
    charted_setup_ = setup_serial_;
    charts_.setCurrentIteration(run_.displayed_iteration());
}

QString SingleRunMode::status_text() const {
    QString text = tr("%1   iteration %2 / %3").arg(run_.solver_description()).arg(run_.displayed_iteration()).arg(
        std::max(0, run_.latest_iteration()));
    // The run's state before the studio's extras, which a narrow window's status bar cuts.
    const QString converged =
        run_.converged() ? tr("   converged (%1)").arg(QString::fromUtf8(to_string(run_.stop_reason()).data())) : QString();
    if (run_.displayed_iteration() > 0) {
        const HistoryEntry& entry = run_.history()[std::size_t(run_.displayed_iteration())];
        const IterationStats& stats = entry.stats;
        // The solver's own time, as kmeans-cli measures it; the studio's extras apart.
        text += tr("   solver %1 ms (assign %2, bounds %3, update %4)")
                    .arg(stats.time_total_ms, 0, 'f', 3)
                    .arg(stats.time_assign_ms, 0, 'f', 3)
                    .arg(stats.time_bounds_ms, 0, 'f', 3)
                    .arg(stats.time_update_ms, 0, 'f', 3);
        if (stats.iteration == 1) text += tr(" incl. warm-up");
        text += tr("   %1 changed").arg(stats.labels_changed);
        text += bounds_work_text(stats, run_.dataset().n(), solver_prunes(run_.solver_description()));
        if (run_.displayed_phase() == Phase::Assign) text += tr("   [assign half-step]");
        text += converged;
        // The studio's extras last: on a narrow window they are what the status bar cuts.
        text += tr("   + inertia for the chart %1 ms, hand-over %2 ms")
                    .arg(stats.time_inertia_ms, 0, 'f', 3)
                    .arg(entry.handover_ms, 0, 'f', 3);
        return text;
    }
    return text + converged;
}

}  // namespace kms::ui
