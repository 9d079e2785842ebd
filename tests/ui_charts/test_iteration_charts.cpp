// IterationCharts: the numbers each chart holds, incremental appends, overlays,
// the CSV export (exact text), and a render of real solver runs.
// Set KMS_CHARTS_SCREENSHOT_DIR to keep the rendered PNGs (docs/screenshots).
#include <QtTest>
#include <QtWidgets>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "charts/distinct_colours.hpp"
#include "charts/iteration_charts.hpp"
#include "charts/plot_widget.hpp"
#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/solver.hpp"
#include "test_support.hpp"

using kms::IterationStats;
using kms::ui::IterationCharts;
using Chart = kms::ui::IterationCharts::Chart;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

IterationStats record(int iteration, std::uint64_t distances, std::uint64_t skips, std::uint64_t changed,
                      double inertia = kNaN) {
    IterationStats s;
    s.iteration = iteration;
    s.time_assign_ms = 1.5 * iteration;
    s.time_bounds_ms = 0.25;
    s.time_update_ms = 0.125;
    s.time_total_ms = 1.5 * iteration + 0.5;
    s.point_centroid_distances = distances;
    s.centroid_centroid_distances = 0;
    s.bound_skips = skips;
    s.labels_changed = changed;
    s.max_shift = 1.0 / iteration;
    s.mean_shift = 0.5 / iteration;
    s.shift_sq_total = 0.1;
    s.inertia = inertia;
    return s;
}

const std::vector<double>& values(const IterationCharts& charts, Chart chart, int series = 0) {
    return charts.chart(chart)->series().at(static_cast<std::size_t>(series)).values;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<IterationStats> run_solver(const kms::Dataset& data, const kms::Matrix<double>& start,
                                       kms::Algorithm algorithm) {
    kms::SolverConfig config;
    config.algorithm = algorithm;
    config.compute_inertia = true;
    config.max_iterations = 60;
    auto solver = kms::make_solver(config);
    solver->set_data(std::make_shared<const kms::Matrix<double>>(data.points));
    solver->set_initial_centroids(start);
    std::vector<IterationStats> stats;
    while (!solver->converged()) stats.push_back(solver->step());
    return stats;
}

}  // namespace

class TestIterationCharts : public QObject {
    Q_OBJECT
private slots:
    void derivedQuantities() {
        IterationStats s = record(1, 2500, 0, 0);
        s.centroid_centroid_distances = 45;
        QCOMPARE(kms::ui::distance_percent_of_lloyd(s, 1000, 10), 25.45);
        QCOMPARE(kms::ui::bound_skip_percent(record(1, 0, 750, 0), 1000), 75.0);
        QVERIFY(std::isnan(kms::ui::distance_percent_of_lloyd(s, 0, 10)));  // unknown n: no percentage
        QVERIFY(std::isnan(kms::ui::bound_skip_percent(s, 0)));
        // Group skips: % of n·t for a solver with t groups, none (NaN) without groups.
        IterationStats grouped = record(2, 0, 0, 0);
        grouped.groups = 5;
        grouped.group_skips = 2000;
        QCOMPARE(kms::ui::group_skip_percent(grouped, 1000), 40.0);
        QVERIFY(std::isnan(kms::ui::group_skip_percent(grouped, 0)));
        QVERIFY(std::isnan(kms::ui::group_skip_percent(record(2, 0, 750, 0), 1000)));  // no groups
        QVERIFY(kms::ui::has_groups({record(1, 0, 0, 0), grouped}));
        // GEMM filter: certified in % of n; NaN where the filter did not run.
        IterationStats filtered = record(3, 0, 0, 0);
        filtered.gemm_certified = 960;
        filtered.verified_points = 40;
        QCOMPARE(kms::ui::gemm_certified_percent(filtered, 1000), 96.0);
        QVERIFY(std::isnan(kms::ui::gemm_certified_percent(record(3, 0, 0, 0), 1000)));
        filtered.gemm_certified = 0;  // the filter ran and certified nothing: 0 %, not NaN
        QCOMPARE(kms::ui::gemm_certified_percent(filtered, 1000), 0.0);
        QVERIFY(kms::ui::has_gemm({record(1, 0, 0, 0), filtered}));
        QVERIFY(!kms::ui::has_gemm({record(1, 0, 0, 0), record(2, 0, 5, 0)}));
        // Candidate lists (CUDA): of the uncertified points, those settled over a list, % of n.
        QCOMPARE(kms::ui::gemm_listed_percent(filtered, 1000), 0.0);  // the filter ran, no list
        QVERIFY(!kms::ui::has_gemm_lists({filtered}));
        filtered.gemm_listed = 25;
        QCOMPARE(kms::ui::gemm_listed_percent(filtered, 1000), 2.5);
        QVERIFY(std::isnan(kms::ui::gemm_listed_percent(filtered, 0)));
        QVERIFY(std::isnan(kms::ui::gemm_listed_percent(record(3, 0, 0, 0), 1000)));
        QVERIFY(kms::ui::has_gemm_lists({record(1, 0, 0, 0), filtered}));
        QVERIFY(!kms::ui::has_groups({record(1, 0, 0, 0), record(2, 0, 5, 0)}));
    }

