#pragma once
// Compare mode: 2 to every registered solver on the single run's data and initial centroids.
// Owns the comparison (CompareSession, CompareScores), its widgets (the split
// view, the table in its dock, the "Compare" toolbar row) and their
// connections. The main window only places the widgets and, while active(),
// points its transport, charts and status line at this mode.
#include <QObject>

#include <memory>
#include <utility>
#include <vector>

#include "compare/compare_scores.hpp"
#include "compare/compare_session.hpp"
#include "run/run_mode.hpp"

class QCheckBox;
class QWidget;

namespace kms::ui {

class CompareTable;
class CompareView;
class IterationCharts;
class RunController;

class CompareMode : public QObject, public RunMode {
    Q_OBJECT
public:
    // `single`: the run whose data, set-up and initial centroids are compared;
    // `charts`: the window's iteration charts, which show one series per run while active.
    CompareMode(RunController& single, IterationCharts& charts, QObject* parent = nullptr);
    ~CompareMode() override;

    // The most runs compared at once: every registered solver (seven), and at least 4
    // (one solver may be compared on several back ends).
    static std::size_t most_runs();

    // The widgets, created without a parent: the window places them (and then owns them).
    CompareView* view() const { return view_; }
    CompareTable* table() const { return table_; }
    // The toolbar row: a box per solver, Compare, Single view.
    QWidget* controls() const { return controls_; }
    // Compare the ticked solvers (an error when fewer than 2 or more than most_runs() are ticked); set_ticked ticks these.
    void start_from_controls();
    void set_ticked(const std::vector<Algorithm>& algorithms);

    CompareSession& session() { return *session_; }
    const CompareScores& scores() const { return *scores_; }
    bool active() const { return active_; }
    // No final scores queued or being computed.
    bool scores_idle() const { return scores_->idle(); }

    // Compare these solvers on the single run's data and initial centroids
    // (pausing it); empty: leave() instead.
    void start(const std::vector<SolverConfig>& configs);
    // Back to the single run: the comparison and its scores are dropped.
    void leave() override;
    void set_delay_ms(int delay_ms) { session_->set_delay_ms(delay_ms); }

    // RunMode, while active.
    TransportState transport_state() const override;
    void step() override { session_->step_all(); }
    void step_back() override { session_->step_back_all(); }
    void run() override { session_->run_all(); }
    void pause() override { session_->pause_all(); }
    void run_to_convergence() override { session_->run_all_to_convergence(); }
    void reset() override { session_->reset_all(); }
    void show_iteration(int) override {}  // overlaid runs: a click picks no iteration
    void refresh_charts() override;
    QString status_text() const override;
    void fit_view() override;
    QWidget* centre() const override;
    // The "Comparison" dock (object name "comparison") holding table(), unplaced like view().
    QDockWidget* dock() const override { return dock_; }
    // The dock follows the single run; compared runs get their final scores in the table.
    bool scores_follow() const override { return false; }
    int iterations_at_stake() const override { return 1; }  // the comparison is discarded

signals:
    void entered();   // comparing now: show view() and table(), put the single run's scores aside
    void left();      // back to the single run: show it again
    void changed();   // a compared run changed: transport state, charts and status are out of date
    void errorOccurred(QString message);

private:
    QWidget* build_controls();

    RunController& single_;
    IterationCharts& charts_;
    std::unique_ptr<CompareSession> session_;
    std::unique_ptr<CompareScores> scores_;
    CompareView* view_ = nullptr;
    CompareTable* table_ = nullptr;
    QDockWidget* dock_ = nullptr;
    QWidget* controls_ = nullptr;
    std::vector<std::pair<Algorithm, QCheckBox*>> solver_boxes_;
    bool active_ = false;
    int charted_iterations_ = -1;  // sum over the runs, as last charted
};

}  // namespace kms::ui
