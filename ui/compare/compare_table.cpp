#include "compare/compare_table.hpp"

#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "charts/distinct_colours.hpp"
#include "charts/iteration_charts.hpp"
#include "compare/table_format.hpp"

namespace kms::ui {

using namespace table_format;

CompareSummary summarize(const CompareEntry& entry) {
    CompareSummary summary;
    summary.iterations = static_cast<int>(entry.stats.size());
    std::vector<double> step_times;
    std::uint64_t skips = 0;
    double group_pairs = 0.0;  // Σ n·t over the iterations of a solver with groups
    std::uint64_t certified = 0, listed = 0, filtered_points = 0;  // the GEMM filter's steps
    for (const IterationStats& s : entry.stats) {
        summary.total_ms += s.time_total_ms;
        step_times.push_back(s.time_total_ms);
        summary.distances += s.point_centroid_distances + s.centroid_centroid_distances;
        skips += s.bound_skips;
        summary.group_skips += s.group_skips;
        group_pairs += static_cast<double>(entry.n) * static_cast<double>(s.groups);
        if (s.gemm_certified + s.verified_points > 0) {
            certified += s.gemm_certified;
            listed += s.gemm_listed;
            filtered_points += entry.n;
        }
    }
    if (!step_times.empty()) summary.first_iteration_ms = step_times.front();
    if (step_times.size() >= 2)
        summary.steady_median_ms = median(std::vector<double>(step_times.begin() + 1, step_times.end()));
    summary.median_iteration_ms = median(std::move(step_times));
    if (summary.iterations > 0 && entry.n > 0) {
        const double points = static_cast<double>(summary.iterations) * static_cast<double>(entry.n);
        if (entry.k > 0)
            summary.distance_percent = 100.0 * static_cast<double>(summary.distances) / (points * static_cast<double>(entry.k));
        summary.skip_percent = 100.0 * static_cast<double>(skips) / points;
        if (group_pairs > 0.0) summary.group_skip_percent = 100.0 * static_cast<double>(summary.group_skips) / group_pairs;
    }
    if (filtered_points > 0) {
        summary.gemm_certified_percent = 100.0 * static_cast<double>(certified) / static_cast<double>(filtered_points);
        summary.gemm_listed_percent = 100.0 * static_cast<double>(listed) / static_cast<double>(filtered_points);
    }
    if (entry.final_inertia) summary.final_inertia = *entry.final_inertia;
    else if (!entry.stats.empty() && !std::isnan(entry.stats.back().inertia)) summary.final_inertia = entry.stats.back().inertia;
    else if (entry.scores) summary.final_inertia = entry.scores->inertia;
    return summary;
}

double steady_time_ms(const CompareSummary& summary) {
    return summary.iterations >= 2 ? summary.steady_median_ms : summary.total_ms;
}

// ---- CompareModel ---------------------------------------------------------------

void CompareModel::setEntries(std::vector<CompareEntry> entries) {
    beginResetModel();
    entries_ = std::move(entries);
    summaries_.clear();
    for (const CompareEntry& entry : entries_) summaries_.push_back(summarize(entry));
    endResetModel();
}

void CompareModel::setEntry(int row, CompareEntry entry) {
    if (row < 0 || row >= rowCount()) return;
    entries_[static_cast<std::size_t>(row)] = std::move(entry);
    refresh(row);
}

void CompareModel::appendIteration(int row, const IterationStats& stats) {
    if (row < 0 || row >= rowCount()) return;
    entries_[static_cast<std::size_t>(row)].stats.push_back(stats);
    refresh(row);
}

void CompareModel::setFinalInertia(int row, double inertia) {
    if (row < 0 || row >= rowCount()) return;
    entries_[static_cast<std::size_t>(row)].final_inertia = inertia;
    refresh(row);
}

void CompareModel::setScores(int row, const Scores& scores) {
    if (row < 0 || row >= rowCount()) return;
    entries_[static_cast<std::size_t>(row)].scores = scores;
    refresh(row);
}

void CompareModel::clear() { setEntries({}); }

void CompareModel::refresh(int row) {
    summaries_[static_cast<std::size_t>(row)] = summarize(entries_[static_cast<std::size_t>(row)]);
    // Speed-ups and the bold best values depend on every row.
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

bool CompareModel::columnHasValues(int column) const {
    for (int row = 0; row < rowCount(); ++row)
        if (!std::isnan(value(row, column))) return true;
    return false;
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

double CompareModel::value(int row, int column) const {
    const CompareSummary& summary = summaries_[static_cast<std::size_t>(row)];
    const std::optional<Scores>& scores = entries_[static_cast<std::size_t>(row)].scores;
    const auto score = [&](double Scores::*field) { return scores ? (*scores).*field : kNaN; };
    switch (column) {
        case Iterations: return summary.iterations;
        case TotalTime: return summary.iterations > 0 ? summary.total_ms : kNaN;
        case FirstIteration: return summary.first_iteration_ms;
        case MedianTime: return steady_time_ms(summary);  // the speed-up's basis, so the two agree
        case SpeedUp: {
            // Against the slowest finished run on the same back end: an algorithm's
            // gain, not a device's (a run still going has no total yet). Iteration 1's
            // warm-up is left out: it made the fastest solver read 1.00x (issue 36).
            const CompareEntry& entry = entries_[static_cast<std::size_t>(row)];
            if (!entry.converged) return kNaN;
            const double mine = steady_time_ms(summary);
            double slowest = 0.0;
            for (std::size_t r = 0; r < entries_.size(); ++r)
                if (entries_[r].converged && entries_[r].backend == entry.backend)
                    slowest = std::max(slowest, steady_time_ms(summaries_[r]));
            return summary.iterations > 0 && mine > 0.0 && slowest > 0.0 ? slowest / mine : kNaN;
        }
        case Distances: return summary.iterations > 0 ? static_cast<double>(summary.distances) : kNaN;
        case DistancePercent: return summary.distance_percent;
        case SkipPercent: return summary.skip_percent;
        case GroupSkipPercent: return summary.group_skip_percent;
        case GemmCertifiedPercent: return summary.gemm_certified_percent;
        case GemmListedPercent: return summary.gemm_listed_percent;
        case FinalInertia:
            return entries_[static_cast<std::size_t>(row)].converged ? summary.final_inertia : kNaN;
        case Silhouette: return score(&Scores::silhouette);
        case CalinskiHarabasz: return score(&Scores::calinski_harabasz);
        case DaviesBouldin: return score(&Scores::davies_bouldin);
        case Ari: return score(&Scores::ari);
        case Nmi: return score(&Scores::nmi);
        default: return kNaN;
    }
}

bool CompareModel::isBest(int row, int column) const {
    // Points settled over candidate lists are neither better nor worse: the rest of the
    // uncertified points went to a search over all k, the certified ones to none.
    if (column == Solver || column == GemmListedPercent || rowCount() < 2) return false;
    const bool higher_is_better = column == SpeedUp || column == SkipPercent || column == GroupSkipPercent ||
                                  column == GemmCertifiedPercent || column == Silhouette ||
                                  column == CalinskiHarabasz || column == Ari || column == Nmi;
    double best = kNaN, worst = kNaN;
    for (int r = 0; r < rowCount(); ++r) {
        const double v = value(r, column);
        if (std::isnan(v)) continue;
        const double signed_value = higher_is_better ? -v : v;
        best = std::isnan(best) ? signed_value : std::min(best, signed_value);
        worst = std::isnan(worst) ? signed_value : std::max(worst, signed_value);
    }
    if (std::isnan(best) || best == worst) return false;  // a tie across the board is no news
    const double mine = value(row, column);
    return !std::isnan(mine) && (higher_is_better ? -mine : mine) == best;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const int row = index.row(), column = index.column();
    const double v = value(row, column);
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case Solver: {
                    const QString& name = entries_[static_cast<std::size_t>(row)].name;
                    return name.isEmpty() ? tr("solver %1").arg(row + 1) : name;
                }
                case Iterations: return count(v);
                case TotalTime:
                case FirstIteration:
                case MedianTime: return milliseconds(v);
                case SpeedUp:
                    if (!entries_[static_cast<std::size_t>(row)].converged) return tr("running");
                    return std::isnan(v) ? dash() : english().toString(v, 'f', 2) + QStringLiteral("×");
                case Distances: return count(v);
                case DistancePercent:
                case SkipPercent:
                case GroupSkipPercent:
                case GemmCertifiedPercent:
                case GemmListedPercent: return percent(v);
                case FinalInertia:
                    if (!entries_[static_cast<std::size_t>(row)].converged) return tr("running");
                    return significant(v);
                case CalinskiHarabasz: return significant(v);
                default: return fixed(v, 4);
            }
        case kValueRole: return column == Solver ? QVariant(entries_[static_cast<std::size_t>(row)].name) : QVariant(v);
        case Qt::DecorationRole:
            if (column == Solver) return qcolour(series_colour(static_cast<std::size_t>(row)));
            return {};
        case Qt::TextAlignmentRole:
            return column == Solver ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::FontRole:
            if (isBest(row, column)) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        default: return {};
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case Solver: return tr("Solver");
            case Iterations: return tr("Iterations");
            case TotalTime: return tr("Total time");
            case FirstIteration: return tr("Iteration 1 (warm-up)");
            case MedianTime: return tr("Median / iteration");
            case SpeedUp: return tr("Speed-up");
            case Distances: return tr("Distances");
            case DistancePercent: return tr("% of Lloyd");
            case SkipPercent: return tr("Skipped");
            case GroupSkipPercent: return tr("Groups skipped");
            case GemmCertifiedPercent: return tr("GEMM certified");
            case GemmListedPercent: return tr("GEMM listed");
            case FinalInertia: return tr("Final inertia");
            case Silhouette: return tr("Silhouette");
            case CalinskiHarabasz: return tr("Calinski–Harabasz");
            case DaviesBouldin: return tr("Davies–Bouldin");
            case Ari: return tr("ARI");
            case Nmi: return tr("NMI");
            default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case TotalTime: return tr("Sum of the step times of all iterations, iteration 1 included");
            case FirstIteration:
                return tr("Iteration 1 alone: it also pays for warm-up (allocation, first touch of the data, the "
                          "bounds' set-up, a GPU's start), so it is shown apart and left out of the speed-up");
            case MedianTime:
                return tr("Median step time of iterations 2 to the last (iteration 1 is warm-up; with one iteration, "
                          "its time): robust to the odd slow step");
            case SpeedUp:
                return tr("Median step of iterations 2 to the last of the slowest solver on the same back end, "
                          "divided by this solver's (iteration 1's warm-up left out, one slow step of a busy machine "
                          "too; with one iteration, the totals)");
            case Distances: return tr("Point–centroid plus centroid–centroid distance evaluations, all iterations");
            case DistancePercent: return tr("Distance evaluations relative to Lloyd's n·k per iteration");
            case SkipPercent: return tr("Point assignments the bounds proved unchanged without a full search");
            case GroupSkipPercent:
                return tr("Yinyang: point–group pairs its group filter ruled out whole, % of n·t summed over the "
                          "iterations (t ≈ k/10 centroid groups; points its global filter settled not counted). "
                          "– for solvers without groups");
            case GemmCertifiedPercent:
                return tr("Lloyd's GEMM filter (d ≥ 16): points whose label the fast tensor-core or BLAS distances "
                          "already proved, % of n over the steps the filter ran; the rest are recomputed exactly. "
                          "– for runs without the filter");
            case GemmListedPercent:
                return tr("Lloyd's GEMM filter on CUDA: uncertified points settled by exact distances to a short "
                          "list of candidate centroids, % of n over the steps the filter ran (the others left: a "
                          "full exact search over all k)");
            case Silhouette: return tr("−1 … 1, higher is better");
            case CalinskiHarabasz: return tr("Higher is better");
            case DaviesBouldin: return tr("≥ 0, lower is better");
            case Ari: return tr("Adjusted Rand index against the ground truth");
            case Nmi: return tr("Normalised mutual information against the ground truth");
            default: return {};
        }
    }
    return {};
}