    void singleRunHoldsTheNumbers() {
        IterationCharts charts;
        charts.setRun(1000, 10, {record(1, 10000, 0, 1000, 50.0), record(2, 4000, 600, 30, 40.0)},
                      QStringLiteral("hamerly/seq/f64"));
        QCOMPARE(charts.runCount(), 1);
        // Phases: assign, bounds, update, total.
        QCOMPARE(charts.chart(Chart::PhaseTime)->series().size(), std::size_t(4));
        QCOMPARE(values(charts, Chart::PhaseTime, 0), (std::vector<double>{1.5, 3.0}));
        QCOMPARE(values(charts, Chart::PhaseTime, 1), (std::vector<double>{0.25, 0.25}));
        QCOMPARE(values(charts, Chart::PhaseTime, 2), (std::vector<double>{0.125, 0.125}));
        QCOMPARE(values(charts, Chart::PhaseTime, 3), (std::vector<double>{2.0, 3.5}));
        QCOMPARE(values(charts, Chart::DistancePercent), (std::vector<double>{100.0, 40.0}));
        QCOMPARE(values(charts, Chart::SkipPercent), (std::vector<double>{0.0, 60.0}));
        QCOMPARE(values(charts, Chart::LabelsChanged), (std::vector<double>{1000.0, 30.0}));
        QCOMPARE(values(charts, Chart::Inertia), (std::vector<double>{50.0, 40.0}));
        QCOMPARE(values(charts, Chart::MaxShift), (std::vector<double>{1.0, 0.5}));
        QCOMPARE(charts.chart(Chart::SkipPercent)->yRange(), (std::pair{0.0, 100.0}));
        QVERIFY(charts.chart(Chart::MaxShift)->logScale());
    }

    void appendStepsBackAndGaps() {
        IterationCharts charts;
        charts.setRun(100, 4, {});
        charts.appendIteration(record(1, 400, 0, 100));
        charts.appendIteration(record(2, 200, 50, 10));
        QCOMPARE(values(charts, Chart::DistancePercent), (std::vector<double>{100.0, 50.0}));
        // Iteration 4 without 3: a gap (NaN), not a shifted curve.
        charts.appendIteration(record(4, 100, 75, 2));
        const auto& skips = values(charts, Chart::SkipPercent);
        QCOMPARE(skips.size(), std::size_t(4));
        QVERIFY(std::isnan(skips[2]));
        QCOMPARE(skips[3], 75.0);
        QCOMPARE(charts.chart(Chart::SkipPercent)->series()[0].first_x, 1.0);
        // Reset and stepped again from iteration 2: later records are dropped.
        charts.appendIteration(record(2, 300, 25, 7));
        QCOMPARE(charts.runs()[0].stats.size(), std::size_t(2));
        QCOMPARE(values(charts, Chart::DistancePercent), (std::vector<double>{100.0, 75.0}));
        QCOMPARE(values(charts, Chart::LabelsChanged), (std::vector<double>{100.0, 7.0}));
        // Inertia not recorded: every value NaN and the chart says so instead of drawing.
        QVERIFY(std::isnan(values(charts, Chart::Inertia)[0]));
        charts.resize(900, 500);
        charts.grab();
        charts.clear();
        QCOMPARE(charts.runCount(), 0);
        QVERIFY(charts.chart(Chart::PhaseTime)->series().empty());
    }

