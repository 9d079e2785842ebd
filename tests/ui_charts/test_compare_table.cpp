// CompareModel / IterationDetailModel / CompareTable: summary numbers, their
// text, best-value emphasis, per-iteration detail following the selection.
#include <QtTest>
#include <QtWidgets>

#include <cmath>

#include "charts/distinct_colours.hpp"
#include "compare/compare_table.hpp"
#include "kms/backends.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/scores.hpp"
#include "kms/solver.hpp"

using kms::IterationStats;
using kms::ui::CompareEntry;
using kms::ui::CompareModel;
using kms::ui::CompareTable;
using kms::ui::IterationDetailModel;

namespace {

IterationStats step(int iteration, double total_ms, std::uint64_t distances, std::uint64_t skips,
                    std::uint64_t centroid_distances = 0) {
    IterationStats s;
    s.iteration = iteration;
    s.time_total_ms = total_ms;
    s.time_assign_ms = total_ms * 0.75;
    s.point_centroid_distances = distances;
    s.centroid_centroid_distances = centroid_distances;
    s.bound_skips = skips;
    s.labels_changed = 10u / static_cast<unsigned>(iteration);
    s.max_shift = 0.5 / iteration;
    return s;
}

std::vector<CompareEntry> two_solvers() {
    CompareEntry lloyd{QStringLiteral("lloyd/seq/f64"), 100, 4,
                       {step(1, 10, 400, 0), step(2, 30, 400, 0), step(3, 20, 400, 0)}, 123.456, std::nullopt,
                       true, QStringLiteral("seq")};
    IterationStats last = step(3, 3, 50, 90, 6);
    last.inertia = 120.5;
    CompareEntry hamerly{QStringLiteral("hamerly/seq/f64"), 100, 4,
                         {step(1, 8, 400, 0), step(2, 4, 100, 75), last}, std::nullopt, std::nullopt,
                         true, QStringLiteral("seq")};
    return {lloyd, hamerly};
}

QString text(const QAbstractItemModel& model, int row, int column) {
    return model.data(model.index(row, column)).toString();
}
double number(const QAbstractItemModel& model, int row, int column) {
    return model.data(model.index(row, column), CompareModel::kValueRole).toDouble();
}
bool bold(const QAbstractItemModel& model, int row, int column) {
    const QVariant font = model.data(model.index(row, column), Qt::FontRole);
    return font.isValid() && font.value<QFont>().bold();
}

std::vector<IterationStats> run_solver(const kms::Dataset& data, const kms::Matrix<double>& start,
                                       kms::Algorithm algorithm, double* inertia) {
    kms::SolverConfig config;
    config.algorithm = algorithm;
    auto solver = kms::make_solver(config);
    solver->set_data(std::make_shared<const kms::Matrix<double>>(data.points));
    solver->set_initial_centroids(start);
    std::vector<IterationStats> stats;
    while (!solver->converged()) stats.push_back(solver->step());
    *inertia = solver->inertia();
    return stats;
}

// One compare entry per algorithm, each run to convergence from `start` (k centroids).
std::vector<CompareEntry> compare_entries(const kms::Dataset& data, const kms::Matrix<double>& start,
                                          std::initializer_list<kms::Algorithm> algorithms, std::size_t k) {
    std::vector<CompareEntry> entries;
    for (kms::Algorithm algorithm : algorithms) {
        CompareEntry entry;
        double inertia = 0.0;
        entry.stats = run_solver(data, start, algorithm, &inertia);
        entry.final_inertia = inertia;
        entry.name = QString::fromLatin1(kms::to_string(algorithm).data()) + QStringLiteral("/seq/f64");
        entry.n = data.n();
        entry.k = k;
        entries.push_back(std::move(entry));
    }
    return entries;
}

}  // namespace

