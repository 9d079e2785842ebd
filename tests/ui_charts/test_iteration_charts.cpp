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
        const std::string expected =
            "run,solver,n,k,iteration,time_assign_ms,time_bounds_ms,time_update_ms,time_total_ms,"
            "point_centroid_distances,centroid_centroid_distances,distance_percent_of_lloyd,bound_skips,"
            "bound_skip_percent,labels_changed,max_shift,mean_shift,shift_sq_total,empty_clusters,inertia\n"
            "0,elkan/seq/f64,10,4,1,1.5,0.25,0.125,2,40,6,115,0,0,10,1,0.5,0.1,1,12.5\n"
            "0,elkan/seq/f64,10,4,2,3,0.25,0.125,3.5,20,0,50,5,50,0,0.5,0.25,0.1,0,\n"
            "1,\"a \"\"quoted\"\", name\",10,4,1,1.5,0.25,0.125,2,40,0,100,0,0,10,1,0.5,0.1,0,0.1\n";
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
