// Per-iteration numbers of one compared solver (IterationDetailModel).
#include <cmath>

#include "charts/iteration_charts.hpp"
#include "compare/compare_table.hpp"
#include "compare/table_format.hpp"

namespace kms::ui {

using namespace table_format;

// ---- IterationDetailModel ---------------------------------------------------------

void IterationDetailModel::setSource(const CompareModel* model, int row) {
    beginResetModel();
    model_ = model;
    row_ = row;
    const CompareEntry* shown = entry();
    rows_shown_ = shown ? static_cast<int>(shown->stats.size()) : 0;
    endResetModel();
}

const CompareEntry* IterationDetailModel::entry() const {
    if (!model_ || row_ < 0 || row_ >= model_->rowCount()) return nullptr;
    return &model_->entries()[static_cast<std::size_t>(row_)];
}

void IterationDetailModel::refresh() {
    const CompareEntry* shown = entry();
    const int now = shown ? static_cast<int>(shown->stats.size()) : 0;
    if (now > rows_shown_) {
        // New iterations only: insert them, so the view keeps its scroll position.
        beginInsertRows({}, rows_shown_, now - 1);
        rows_shown_ = now;
        endInsertRows();
    } else {
        beginResetModel();
        rows_shown_ = now;
        endResetModel();
    }
}

bool IterationDetailModel::hasGroups() const {
    const CompareEntry* shown = entry();
    return shown && has_groups(shown->stats);
}

bool IterationDetailModel::hasGemm() const {
    const CompareEntry* shown = entry();
    return shown && has_gemm(shown->stats);
}

int IterationDetailModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_shown_; }
int IterationDetailModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

double IterationDetailModel::value(int row, int column) const {
    const CompareEntry* shown = entry();
    const IterationStats& s = shown->stats[static_cast<std::size_t>(row)];
    switch (column) {
        case Iteration: return s.iteration;
        case AssignTime: return s.time_assign_ms;
        case BoundsTime: return s.time_bounds_ms;
        case UpdateTime: return s.time_update_ms;
        case TotalTime: return s.time_total_ms;
        case Distances: return static_cast<double>(s.point_centroid_distances + s.centroid_centroid_distances);
        case DistancePercent: return distance_percent_of_lloyd(s, shown->n, shown->k);
        case SkipPercent: return bound_skip_percent(s, shown->n);
        case GroupSkips: return s.groups > 0 ? static_cast<double>(s.group_skips) : kNaN;
        case GroupSkipPercent: return group_skip_percent(s, shown->n);
        case GemmCertifiedPercent: return gemm_certified_percent(s, shown->n);
        case GemmListedPercent: return gemm_listed_percent(s, shown->n);
        case LabelsChanged: return static_cast<double>(s.labels_changed);
        case MaxShift: return s.max_shift;
        case Inertia: return s.inertia;
        default: return kNaN;
    }
}

QVariant IterationDetailModel::data(const QModelIndex& index, int role) const {
    const CompareEntry* shown = entry();
    if (!shown || !index.isValid() || index.row() >= rows_shown_ ||
        index.row() >= static_cast<int>(shown->stats.size()) || index.column() >= ColumnCount)
        return {};
    const int column = index.column();
    const double v = value(index.row(), column);
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case Iteration:
                case Distances:
                case GroupSkips:
                case LabelsChanged: return count(v);
                case AssignTime:
                case BoundsTime:
                case UpdateTime:
                case TotalTime: return milliseconds(v);
                case DistancePercent:
                case SkipPercent:
                case GroupSkipPercent:
                case GemmCertifiedPercent:
                case GemmListedPercent: return percent(v);
                case MaxShift: return std::isnan(v) ? dash() : QString::number(v, 'g', 4);
                default: return significant(v);
            }
        case kValueRole: return v;
        case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
    }
}

QVariant IterationDetailModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case SkipPercent: return tr("Points whose full search the bounds avoided, % of n");
            case GroupSkips: return tr("Yinyang: point–group pairs its group filter ruled out whole");
            case GroupSkipPercent:
                return tr("Group skips as % of n·t (t ≈ k/10 centroid groups); points the global filter settled "
                          "are not counted");
            case GemmCertifiedPercent:
                return tr("Lloyd's GEMM filter: points whose label its error bound proved, % of n");
            case GemmListedPercent:
                return tr("Lloyd's GEMM filter on CUDA: uncertified points settled over a short list of candidate "
                          "centroids, % of n");
            default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
        case Iteration: return tr("Iteration");
        case AssignTime: return tr("Assign");
        case BoundsTime: return tr("Bounds");
        case UpdateTime: return tr("Update");
        case TotalTime: return tr("Step");
        case Distances: return tr("Distances");
        case DistancePercent: return tr("% of Lloyd");
        case SkipPercent: return tr("Skipped");
        case GroupSkips: return tr("Group skips");
        case GroupSkipPercent: return tr("% of n·t");
        case GemmCertifiedPercent: return tr("GEMM certified");
        case GemmListedPercent: return tr("GEMM listed");
        case LabelsChanged: return tr("Labels changed");
        case MaxShift: return tr("Max shift");
        case Inertia: return tr("Inertia");
        default: return {};
    }
}

}  // namespace kms::ui