class TestCompareTable : public QObject {
    Q_OBJECT
private slots:
    void summaryNumbers() {
        const auto entries = two_solvers();
        const kms::ui::CompareSummary lloyd = kms::ui::summarize(entries[0]);
        QCOMPARE(lloyd.iterations, 3);
        QCOMPARE(lloyd.total_ms, 60.0);
        QCOMPARE(lloyd.median_iteration_ms, 20.0);
        QCOMPARE(lloyd.distances, std::uint64_t(1200));
        QCOMPARE(lloyd.distance_percent, 100.0);
        QCOMPARE(lloyd.skip_percent, 0.0);
        QCOMPARE(lloyd.final_inertia, 123.456);
        const kms::ui::CompareSummary hamerly = kms::ui::summarize(entries[1]);
        QCOMPARE(hamerly.total_ms, 15.0);
        QCOMPARE(hamerly.median_iteration_ms, 4.0);
        QCOMPARE(hamerly.distances, std::uint64_t(556));
        QCOMPARE(hamerly.distance_percent, 100.0 * 556.0 / 1200.0);
        QCOMPARE(hamerly.skip_percent, 55.0);
        QCOMPARE(hamerly.final_inertia, 120.5);  // the last recorded inertia when none was given
        CompareEntry even = entries[0];
        even.stats.push_back(step(4, 100, 400, 0));
        QCOMPARE(kms::ui::summarize(even).median_iteration_ms, 25.0);  // (20 + 30) / 2
        QVERIFY(std::isnan(kms::ui::summarize(CompareEntry{}).median_iteration_ms));
    }