// ---- CompareTable -------------------------------------------------------------

CompareTable::CompareTable(QWidget* parent) : QWidget(parent) {
    model_ = new CompareModel(this);
    detail_ = new IterationDetailModel(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(0);
    // The summary keeps the height of its rows (fitSummaryHeight); every other pixel goes
    // to the per-iteration rows (in a splitter the spare height sat empty between the two).
    summary_view_ = new QTableView(this);
    layout->addWidget(summary_view_);
    summary_view_->setModel(model_);
    summary_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    summary_view_->setSelectionMode(QAbstractItemView::SingleSelection);
    summary_view_->verticalHeader()->hide();
    summary_view_->setAlternatingRowColors(true);
    summary_view_->horizontalHeader()->setStretchLastSection(false);

    auto* lower = new QWidget(this);
    auto* lower_layout = new QVBoxLayout(lower);
    lower_layout->setContentsMargins(0, 4, 0, 0);
    detail_title_ = new QLabel(lower);
    lower_layout->addWidget(detail_title_);
    detail_view_ = new QTableView(lower);
    detail_view_->setModel(detail_);
    detail_view_->verticalHeader()->hide();
    detail_view_->setAlternatingRowColors(true);
    detail_view_->horizontalHeader()->setStretchLastSection(false);
    lower_layout->addWidget(detail_view_);
    layout->addWidget(lower, 1);
    // Rows as tall as their text needs: the style's default (30 px here) left room for
    // two per-iteration rows at 1280×720.
    for (QTableView* view : {summary_view_, detail_view_})
        view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);

    connect(summary_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showDetail(current.isValid() ? current.row() : -1); });
    showDetail(-1);
    fitSummaryHeight();
}

