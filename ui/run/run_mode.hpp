#pragma once
// What the main window's transport (step, run, pause ...), iteration charts,
// status line and Fit button act on: the single run (SingleRunMode) or a
// comparison (compare/CompareMode). The window holds both and asks the active one,
// also what it shows: the centre widget, the mode's own dock, whether the Scores
// dock follows. The lesson mode (lesson/) runs on the single run.
#include <QString>

class QDockWidget;
class QWidget;

namespace kms::ui {

class RunMode {
public:
    // What the transport's buttons may do now.
    struct TransportState {
        bool ready = false;      // data and initial centroids
        bool running = false;
        bool converged = false;
        int shown = 0;           // iteration shown (step back needs > 0)
        bool replay = false;     // an earlier iteration is shown: step replays it
    };

    virtual ~RunMode() = default;

    virtual TransportState transport_state() const = 0;
    virtual void step() = 0;
    virtual void step_back() = 0;
    virtual void run() = 0;
    virtual void pause() = 0;
    virtual void run_to_convergence() = 0;
    virtual void reset() = 0;

    // The user clicked this iteration in the charts.
    virtual void show_iteration(int iteration) = 0;
    // Bring the iteration charts (and whatever else shows the history) up to date.
    virtual void refresh_charts() = 0;
    // The status bar's line about the run(s).
    virtual QString status_text() const = 0;
    // Fit the point view(s) to the data.
    virtual void fit_view() = 0;

    // The window's centre while this mode is active; it takes the keys back after a field's Enter.
    virtual QWidget* centre() const = 0;
    // The dock shown only while this mode is active (nullptr: none).
    virtual QDockWidget* dock() const { return nullptr; }
    // Whether the Scores dock follows the single run's shown iteration now.
    virtual bool scores_follow() const = 0;
    // Iterations a new seed would discard (above 0: the window asks first).
    virtual int iterations_at_stake() const = 0;
    // Back to the single run (a new seed, set-up, replay, lesson or spectral view ends a comparison).
    virtual void leave() {}
};

}  // namespace kms::ui
