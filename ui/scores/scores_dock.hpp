#pragma once
// Runs kms::compute_scores for the shown iteration in a background thread and
// feeds the charts engineer's ScoresPanel. Requests are debounced (a fast run
// only gets scores when it pauses or converges) and a newer request cancels an
// older computation through its stop_token, so scoring never blocks stepping.
// Silhouette: exact up to kExactSilhouetteMax points, else sampled.
#include <QThread>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <mutex>
#include <stop_token>

#include "kms/dataset.hpp"
#include "kms/matrix.hpp"
#include "kms/scores.hpp"
#include "kms/solver.hpp"
#include "view/labels.hpp"

namespace kms::ui {

class ScoresPanel;

inline constexpr std::size_t kExactSilhouetteMax = 6000;
inline constexpr std::size_t kSilhouetteSample = 3000;

// The scores job: everything it reads is shared and immutable.
struct ScoresJob {
    quint64 serial = 0;
    int iteration = 0;
    std::shared_ptr<const Dataset> dataset;
    LabelsPtr labels;
    Matrix<double> centroids;
    ScoreSettings settings;
};

// compute_scores of the job's labels (with the dataset's ground truth, if any).
Scores score_job(const ScoresJob& job);
// The dock's silhouette settings for n points: exact up to kExactSilhouetteMax,
// else sampled (kSilhouetteSample points, seed 0); the exact silhouette where the
// run runs (the registry's: on the GPU for CUDA runs).
ScoreSettings dock_score_settings(std::size_t n, const SolverConfig& where = {});

class ScoresWorker : public QObject {
    Q_OBJECT
public:
    void compute(const ScoresJob& job);
signals:
    void computed(quint64 serial, int iteration, kms::Scores scores);
    void failed(quint64 serial, int iteration, QString message);
};

class ScoresDock : public QWidget {
    Q_OBJECT
public:
    explicit ScoresDock(QWidget* parent = nullptr);
    ~ScoresDock() override;

    // Scores for these labels (null: clear). Computed after a short pause in requests.
    void request(std::shared_ptr<const Dataset> dataset, LabelsPtr labels, const Matrix<double>& centroids,
                 int iteration);
    ScoresPanel* panel() const { return panel_; }
    // Where the run runs: its back end computes the silhouette when it has its own.
    void set_where(const SolverConfig& where) { where_ = where; }
    // For tests: the last scores shown, and whether a computation is pending.
    bool idle() const { return !pending_ && in_flight_ == 0; }

signals:
    void scoresShown(int iteration);

private:
    void launch();

    ScoresPanel* panel_ = nullptr;
    QThread thread_;
    ScoresWorker* worker_ = nullptr;
    QTimer debounce_;
    std::unique_ptr<ScoresJob> pending_;
    LabelsPtr last_labels_;
    Matrix<double> last_centroids_;  // with the labels: the state last scored
    SolverConfig where_;
    quint64 serial_ = 0;
    int in_flight_ = 0;
    std::stop_source stop_;
};

}  // namespace kms::ui
Q_DECLARE_METATYPE(kms::Scores)
