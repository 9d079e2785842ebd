#include "charts/iteration_charts.hpp"

#include <QGridLayout>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "charts/distinct_colours.hpp"
#include "charts/plot_widget.hpp"
#include "kms/io.hpp"

namespace kms::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QColor to_qcolor(Rgb colour) { return QColor(colour.r, colour.g, colour.b); }

// Shortest text that reads back as the same double; NaN (not recorded) is empty.
std::string csv_number(double value) {
    if (std::isnan(value)) return {};
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

}  // namespace

double distance_percent_of_lloyd(const IterationStats& stats, std::size_t n, std::size_t k) {
    if (n == 0 || k == 0) return kNaN;
    const double lloyd = static_cast<double>(n) * static_cast<double>(k);
    return 100.0 * static_cast<double>(stats.point_centroid_distances + stats.centroid_centroid_distances) / lloyd;
}

double bound_skip_percent(const IterationStats& stats, std::size_t n) {
    if (n == 0) return kNaN;
    return 100.0 * static_cast<double>(stats.bound_skips) / static_cast<double>(n);
}

double group_skip_percent(const IterationStats& stats, std::size_t n) {
    if (n == 0 || stats.groups == 0) return kNaN;
    return 100.0 * static_cast<double>(stats.group_skips) / (static_cast<double>(n) * static_cast<double>(stats.groups));
}

double gemm_certified_percent(const IterationStats& stats, std::size_t n) {
    if (n == 0 || stats.gemm_certified + stats.verified_points == 0) return kNaN;
    return 100.0 * static_cast<double>(stats.gemm_certified) / static_cast<double>(n);
}

double gemm_listed_percent(const IterationStats& stats, std::size_t n) {
    if (n == 0 || stats.gemm_certified + stats.verified_points == 0) return kNaN;
    return 100.0 * static_cast<double>(stats.gemm_listed) / static_cast<double>(n);
}

bool has_gemm(const std::vector<IterationStats>& stats) {
    return std::any_of(stats.begin(), stats.end(),
                       [](const IterationStats& s) { return s.gemm_certified + s.verified_points > 0; });
}

bool has_gemm_lists(const std::vector<IterationStats>& stats) {
    return std::any_of(stats.begin(), stats.end(), [](const IterationStats& s) { return s.gemm_listed > 0; });
}

bool has_groups(const std::vector<IterationStats>& stats) {
    return std::any_of(stats.begin(), stats.end(), [](const IterationStats& s) { return s.groups > 0; });
}

std::string charts_csv(const std::vector<ChartRun>& runs) {
    std::string csv =
        "run,solver,n,k,iteration,time_assign_ms,time_bounds_ms,time_update_ms,time_total_ms,"
        "point_centroid_distances,centroid_centroid_distances,distance_percent_of_lloyd,bound_skips,"
        "bound_skip_percent,groups,group_skips,group_skip_percent,labels_changed,max_shift,mean_shift,shift_sq_total,empty_clusters,inertia,"
        "gemm_certified,gemm_certified_percent,gemm_listed,gemm_listed_percent\n";
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const ChartRun& run = runs[r];
        const std::string prefix = std::to_string(r) + ',' + csv_field(run.name.toStdString()) + ',' +
                                   std::to_string(run.n) + ',' + std::to_string(run.k) + ',';
        for (const IterationStats& s : run.stats) {
            csv += prefix;
            csv += std::to_string(s.iteration) + ',';
            csv += csv_number(s.time_assign_ms) + ',' + csv_number(s.time_bounds_ms) + ',' +
                   csv_number(s.time_update_ms) + ',' + csv_number(s.time_total_ms) + ',';
            csv += std::to_string(s.point_centroid_distances) + ',' + std::to_string(s.centroid_centroid_distances) +
                   ',' + csv_number(distance_percent_of_lloyd(s, run.n, run.k)) + ',';
            csv += std::to_string(s.bound_skips) + ',' + csv_number(bound_skip_percent(s, run.n)) + ',';
            // No groups (every solver but Yinyang): empty, not a misleading 0.
            if (s.groups > 0)
                csv += std::to_string(s.groups) + ',' + std::to_string(s.group_skips) + ',' +
                       csv_number(group_skip_percent(s, run.n)) + ',';
            else
                csv += ",,,";
            csv += std::to_string(s.labels_changed) + ',';
            csv += csv_number(s.max_shift) + ',' + csv_number(s.mean_shift) + ',' + csv_number(s.shift_sq_total) + ',';
            csv += std::to_string(s.empty_clusters) + ',' + csv_number(s.inertia) + ',';
            if (s.gemm_certified + s.verified_points > 0)
                csv += std::to_string(s.gemm_certified) + ',' + csv_number(gemm_certified_percent(s, run.n)) + ',' +
                       std::to_string(s.gemm_listed) + ',' + csv_number(gemm_listed_percent(s, run.n)) + '\n';
            else
                csv += ",,,\n";
        }
    }
    return csv;
}