    void overlaidRunsUseSeriesColours() {
        IterationCharts charts;
        charts.setRun(1000, 10, {record(1, 10000, 0, 1000)}, QStringLiteral("lloyd/seq/f64"));
        QCOMPARE(charts.addRun(QStringLiteral("elkan/seq/f64"), 1000, 10, {record(1, 10000, 0, 1000), record(2, 1000, 900, 5)}), 1);
        QCOMPARE(charts.addRun(QStringLiteral("hamerly/seq/f64"), 1000, 10, {record(1, 10000, 0, 1000)}), 2);
        for (int c = 0; c < IterationCharts::kChartCount; ++c) {
            const auto& series = charts.chart(static_cast<Chart>(c))->series();
            QCOMPARE(series.size(), std::size_t(3));  // one per run, the phase chart shows totals
            for (std::size_t r = 0; r < 3; ++r) {
                const kms::ui::Rgb rgb = kms::ui::series_colour(r);
                QCOMPARE(series[r].color, QColor(rgb.r, rgb.g, rgb.b));
            }
            QCOMPARE(series[1].name, QStringLiteral("elkan/seq/f64"));
        }
        QCOMPARE(values(charts, Chart::PhaseTime, 1), (std::vector<double>{2.0, 3.5}));
        charts.appendIteration(record(2, 2000, 800, 3), 2);
        QCOMPARE(values(charts, Chart::SkipPercent, 2), (std::vector<double>{0.0, 80.0}));
        charts.setCurrentIteration(2);
        for (int c = 0; c < IterationCharts::kChartCount; ++c)
            QCOMPARE(charts.chart(static_cast<Chart>(c))->currentIteration(), 2);
    }

