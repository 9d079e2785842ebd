#include "run/solver_worker.hpp"

#include <QStringList>
#include <QThread>

#include <chrono>

#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "geo/geo_view.hpp"
#include "kms/generate.hpp"
#include "kms/report.hpp"
#include "kms/geo.hpp"
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
    std::lock_guard lock(stop_mutex_);
    load_stop_.request_stop();
}

std::stop_token SolverWorker::fresh_stop_token() {
    std::lock_guard lock(stop_mutex_);
    load_stop_ = std::stop_source();
    return load_stop_.get_token();
}

DatasetBundle SolverWorker::make_bundle(std::shared_ptr<const Dataset> dataset, int projection_mode,
                                        std::shared_ptr<const GeoView> geo) const {
    DatasetBundle bundle;
    // Geographic data keep their map whatever the projection mode (ui/geo/).
    bundle.projection = geo ? geo->view_projection()
                            : Projection2D::fit(dataset->points, static_cast<ProjectionMode>(projection_mode));
    bundle.geo = std::move(geo);
    bundle.projected = std::make_shared<const std::vector<float>>(bundle.projection.project_all(dataset->points));
    bundle.dataset = std::move(dataset);
    return bundle;
}

DatasetBundle SolverWorker::make_geo_bundle(GeoData data) const {
    std::shared_ptr<const GeoView> geo = make_geo_view(data);
    return make_bundle(std::make_shared<Dataset>(std::move(data.projected)), 0, std::move(geo));
}