IterationCharts::IterationCharts(QWidget* parent) : QWidget(parent) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(2, 2, 2, 2);
    grid_->setSpacing(4);
    for (auto& chart : charts_) {
        chart = new PlotWidget(this);
        chart->setXLabel(tr("iteration"));
        connect(chart, &PlotWidget::iterationClicked, this, &IterationCharts::iterationClicked);
    }
    chart(Chart::PhaseTime)->setTitle(tr("Time per iteration (ms)"), tr("Time (ms)"));
    chart(Chart::PhaseTime)->setValueSuffix(tr(" ms"));
    // Iteration 1 pays the warm-up (page faults, thread start-up): marked, off the scale.
    chart(Chart::PhaseTime)->setAutoscaleFrom(2.0);
    chart(Chart::PhaseTime)->setToolTip(tr("The solver's own time, as kmeans-cli measures it (drawing and the hand-over "
                                           "to the view are not in it). Right-click: logarithmic scale."));
    chart(Chart::DistancePercent)->setTitle(tr("Distance evaluations (% of Lloyd's n·k)"), tr("Distances (% of n·k)"));
    chart(Chart::DistancePercent)->setValueSuffix(QStringLiteral("%"));
    chart(Chart::DistancePercent)->setTickSuffix(QStringLiteral("%"));
    chart(Chart::SkipPercent)->setTitle(tr("Points skipped by bounds (%)"), tr("Skipped by bounds (%)"));
    chart(Chart::SkipPercent)->setValueSuffix(QStringLiteral("%"));
    chart(Chart::SkipPercent)->setTickSuffix(QStringLiteral("%"));
    chart(Chart::SkipPercent)->setFixedYRange(std::pair{0.0, 100.0});
    chart(Chart::SkipPercent)->setToolTip(
        tr("Solid: points whose full search the bounds avoided, % of n. Dashed (Yinyang only): point–group pairs "
           "its group filter ruled out whole, % of n·t for its t ≈ k/10 centroid groups; points its global filter "
           "settled are not counted there. Solvers without groups have no dashed line."));
    chart(Chart::LabelsChanged)->setTitle(tr("Labels changed"));
    chart(Chart::Inertia)->setTitle(tr("Inertia (sum of squared distances)"), tr("Inertia"));
    chart(Chart::Inertia)->setIncludeZero(false);
    chart(Chart::Inertia)->setEmptyMessage(tr("Inertia was not recorded for this run"));
    chart(Chart::MaxShift)->setTitle(tr("Largest centroid shift"), tr("Max shift"));
    chart(Chart::MaxShift)->setLogScale(true);
    arrangeGrid();
}

void IterationCharts::arrangeGrid() {
    for (PlotWidget* chart : charts_) grid_->removeWidget(chart);
    for (int i = 0; i < kChartCount; ++i)
        grid_->addWidget(charts_[static_cast<std::size_t>(i)], i / columns_, i % columns_);
}

void IterationCharts::setColumns(int columns) {
    columns_ = std::clamp(columns, 1, kChartCount);
    arrangeGrid();
}

void IterationCharts::setRun(std::size_t n, std::size_t k, std::vector<IterationStats> stats, const QString& name) {
    runs_.clear();
    runs_.push_back({name, n, k, std::move(stats)});
    rebuild();
}

int IterationCharts::addRun(const QString& name, std::size_t n, std::size_t k, std::vector<IterationStats> stats) {
    runs_.push_back({name, n, k, std::move(stats)});
    rebuild();
    return runCount() - 1;
}