void CompareTable::setEntries(std::vector<CompareEntry> entries) {
    const int keep = selected_;
    model_->setEntries(std::move(entries));
    updateColumns();
    selectSolver(model_->rowCount() == 0 ? -1 : std::clamp(keep, 0, model_->rowCount() - 1));
}

void CompareTable::appendIteration(int row, const IterationStats& stats) {
    model_->appendIteration(row, stats);
    if (row == selected_) detail_->refresh();
    if ((stats.groups > 0 && summary_view_->isColumnHidden(CompareModel::GroupSkipPercent)) ||
        (stats.gemm_certified + stats.verified_points > 0 &&
         summary_view_->isColumnHidden(CompareModel::GemmCertifiedPercent)))
        updateColumns();
    else if (row == selected_) updateCounterColumns();
}

void CompareTable::setFinalInertia(int row, double inertia) {
    model_->setFinalInertia(row, inertia);
    updateColumns();
}

void CompareTable::setScores(int row, const Scores& scores) {
    model_->setScores(row, scores);
    updateColumns();
}

void CompareTable::clear() {
    model_->clear();
    showDetail(-1);
}

void CompareTable::selectSolver(int row) {
    if (row < 0 || row >= model_->rowCount()) {
        summary_view_->clearSelection();
        showDetail(-1);
        return;
    }
    summary_view_->selectRow(row);
    summary_view_->setCurrentIndex(model_->index(row, 0));
    showDetail(row);
}

