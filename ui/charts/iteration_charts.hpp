#pragma once
// The per-iteration charts panel: time per phase, distance evaluations as a
// percentage of Lloyd's n·k, bound-skip percentage (and Yinyang's group skips as
// a percentage of n·t, dashed, for runs that have groups), labels changed, inertia and
// largest centroid shift, for one run or several overlaid (one colour per run,
// the same series_colour() the compare table uses). Display only: it is fed the
// IterationStats the solver produced and never calls a solver itself.
#include <QString>
#include <QWidget>

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "kms/stats.hpp"

class QGridLayout;

namespace kms::ui {

class PlotWidget;

// Work of one iteration relative to Lloyd's n·k point–centroid distances, in
// percent: (point–centroid + centroid–centroid evaluations) / (n·k) × 100.
double distance_percent_of_lloyd(const IterationStats& stats, std::size_t n, std::size_t k);
// Points whose full search the bounds avoided, in percent of n.
double bound_skip_percent(const IterationStats& stats, std::size_t n);
// Yinyang's group filter: (point, group) pairs it ruled out whole, in percent of
// n·t (t = stats.groups). NaN for solvers without groups (stats.groups == 0).
// Points the global filter settled are not counted (bound_skip_percent has them).
double group_skip_percent(const IterationStats& stats, std::size_t n);
// Lloyd's GEMM filter: points whose label its error bound proved (no exact search),
// in percent of n. NaN for steps the filter did not run (no certified or verified
// point: every other solver, the exact kernel, d < 16 or k small).
double gemm_certified_percent(const IterationStats& stats, std::size_t n);
// CUDA's GEMM filter: the uncertified points settled by exact distances to a short
// list of candidates (the rest: over all k), in percent of n; NaN as above.
double gemm_listed_percent(const IterationStats& stats, std::size_t n);
// Whether any record comes from a step of the GEMM filter.
bool has_gemm(const std::vector<IterationStats>& stats);
// Whether any step settled points over candidate lists (CUDA's filter).
bool has_gemm_lists(const std::vector<IterationStats>& stats);
// Whether any record comes from a solver with centroid groups (Yinyang).
bool has_groups(const std::vector<IterationStats>& stats);

struct ChartRun {
    QString name;  // solver description, e.g. "hamerly/omp/f64"
    std::size_t n = 0, k = 0;
    std::vector<IterationStats> stats;
};

// CSV of the charts' data: a header of field names, then one row per iteration
// and run (runs in order). Doubles are written shortest-round-trip; a NaN
// (inertia not recorded) is an empty field, and so are groups, group_skips and
// group_skip_percent for solvers without groups, and gemm_certified,
// gemm_certified_percent, gemm_listed and gemm_listed_percent for steps without the
// GEMM filter.
std::string charts_csv(const std::vector<ChartRun>& runs);

class IterationCharts : public QWidget {
    Q_OBJECT
public:
    enum class Chart { PhaseTime, DistancePercent, SkipPercent, LabelsChanged, Inertia, MaxShift };
    static constexpr int kChartCount = 6;

    explicit IterationCharts(QWidget* parent = nullptr);

    // One run, replacing whatever was shown.
    void setRun(std::size_t n, std::size_t k, std::vector<IterationStats> stats, const QString& name = {});
    // One more run overlaid on the others; returns its index (its colour is series_colour(index)).
    int addRun(const QString& name, std::size_t n, std::size_t k, std::vector<IterationStats> stats);
    // The next iteration of run `run`. A record for an iteration already shown
    // replaces it and drops the later ones (the run was reset and stepped again);
    // missing iterations leave gaps.
    void appendIteration(const IterationStats& stats, int run = 0);
    void setCurrentIteration(int iteration);
    void clear();

    int runCount() const { return static_cast<int>(runs_.size()); }
    const std::vector<ChartRun>& runs() const { return runs_; }
    PlotWidget* chart(Chart which) const { return charts_[static_cast<std::size_t>(which)]; }
    // Grid columns (3: two rows for a wide dock; 2 or 1 for a tall one).
    void setColumns(int columns);

    std::string toCsv() const { return charts_csv(runs_); }
    // Writes toCsv() atomically; throws kms::Error naming the path on failure.
    void exportCsv(const std::string& path) const;

signals:
    void iterationClicked(int iteration);

private:
    // One plotted quantity of one run: which chart, which plot series, how to get the value.
    struct SeriesBinding {
        Chart chart;
        int run;
        int series;
        std::function<double(const IterationStats&, const ChartRun&)> value;
    };

    void rebuild();
    void bindSeries(Chart chart, int run, const QString& name, const QColor& colour, Qt::PenStyle pen,
                    bool bars, std::function<double(const IterationStats&, const ChartRun&)> value);
    void plotIteration(int run, const IterationStats& stats);
    void arrangeGrid();

    std::vector<ChartRun> runs_;
    std::vector<SeriesBinding> bindings_;
    std::array<PlotWidget*, kChartCount> charts_{};
    QGridLayout* grid_ = nullptr;
    int columns_ = 3;
    int current_iteration_ = -1;
};

}  // namespace kms::ui