void IterationCharts::appendIteration(const IterationStats& stats, int run) {
    if (run < 0) return;
    if (run >= runCount()) {
        // Not announced with setRun/addRun: n and k unknown, so percentages stay empty.
        while (runCount() <= run) runs_.push_back({});
        runs_.back().stats.push_back(stats);
        rebuild();
        return;
    }
    std::vector<IterationStats>& records = runs_[static_cast<std::size_t>(run)].stats;
    if (records.empty() || stats.iteration <= records.back().iteration) {
        // First record (sets the x origin) or a run stepped again from an earlier iteration.
        std::erase_if(records, [&](const IterationStats& s) { return s.iteration >= stats.iteration; });
        records.push_back(stats);
        rebuild();
        return;
    }
    const bool had_groups = has_groups(records), had_gemm = has_gemm(records), had_lists = has_gemm_lists(records);
    records.push_back(stats);
    if ((stats.groups > 0 && !had_groups) || (stats.gemm_certified + stats.verified_points > 0 && !had_gemm) ||
        (stats.gemm_listed > 0 && !had_lists)) {
        rebuild();  // the run's first record with groups or the GEMM's points: their series appear
        return;
    }
    plotIteration(run, stats);
}

void IterationCharts::setCurrentIteration(int iteration) {
    current_iteration_ = iteration;
    for (PlotWidget* chart : charts_) chart->setCurrentIteration(iteration);
}

void IterationCharts::clear() {
    runs_.clear();
    current_iteration_ = -1;
    rebuild();
}

void IterationCharts::exportCsv(const std::string& path) const { write_text_file(path, toCsv()); }

void IterationCharts::bindSeries(Chart chart, int run, const QString& name, const QColor& colour, Qt::PenStyle pen,
                                 bool bars, std::function<double(const IterationStats&, const ChartRun&)> value) {
    const ChartRun& source = runs_[static_cast<std::size_t>(run)];
    PlotSeries series;
    series.name = name;
    series.color = colour;
    series.pen_style = pen;
    series.style = bars ? PlotSeries::Style::Bars : PlotSeries::Style::Line;
    series.first_x = source.stats.empty() ? 1.0 : source.stats.front().iteration;
    PlotWidget* plot = this->chart(chart);
    const int index = plot->addSeries(std::move(series));
    bindings_.push_back({chart, run, index, std::move(value)});
}