void CompareTable::showDetail(int row) {
    const bool changed = row != selected_ || detail_->sourceRow() != row;
    selected_ = row;
    detail_->setSource(model_, row);
    detail_title_->setText(row < 0 ? tr("Select a solver to see its iterations")
                                   : tr("Per iteration: %1").arg(model_->data(model_->index(row, 0)).toString()));
    updateCounterColumns();
    detail_view_->resizeColumnsToContents();
    if (changed) emit solverSelected(row);
}

void CompareTable::updateColumns() {
    // ARI and NMI exist only with ground truth; scores only once computed.
    for (int column : {CompareModel::Silhouette, CompareModel::CalinskiHarabasz, CompareModel::DaviesBouldin,
                       CompareModel::Ari, CompareModel::Nmi})
        summary_view_->setColumnHidden(column, !model_->columnHasValues(column));
    updateCounterColumns();
    summary_view_->resizeColumnsToContents();
    fitSummaryHeight();
}

void CompareTable::updateCounterColumns() {
    // Yinyang's group skips and the GEMM filter's points: summary columns only when some
    // solver has them (the others' cells read –); the detail's only for a solver that has them.
    for (int column : {CompareModel::GroupSkipPercent, CompareModel::GemmCertifiedPercent,
                       CompareModel::GemmListedPercent})
        summary_view_->setColumnHidden(column, !model_->columnHasValues(column));
    const auto show_detail = [this](std::initializer_list<int> columns, bool shown) {
        for (int column : columns) {
            if (detail_view_->isColumnHidden(column) == !shown) continue;
            detail_view_->setColumnHidden(column, !shown);
            if (shown) detail_view_->resizeColumnToContents(column);
        }
    };
    show_detail({IterationDetailModel::GroupSkips, IterationDetailModel::GroupSkipPercent}, detail_->hasGroups());
    show_detail({IterationDetailModel::GemmCertifiedPercent, IterationDetailModel::GemmListedPercent},
                detail_->hasGemm());
}

void CompareTable::fitSummaryHeight() {
    // Every solver row visible (2 to 7 of them), however short the dock: the
    // per-iteration detail below gets the remaining height.
    int height = summary_view_->horizontalHeader()->sizeHint().height() + 2 * summary_view_->frameWidth() +
                 summary_view_->horizontalScrollBar()->sizeHint().height();
    const int rows = std::max(2, model_->rowCount());
    const int row_height = summary_view_->verticalHeader()->defaultSectionSize();
    height += rows * row_height;
    summary_view_->setMinimumHeight(height);
    summary_view_->setMaximumHeight(height);
}

}  // namespace kms::ui
