#include "run/run_controller.hpp"

#include <QCoreApplication>
#include <QDeadlineTimer>

#include "run/solver_worker.hpp"

namespace kms::ui {

namespace {
// Labels (4 bytes) and point status (1 byte) of earlier iterations are kept up
// to this much memory; older ones are recomputed from the centroids on demand.
constexpr std::size_t kLabelMemoryBudget = std::size_t(256) << 20;

void register_types() {
    qRegisterMetaType<DatasetBundle>();
    qRegisterMetaType<SetupResult>();
    qRegisterMetaType<StepResult>();
    qRegisterMetaType<RunSetup>();
    qRegisterMetaType<LabelsPtr>();
    qRegisterMetaType<PointStatusPtr>();
}
}  // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
    register_types();
    worker_ = new SolverWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);

    connect(worker_, &SolverWorker::loadProgress, this, &RunController::loadProgress);
    connect(worker_, &SolverWorker::datasetReady, this, &RunController::on_dataset_ready);
    connect(worker_, &SolverWorker::loadFailed, this, [this](const QString& message, quint64 epoch) {
        if (epoch != data_epoch_) return;
        loading_ = false;
        emit loadFailed(message);  // the current dataset stays
        emit errorOccurred(message);
    });
    connect(worker_, &SolverWorker::setupDone, this, &RunController::on_setup_done);
    connect(worker_, &SolverWorker::setupFailed, this, [this](const QString& message, quint64 epoch) {
        if (epoch != run_epoch_) return;
        ready_ = false;
        emit setupChanged();
        emit errorOccurred(message);
    });
    connect(worker_, &SolverWorker::stepped, this, &RunController::on_stepped);
    connect(worker_, &SolverWorker::stepFailed, this, [this](const QString& message, quint64 epoch) {
        if (epoch == run_epoch_) emit errorOccurred(message);
    });
    connect(worker_, &SolverWorker::runningChanged, this, [this](bool running, quint64) {
        running_ = running;
        emit runningChanged(running);
        if (!running) {
            ensure_displayed_labels();
            emit frameChanged();
        }
    });
    connect(worker_, &SolverWorker::latestLabels, this,
            [this](const LabelsPtr& labels, const PointStatusPtr& status, int iteration, quint64 epoch) {
                if (epoch != run_epoch_ || iteration != latest_iteration()) return;
                history_.back().labels = labels;
                history_.back().point_status = status;
                trim_label_memory();
                if (displayed_ == iteration) emit frameChanged();
            });
    connect(worker_, &SolverWorker::relabelled, this, [this](const LabelsPtr& labels, int iteration, quint64 epoch) {
        relabel_pending_ = false;
        if (epoch != run_epoch_ || iteration > latest_iteration()) return;
        history_[static_cast<std::size_t>(iteration)].labels = labels;
        trim_label_memory();
        if (iteration == displayed_) emit frameChanged();
        else ensure_displayed_labels();
    });
    // The worker waits until the receivers of this signal have used the device pointers.
    connect(worker_, &SolverWorker::deviceLabelsReady, this,
            [this](const void* labels, const void* status, quint64 n, quint64 epoch) {
                if (epoch == run_epoch_) emit deviceLabelsReady(labels, status, n);
            },
            Qt::BlockingQueuedConnection);
    thread_.setObjectName(QStringLiteral("kms-solver"));
    thread_.start();
}

RunController::~RunController() {
    worker_->set_offer_device_labels(false);
    worker_->request_stop();
    thread_.quit();
    // A worker blocked in deviceLabelsReady needs this thread to deliver it.
    while (!thread_.wait(QDeadlineTimer(20))) QCoreApplication::sendPostedEvents(this);
}

// ---------------------------------------------------------------- data

void RunController::load_file(const QString& path) {
    pause();
    loading_ = true;
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    emit loadStarted(path);
    QMetaObject::invokeMethod(worker_, [w = worker_, path, epoch, mode] { w->load_file(path, epoch, mode); },
                              Qt::QueuedConnection);
}

void RunController::generate(const QString& spec, std::uint64_t seed) {
    pause();
    loading_ = true;
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    emit loadStarted(spec);
    QMetaObject::invokeMethod(worker_, [w = worker_, spec, seed, epoch, mode] { w->generate(spec, seed, epoch, mode); },
                              Qt::QueuedConnection);
}

void RunController::set_dataset(const DatasetBundle& bundle) {
    ++data_epoch_;
    loading_ = false;
    on_dataset_ready(bundle, data_epoch_);
}

