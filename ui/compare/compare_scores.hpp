#pragma once
// Final scores of every solver in a comparison: once a run has converged, its
// final labels are scored (kms::compute_scores, the same settings as the scores
// dock) in a background thread, one run after another. A run that is reset,
// stepped back into a new history or removed cancels its computation through
// its stop_token, so scoring never blocks the comparison.
#include <QObject>
#include <QThread>

#include <optional>
#include <stop_token>
#include <vector>

#include "kms/scores.hpp"
#include "scores/scores_dock.hpp"

namespace kms::ui {

class CompareSession;

class CompareScoresWorker : public QObject {
    Q_OBJECT
public:
    void compute(quint64 serial, int row, const ScoresJob& job);
signals:
    void computed(quint64 serial, int row, kms::Scores scores);
    void failed(quint64 serial, int row, QString message);
};

class CompareScores : public QObject {
    Q_OBJECT
public:
    explicit CompareScores(QObject* parent = nullptr);
    ~CompareScores() override;

    // Look at every run of `session`: score the final labels of those that have
    // converged (unless already scored or queued), forget and cancel the others.
    void update(const CompareSession& session);
    // Cancel everything and forget all runs (comparison left or replaced).
    void clear();

    // The final scores of run `row`, once computed.
    const std::optional<Scores>& scores(std::size_t row) const;
    // No computation queued or running.
    bool idle() const { return in_flight_ == 0; }

signals:
    void scoresReady(int row, kms::Scores scores);
    void scoresCleared(int row);   // the run's scores no longer apply (it was reset)
    void scoresFailed(int row, QString message);

private:
    struct RowState {
        LabelsPtr labels;              // the final labels scored (or being scored)
        quint64 serial = 0;            // the request whose result is accepted
        std::stop_source stop;
        std::optional<Scores> scores;
    };
    void forget(std::size_t row);

    QThread thread_;
    CompareScoresWorker* worker_ = nullptr;
    std::vector<RowState> rows_;
    quint64 serial_ = 0;
    int in_flight_ = 0;
};

}  // namespace kms::ui
