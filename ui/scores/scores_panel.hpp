#pragma once
// The live scores panel: silhouette (exact, or sampled m of n ± standard error),
// Calinski–Harabasz, Davies–Bouldin, inertia, ARI/NMI (and the centroid index)
// when the data has ground truth, plus the per-cluster silhouette diagram.
// Display only: the studio computes kms::Scores in the background and hands
// them over; the panel shows "computing…" and "stale" states meanwhile.
#include <QString>
#include <QWidget>

#include <array>
#include <cstdint>
#include <span>

#include "kms/scores.hpp"

class QLabel;

namespace kms::ui {

class SilhouettePlot;

class ScoresPanel : public QWidget {
    Q_OBJECT
public:
    enum class State { Empty, Computing, Ready, Stale, Failed };
    enum class Row { Silhouette, CalinskiHarabasz, DaviesBouldin, Inertia, Ari, Nmi, CentroidIndex };
    static constexpr int kRowCount = 7;

    explicit ScoresPanel(QWidget* parent = nullptr);

    // Scores of the labels after `iteration`; n = points in the data (for "m of n");
    // labels = the run's labels (one per point) for the silhouette diagram.
    void setScores(const Scores& scores, std::size_t n, int iteration, std::span<const std::int32_t> labels);
    // Scores for `iteration` are being computed; the previous values stay, greyed.
    void setComputing(int iteration);
    // The run moved on to `iteration` and nobody asked for new scores yet.
    void markStale(int iteration);
    // Computing failed (e.g. cancelled, or too few clusters); the message is shown.
    void setFailed(const QString& message);
    void clear();

    State state() const { return state_; }
    int scoresIteration() const { return scores_iteration_; }
    // What the panel shows now, for tests and for copying: value text of a row
    // (empty when the row is hidden), the status line, the notes line.
    QString valueText(Row row) const;
    bool rowVisible(Row row) const;
    QString statusText() const;
    QString notesText() const;
    SilhouettePlot* silhouettePlot() const { return silhouette_plot_; }

private:
    void showState();

    struct RowWidgets {
        QLabel* name = nullptr;
        QLabel* value = nullptr;
        QLabel* hint = nullptr;
    };
    std::array<RowWidgets, kRowCount> rows_{};
    QLabel* status_ = nullptr;
    QLabel* notes_ = nullptr;
    SilhouettePlot* silhouette_plot_ = nullptr;
    State state_ = State::Empty;
    int scores_iteration_ = -1;
    int pending_iteration_ = -1;
    QString failure_;
};

// "0.6213 (exact, all 6,000 points)" / "0.6213 ± 0.0042 (sampled: 2,000 of 100,000 points)".
QString silhouette_text(const Scores& scores, std::size_t n);

}  // namespace kms::ui
