// RunController's transport: step (and half-step), step back, run, run N steps, run to
// convergence, pause, reset, and the worker's results as they arrive.
#include <QTimer>

#include <utility>

#include "run/run_controller.hpp"
#include "run/solver_worker.hpp"

namespace kms::ui {

void RunController::step() {
    if (!ready_ || running_) return;
    if (half_steps_ && displayed_ > 0 && displayed_phase_ == Phase::Assign) {
        show(displayed_, Phase::Update);  // the update of the assignment shown
        return;
    }
    const Phase next_phase = half_steps_ ? Phase::Assign : Phase::Update;
    if (displayed_ < latest_iteration()) {  // after stepping back: replay the kept history
        show(displayed_ + 1, next_phase);
        return;
    }
    if (converged()) {
        emit statusMessage(tr("Converged (%1)").arg(QString::fromUtf8(to_string(stop_reason_).data())));
        return;
    }
    assign_phase_next_ = half_steps_;
    QMetaObject::invokeMethod(worker_, [w = worker_, e = run_epoch_] { w->step(e); }, Qt::QueuedConnection);
}

void RunController::step_back() {
    if (running_) pause();
    if (half_steps_ && displayed_ > 0 && displayed_phase_ == Phase::Update) show(displayed_, Phase::Assign);
    else if (displayed_ > 0) show(displayed_ - 1, Phase::Update);
}

void RunController::set_half_steps(bool on) {
    half_steps_ = on;
    if (!on && displayed_phase_ == Phase::Assign) show(displayed_, Phase::Update);
}

void RunController::run() {
    if (!ready_ || running_ || converged()) return;
    show(latest_iteration());
    running_ = true;  // until the worker says otherwise
    emit runningChanged(true);
    QMetaObject::invokeMethod(worker_, [w = worker_, e = run_epoch_] { w->run(e, -1, false); }, Qt::QueuedConnection);
}

void RunController::run_steps(int steps) {
    if (!ready_ || running_ || converged() || steps <= 0) return;
    show(latest_iteration());
    running_ = true;
    emit runningChanged(true);
    QMetaObject::invokeMethod(worker_, [w = worker_, e = run_epoch_, steps] { w->run(e, steps, true); },
                              Qt::QueuedConnection);
}

void RunController::run_to_convergence() {
    if (!ready_ || running_ || converged()) return;
    show(latest_iteration());
    running_ = true;
    emit runningChanged(true);
    QMetaObject::invokeMethod(worker_, [w = worker_, e = run_epoch_] { w->run(e, -1, true); }, Qt::QueuedConnection);
}

void RunController::pause() { worker_->request_stop(); }

void RunController::reset() {
    if (!ready_) return;
    pause();
    const quint64 epoch = ++run_epoch_;
    QMetaObject::invokeMethod(worker_, [w = worker_, epoch] { w->reset_run(epoch); }, Qt::QueuedConnection);
    history_.resize(1);
    displayed_ = 0;
    displayed_phase_ = Phase::Update;
    assign_phase_next_ = false;
    stop_reason_ = StopReason::NotStopped;
    emit historyChanged();
    emit frameChanged();
}

void RunController::set_delay_ms(int delay_ms) {
    delay_ms_ = delay_ms;
    worker_->set_delay_ms(delay_ms);
}

void RunController::set_offer_device_labels(bool offer) { worker_->set_offer_device_labels(offer); }

void RunController::on_stepped(const StepResult& result) {
    if (result.epoch != run_epoch_ || history_.empty()) return;
    const bool following = displayed_ == latest_iteration();
    HistoryEntry entry;
    entry.centroids = result.centroids;
    entry.stats = result.stats;
    entry.labels = result.labels;
    entry.point_status = result.point_status;
    entry.finalized = result.stop_reason == StopReason::Tolerance || result.stop_reason == StopReason::MaxIterations;
    entry.handover_ms = result.handover_ms;
    history_.push_back(std::move(entry));
    stop_reason_ = result.stop_reason;
    trim_label_memory();
    emit historyChanged();
    if (following) {
        displayed_ = latest_iteration();
        // Run (Space) with half-steps and a teaching delay shows both halves: the
        // assignment first, the update half a delay later (it showed updates only).
        const bool both_halves = running_ && half_steps_ && delay_ms_ > 0 && !history_.back().finalized;
        displayed_phase_ = (assign_phase_next_ && !running_) || both_halves ? Phase::Assign : Phase::Update;
        assign_phase_next_ = false;
        ensure_displayed_labels();
        emit frameChanged();
        if (both_halves)
            QTimer::singleShot(delay_ms_ / 2, this, [this, iteration = displayed_, epoch = run_epoch_] {
                if (epoch == run_epoch_ && displayed_ == iteration && displayed_phase_ == Phase::Assign)
                    show(iteration, Phase::Update);
            });
    }
    if (converged() && !running_)
        emit statusMessage(tr("Converged after %1 iterations (%2)")
                               .arg(latest_iteration())
                               .arg(QString::fromUtf8(to_string(stop_reason_).data())));
}

}  // namespace kms::ui
