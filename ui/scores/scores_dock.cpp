#include "scores/scores_dock.hpp"

#include <QVBoxLayout>

#include <algorithm>

#include "kms/backends.hpp"
#include "scores/scores_panel.hpp"

namespace kms::ui {

Scores score_job(const ScoresJob& job) {
    ScoreInputs inputs;
    inputs.points = &job.dataset->points;
    inputs.labels = *job.labels;
    inputs.centroids = job.centroids.rows() > 0 ? &job.centroids : nullptr;
    if (job.dataset->truth_labels.size() == job.dataset->n()) inputs.truth_labels = job.dataset->truth_labels;
    if (job.dataset->truth_centroids.rows() > 0 && job.dataset->truth_centroids.cols() == job.dataset->d())
        inputs.truth_centroids = &job.dataset->truth_centroids;
    return compute_scores(inputs, job.settings);
}

ScoreSettings dock_score_settings(std::size_t n, const SolverConfig& where) {
    ScoreSettings settings;
    if (backend_availability(where.backend).available)
        settings.exact_silhouette = [where](const Matrix<double>& points, std::span<const std::int32_t> labels,
                                            std::stop_token stop) { return silhouette_for(where, points, labels, stop); };
    if (n <= kExactSilhouetteMax) {
        settings.silhouette = SilhouetteMode::Exact;
    } else {
        settings.silhouette = SilhouetteMode::Sampled;
        settings.sample_size = kSilhouetteSample;
        settings.seed = 0;
    }
    return settings;
}

void ScoresWorker::compute(const ScoresJob& job) {
    try {
        emit computed(job.serial, job.iteration, score_job(job));
    } catch (const std::exception& error) {
        emit failed(job.serial, job.iteration, QString::fromStdString(error.what()));
    }
}

ScoresDock::ScoresDock(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<kms::Scores>();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    panel_ = new ScoresPanel(this);
    layout->addWidget(panel_);
    worker_ = new ScoresWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &ScoresWorker::computed, this, [this](quint64 serial, int iteration, const Scores& scores) {
        --in_flight_;
        if (serial != serial_ || !last_labels_) return;  // a newer request is on its way
        panel_->setScores(scores, last_labels_->size(), iteration, *last_labels_);
        emit scoresShown(iteration);
    });
    connect(worker_, &ScoresWorker::failed, this, [this](quint64 serial, int, const QString& message) {
        --in_flight_;
        if (serial == serial_) panel_->setFailed(message);
    });
    thread_.setObjectName(QStringLiteral("kms-scores"));
    thread_.start(QThread::LowPriority);
    debounce_.setSingleShot(true);
    debounce_.setInterval(150);
    connect(&debounce_, &QTimer::timeout, this, &ScoresDock::launch);
}

ScoresDock::~ScoresDock() {
    stop_.request_stop();
    thread_.quit();
    thread_.wait();
}

void ScoresDock::request(std::shared_ptr<const Dataset> dataset, LabelsPtr labels, const Matrix<double>& centroids,
                         int iteration) {
    // The same labels with other centroids (a half-step's assignment, then its update)
    // are another state: keyed by labels alone, the scores depended on how the
    // shown half-step was reached (issue 36).
    const bool same_centroids = centroids.rows() == last_centroids_.rows() && centroids.cols() == last_centroids_.cols() &&
                                std::equal(centroids.data(), centroids.data() + centroids.rows() * centroids.cols(),
                                           last_centroids_.data());
    if (labels == last_labels_ && labels && same_centroids) return;
    if (!labels || !dataset || labels->size() != dataset->n()) {
        ++serial_;
        stop_.request_stop();
        pending_.reset();
        last_labels_.reset();
        panel_->clear();
        return;
    }
    auto job = std::make_unique<ScoresJob>();
    job->iteration = iteration;
    job->dataset = std::move(dataset);
    job->labels = labels;
    job->centroids = centroids;
    job->settings = dock_score_settings(job->dataset->n(), where_);
    pending_ = std::move(job);
    panel_->markStale(iteration);
    debounce_.start();
}

void ScoresDock::launch() {
    if (!pending_) return;
    stop_.request_stop();  // whatever runs now is out of date
    stop_ = std::stop_source();
    ScoresJob job = std::move(*pending_);
    pending_.reset();
    job.serial = ++serial_;
    job.settings.options.stop = stop_.get_token();
    last_labels_ = job.labels;
    last_centroids_ = job.centroids;
    panel_->setComputing(job.iteration);
    ++in_flight_;
    QMetaObject::invokeMethod(worker_, [w = worker_, job = std::move(job)] { w->compute(job); }, Qt::QueuedConnection);
}

}  // namespace kms::ui
