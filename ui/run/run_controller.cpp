#include "run/run_controller.hpp"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QTimer>

#include <algorithm>
#include <numeric>
#include <utility>

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
    connect(worker_, &SolverWorker::relabelled, this,
            [this](const LabelsPtr& labels, int iteration, bool assign_phase, quint64 epoch) {
        relabel_pending_ = false;
        if (epoch != run_epoch_ || iteration > latest_iteration()) return;
        if (assign_phase) history_[static_cast<std::size_t>(iteration)].assign_labels = labels;
        else history_[static_cast<std::size_t>(iteration)].labels = labels;
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
    pending_source_ = tr("file %1").arg(path);
    pending_source_spec_.clear();
    pending_initial_ = Matrix<double>();
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    emit loadStarted(path);
    QMetaObject::invokeMethod(worker_, [w = worker_, path, epoch, mode, geo = geo_] { w->load_file(path, epoch, mode, geo); },
                              Qt::QueuedConnection);
}

void RunController::generate(const QString& spec, std::uint64_t seed) {
    pause();
    loading_ = true;
    pending_source_ = tr("generated %1, data seed %2").arg(spec).arg(seed);
    pending_source_spec_ = spec.toStdString();
    pending_source_seed_ = seed;
    pending_initial_ = Matrix<double>();
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    emit loadStarted(spec);
    QMetaObject::invokeMethod(
        worker_, [w = worker_, spec, seed, epoch, mode, geo = geo_] { w->generate(spec, seed, epoch, mode, geo); },
        Qt::QueuedConnection);
}

void RunController::open_run(const RunFile& run, bool step_to_recorded) {
    pause();
    loading_ = true;
    steps_after_open_ = step_to_recorded ? run.steps : 0;
    steps_after_open_epoch_ = data_epoch_ + 1;  // the epoch this load takes below
    setup_.config = run.options.solver;
    setup_.init = run.options.init;
    setup_.n_init = run.options.n_init;
    setup_.k = run.initial_centroids.rows();
    pending_initial_ = run.initial_centroids;
    pending_source_spec_ = run.generator;
    pending_source_seed_ = run.data_seed;
    pending_source_ = run.generator.empty()
                          ? tr("replay: %1 points stored in the file").arg(run.inline_data.n())
                          : tr("replay: generated %1, data seed %2").arg(QString::fromStdString(run.generator)).arg(run.data_seed);
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    emit loadStarted(tr("replay file"));
    QMetaObject::invokeMethod(worker_, [w = worker_, run, epoch, mode] { w->open_data(run, epoch, mode); },
                              Qt::QueuedConnection);
}

void RunController::set_drawn_data(Dataset data) {
    RunFile run;
    run.inline_data = std::move(data);
    pause();
    loading_ = true;
    // Each stroke makes new data; the initial centroids stay (also ones placed by hand):
    // re-seeding on every stroke lost them (issue 36).
    const bool keep_centroids = ready_ && initial_centroids_.rows() == setup_.k &&
                                initial_centroids_.cols() == run.inline_data.d() && run.inline_data.n() >= setup_.k;
    pending_initial_ = keep_centroids ? initial_centroids_ : Matrix<double>();
    pending_source_spec_.clear();
    pending_source_ = tr("drawn: %1 points").arg(run.inline_data.n());
    const quint64 epoch = ++data_epoch_;
    const int mode = static_cast<int>(projection_mode_);
    QMetaObject::invokeMethod(worker_, [w = worker_, run, epoch, mode] { w->open_data(run, epoch, mode); },
                              Qt::QueuedConnection);
}

RunFile RunController::run_file() const {
    RunFile run;
    if (!generator_spec_.empty()) {
        run.generator = generator_spec_;
        run.data_seed = generator_seed_;
    } else if (bundle_.dataset) {
        run.inline_data = *bundle_.dataset;
    }
    run.options.solver = setup_.config;
    run.options.init = setup_.init;
    run.options.init.cancel = {};
    run.options.n_init = setup_.n_init;
    run.options.k = initial_centroids_.rows();
    run.initial_centroids = initial_centroids_;
    run.steps = latest_iteration();
    return run;
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
    if (!same_data && !pending_source_.isEmpty()) {
        data_source_ = pending_source_;
        generator_spec_ = pending_source_spec_;
        generator_seed_ = pending_source_seed_;
        pending_source_.clear();
    } else if (!same_data) {
        data_source_ = QString::fromStdString(bundle_.dataset->name);
        generator_spec_.clear();
    }
    emit datasetChanged();
    if (same_data && ready_) {
        emit frameChanged();  // only the projection changed: the run goes on
        return;
    }
    if (pending_initial_.rows() > 0) {
        // A replay: its own initial centroids, exactly.
        const Matrix<double> initial = std::move(pending_initial_);
        pending_initial_ = Matrix<double>();
        emit statusMessage(data_source_.startsWith(QLatin1String("replay"))
                               ? tr("Opened the run: %1").arg(data_source_)
                               : tr("%1, initial centroids kept").arg(data_source_));
        request_initial_centroids(initial);
        return;
    }
    if (k_from_data_ && !bundle_.dataset->truth_labels.empty()) {
        // A labelled set brings its number of classes: k of the previous data means nothing here.
        const auto classes = *std::max_element(bundle_.dataset->truth_labels.begin(), bundle_.dataset->truth_labels.end());
        if (classes >= 0) setup_.k = std::min<std::size_t>(bundle_.n(), std::size_t(classes) + 1);
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

bool RunController::add_initial_centroid(double x, double y) {
    if (!centroids_editable() || initial_centroids_.rows() >= bundle_.n()) return false;
    const std::vector<double> position = bundle_.projection.unproject(x, y);
    const std::size_t k = initial_centroids_.rows(), d = initial_centroids_.cols();
    if (position.size() != d) return false;
    Matrix<double> centroids(k + 1, d);
    std::copy(initial_centroids_.data(), initial_centroids_.data() + k * d, centroids.data());
    std::copy(position.begin(), position.end(), centroids.row(k));
    std::vector<std::size_t> colours = colour_slots_;
    if (colours.size() != k) {
        colours.resize(k);
        std::iota(colours.begin(), colours.end(), std::size_t(0));
    }
    std::size_t free_slot = 0;
    while (std::find(colours.begin(), colours.end(), free_slot) != colours.end()) ++free_slot;
    colours.push_back(free_slot);
    request_initial_centroids(centroids, std::move(colours));
    return true;
}

bool RunController::remove_initial_centroid(std::size_t index) {
    const std::size_t k = initial_centroids_.rows(), d = initial_centroids_.cols();
    if (!centroids_editable() || index >= k || k <= 1) return false;
    Matrix<double> centroids(k - 1, d);
    for (std::size_t i = 0, row = 0; i < k; ++i)
        if (i != index) std::copy(initial_centroids_.row(i), initial_centroids_.row(i) + d, centroids.row(row++));
    std::vector<std::size_t> colours = colour_slots_;
    if (colours.size() != k) {
        colours.resize(k);
        std::iota(colours.begin(), colours.end(), std::size_t(0));
    }
    colours.erase(colours.begin() + std::ptrdiff_t(index));
    request_initial_centroids(centroids, std::move(colours));
    return true;
}

void RunController::request_initial_centroids(const Matrix<double>& centroids, std::vector<std::size_t> colours) {
    setup_.k = centroids.rows();
    initial_centroids_ = centroids;
    request_setup(centroids);
    if (colours.size() == centroids.rows()) colour_slots_ = std::move(colours);
}

void RunController::request_setup(const Matrix<double>& given) {
    pause();
    colour_slots_.clear();  // new centroids: colours in their order (a hand edit sets its own after this)
    ready_ = false;
    history_.clear();
    displayed_ = 0;
    displayed_phase_ = Phase::Update;
    assign_phase_next_ = false;
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
        HistoryEntry start;
        start.centroids = initial_centroids_;
        history_.assign(1, std::move(start));
        displayed_ = 0;
        stop_reason_ = StopReason::NotStopped;
        emit historyChanged();
    }
    emit setupChanged();
    emit frameChanged();
    // The seeding's cost (with bounds: how few of the n·k distances it needed), then the restarts.
    const QString seeded = result.seeding.empty() ? QString() : tr("Seeded by %1").arg(QString::fromStdString(result.seeding));
    if (!result.restarts.empty()) {
        const RestartResult& best = result.restarts[static_cast<std::size_t>(result.best_restart)];
        emit statusMessage(tr("Best of %1 restarts: seed %2 (inertia %3 after %4 iterations); stepping it from its start")
                               .arg(result.restarts.size())
                               .arg(best.seed)
                               .arg(best.inertia, 0, 'g', 8)
                               .arg(best.iterations) +
                           (seeded.isEmpty() ? QString() : QStringLiteral(". ") + seeded));
    } else if (!seeded.isEmpty()) {
        emit statusMessage(seeded);
    }
    if (steps_after_open_ > 0 && steps_after_open_epoch_ == data_epoch_)
        run_steps(std::exchange(steps_after_open_, 0));  // where the saved run was
}

// ---------------------------------------------------------------- display

void RunController::show(int iteration, Phase phase) {
    if (iteration == 0) phase = Phase::Update;
    if (iteration < 0 || iteration > latest_iteration() || (iteration == displayed_ && phase == displayed_phase_)) return;
    displayed_ = iteration;
    displayed_phase_ = phase;
    ensure_displayed_labels();
    emit frameChanged();
}

void RunController::ensure_displayed_labels() {
    if (displayed_ < 1 || displayed_ > latest_iteration() || running_ || relabel_pending_) return;
    const HistoryEntry& entry = history_[static_cast<std::size_t>(displayed_)];
    const bool assign_phase = displayed_phase_ == Phase::Assign && entry.finalized;
    if (assign_phase ? entry.assign_labels != nullptr : entry.labels != nullptr) return;
    relabel_pending_ = true;
    // Labels of iteration i come from the assignment to the centroids of i - 1
    // (a finalized entry's own labels: to its final centroids).
    const Matrix<double>& centroids =
        entry.finalized && !assign_phase ? entry.centroids : history_[static_cast<std::size_t>(displayed_ - 1)].centroids;
    QMetaObject::invokeMethod(worker_,
                              [w = worker_, c = centroids, i = displayed_, assign_phase, e = run_epoch_] {
                                  w->relabel(c, i, assign_phase, e);
                              },
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
    // The assignment half-step: labels new, centroids where they were.
    if (displayed_phase_ == Phase::Assign && displayed_ > 0)
        return history_[static_cast<std::size_t>(displayed_ - 1)].centroids;
    return history_[static_cast<std::size_t>(displayed_)].centroids;
}

LabelsPtr RunController::displayed_labels() const {
    if (history_.empty() || displayed_ == 0) return nullptr;
    const auto& entry = history_[static_cast<std::size_t>(displayed_)];
    if (displayed_phase_ == Phase::Assign && entry.finalized) return entry.assign_labels;
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
