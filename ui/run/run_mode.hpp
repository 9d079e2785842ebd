#pragma once
// What the main window's transport (step, run, pause ...), iteration charts,
// status line and Fit button act on: the single run (SingleRunMode) or a
// comparison (compare/CompareMode). The window holds both and asks the active one.
#include <QString>

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
};

}  // namespace kms::ui
