#pragma once
// Side-by-side comparison of 2 to 7 solvers run on the same data from the same
// initial centroids: a summary row per solver (iterations, total and median
// per-iteration time, speed-up, distance evaluations, bound skips, Yinyang's group
// skips, the GEMM filter's certified and listed points, final inertia and scores; best
// value per column in bold) and, for the selected solver, its per-iteration numbers.
// Group and GEMM columns read "–" for solvers without centroid groups or the filter and
// are hidden when no solver has them. Each solver keeps the colour it has in the charts
// (series_colour(row)). Display only.
#include <QAbstractTableModel>
#include <QWidget>

#include <limits>
#include <optional>
#include <vector>

#include "kms/scores.hpp"
#include "kms/stats.hpp"

class QLabel;
class QTableView;

namespace kms::ui {

struct CompareEntry {
    QString name;  // e.g. "elkan/omp/f64"
    std::size_t n = 0, k = 0;
    std::vector<IterationStats> stats;
    std::optional<double> final_inertia;  // the solver's inertia() at the end; else the last recorded one
    std::optional<Scores> scores;         // final scores, once computed
    bool converged = true;                // false while the run goes on: final values read "running"
    QString backend;                      // speed-ups compare runs on the same back end only
};

// Summary numbers of one entry (what the table shows; NaN when unknown).
struct CompareSummary {
    int iterations = 0;
    double total_ms = 0.0;
    // Iteration 1 holds the warm-up (allocations, first touch of the data, bound set-up,
    // a GPU's module load): shown apart, and left out of the speed-up.
    double first_iteration_ms = std::numeric_limits<double>::quiet_NaN();
    double steady_median_ms = std::numeric_limits<double>::quiet_NaN();  // median of iterations 2..; NaN with fewer than 2
    double median_iteration_ms = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t distances = 0;        // point–centroid + centroid–centroid
    double distance_percent = std::numeric_limits<double>::quiet_NaN();  // of Lloyd's iterations·n·k
    double skip_percent = std::numeric_limits<double>::quiet_NaN();      // of iterations·n
    std::uint64_t group_skips = 0;      // Yinyang: (point, group) pairs ruled out by the group filter
    // Of Σ over iterations of n·t; NaN for solvers without groups.
    double group_skip_percent = std::numeric_limits<double>::quiet_NaN();
    // Lloyd's GEMM filter (d >= 16): the points its error bound certified and, of the rest,
    // those settled over a short list of candidates (CUDA), % of n summed over the steps
    // the filter ran; NaN for runs without it.
    double gemm_certified_percent = std::numeric_limits<double>::quiet_NaN();
    double gemm_listed_percent = std::numeric_limits<double>::quiet_NaN();
    double final_inertia = std::numeric_limits<double>::quiet_NaN();
};
CompareSummary summarize(const CompareEntry& entry);
// The time a speed-up compares: the median step of iterations 2.. where there are
// any (the first is warm-up, and a median ignores one slow step of a busy machine),
// else the total. The studio's table and its scripted comparison both use it.
double steady_time_ms(const CompareSummary& summary);

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Solver, Iterations, TotalTime, FirstIteration, MedianTime, SpeedUp, Distances, DistancePercent, SkipPercent,
        GroupSkipPercent, GemmCertifiedPercent, GemmListedPercent, FinalInertia, Silhouette, CalinskiHarabasz, DaviesBouldin, Ari, Nmi, ColumnCount
    };
    // The unformatted number behind a cell (NaN when empty), for sorting and tests.
    static constexpr int kValueRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setEntries(std::vector<CompareEntry> entries);
    void setEntry(int row, CompareEntry entry);
    void appendIteration(int row, const IterationStats& stats);
    void setFinalInertia(int row, double inertia);
    void setScores(int row, const Scores& scores);
    void clear();
    const std::vector<CompareEntry>& entries() const { return entries_; }
    // Whether any entry has this score (ARI/NMI need ground truth).
    bool columnHasValues(int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double value(int row, int column) const;
    bool isBest(int row, int column) const;
    void refresh(int row);

    std::vector<CompareEntry> entries_;
    std::vector<CompareSummary> summaries_;
};

// Per-iteration numbers of one entry.
class IterationDetailModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Iteration, AssignTime, BoundsTime, UpdateTime, TotalTime, Distances, DistancePercent, SkipPercent,
        GroupSkips, GroupSkipPercent, GemmCertifiedPercent, GemmListedPercent, LabelsChanged, MaxShift, Inertia,
        ColumnCount
    };
    static constexpr int kValueRole = CompareModel::kValueRole;

    using QAbstractTableModel::QAbstractTableModel;

    // Show row `row` of `model` (-1 or null: nothing); refresh() after that entry grew.
    void setSource(const CompareModel* model, int row);
    void refresh();
    int sourceRow() const { return row_; }
    // Whether the shown entry has centroid groups (Yinyang): else its group columns are hidden.
    bool hasGroups() const;
    // Whether the shown entry ran Lloyd's GEMM filter: else its GEMM columns are hidden.
    bool hasGemm() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const CompareEntry* entry() const;
    double value(int row, int column) const;
    const CompareModel* model_ = nullptr;
    int row_ = -1;
    int rows_shown_ = 0;
};

class CompareTable : public QWidget {
    Q_OBJECT
public:
    explicit CompareTable(QWidget* parent = nullptr);

    CompareModel* model() const { return model_; }
    IterationDetailModel* detailModel() const { return detail_; }
    QTableView* summaryView() const { return summary_view_; }
    QTableView* detailView() const { return detail_view_; }

    // Same as the model's, keeping the selection and the detail view in step.
    void setEntries(std::vector<CompareEntry> entries);
    void appendIteration(int row, const IterationStats& stats);
    void setFinalInertia(int row, double inertia);
    void setScores(int row, const Scores& scores);
    void clear();
    void selectSolver(int row);
    int selectedSolver() const { return selected_; }

signals:
    void solverSelected(int row);

private:
    void showDetail(int row);
    void updateColumns();
    void updateCounterColumns();  // group and GEMM columns shown only where some solver has them
    void fitSummaryHeight();

    CompareModel* model_ = nullptr;
    IterationDetailModel* detail_ = nullptr;
    QTableView* summary_view_ = nullptr;
    QTableView* detail_view_ = nullptr;
    QLabel* detail_title_ = nullptr;
    int selected_ = -1;
};

}  // namespace kms::ui