    void modelCells() {
        CompareModel model;
        model.setEntries(two_solvers());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(CompareModel::ColumnCount));
        QCOMPARE(text(model, 0, CompareModel::Solver), QStringLiteral("lloyd/seq/f64"));
        QCOMPARE(text(model, 0, CompareModel::TotalTime), QStringLiteral("60.00 ms"));
        QCOMPARE(text(model, 1, CompareModel::MedianTime), QStringLiteral("3.50 ms"));  // of iterations 2..: 4 and 3
        // Speed-ups from the median of iterations 2.. (Lloyd 25, Hamerly 3.5): iteration 1 is warm-up.
        QCOMPARE(text(model, 0, CompareModel::SpeedUp), QStringLiteral("1.00×"));
        QCOMPARE(text(model, 1, CompareModel::SpeedUp), QStringLiteral("7.14×"));
        QCOMPARE(number(model, 1, CompareModel::SpeedUp), 50.0 / 7.0);
        QCOMPARE(text(model, 0, CompareModel::FirstIteration), QStringLiteral("10.00 ms"));
        QCOMPARE(text(model, 1, CompareModel::FirstIteration), QStringLiteral("8.00 ms"));
        QCOMPARE(text(model, 0, CompareModel::Distances), QStringLiteral("1,200"));
        QCOMPARE(text(model, 1, CompareModel::DistancePercent), QStringLiteral("46.3%"));
        QCOMPARE(text(model, 1, CompareModel::SkipPercent), QStringLiteral("55.0%"));
        QCOMPARE(text(model, 0, CompareModel::FinalInertia), QStringLiteral("123.456"));
        QCOMPARE(text(model, 0, CompareModel::Silhouette), QStringLiteral("–"));
        QVERIFY(std::isnan(number(model, 0, CompareModel::Silhouette)));
        // Colour swatch = the run's chart colour.
        const kms::ui::Rgb second = kms::ui::series_colour(1);
        QCOMPARE(model.data(model.index(1, CompareModel::Solver), Qt::DecorationRole).value<QColor>(),
                 QColor(second.r, second.g, second.b));
        // Best values in bold; a tie (same iteration count) is not news.
        QVERIFY(bold(model, 1, CompareModel::TotalTime));
        QVERIFY(!bold(model, 0, CompareModel::TotalTime));
        QVERIFY(bold(model, 1, CompareModel::SkipPercent));
        QVERIFY(bold(model, 1, CompareModel::FinalInertia));
        QVERIFY(!bold(model, 0, CompareModel::Iterations) && !bold(model, 1, CompareModel::Iterations));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        kms::Scores scores;
        scores.silhouette = 0.61237;
        scores.davies_bouldin = 0.5;
        model.setScores(0, scores);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(text(model, 0, CompareModel::Silhouette), QStringLiteral("0.6124"));
        QVERIFY(model.columnHasValues(CompareModel::Silhouette));
        QVERIFY(!model.columnHasValues(CompareModel::Ari));
        model.appendIteration(1, step(4, 5, 20, 95));
        QCOMPARE(text(model, 1, CompareModel::Iterations), QStringLiteral("4"));
        QCOMPARE(text(model, 1, CompareModel::TotalTime), QStringLiteral("20.00 ms"));
        QCOMPARE(text(model, 0, CompareModel::Iterations), QStringLiteral("3"));
        QVERIFY(bold(model, 0, CompareModel::Iterations));  // now they differ
    }

    // Issue 36: Hamerly's first iteration (bounds set-up, first touch) took 3.82 of its
    // 4.86 ms, so a speed-up from the totals called the fastest solver the slowest.
    void speedUpLeavesTheWarmUpOut() {
        auto run = [](const char* name, double first, double rest, int iterations) {
            CompareEntry entry{QString::fromLatin1(name), 1000, 8, {}, 1.0, std::nullopt, true, QStringLiteral("omp")};
            entry.stats.push_back(step(1, first, 8000, 0));
            for (int i = 2; i <= iterations; ++i) entry.stats.push_back(step(i, rest, 8000, 0));
            return entry;
        };
        CompareModel model;
        model.setEntries({run("hamerly", 3.82, 0.230, 5), run("elkan", 0.9, 0.33, 5), run("lloyd", 0.5, 0.40, 5)});
        // The totals alone rank Hamerly last (4.74 ms against 2.22 and 2.10) ...
        QVERIFY(kms::ui::summarize(model.entries()[0]).total_ms > kms::ui::summarize(model.entries()[2]).total_ms);
        // ... the speed-up, from the median of iterations 2-5, ranks it first and in bold.
        QCOMPARE(number(model, 2, CompareModel::SpeedUp), 1.0);
        QCOMPARE(number(model, 0, CompareModel::SpeedUp), 0.40 / 0.230);
        QVERIFY(number(model, 0, CompareModel::SpeedUp) > number(model, 1, CompareModel::SpeedUp));
        QVERIFY(bold(model, 0, CompareModel::SpeedUp) && bold(model, 0, CompareModel::MedianTime));
        // The warm-up is shown apart, labelled.
        QCOMPARE(text(model, 0, CompareModel::FirstIteration), QStringLiteral("3.82 ms"));
        QVERIFY(model.headerData(CompareModel::FirstIteration, Qt::Horizontal).toString().contains(QStringLiteral("warm-up")));
        // One slow step of a busy machine (iteration 3: 5 ms) does not decide the speed-up.
        CompareEntry noisy = run("elkan", 0.9, 0.33, 5);
        noisy.stats[2].time_total_ms = 5.0;
        model.setEntries({run("hamerly", 3.82, 0.230, 5), noisy, run("lloyd", 0.5, 0.40, 5)});
        QCOMPARE(number(model, 1, CompareModel::SpeedUp), 0.40 / 0.33);
        // One iteration only: the totals are all there is.
        CompareModel single;
        single.setEntries({run("a", 2.0, 0, 1), run("b", 1.0, 0, 1)});
        QCOMPARE(number(single, 1, CompareModel::SpeedUp), 2.0);
    }

    void detailFollowsSelection() {
        CompareTable table;
        QSignalSpy selected(&table, &CompareTable::solverSelected);
        table.setEntries(two_solvers());
        QCOMPARE(table.selectedSolver(), 0);
        QCOMPARE(table.detailModel()->rowCount(), 3);
        QCOMPARE(text(*table.detailModel(), 1, IterationDetailModel::TotalTime), QStringLiteral("30.00 ms"));
        table.selectSolver(1);
        QCOMPARE(selected.last().at(0).toInt(), 1);
        QCOMPARE(table.detailModel()->sourceRow(), 1);
        QCOMPARE(text(*table.detailModel(), 2, IterationDetailModel::SkipPercent), QStringLiteral("90.0%"));
        QCOMPARE(text(*table.detailModel(), 2, IterationDetailModel::DistancePercent), QStringLiteral("14.0%"));
        QCOMPARE(text(*table.detailModel(), 2, IterationDetailModel::Inertia), QStringLiteral("120.500"));
        QCOMPARE(text(*table.detailModel(), 0, IterationDetailModel::Inertia), QStringLiteral("–"));
        // Clicking a row selects it too.
        table.resize(900, 260);  // a short dock: every solver row still shows
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        QVERIFY(table.summaryView()->height() >=
                2 * table.summaryView()->verticalHeader()->defaultSectionSize() +
                    table.summaryView()->horizontalHeader()->sizeHint().height());
        QTableView* view = table.summaryView();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                          view->visualRect(table.model()->index(0, CompareModel::Iterations)).center());
        QCOMPARE(table.selectedSolver(), 0);
        QCOMPARE(table.detailModel()->sourceRow(), 0);
        // A new iteration of the shown solver is inserted, not reset.
        QSignalSpy inserted(table.detailModel(), &QAbstractItemModel::rowsInserted);
        table.appendIteration(0, step(4, 12, 400, 0));
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(table.detailModel()->rowCount(), 4);
        // Ground-truth columns appear only when some solver has them.
        QVERIFY(view->isColumnHidden(CompareModel::Ari));
        kms::Scores scores;
        scores.ari = 0.9;
        table.setScores(1, scores);
        QVERIFY(!view->isColumnHidden(CompareModel::Ari));
        QVERIFY(view->isColumnHidden(CompareModel::Nmi));
        for (QSize size : {QSize(0, 0), QSize(40, 30), QSize(1200, 300)}) {
            table.resize(size);
            table.grab();
        }
        table.clear();
        QCOMPARE(table.model()->rowCount(), 0);
        QCOMPARE(table.detailModel()->rowCount(), 0);
        QCOMPARE(table.selectedSolver(), -1);
    }

    void yinyangGroupSkips() {
        // Yinyang on k = 50 blobs next to Lloyd from the same start: its group skips
        // (% of n·t) in the summary and the detail; Lloyd's read "–".
        const kms::Dataset data = kms::generate_dataset("blobs:n=4000,k=50,d=2,spread=0.3", 11);
        kms::InitOptions init;
        init.seed = 5;
        const kms::Matrix<double> start = kms::initialize_centroids(data.points, 50, init);
        const std::vector<CompareEntry> entries =
            compare_entries(data, start, {kms::Algorithm::Lloyd, kms::Algorithm::Yinyang}, 50);
        const std::vector<IterationStats>& yinyang = entries[1].stats;
        std::uint64_t group_skips = 0;
        double pairs = 0.0;
        for (const IterationStats& s : yinyang) {
            group_skips += s.group_skips;
            pairs += double(data.n()) * s.groups;
        }
        QVERIFY(group_skips > 0 && pairs > 0.0);
        const kms::ui::CompareSummary summary = kms::ui::summarize(entries[1]);
        QCOMPARE(summary.group_skips, group_skips);
        QCOMPARE(summary.group_skip_percent, 100.0 * double(group_skips) / pairs);
        QVERIFY(std::isnan(kms::ui::summarize(entries[0]).group_skip_percent));

        CompareTable table;
        table.setEntries(entries);
        const CompareModel& model = *table.model();
        QCOMPARE(text(model, 0, CompareModel::GroupSkipPercent), QStringLiteral("–"));
        QVERIFY(std::isnan(number(model, 0, CompareModel::GroupSkipPercent)));
        QCOMPARE(number(model, 1, CompareModel::GroupSkipPercent), summary.group_skip_percent);
        QCOMPARE(text(model, 1, CompareModel::GroupSkipPercent),
                 QLocale(QLocale::English).toString(summary.group_skip_percent, 'f', 1) + QLatin1Char('%'));
        QCOMPARE(model.headerData(CompareModel::GroupSkipPercent, Qt::Horizontal).toString(), QStringLiteral("Groups skipped"));
        QVERIFY(!table.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        QVERIFY(!bold(model, 1, CompareModel::GroupSkipPercent));  // one solver with groups: nothing to compare

        // Detail: Lloyd shows no group columns; Yinyang its count and % of n·t per iteration.
        table.selectSolver(0);
        QVERIFY(table.detailView()->isColumnHidden(IterationDetailModel::GroupSkips));
        QVERIFY(table.detailView()->isColumnHidden(IterationDetailModel::GroupSkipPercent));
        QCOMPARE(text(*table.detailModel(), 1, IterationDetailModel::GroupSkips), QStringLiteral("–"));
        table.selectSolver(1);
        QVERIFY(!table.detailView()->isColumnHidden(IterationDetailModel::GroupSkips));
        QVERIFY(!table.detailView()->isColumnHidden(IterationDetailModel::GroupSkipPercent));
        for (int row = 0; row < int(yinyang.size()); ++row) {
            const IterationStats& s = yinyang[std::size_t(row)];
            QCOMPARE(text(*table.detailModel(), row, IterationDetailModel::GroupSkips),
                     QLocale(QLocale::English).toString(static_cast<qulonglong>(s.group_skips)));
            QCOMPARE(number(*table.detailModel(), row, IterationDetailModel::GroupSkipPercent),
                     100.0 * double(s.group_skips) / (double(data.n()) * s.groups));
        }
        table.resize(1100, 420);
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) QVERIFY(table.grab().save(dir + QStringLiteral("/compare-table-yinyang.png")));

        // Live: the column appears with Yinyang's first iteration; without groups it stays hidden.
        CompareTable live;
        std::vector<CompareEntry> empty = entries;
        for (CompareEntry& entry : empty) entry.stats.clear();
        live.setEntries(empty);
        QVERIFY(live.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        live.appendIteration(0, entries[0].stats[0]);
        QVERIFY(live.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        live.selectSolver(1);
        live.appendIteration(1, yinyang[0]);
        QVERIFY(!live.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        QVERIFY(!live.detailView()->isColumnHidden(IterationDetailModel::GroupSkips));
        live.setEntries({entries[0]});
        QVERIFY(live.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
    }

    void gemmColumns() {
        // The GEMM filter's points: CPU Lloyd at d = 64, k = 64 (d·k = 4096, the CPU filter's
        // smallest) runs the certified GEMM (certified, no lists); a CUDA-like record adds
        // lists; Hamerly has neither.
        const bool cpu_has_gemm = __builtin_cpu_supports("avx512f") ||
                                  (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
        if (!cpu_has_gemm) QSKIP("this CPU has no GEMM micro-kernel (AVX2 with FMA, or AVX-512)");
        const kms::Dataset data = kms::generate_dataset("blobs:n=3000,k=64,d=64,spread=0.4", 5);
        kms::InitOptions init;
        init.seed = 9;
        const kms::Matrix<double> start = kms::initialize_centroids(data.points, 64, init);
        std::vector<CompareEntry> entries =
            compare_entries(data, start, {kms::Algorithm::Lloyd, kms::Algorithm::Hamerly}, 64);
        const std::vector<IterationStats> lloyd = entries[0].stats;  // a copy: entries grows below
        std::uint64_t certified = 0;
        for (const IterationStats& s : lloyd) {
            QCOMPARE(s.gemm_certified + s.verified_points, std::uint64_t(data.n()));  // the filter ran every step
            QCOMPARE(s.gemm_listed, std::uint64_t(0));
            certified += s.gemm_certified;
        }
        QVERIFY(certified > 0);
        const double points = double(lloyd.size()) * double(data.n());
        QCOMPARE(kms::ui::summarize(entries[0]).gemm_certified_percent, 100.0 * double(certified) / points);
        QCOMPARE(kms::ui::summarize(entries[0]).gemm_listed_percent, 0.0);
        QVERIFY(std::isnan(kms::ui::summarize(entries[1]).gemm_certified_percent));

        CompareEntry cuda = entries[0];
        cuda.name = QStringLiteral("lloyd/cuda-shared/f64");
        cuda.backend = QStringLiteral("cuda");
        std::uint64_t listed = 0;
        for (IterationStats& s : cuda.stats) {
            s.gemm_listed = s.verified_points / 2;
            listed += s.gemm_listed;
        }
        // An exact step first (the filter off): the percentages count the filter's steps only.
        IterationStats exact = cuda.stats.front();
        exact.gemm_certified = exact.verified_points = exact.gemm_listed = 0;
        cuda.stats.insert(cuda.stats.begin(), exact);
        entries.push_back(cuda);

        CompareTable table;
        table.setEntries(entries);
        const CompareModel& model = *table.model();
        QVERIFY(!table.summaryView()->isColumnHidden(CompareModel::GemmCertifiedPercent));
        QVERIFY(!table.summaryView()->isColumnHidden(CompareModel::GemmListedPercent));
        QCOMPARE(model.headerData(CompareModel::GemmCertifiedPercent, Qt::Horizontal).toString(),
                 QStringLiteral("GEMM certified"));
        QCOMPARE(text(model, 1, CompareModel::GemmCertifiedPercent), QStringLiteral("–"));
        QCOMPARE(number(model, 2, CompareModel::GemmCertifiedPercent), 100.0 * double(certified) / points);
        QCOMPARE(number(model, 2, CompareModel::GemmListedPercent), 100.0 * double(listed) / points);
        QCOMPARE(text(model, 0, CompareModel::GemmListedPercent), QStringLiteral("0.0%"));
        QVERIFY(!bold(model, 2, CompareModel::GemmListedPercent));  // listed is neither better nor worse

        // Detail: the GEMM columns for a run with the filter, hidden for Hamerly.
        table.selectSolver(1);
        QVERIFY(table.detailView()->isColumnHidden(IterationDetailModel::GemmCertifiedPercent));
        table.selectSolver(2);
        QVERIFY(!table.detailView()->isColumnHidden(IterationDetailModel::GemmCertifiedPercent));
        QVERIFY(!table.detailView()->isColumnHidden(IterationDetailModel::GemmListedPercent));
        QCOMPARE(text(*table.detailModel(), 0, IterationDetailModel::GemmCertifiedPercent), QStringLiteral("–"));
        QCOMPARE(number(*table.detailModel(), 1, IterationDetailModel::GemmListedPercent),
                 100.0 * double(cuda.stats[1].gemm_listed) / double(data.n()));

        // Live: the columns appear with the first filtered step; without the filter they stay hidden.
        CompareTable live;
        std::vector<CompareEntry> empty = {entries[1], entries[0]};
        for (CompareEntry& entry : empty) entry.stats.clear();
        live.setEntries(empty);
        live.appendIteration(0, entries[1].stats[0]);
        QVERIFY(live.summaryView()->isColumnHidden(CompareModel::GemmCertifiedPercent));
        live.selectSolver(1);
        live.appendIteration(1, lloyd[0]);
        QVERIFY(!live.summaryView()->isColumnHidden(CompareModel::GemmCertifiedPercent));
        QVERIFY(!live.detailView()->isColumnHidden(IterationDetailModel::GemmCertifiedPercent));
        table.resize(1280, 420);
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) QVERIFY(table.grab().save(dir + QStringLiteral("/compare-table-gemm.png")));
    }

    void realSolvers() {
        const kms::Dataset data = kms::generate_dataset("blobs:n=6000,k=12,d=2,spread=0.15", 7);
        kms::InitOptions init;
        init.seed = 3;
        init.method = kms::InitMethod::Random;
        const kms::Matrix<double> start = kms::initialize_centroids(data.points, 12, init);
        const std::vector<CompareEntry> entries =
            compare_entries(data, start, {kms::Algorithm::Lloyd, kms::Algorithm::Elkan, kms::Algorithm::Hamerly}, 12);
        CompareTable table;
        table.setEntries(entries);
        // Same start, exact bounds: same iterations and inertia for all three.
        QCOMPARE(number(*table.model(), 1, CompareModel::Iterations), number(*table.model(), 0, CompareModel::Iterations));
        QCOMPARE(text(*table.model(), 2, CompareModel::FinalInertia), text(*table.model(), 0, CompareModel::FinalInertia));
        QCOMPARE(number(*table.model(), 0, CompareModel::DistancePercent), 100.0);
        QVERIFY(number(*table.model(), 1, CompareModel::DistancePercent) < 100.0);
        QVERIFY(number(*table.model(), 2, CompareModel::SkipPercent) > 0.0);
        // No solver with groups or the GEMM filter (d = 2): no group or GEMM column.
        QVERIFY(table.summaryView()->isColumnHidden(CompareModel::GroupSkipPercent));
        QVERIFY(table.summaryView()->isColumnHidden(CompareModel::GemmCertifiedPercent));
        QVERIFY(table.summaryView()->isColumnHidden(CompareModel::GemmListedPercent));
        table.selectSolver(2);
        table.resize(1100, 420);
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) QVERIFY(table.grab().save(dir + QStringLiteral("/compare-table.png")));
    }
};

QTEST_MAIN(TestCompareTable)
#include "test_compare_table.moc"