void IterationCharts::rebuild() {
    bindings_.clear();
    for (PlotWidget* chart : charts_) {
        chart->clearSeries();
        chart->setCurrentIteration(current_iteration_);
    }
    const bool single = runs_.size() == 1;
    chart(Chart::PhaseTime)->setTitle(single ? tr("Time per phase (ms)") : tr("Time per iteration (ms)"), tr("Time (ms)"));
    const bool any_groups =
        std::any_of(runs_.begin(), runs_.end(), [](const ChartRun& run) { return has_groups(run.stats); });
    if (any_groups)
        // Points and groups: the legend says which is % of n and which % of n·t.
        chart(Chart::SkipPercent)->setTitle(tr("Skipped by bounds (%)"), tr("Skipped (%)"));
    else
        chart(Chart::SkipPercent)->setTitle(tr("Points skipped by bounds (%)"), tr("Skipped by bounds (%)"));

    for (int r = 0; r < runCount(); ++r) {
        const ChartRun& run = runs_[static_cast<std::size_t>(r)];
        const QColor colour = to_qcolor(series_colour(static_cast<std::size_t>(r)));
        const QString name = single ? QString() : (run.name.isEmpty() ? tr("run %1").arg(r + 1) : run.name);
        if (single) {
            // One run: its phases side by side, each in its own colour, and the whole step.
            bindSeries(Chart::PhaseTime, r, tr("assign"), to_qcolor(series_colour(0)), Qt::SolidLine, false,
                       [](const IterationStats& s, const ChartRun&) { return s.time_assign_ms; });
            bindSeries(Chart::PhaseTime, r, tr("bounds"), to_qcolor(series_colour(1)), Qt::SolidLine, false,
                       [](const IterationStats& s, const ChartRun&) { return s.time_bounds_ms; });
            bindSeries(Chart::PhaseTime, r, tr("update"), to_qcolor(series_colour(3)), Qt::SolidLine, false,
                       [](const IterationStats& s, const ChartRun&) { return s.time_update_ms; });
            bindSeries(Chart::PhaseTime, r, tr("total"), QColor(0x44, 0x44, 0x44), Qt::DashLine, false,
                       [](const IterationStats& s, const ChartRun&) { return s.time_total_ms; });
        } else {
            bindSeries(Chart::PhaseTime, r, name, colour, Qt::SolidLine, false,
                       [](const IterationStats& s, const ChartRun&) { return s.time_total_ms; });
        }
        bindSeries(Chart::DistancePercent, r, name, colour, Qt::SolidLine, false,
                   [](const IterationStats& s, const ChartRun& c) { return distance_percent_of_lloyd(s, c.n, c.k); });
        const bool groups = has_groups(run.stats), gemm = has_gemm(run.stats);
        // One run with a second series (groups, the GEMM's): the points' series needs a name too.
        bindSeries(Chart::SkipPercent, r, single && (groups || gemm) ? tr("points (% of n)") : name, colour, Qt::SolidLine,
                   false, [](const IterationStats& s, const ChartRun& c) { return bound_skip_percent(s, c.n); });
        if (groups)
            // Yinyang: (point, group) pairs the group filter ruled out, dashed in the run's colour.
            bindSeries(Chart::SkipPercent, r, single ? tr("groups (% of n·t)") : name + tr(" groups"), colour,
                       Qt::DashLine, false,
                       [](const IterationStats& s, const ChartRun& c) { return group_skip_percent(s, c.n); });
        if (gemm)
            // Lloyd's GEMM filter: the points its bound certified, dotted in the run's colour.
            bindSeries(Chart::SkipPercent, r, single ? tr("certified by the GEMM (% of n)") : name + tr(" GEMM"),
                       colour, Qt::DotLine, false,
                       [](const IterationStats& s, const ChartRun& c) { return gemm_certified_percent(s, c.n); });
        if (gemm && has_gemm_lists(run.stats))
            // CUDA's candidate lists: the uncertified points settled over a few centroids, dash-dotted.
            bindSeries(Chart::SkipPercent, r, single ? tr("listed by the GEMM (% of n)") : name + tr(" GEMM listed"),
                       colour, Qt::DashDotLine, false,
                       [](const IterationStats& s, const ChartRun& c) { return gemm_listed_percent(s, c.n); });
        bindSeries(Chart::LabelsChanged, r, name, colour, Qt::SolidLine, single,
                   [](const IterationStats& s, const ChartRun&) { return static_cast<double>(s.labels_changed); });
        bindSeries(Chart::Inertia, r, name, colour, Qt::SolidLine, false,
                   [](const IterationStats& s, const ChartRun&) { return s.inertia; });
        bindSeries(Chart::MaxShift, r, name, colour, Qt::SolidLine, false,
                   [](const IterationStats& s, const ChartRun&) { return s.max_shift; });
    }

    // Whole runs at once: build each series' values, then hand them over in one go.
    for (const SeriesBinding& binding : bindings_) {
        const ChartRun& run = runs_[static_cast<std::size_t>(binding.run)];
        std::vector<double> values;
        values.reserve(run.stats.size());
        int expected = run.stats.empty() ? 1 : run.stats.front().iteration;
        for (const IterationStats& s : run.stats) {
            for (; expected < s.iteration; ++expected) values.push_back(kNaN);  // gap
            values.push_back(binding.value(s, run));
            expected = s.iteration + 1;
        }
        chart(binding.chart)->setSeriesValues(binding.series, std::move(values));
    }
}

void IterationCharts::plotIteration(int run, const IterationStats& stats) {
    const ChartRun& source = runs_[static_cast<std::size_t>(run)];
    for (const SeriesBinding& binding : bindings_) {
        if (binding.run != run) continue;
        PlotWidget* plot = chart(binding.chart);
        const PlotSeries& series = plot->series()[static_cast<std::size_t>(binding.series)];
        const double next_x = series.first_x + static_cast<double>(series.values.size());
        // Missing iterations (never more than the gap to this record) stay empty.
        for (double x = next_x; x < stats.iteration; x += 1.0) plot->appendValue(binding.series, kNaN);
        plot->appendValue(binding.series, binding.value(stats, source));
    }
}

}  // namespace kms::ui