void RunController::start(const DatasetBundle& bundle, const RunSetup& setup, const Matrix<double>& initial_centroids) {
    ++data_epoch_;
    loading_ = false;
    bundle_ = bundle;
    setup_ = setup;
    setup_.k = initial_centroids.rows() > 0 ? initial_centroids.rows() : setup.k;
    emit datasetChanged();
    request_setup(initial_centroids);
}

void RunController::set_projection_mode(ProjectionMode mode) {
    if (mode == projection_mode_) return;
    projection_mode_ = mode;
    if (!bundle_.dataset) return;
    const quint64 epoch = ++data_epoch_;
    loading_ = true;
    QMetaObject::invokeMethod(
        worker_, [w = worker_, b = bundle_, mode, epoch] { w->reproject(b, static_cast<int>(mode), epoch); },
        Qt::QueuedConnection);
}

void RunController::on_dataset_ready(const DatasetBundle& bundle, quint64 epoch) {
    if (epoch != data_epoch_) return;
    loading_ = false;
    const bool same_data = bundle_.dataset == bundle.dataset;
    bundle_ = bundle;
    emit datasetChanged();
    if (same_data && ready_) {
        emit frameChanged();  // only the projection changed: the run goes on
        return;
    }
    emit statusMessage(tr("Loaded %1: %2 points × %3 dimensions")
                           .arg(QString::fromStdString(bundle_.dataset->name))
                           .arg(bundle_.n())
                           .arg(bundle_.d()));
    initial_centroids_ = Matrix<double>();
    request_setup(Matrix<double>());
}

// ---------------------------------------------------------------- setup

void RunController::set_setup(const RunSetup& setup) {
    const bool same_start = setup.k == setup_.k && setup.init.method == setup_.init.method &&
                            setup.init.seed == setup_.init.seed && setup.init.path == setup_.init.path;
    setup_ = setup;
    if (!bundle_.dataset) return;
    // Same k and init: keep the initial centroids (also ones the user placed),
    // so switching algorithm or back end compares like with like.
    request_setup(same_start && initial_centroids_.rows() == setup_.k ? initial_centroids_ : Matrix<double>());
}

void RunController::reseed(std::uint64_t seed) {
    setup_.init.seed = seed;
    if (bundle_.dataset) request_setup(Matrix<double>());
}

void RunController::set_initial_centroids(const Matrix<double>& centroids) {
    setup_.k = centroids.rows();
    if (bundle_.dataset) request_setup(centroids);
}

bool RunController::move_initial_centroid(std::size_t index, double x, double y) {
    if (!ready_ || running_ || latest_iteration() != 0 || index >= initial_centroids_.rows()) return false;
    // Move within the projection plane; components orthogonal to it stay.
    const Projection2D& projection = bundle_.projection;
    const auto now = projection.project(initial_centroids_.row(index));
    const std::size_t d = initial_centroids_.cols();
    for (std::size_t j = 0; j < d; ++j)
        initial_centroids_(index, j) += (x - now[0]) * projection.axes()[j] + (y - now[1]) * projection.axes()[d + j];
    history_[0].centroids = initial_centroids_;
    ++run_epoch_;  // the solver gets the moved centroids with the next set-up
    const quint64 epoch = run_epoch_;
    QMetaObject::invokeMethod(
        worker_,
        [w = worker_, b = bundle_, s = setup_, c = initial_centroids_, epoch] { w->setup(b, s, c, epoch); },
        Qt::QueuedConnection);
    emit frameChanged();
    return true;
}

void RunController::request_setup(const Matrix<double>& given) {
    pause();
    ready_ = false;
    history_.clear();
    displayed_ = 0;
    stop_reason_ = StopReason::NotStopped;
    const quint64 epoch = ++run_epoch_;
    emit historyChanged();
    emit frameChanged();
    QMetaObject::invokeMethod(
        worker_, [w = worker_, b = bundle_, s = setup_, given, epoch] { w->setup(b, s, given, epoch); },
        Qt::QueuedConnection);
}

void RunController::on_setup_done(const SetupResult& result) {
    if (result.epoch != run_epoch_) return;
    initial_centroids_ = result.initial_centroids;
    setup_.k = initial_centroids_.rows();
    description_ = QString::fromStdString(result.description);
    const bool was_ready = ready_;
    ready_ = true;
    if (!was_ready || history_.size() != 1) {
        history_.assign(1, HistoryEntry{initial_centroids_, {}, nullptr, nullptr});
        displayed_ = 0;
        stop_reason_ = StopReason::NotStopped;
        emit historyChanged();
    }
    emit setupChanged();
    emit frameChanged();
    if (!result.restarts.empty()) {
        const RestartResult& best = result.restarts[static_cast<std::size_t>(result.best_restart)];
        emit statusMessage(tr("Best of %1 restarts: seed %2 (inertia %3 after %4 iterations); stepping it from its start")
                               .arg(result.restarts.size())
                               .arg(best.seed)
                               .arg(best.inertia, 0, 'g', 8)
                               .arg(best.iterations));
    }
}