void SolverWorker::load_file(QString path, quint64 epoch, int projection_mode, GeoOptions geo) {
    LoadOptions options;
    options.cancel = fresh_stop_token();
    options.progress = [this](std::uint64_t done, std::uint64_t total) {
        emit loadProgress(static_cast<qint64>(done), static_cast<qint64>(total));
    };
    try {
        if (geo.enabled) {
            emit datasetReady(make_geo_bundle(load_geo_data(path.toStdString(), geo, options)), epoch);
            return;
        }
        auto dataset = std::make_shared<Dataset>(load_dataset(path.toStdString(), options));
        if (dataset->n() == 0) throw InputError::whole(path.toStdString(), "the file holds no points");
        emit datasetReady(make_bundle(std::move(dataset), projection_mode), epoch);
    } catch (const std::exception& error) {
        emit loadFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::generate(QString spec, quint64 seed, quint64 epoch, int projection_mode, GeoOptions geo) {
    try {
        if (geo.enabled || spec.startsWith(QStringLiteral("geo-"))) {
            emit datasetReady(make_geo_bundle(geo_data_from_degrees(generate_dataset(spec.toStdString(), seed), geo)),
                              epoch);
            return;
        }
        auto dataset = std::make_shared<Dataset>(generate_dataset(spec.toStdString(), seed));
        if (dataset->n() == 0) throw InputError::whole(spec.toStdString(), "the generator made no points");
        emit datasetReady(make_bundle(std::move(dataset), projection_mode), epoch);
    } catch (const std::exception& error) {
        emit loadFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::open_data(const RunFile& run, quint64 epoch, int projection_mode) {
    try {
        auto dataset = std::make_shared<Dataset>(run.dataset());
        if (dataset->n() == 0) throw Error("the run file holds no points");
        emit datasetReady(make_bundle(std::move(dataset), projection_mode), epoch);
    } catch (const std::exception& error) {
        emit loadFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::reproject(DatasetBundle bundle, int projection_mode, quint64 epoch) {
    if (!bundle.dataset) return;
    emit datasetReady(make_bundle(bundle.dataset, projection_mode, bundle.geo), epoch);
}

void SolverWorker::setup(DatasetBundle bundle, RunSetup setup, Matrix<double> given, quint64 epoch) {
    run_.reset();
    solver_epoch_ = epoch;
    last_labels_iteration_ = -1;
    try {
        if (!bundle.dataset) throw Error("no data loaded");
        dataset_ = bundle.dataset;
        // The engine prepares the run as fit() does (kms::prepare_run): the solver (auto
        // chosen or raced), the initial centroids (given, seeded, or the best of the restarts).
        FitOptions options{setup.config, setup.k, setup.init, setup.n_init, nullptr, nullptr, setup.devices};
        options.solver.record_point_status = true;  // the bounds view needs it; costs one byte per point
        options.solver.compute_inertia = true;      // the charts plot it
        // Geographic data: --init FILE holds degrees, as the exported centroids (one frame, as the CLI).
        if (bundle.geo && options.init.method == InitMethod::File && !options.init.given && given.rows() == 0) {
            LoadOptions load;
            load.cancel = fresh_stop_token();
            options.init.given = std::make_shared<const Matrix<double>>(
                load_geo_centroids(options.init.path, options.k, bundle.geo->projection, load));
        }
        PreparedRun prepared = prepare_run(points(), options, given, fresh_stop_token(), dataset_->name);
        SetupResult result{epoch, std::move(prepared.initial_centroids), prepared.solver.describe(),
                           std::move(prepared.restarts), prepared.best_restart, {}};
        if (given.rows() == 0 && !options.init.given && options.init.method != InitMethod::File)
            result.seeding = describe_seeding(to_string(options.init.method), prepared.init, dataset_->n(), options.k);
        if (!setup.devices.empty()) {
            QStringList devices;
            for (int device : setup.devices) devices << QString::number(device);
            result.description += " on devices " + devices.join(',').toStdString();
        }
        run_ = std::move(prepared.run);
        emit setupDone(std::move(result));
    } catch (const std::exception& error) {
        emit setupFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::reset_run(quint64 epoch) {
    if (!run_) return;
    run_->reset();
    solver_epoch_ = epoch;
    last_labels_iteration_ = -1;
}

void SolverWorker::emit_step(const IterationStats& stats, quint64 epoch, bool with_labels) {
    const Solver& solver = run_->solver();
    StepResult result;
    result.epoch = epoch;
    result.stats = stats;
    result.centroids = solver.centroids();
    result.stop_reason = solver.stop_reason();
    if (offer_device_labels_.load() && solver.device_labels())
        emit deviceLabelsReady(solver.device_labels(), solver.device_point_status(), dataset_->n(), epoch);
    if (with_labels || solver.converged()) {
        // Timed apart: copying labels for the GUI is the studio's cost, not the solver's.
        const auto start = std::chrono::steady_clock::now();
        result.labels = std::make_shared<const std::vector<std::int32_t>>(solver.labels());
        result.point_status = std::make_shared<const std::vector<PointStatus>>(solver.point_status());
        result.handover_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        last_labels_iteration_ = solver.iteration();
    }
    emit stepped(std::move(result));
}

void SolverWorker::step(quint64 epoch) {
    if (!run_ || epoch != solver_epoch_ || run_->finished()) return;
    try {
        run_->advance(1, {}, [&](const IterationStats& stats) {
            emit_step(stats, epoch, true);
            return true;
        });
    } catch (const std::exception& error) {
        emit stepFailed(QString::fromStdString(error.what()), epoch);
    }
}

void SolverWorker::run(quint64 epoch, int max_steps, bool no_delay) {
    // Always report both edges, so the GUI's "running" state cannot stick.
    emit runningChanged(true, epoch);
    if (!run_ || epoch != solver_epoch_) {
        emit runningChanged(false, epoch);
        return;
    }
    const std::stop_token stop = fresh_stop_token();
    using Clock = std::chrono::steady_clock;
    auto last_labels = Clock::now() - kLabelInterval;
    int steps = 0;
    try {
        // The fit layer's loop; this callback only decides what to send and paces the run.
        run_->advance(max_steps, stop, [&](const IterationStats& stats) {
            ++steps;
            const int delay = no_delay ? 0 : delay_ms_.load();
            const bool last_wanted = max_steps >= 0 && steps == max_steps;
            const bool with_labels = delay > 0 || last_wanted || Clock::now() - last_labels >= kLabelInterval;
            emit_step(stats, epoch, with_labels);
            if (with_labels) last_labels = Clock::now();
            // Sleep in short slices so stop and a changed delay act at once.
            const auto wake = Clock::now() + std::chrono::milliseconds(no_delay ? 0 : delay_ms_.load());
            while (!stop.stop_requested() && Clock::now() < wake) QThread::msleep(5);
            return true;
        });
    } catch (const std::exception& error) {
        emit stepFailed(QString::fromStdString(error.what()), epoch);
    }
    // The last step of a fast run may have gone out without labels: send them.
    const Solver& solver = run_->solver();
    if (steps > 0 && !solver.converged() && last_labels_iteration_ != solver.iteration()) {
        emit latestLabels(std::make_shared<const std::vector<std::int32_t>>(solver.labels()),
                          std::make_shared<const std::vector<PointStatus>>(solver.point_status()),
                          solver.iteration(), epoch);
    }
    emit runningChanged(false, epoch);
}

void SolverWorker::relabel(Matrix<double> centroids, int iteration, bool assign_phase, quint64 epoch) {
    if (!dataset_) return;
    LabelsPtr labels;
    try {
        // The engine's own assignment in the run's precision and back end: exactly
        // the labels the solver gave at that iteration, ties and all.
        SolverConfig config = run_ ? run_->solver().config() : SolverConfig{};
        config.algorithm = Algorithm::Lloyd;
        labels = std::make_shared<const std::vector<std::int32_t>>(assign(points(), centroids, config).labels);
    } catch (const std::exception& error) {
        // Shown as unassigned, with the reason in the status bar: never silently wrong.
        emit stepFailed(QString::fromStdString(error.what()), epoch);
        labels = std::make_shared<const std::vector<std::int32_t>>(dataset_->n(), -1);
    }
    emit relabelled(std::move(labels), iteration, assign_phase, epoch);
}

}  // namespace kms::ui