    void csvExportIsExact() {
        IterationCharts charts;
        IterationStats first = record(1, 40, 0, 10, 12.5);
        first.centroid_centroid_distances = 6;
        first.empty_clusters = 1;
        charts.setRun(10, 4, {first, record(2, 20, 5, 0)}, QStringLiteral("elkan/seq/f64"));
        charts.addRun(QStringLiteral("a \"quoted\", name"), 10, 4, {record(1, 40, 0, 10, 0.1)});
        IterationStats grouped = record(2, 20, 6, 1);
        grouped.groups = 2;
        grouped.group_skips = 5;
        charts.addRun(QStringLiteral("yinyang/seq/f64"), 10, 4, {grouped});
        IterationStats filtered = record(1, 40, 0, 10);
        filtered.gemm_certified = 7;
        filtered.verified_points = 3;
        filtered.gemm_listed = 2;
        charts.addRun(QStringLiteral("lloyd/cuda-shared/f32"), 10, 4, {filtered});
        // Solvers without groups: the three group fields empty; Yinyang: t, the skips, % of n·t.
        // Steps without the GEMM filter: its four fields empty.
        const std::string expected =
            "run,solver,n,k,iteration,time_assign_ms,time_bounds_ms,time_update_ms,time_total_ms,"
            "point_centroid_distances,centroid_centroid_distances,distance_percent_of_lloyd,bound_skips,"
            "bound_skip_percent,groups,group_skips,group_skip_percent,labels_changed,max_shift,mean_shift,"
            "shift_sq_total,empty_clusters,inertia,gemm_certified,gemm_certified_percent,gemm_listed,"
            "gemm_listed_percent\n"
            "0,elkan/seq/f64,10,4,1,1.5,0.25,0.125,2,40,6,115,0,0,,,,10,1,0.5,0.1,1,12.5,,,,\n"
            "0,elkan/seq/f64,10,4,2,3,0.25,0.125,3.5,20,0,50,5,50,,,,0,0.5,0.25,0.1,0,,,,,\n"
            "1,\"a \"\"quoted\"\", name\",10,4,1,1.5,0.25,0.125,2,40,0,100,0,0,,,,10,1,0.5,0.1,0,0.1,,,,\n"
            "2,yinyang/seq/f64,10,4,2,3,0.25,0.125,3.5,20,0,50,6,60,2,5,25,1,0.5,0.25,0.1,0,,,,,\n"
            "3,lloyd/cuda-shared/f32,10,4,1,1.5,0.25,0.125,2,40,0,100,0,0,,,,10,1,0.5,0.1,0,,7,70,2,20\n";
        QCOMPARE(QString::fromStdString(charts.toCsv()), QString::fromStdString(expected));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("charts.csv")).toStdString();
        charts.exportCsv(path);
        QCOMPARE(QString::fromStdString(read_file(path)), QString::fromStdString(expected));
        // A path that cannot be written is an error naming it, not a silent no-op.
        const std::string bad = dir.filePath(QStringLiteral("missing/dir/charts.csv")).toStdString();
        try {
            charts.exportCsv(bad);
            QFAIL("writing into a missing directory succeeded");
        } catch (const kms::Error& error) {
            QVERIFY2(std::string(error.what()).find("missing/dir") != std::string::npos, error.what());
        }
        // Empty panel: the header alone.
        QCOMPARE(QString::fromStdString(IterationCharts().toCsv()).count(QLatin1Char('\n')), 1);
    }

    void yinyangGroupSkipsCharted() {
        // Yinyang on k = 50 blobs (t = 5 groups) against Lloyd from the same start:
        // only Yinyang's run has a dashed group-skip line and group fields in the CSV.
        const kms::Dataset data = kms::generate_dataset("blobs:n=4000,k=50,d=2,spread=0.3", 11);
        kms::InitOptions init;
        init.seed = 5;
        const kms::Matrix<double> start = kms::initialize_centroids(data.points, 50, init);
        const auto lloyd = run_solver(data, start, kms::Algorithm::Lloyd);
        const auto yinyang = run_solver(data, start, kms::Algorithm::Yinyang);
        QVERIFY(yinyang.size() >= 3);
        QVERIFY(kms::ui::has_groups(yinyang) && !kms::ui::has_groups(lloyd));
        std::uint64_t group_skips = 0;
        for (const IterationStats& s : yinyang) {
            QVERIFY(s.groups >= 1 && s.groups <= 5);
            group_skips += s.group_skips;
        }
        QVERIFY(group_skips > 0);  // the group filter did rule groups out
        QCOMPARE(yinyang.front().group_skips, std::uint64_t(0));  // iteration 1 searches every group

        IterationCharts single;
        single.setRun(data.n(), 50, yinyang, QStringLiteral("yinyang/omp/f64"));
        const auto& skip_series = single.chart(Chart::SkipPercent)->series();
        QCOMPARE(skip_series.size(), std::size_t(2));
        QCOMPARE(skip_series[0].name, QStringLiteral("points (% of n)"));
        QCOMPARE(skip_series[1].name, QStringLiteral("groups (% of n·t)"));
        QCOMPARE(skip_series[1].pen_style, Qt::DashLine);
        const auto& percents = values(single, Chart::SkipPercent, 1);
        QCOMPARE(percents.size(), yinyang.size());
        for (std::size_t i = 0; i < yinyang.size(); ++i)
            QCOMPARE(percents[i], 100.0 * double(yinyang[i].group_skips) / (double(data.n()) * yinyang[i].groups));
        QCOMPARE(single.chart(Chart::SkipPercent)->title(), QStringLiteral("Skipped by bounds (%)"));

        // Fed one iteration at a time (the studio's live run): the group line appears too.
        IterationCharts live;
        live.setRun(data.n(), 50, {}, QStringLiteral("yinyang/omp/f64"));
        for (const IterationStats& s : yinyang) live.appendIteration(s);
        QCOMPARE(live.chart(Chart::SkipPercent)->series().size(), std::size_t(2));
        QCOMPARE(values(live, Chart::SkipPercent, 1), percents);

        // Lloyd alone: one line, no groups in the title.
        IterationCharts plain;
        plain.setRun(data.n(), 50, lloyd, QStringLiteral("lloyd/omp/f64"));
        QCOMPARE(plain.chart(Chart::SkipPercent)->series().size(), std::size_t(1));
        QCOMPARE(plain.chart(Chart::SkipPercent)->title(), QStringLiteral("Points skipped by bounds (%)"));

        // Overlaid: Lloyd's solid line, Yinyang's solid and dashed ones.
        IterationCharts compare;
        compare.setRun(data.n(), 50, lloyd, QStringLiteral("lloyd/omp/f64"));
        compare.addRun(QStringLiteral("yinyang/omp/f64"), data.n(), 50, yinyang);
        const auto& overlaid = compare.chart(Chart::SkipPercent)->series();
        QCOMPARE(overlaid.size(), std::size_t(3));
        QCOMPARE(overlaid[2].name, QStringLiteral("yinyang/omp/f64 groups"));
        QCOMPARE(overlaid[2].color, overlaid[1].color);

        // The CSV: Lloyd's group fields empty, Yinyang's t, the count and the percentage.
        const QStringList lines = QString::fromStdString(compare.toCsv()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(std::size_t(lines.size()), 1 + lloyd.size() + yinyang.size());
        const QStringList header = lines[0].split(QLatin1Char(','));
        const int groups_column = int(header.indexOf(QStringLiteral("groups")));
        const int skips_column = int(header.indexOf(QStringLiteral("group_skips")));
        const int percent_column = int(header.indexOf(QStringLiteral("group_skip_percent")));
        QVERIFY(groups_column > 0 && skips_column == groups_column + 1 && percent_column == groups_column + 2);
        for (std::size_t i = 0; i < lloyd.size(); ++i) {
            const QStringList fields = lines[int(1 + i)].split(QLatin1Char(','));
            QVERIFY(fields[groups_column].isEmpty() && fields[skips_column].isEmpty() && fields[percent_column].isEmpty());
        }
        for (std::size_t i = 0; i < yinyang.size(); ++i) {
            const QStringList fields = lines[int(1 + lloyd.size() + i)].split(QLatin1Char(','));
            QCOMPARE(fields[groups_column].toUInt(), yinyang[i].groups);
            QCOMPARE(fields[skips_column].toULongLong(), static_cast<qulonglong>(yinyang[i].group_skips));
            QCOMPARE(fields[percent_column].toDouble(), percents[i]);
        }
        single.resize(1200, 560);
        const QImage image = single.grab().toImage();
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) QVERIFY(image.save(dir + QStringLiteral("/charts-yinyang.png")));
    }

    void gemmSeries() {
        // Lloyd's GEMM filter as CUDA reports it: certified (dotted) and listed (dash-dotted)
        // beside the points' line, in percent of n; steps 1-2 without lists, 3-4 with.
        std::vector<IterationStats> steps;
        for (int i = 1; i <= 4; ++i) {
            IterationStats s = record(i, 1000, 0, 10);
            s.gemm_certified = 600 + 50 * i;
            s.verified_points = 1000 - s.gemm_certified;
            s.gemm_listed = i >= 3 ? s.verified_points - 10 : 0;
            steps.push_back(s);
        }
        IterationCharts single;
        single.setRun(1000, 100, steps, QStringLiteral("lloyd/cuda-shared/f32"));
        const auto& series = single.chart(Chart::SkipPercent)->series();
        QCOMPARE(series.size(), std::size_t(3));
        QCOMPARE(series[1].name, QStringLiteral("certified by the GEMM (% of n)"));
        QCOMPARE(series[1].pen_style, Qt::DotLine);
        QCOMPARE(series[2].name, QStringLiteral("listed by the GEMM (% of n)"));
        QCOMPARE(series[2].pen_style, Qt::DashDotLine);
        QCOMPARE(values(single, Chart::SkipPercent, 1), (std::vector<double>{65.0, 70.0, 75.0, 80.0}));
        QCOMPARE(values(single, Chart::SkipPercent, 2), (std::vector<double>{0.0, 0.0, 24.0, 19.0}));

        // Live, one step at a time: the GEMM lines appear with the first step that has them.
        IterationCharts live;
        live.setRun(1000, 100, {}, QStringLiteral("lloyd/cuda-shared/f32"));
        live.appendIteration(record(1, 1000, 0, 10));  // the exact kernel's step: no filter
        QCOMPARE(live.chart(Chart::SkipPercent)->series().size(), std::size_t(1));
        live.appendIteration(steps[1]);
        QCOMPARE(live.chart(Chart::SkipPercent)->series().size(), std::size_t(2));
        live.appendIteration(steps[2]);
        live.appendIteration(steps[3]);
        QCOMPARE(live.chart(Chart::SkipPercent)->series().size(), std::size_t(3));
        QVERIFY(std::isnan(values(live, Chart::SkipPercent, 1)[0]));
        QCOMPARE(values(live, Chart::SkipPercent, 2).back(), 19.0);

        // Overlaid with a run without lists (the CPU's filter): one dotted line for it, no listed one.
        std::vector<IterationStats> cpu = steps;
        for (IterationStats& s : cpu) s.gemm_listed = 0;
        IterationCharts compare;
        compare.setRun(1000, 100, steps, QStringLiteral("lloyd/cuda-shared/f32"));
        compare.addRun(QStringLiteral("lloyd/omp/f32"), 1000, 100, cpu);
        const auto& overlaid = compare.chart(Chart::SkipPercent)->series();
        QCOMPARE(overlaid.size(), std::size_t(5));
        QCOMPARE(overlaid[2].name, QStringLiteral("lloyd/cuda-shared/f32 GEMM listed"));
        QCOMPARE(overlaid[4].name, QStringLiteral("lloyd/omp/f32 GEMM"));
    }

    void realRunsRender() {
        // Three algorithms from the same start on the same blobs: Lloyd always
        // does n·k distances; Elkan and Hamerly skip points once bounds form.
        const kms::Dataset data = kms::generate_dataset("blobs:n=6000,k=12,d=2,spread=0.15", 7);
        kms::InitOptions init;
        init.seed = 3;
        init.method = kms::InitMethod::Random;  // a slower start: more iterations to look at
        const kms::Matrix<double> start = kms::initialize_centroids(data.points, 12, init);
        const auto lloyd = run_solver(data, start, kms::Algorithm::Lloyd);
        const auto elkan = run_solver(data, start, kms::Algorithm::Elkan);
        const auto hamerly = run_solver(data, start, kms::Algorithm::Hamerly);
        QVERIFY(lloyd.size() >= 3);

        IterationCharts single;
        single.setRun(data.n(), 12, hamerly, QStringLiteral("hamerly/seq/f64"));
        single.setCurrentIteration(static_cast<int>(hamerly.size() / 2));
        for (double percent : values(single, Chart::DistancePercent)) QVERIFY(percent <= 100.0 + 1e-9);
        QVERIFY(values(single, Chart::SkipPercent).back() > 50.0);

        IterationCharts compare;
        compare.setRun(data.n(), 12, lloyd, QStringLiteral("lloyd/seq/f64"));
        compare.addRun(QStringLiteral("elkan/seq/f64"), data.n(), 12, elkan);
        compare.addRun(QStringLiteral("hamerly/seq/f64"), data.n(), 12, hamerly);
        for (double percent : values(compare, Chart::DistancePercent, 0)) QCOMPARE(percent, 100.0);
        for (double skipped : values(compare, Chart::SkipPercent, 0)) QCOMPARE(skipped, 0.0);
        // Exact bounds: all three take the same path, so the same inertia at every iteration.
        QCOMPARE(values(compare, Chart::Inertia, 1).size(), values(compare, Chart::Inertia, 0).size());
        const std::string csv = compare.toCsv();
        QCOMPARE(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
                 1 + lloyd.size() + elkan.size() + hamerly.size());

        single.resize(1200, 560);
        compare.resize(1200, 560);
        // Hover over iteration 8 of the distance chart: the read-out names every run.
        kms::ui::PlotWidget* distances = compare.chart(Chart::DistancePercent);
        const QPointF at = distances->toPixel(8, 50);
        QMouseEvent move(QEvent::MouseMove, at, distances->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(distances, &move);
        QCOMPARE(distances->hoveredIteration(), std::optional<int>(8));
        const QImage single_image = single.grab().toImage();
        const QImage compare_image = compare.grab().toImage();
        QCOMPARE(single_image.size(), QSize(1200, 560));
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            QVERIFY(single_image.save(dir + QStringLiteral("/charts.png")));
            QVERIFY(compare_image.save(dir + QStringLiteral("/charts-compare.png")));
        }
    }
};

QTEST_MAIN(TestIterationCharts)
#include "test_iteration_charts.moc"