// ---------------------------------------------------------------- transport

void RunController::step() {
    if (!ready_ || running_) return;
    if (displayed_ < latest_iteration()) {  // after stepping back: replay the kept history
        show(displayed_ + 1);
        return;
    }
    if (converged()) {
        emit statusMessage(tr("Converged (%1)").arg(QString::fromUtf8(to_string(stop_reason_).data())));
        return;
    }
    QMetaObject::invokeMethod(worker_, [w = worker_, e = run_epoch_] { w->step(e); }, Qt::QueuedConnection);
}

void RunController::step_back() {
    if (running_) pause();
    if (displayed_ > 0) show(displayed_ - 1);
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
    history_.push_back(HistoryEntry{result.centroids, result.stats, result.labels, result.point_status});
    stop_reason_ = result.stop_reason;
    trim_label_memory();
    emit historyChanged();
    if (following) {
        displayed_ = latest_iteration();
        emit frameChanged();
    }
    if (converged() && !running_)
        emit statusMessage(tr("Converged after %1 iterations (%2)")
                               .arg(latest_iteration())
                               .arg(QString::fromUtf8(to_string(stop_reason_).data())));
}

// ---------------------------------------------------------------- display

void RunController::show(int iteration) {
    if (iteration < 0 || iteration > latest_iteration() || iteration == displayed_) return;
    displayed_ = iteration;
    ensure_displayed_labels();
    emit frameChanged();
}

void RunController::ensure_displayed_labels() {
    if (displayed_ < 1 || displayed_ > latest_iteration() || running_ || relabel_pending_) return;
    if (history_[static_cast<std::size_t>(displayed_)].labels) return;
    relabel_pending_ = true;
    // Labels of iteration i come from the assignment to the centroids of i - 1.
    QMetaObject::invokeMethod(worker_,
                              [w = worker_, c = history_[static_cast<std::size_t>(displayed_ - 1)].centroids,
                               i = displayed_, e = run_epoch_] { w->relabel(c, i, e); },
                              Qt::QueuedConnection);
}

void RunController::trim_label_memory() {
    const std::size_t per_entry = bundle_.n() * (sizeof(std::int32_t) + sizeof(PointStatus));
    if (per_entry == 0) return;
    std::size_t kept = 0;
    for (const auto& entry : history_) kept += entry.labels ? 1 : 0;
    for (std::size_t i = 1; i + 1 < history_.size() && kept * per_entry > kLabelMemoryBudget; ++i) {
        if (static_cast<int>(i) == displayed_ || !history_[i].labels) continue;
        history_[i].labels.reset();
        history_[i].point_status.reset();
        --kept;
    }
}

const Matrix<double>& RunController::displayed_centroids() const {
    static const Matrix<double> kNone;
    if (history_.empty()) return kNone;
    return history_[static_cast<std::size_t>(displayed_)].centroids;
}

LabelsPtr RunController::displayed_labels() const {
    if (history_.empty() || displayed_ == 0) return nullptr;
    const auto& entry = history_[static_cast<std::size_t>(displayed_)];
    if (entry.labels) return entry.labels;
    // While running fast, show the newest labels that arrived.
    if (running_)
        for (int i = displayed_ - 1; i >= 1; --i)
            if (history_[static_cast<std::size_t>(i)].labels) return history_[static_cast<std::size_t>(i)].labels;
    return nullptr;
}

PointStatusPtr RunController::displayed_point_status() const {
    if (history_.empty() || displayed_ == 0) return nullptr;
    return history_[static_cast<std::size_t>(displayed_)].point_status;
}

LabelsPtr RunController::latest_labels() const {
    for (int i = latest_iteration(); i >= 1; --i)
        if (history_[static_cast<std::size_t>(i)].labels) return history_[static_cast<std::size_t>(i)].labels;
    return nullptr;
}

std::vector<IterationStats> RunController::stats_history() const {
    std::vector<IterationStats> stats;
    for (std::size_t i = 1; i < history_.size(); ++i) stats.push_back(history_[i].stats);
    return stats;
}

}  // namespace kms::ui
