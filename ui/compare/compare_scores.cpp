#include "compare/compare_scores.hpp"

#include "compare/compare_session.hpp"

namespace kms::ui {

void CompareScoresWorker::compute(quint64 serial, int row, const ScoresJob& job) {
    try {
        emit computed(serial, row, score_job(job));
    } catch (const std::exception& error) {
        emit failed(serial, row, QString::fromStdString(error.what()));
    }
}

CompareScores::CompareScores(QObject* parent) : QObject(parent) {
    qRegisterMetaType<kms::Scores>();
    worker_ = new CompareScoresWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &CompareScoresWorker::computed, this, [this](quint64 serial, int row, const Scores& scores) {
        --in_flight_;
        const auto index = static_cast<std::size_t>(row);
        if (index >= rows_.size() || rows_[index].serial != serial) return;  // reset or replaced meanwhile
        rows_[index].scores = scores;
        emit scoresReady(row, scores);
    });
    connect(worker_, &CompareScoresWorker::failed, this, [this](quint64 serial, int row, const QString& message) {
        --in_flight_;
        const auto index = static_cast<std::size_t>(row);
        if (index < rows_.size() && rows_[index].serial == serial) emit scoresFailed(row, message);
    });
    thread_.setObjectName(QStringLiteral("kms-compare-scores"));
    thread_.start(QThread::LowPriority);
}

CompareScores::~CompareScores() {
    clear();
    thread_.quit();
    thread_.wait();
}

void CompareScores::forget(std::size_t row) {
    RowState& state = rows_[row];
    state.stop.request_stop();
    const bool had_scores = state.scores.has_value();
    state = RowState();
    if (had_scores) emit scoresCleared(static_cast<int>(row));
}

void CompareScores::clear() {
    for (std::size_t row = 0; row < rows_.size(); ++row) rows_[row].stop.request_stop();
    rows_.clear();
}

void CompareScores::update(const CompareSession& session) {
    for (std::size_t row = session.size(); row < rows_.size(); ++row) rows_[row].stop.request_stop();
    rows_.resize(session.size());
    for (std::size_t row = 0; row < session.size(); ++row) {
        const RunController& run = session.run(row);
        const LabelsPtr final_labels = run.converged() ? run.latest_labels() : nullptr;
        RowState& state = rows_[row];
        if (final_labels == state.labels) continue;  // already scored or queued (or nothing to score)
        forget(row);
        // Labels dropped from the history (over the memory budget) are not scored.
        if (!final_labels || !run.has_data() || final_labels->size() != run.dataset().n()) continue;
        ScoresJob job;
        job.iteration = run.latest_iteration();
        job.dataset = run.dataset().dataset;
        job.labels = final_labels;
        job.centroids = run.history().back().centroids;
        job.settings = dock_score_settings(job.dataset->n());
        job.settings.options.stop = state.stop.get_token();
        state.labels = final_labels;
        state.serial = ++serial_;
        job.serial = state.serial;
        ++in_flight_;
        QMetaObject::invokeMethod(
            worker_, [w = worker_, serial = state.serial, r = int(row), job = std::move(job)] { w->compute(serial, r, job); },
            Qt::QueuedConnection);
    }
}

const std::optional<Scores>& CompareScores::scores(std::size_t row) const {
    static const std::optional<Scores> none;
    return row < rows_.size() ? rows_[row].scores : none;
}

}  // namespace kms::ui
