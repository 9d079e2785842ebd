#pragma once
// Two to four runs on the same data and the same initial centroids, stepped in
// lockstep (or each run to convergence) for the compare view.
#include <QObject>
#include <QTimer>

#include <memory>
#include <vector>

#include "run/run_controller.hpp"

namespace kms::ui {

class CompareSession : public QObject {
    Q_OBJECT
public:
    explicit CompareSession(QObject* parent = nullptr);
    ~CompareSession() override;

    // Replaces the runs: one per config, all with `initial_centroids`
    // (k × d; empty: chosen once by setup.init and shared).
    void start(const DatasetBundle& bundle, const RunSetup& setup, const std::vector<SolverConfig>& configs,
               const Matrix<double>& initial_centroids);
    void clear();

    std::size_t size() const { return runs_.size(); }
    RunController& run(std::size_t i) { return *runs_[i]; }
    const RunController& run(std::size_t i) const { return *runs_[i]; }
    bool all_ready() const;
    bool any_running() const;
    bool all_converged() const;
    // All runs show the same iteration (the lowest any of them has reached).
    int lockstep_iteration() const;

    void step_all();        // one iteration each (those not converged)
    void step_back_all();
    void run_all();         // lockstep with the delay, until every run converged or paused
    void run_all_to_convergence();  // each at full speed
    void run_steps(int steps);      // lockstep, `steps` iterations
    void pause_all();
    void reset_all();
    void set_delay_ms(int delay_ms);

signals:
    void changed();                  // something any run shows changed
    void errorOccurred(QString message);
    void allReady();

private:
    void lockstep_tick();

    std::vector<std::unique_ptr<RunController>> runs_;
    QTimer lockstep_timer_;
    int steps_left_ = 0;  // lockstep run: -1 unlimited
    int delay_ms_ = 0;
    bool was_ready_ = false;
};

}  // namespace kms::ui
