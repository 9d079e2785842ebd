#include "solver_worker.hpp"

#include <QThread>

#include <chrono>

#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"

namespace kms::ui {

namespace {
// While a run loop steps without delay, labels are sent at most this often:
// every iteration's centroids and statistics are kept, but only the newest
// labels are worth drawing.
constexpr auto kLabelInterval = std::chrono::milliseconds(40);
}  // namespace

SolverWorker::SolverWorker(QObject* parent) : QObject(parent) {}
SolverWorker::~SolverWorker() = default;

void SolverWorker::request_stop() {
    stop_requested_.store(true);
    std::lock_guard lock(stop_mutex_);
    load_stop_.request_stop();
}

std::stop_token SolverWorker::fresh_stop_token() {
    std::lock_guard lock(stop_mutex_);
    load_stop_ = std::stop_source();
    stop_requested_.store(false);
    return load_stop_.get_token();
}

DatasetBundle SolverWorker::make_bundle(std::shared_ptr<const Dataset> dataset, int projection_mode) const {
    DatasetBundle bundle;
    bundle.projection = Projection2D::fit(dataset->points, static_cast<ProjectionMode>(projection_mode));
    bundle.projected = std::make_shared<const std::vector<float>>(bundle.projection.project_all(dataset->points));
    bundle.dataset = std::move(dataset);
    return bundle;
}

void SolverWorker::load_file(QString path, quint64 epoch, int projection_mode) {
    LoadOptions options;
    options.cancel = fresh_stop_token();
    options.progress = [this](std::uint64_t done, std::uint64_t total) {
        emit loadProgress(static_cast<qint64>(done), static_cast<qint64>(total));
    };
    try {
        auto dataset = std::make_shared<Dataset>(load_dataset(path.toStdString(), options));
        if (dataset->n() == 0) throw InputError::whole(path.toStdString(), "the file holds no points");
        emit datasetReady(make_bundle(std::move(dataset), projection_mode), epoch);
    } catch (const std::exception& error) {
        emit loadFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::generate(QString spec, quint64 seed, quint64 epoch, int projection_mode) {
    try {
        auto dataset = std::make_shared<Dataset>(generate_dataset(spec.toStdString(), seed));
        if (dataset->n() == 0) throw InputError::whole(spec.toStdString(), "the generator made no points");
        emit datasetReady(make_bundle(std::move(dataset), projection_mode), epoch);
    } catch (const std::exception& error) {
        emit loadFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::reproject(DatasetBundle bundle, int projection_mode, quint64 epoch) {
    if (!bundle.dataset) return;
    emit datasetReady(make_bundle(bundle.dataset, projection_mode), epoch);
}

void SolverWorker::setup(DatasetBundle bundle, RunSetup setup, Matrix<double> given, quint64 epoch) {
    solver_.reset();
    solver_epoch_ = epoch;
    last_labels_iteration_ = -1;
    try {
        if (!bundle.dataset) throw Error("no data loaded");
        dataset_ = bundle.dataset;
        const Matrix<double>& points = dataset_->points;
        Matrix<double> initial;
        if (given.rows() > 0) {
            if (given.cols() != points.cols())
                throw Error("initial centroids have " + std::to_string(given.cols()) + " coordinates, the data " +
                            std::to_string(points.cols()));
            initial = std::move(given);
        } else {
            InitOptions init = setup.init;
            init.threads = setup.config.threads;
            initial = initialize_centroids(points, setup.k, init, dataset_->name);
        }
        SolverConfig config = setup.config;
        config.record_point_status = true;  // the bounds view needs it; costs one byte per point
        config.compute_inertia = true;      // the charts plot it
        auto solver = make_solver(config);
        // Aliasing pointer: the solver shares the dataset's matrix, no copy.
        solver->set_data(std::shared_ptr<const Matrix<double>>(dataset_, &dataset_->points));
        solver->set_initial_centroids(initial);
        solver_ = std::move(solver);
        emit setupDone(SetupResult{epoch, std::move(initial), config.describe()});
    } catch (const std::exception& error) {
        emit setupFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::reset_run(quint64 epoch) {
    if (!solver_) return;
    solver_->reset();
    solver_epoch_ = epoch;
    last_labels_iteration_ = -1;
}

bool SolverWorker::do_step(quint64 epoch, bool with_labels) {
    StepResult result;
    result.epoch = epoch;
    try {
        result.stats = solver_->step();
        result.centroids = solver_->centroids();
        result.stop_reason = solver_->stop_reason();
        if (offer_device_labels_.load() && solver_->device_labels()) {
            emit deviceLabelsReady(solver_->device_labels(), solver_->device_point_status(), dataset_->n(), epoch);
        }
        if (with_labels || solver_->converged()) {
            result.labels = std::make_shared<const std::vector<std::int32_t>>(solver_->labels());
            result.point_status = std::make_shared<const std::vector<PointStatus>>(solver_->point_status());
            last_labels_iteration_ = solver_->iteration();
        }
    } catch (const std::exception& error) {
        emit stepFailed(QString::fromStdString(error.what()), epoch);
        return false;
    }
    emit stepped(std::move(result));
    return true;
}

void SolverWorker::step(quint64 epoch) {
    if (!solver_ || epoch != solver_epoch_ || solver_->converged()) return;
    do_step(epoch, true);
}

void SolverWorker::run(quint64 epoch, int max_steps, bool no_delay) {
    // Always report both edges, so the GUI's "running" state cannot stick.
    emit runningChanged(true, epoch);
    if (!solver_ || epoch != solver_epoch_) {
        emit runningChanged(false, epoch);
        return;
    }
    stop_requested_.store(false);
    using Clock = std::chrono::steady_clock;
    auto last_labels = Clock::now() - kLabelInterval;
    int steps = 0;
    while (!stop_requested_.load() && !solver_->converged() &&
           (max_steps < 0 || steps < max_steps)) {
        const int delay = no_delay ? 0 : delay_ms_.load();
        const bool last_wanted = max_steps >= 0 && steps + 1 == max_steps;
        const bool with_labels = delay > 0 || last_wanted || Clock::now() - last_labels >= kLabelInterval;
        if (!do_step(epoch, with_labels)) break;
        if (with_labels) last_labels = Clock::now();
        ++steps;
        // Sleep in short slices so stop and a changed delay act at once.
        const auto wake = Clock::now() + std::chrono::milliseconds(no_delay ? 0 : delay_ms_.load());
        while (!stop_requested_.load() && Clock::now() < wake) QThread::msleep(5);
    }
    // The last step of a fast run may have gone out without labels: send them.
    if (steps > 0 && !solver_->converged() && last_labels_iteration_ != solver_->iteration()) {
        emit latestLabels(std::make_shared<const std::vector<std::int32_t>>(solver_->labels()),
                          std::make_shared<const std::vector<PointStatus>>(solver_->point_status()),
                          solver_->iteration(), epoch);
    }
    emit runningChanged(false, epoch);
}

void SolverWorker::relabel(Matrix<double> centroids, int iteration, quint64 epoch) {
    if (!dataset_) return;
    const std::size_t n = dataset_->points.rows();
    LabelsPtr labels;
    try {
        // The engine's own full assignment in the run's precision: exactly the
        // labels the solver gave at that iteration, ties and all.
        SolverConfig config;
        config.algorithm = Algorithm::Lloyd;
        config.backend = Backend::OpenMP;
        config.precision = solver_ ? solver_->config().precision : Precision::F64;
        config.threads = solver_ ? solver_->config().threads : 0;
        auto relabeller = make_cpu_solver(config);
        relabeller->set_data(std::shared_ptr<const Matrix<double>>(dataset_, &dataset_->points));
        relabeller->set_initial_centroids(centroids);
        relabeller->finalize_labels();
        labels = std::make_shared<const std::vector<std::int32_t>>(relabeller->labels());
    } catch (const std::exception& error) {
        // Shown as unassigned, with the reason in the status bar: never silently wrong.
        emit stepFailed(QString::fromStdString(error.what()), epoch);
        labels = std::make_shared<const std::vector<std::int32_t>>(n, -1);
    }
    emit relabelled(std::move(labels), iteration, epoch);
}

}  // namespace kms::ui
