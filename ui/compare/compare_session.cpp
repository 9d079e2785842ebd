#include "compare/compare_session.hpp"

#include <algorithm>

namespace kms::ui {

CompareSession::CompareSession(QObject* parent) : QObject(parent) {
    lockstep_timer_.setSingleShot(true);
    connect(&lockstep_timer_, &QTimer::timeout, this, &CompareSession::lockstep_tick);
}

CompareSession::~CompareSession() = default;

void CompareSession::clear() {
    lockstep_timer_.stop();
    steps_left_ = 0;
    runs_.clear();
    was_ready_ = false;
    emit changed();
}

void CompareSession::start(const DatasetBundle& bundle, const RunSetup& setup, const std::vector<SolverConfig>& configs,
                           const Matrix<double>& initial_centroids) {
    clear();
    for (const SolverConfig& config : configs) {
        auto run = std::make_unique<RunController>();
        RunController* raw = run.get();
        connect(raw, &RunController::frameChanged, this, &CompareSession::changed);
        connect(raw, &RunController::historyChanged, this, &CompareSession::changed);
        connect(raw, &RunController::errorOccurred, this, &CompareSession::errorOccurred);
        connect(raw, &RunController::setupChanged, this, [this] {
            if (all_ready() && !was_ready_) {
                was_ready_ = true;
                emit allReady();
            }
            emit changed();
        });
        // Lockstep: the next round starts once every run delivered this one.
        connect(raw, &RunController::historyChanged, this, [this] {
            if (steps_left_ != 0 && !lockstep_timer_.isActive()) lockstep_timer_.start(delay_ms_);
        });
        RunSetup run_setup = setup;
        run_setup.config = config;
        runs_.push_back(std::move(run));
    }
    if (runs_.empty()) return;
    // The first run chooses the initial centroids (if none were given); the
    // others start from exactly the same ones.
    RunSetup first = setup;
    first.config = configs[0];
    runs_[0]->start(bundle, first, initial_centroids);
    if (initial_centroids.rows() > 0) {
        for (std::size_t i = 1; i < runs_.size(); ++i) {
            RunSetup other = setup;
            other.config = configs[i];
            runs_[i]->start(bundle, other, initial_centroids);
        }
        return;
    }
    auto shared = std::make_shared<QMetaObject::Connection>();
    *shared = connect(runs_[0].get(), &RunController::setupChanged, this, [this, bundle, setup, configs, shared] {
        if (!runs_[0]->ready()) return;
        disconnect(*shared);
        for (std::size_t i = 1; i < runs_.size(); ++i) {
            RunSetup other = setup;
            other.config = configs[i];
            runs_[i]->start(bundle, other, runs_[0]->initial_centroids());
        }
    });
}

bool CompareSession::all_ready() const {
    return !runs_.empty() && std::all_of(runs_.begin(), runs_.end(), [](const auto& r) { return r->ready(); });
}

bool CompareSession::any_running() const {
    return steps_left_ != 0 || std::any_of(runs_.begin(), runs_.end(), [](const auto& r) { return r->running(); });
}

bool CompareSession::all_converged() const {
    return std::all_of(runs_.begin(), runs_.end(),
                       [](const auto& r) { return r->converged() && r->displayed_iteration() == r->latest_iteration(); });
}

int CompareSession::lockstep_iteration() const {
    int lowest = std::numeric_limits<int>::max();
    for (const auto& run : runs_) lowest = std::min(lowest, run->latest_iteration());
    return runs_.empty() ? 0 : lowest;
}

void CompareSession::step_all() {
    for (auto& run : runs_) run->step();
}

void CompareSession::step_back_all() {
    steps_left_ = 0;
    for (auto& run : runs_) run->step_back();
}

void CompareSession::lockstep_tick() {
    if (steps_left_ == 0 || runs_.empty()) return;
    // Wait until every run has delivered the current round.
    const int target = runs_[0]->latest_iteration();
    for (const auto& run : runs_)
        if (run->running() || !run->ready() || (!run->converged() && run->latest_iteration() < target)) return;
    if (all_converged()) {
        steps_left_ = 0;
        emit changed();
        return;
    }
    if (steps_left_ > 0) --steps_left_;
    for (auto& run : runs_) run->step();
}

void CompareSession::run_all() {
    if (!all_ready()) return;
    steps_left_ = -1;
    lockstep_timer_.start(0);
}

void CompareSession::run_steps(int steps) {
    if (!all_ready() || steps <= 0) return;
    steps_left_ = steps;
    lockstep_timer_.start(0);
}

void CompareSession::run_all_to_convergence() {
    steps_left_ = 0;
    for (auto& run : runs_) run->run_to_convergence();
}

void CompareSession::pause_all() {
    steps_left_ = 0;
    lockstep_timer_.stop();
    for (auto& run : runs_) run->pause();
    emit changed();
}

void CompareSession::reset_all() {
    pause_all();
    for (auto& run : runs_) run->reset();
}

void CompareSession::set_delay_ms(int delay_ms) { delay_ms_ = delay_ms; }

}  // namespace kms::ui
