// The k-sweep (kms/sweep.hpp) and `kmeans-cli sweep`: the range grammar, Rombaut's
// merge on hand-computed cases, the kneedle rule, the suggested k on blobs of known
// k, levels bitwise equal to single fits and to `kmeans-cli run`, the hierarchy's
// seeding, the levels file, errors, and cancellation.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stop_token>
#include <string>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/sweep.hpp"
#include "test_support.hpp"

namespace {

using Result = kms::test::CliRun;
using kms::test::run_cli;

std::vector<QJsonObject> json_lines(const QString& text) {
    std::vector<QJsonObject> objects;
    for (const QString& line : text.split('\n', Qt::SkipEmptyParts))
        objects.push_back(QJsonDocument::fromJson(line.toUtf8()).object());
    return objects;
}

kms::SweepOptions options_for(const std::string& range, std::uint64_t seed) {
    kms::SweepOptions options;
    options.range = kms::parse_k_range(range);
    options.fit.init.seed = seed;
    options.fit.solver.backend = kms::Backend::Sequential;
    options.score_settings.options.threads = 1;
    return options;
}

// k Gaussian blobs (std 0.4) around the vertices ±10·e_j of the cross-polytope
// (k <= 2d), each moved by a random jitter of up to ±1 per coordinate, n/k points
// each in random order. Every cluster is about as far from its neighbours as the
// others: the textbook case whose inertia curve bends at k. Deterministic in the seed.
kms::Matrix<double> separated_blobs(std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed) {
    kms::Matrix<double> centres(k, d);
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t t = 0; t < d; ++t)
            centres(c, t) = (t == c / 2 ? (c % 2 ? -10.0 : 10.0) : 0.0) + 2.0 * kms::random_uniform(seed, 7, c * d + t) - 1.0;
    kms::Matrix<double> points(n, d);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = kms::random_below(seed, 8, i, k);
        for (std::size_t t = 0; t < d; ++t) {
            const double u1 = 1.0 - kms::random_uniform(seed, 9, 2 * (i * d + t));
            const double u2 = kms::random_uniform(seed, 9, 2 * (i * d + t) + 1);
            points(i, t) = centres(c, t) + 0.4 * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        }
    }
    return points;
}

void write_csv(const QString& path, const kms::Matrix<double>& points) {
    std::ofstream out(path.toStdString());
    out.precision(17);
    for (std::size_t i = 0; i < points.rows(); ++i)
        for (std::size_t t = 0; t < points.cols(); ++t) out << points(i, t) << (t + 1 < points.cols() ? ',' : '\n');
}

// Stops the sweep once `levels` levels are done.
class StopAfter : public kms::SweepObserver {
public:
    StopAfter(std::stop_source& source, std::size_t levels) : source_(source), levels_(levels) {}
    void level_done(std::size_t index, std::size_t, const kms::SweepLevel&) override {
        if (index + 1 >= levels_) source_.request_stop();
    }

private:
    std::stop_source& source_;
    std::size_t levels_;
};

}  // namespace

class TestSweep : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void range_grammar() {
        const kms::KRange range = kms::parse_k_range("2:10:3");
        QCOMPARE(range.values(), (std::vector<std::size_t>{2, 5, 8}));
        QCOMPARE(kms::parse_k_range("3:3").values(), (std::vector<std::size_t>{3}));
        QCOMPARE(kms::parse_k_range("1:4").values().size(), std::size_t(4));
        const std::map<std::string, std::string> bad = {
            {"2:1", "smaller than the first"}, {"0:5", "starts at 1"}, {"2:9:0", "step"},
            {"a:5", "'a' is not a whole number"}, {"2", "FIRST:LAST"}, {"2:5:1:1", "FIRST:LAST"},
            {"2:", "'' is not"}, {"-1:5", "'-1' is not"}, {"2.5:6", "'2.5' is not"}, {"1:100000", "more than"}};
        for (const auto& [text, reason] : bad) {
            try {
                kms::parse_k_range(text);
                QFAIL(qPrintable(QString::fromStdString("accepted " + text)));
            } catch (const kms::UsageError& error) {
                QVERIFY2(std::string(error.what()).find(reason) != std::string::npos, error.what());
                QVERIFY2(std::string(error.what()).find("--k-range") != std::string::npos, error.what());
            }
        }
    }

    // Rombaut's merge, by hand: the closest pair becomes its size-weighted mean.
    void merge_rule_by_hand() {
        kms::Matrix<double> c(3, 2);
        c(0, 0) = 0; c(0, 1) = 0;
        c(1, 0) = 1; c(1, 1) = 2;
        c(2, 0) = 10; c(2, 1) = 0;
        std::vector<double> sizes{3, 1, 5};
        kms::merge_closest_centroids(c, sizes);  // |0-1|² = 5 < |0-2|² = 100, |1-2|² = 85
        QCOMPARE(c.rows(), std::size_t(2));
        QCOMPARE(c(0, 0), 0.25);  // (3·0 + 1·1) / 4
        QCOMPARE(c(0, 1), 0.5);   // (3·0 + 1·2) / 4
        QCOMPARE(c(1, 0), 10.0);
        QCOMPARE(sizes, (std::vector<double>{4, 5}));
        kms::merge_closest_centroids(c, sizes);
        QCOMPARE(c.rows(), std::size_t(1));
        QCOMPARE(c(0, 0), (4 * 0.25 + 5 * 10.0) / 9);
        QCOMPARE(sizes, (std::vector<double>{9}));

        // Ties go to the lowest pair; the merged row takes the lower index, the rest keep their order.
        kms::Matrix<double> line(4, 1);
        for (std::size_t i = 0; i < 4; ++i) line(i, 0) = 3.0 * double(i);
        std::vector<double> equal{1, 1, 2, 0};
        kms::merge_closest_centroids(line, equal);
        QCOMPARE(line(0, 0), 1.5);
        QCOMPARE(line(1, 0), 6.0);
        QCOMPARE(line(2, 0), 9.0);
        // Two empty clusters merge to their midpoint; an empty one does not move a full one.
        kms::Matrix<double> pair(3, 1);
        pair(0, 0) = 0; pair(1, 0) = 100; pair(2, 0) = 101;
        std::vector<double> empty{7, 0, 0};
        kms::merge_closest_centroids(pair, empty);
        QCOMPARE(pair(1, 0), 100.5);
        kms::merge_closest_centroids(pair, empty);
        QCOMPARE(pair(0, 0), 0.0);
        QCOMPARE(empty, (std::vector<double>{7}));
    }

    void kneedle_rule() {
        const std::vector<std::size_t> k{2, 3, 4, 5, 6, 7};
        // Normalised distances below the chord: 0, .41, .57, .38, .19, 0.
        QCOMPARE(kms::kneedle_elbow(k, {100, 40, 5, 4, 3, 2}).k.value_or(0), std::size_t(4));
        // A straight line, a flat curve, too few points, a NaN: no elbow, with the reason.
        const kms::KChoice straight = kms::kneedle_elbow(k, {60, 50, 40, 30, 20, 10});
        QVERIFY(!straight.k);
        QVERIFY2(straight.reason.find("straight") != std::string::npos, straight.reason.c_str());
        QVERIFY(!kms::kneedle_elbow(k, {5, 5, 5, 5, 5, 5}).k);
        QVERIFY(!kms::kneedle_elbow({2, 3}, {10, 1}).k);
        QVERIFY(!kms::kneedle_elbow(k, {100, 40, NAN, 4, 3, 2}).k);
        // Ties: the smallest k (0.5 at k = 2 and k = 3, exactly).
        QCOMPARE(kms::kneedle_elbow({1, 2, 3, 4, 5}, {4, 1, 0, 0, 0}).k.value_or(0), std::size_t(2));
        // Uneven steps: x is k, not the index.
        QCOMPARE(kms::kneedle_elbow({2, 3, 10}, {10, 1, 0}).k.value_or(0), std::size_t(3));
        // best_k: NaN skipped, ties to the smallest k.
        QCOMPARE(kms::best_k({2, 3, 4, 5}, {0.5, NAN, 0.7, 0.7}, true).k.value_or(0), std::size_t(4));
        QCOMPARE(kms::best_k({2, 3, 4}, {1.0, 0.2, 0.2}, false).k.value_or(0), std::size_t(3));
        QVERIFY(!kms::best_k({2, 3}, {NAN, NAN}, true).k);
    }

    // Well-separated blobs of known k in several shapes: the elbow and every score's best k find it.
    void suggestions_find_the_true_k_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("seed");
        QTest::addColumn<bool>("hierarchy");
        QTest::newRow("k4 d2") << 600 << 2 << 4 << 1 << false;
        QTest::newRow("k5 d3") << 500 << 3 << 5 << 2 << false;
        QTest::newRow("k6 d5") << 700 << 5 << 6 << 3 << false;
        QTest::newRow("k3 d2 hierarchy") << 450 << 2 << 3 << 4 << true;
        QTest::newRow("k6 d4 hierarchy") << 900 << 4 << 6 << 5 << true;
        QTest::newRow("k7 d8") << 700 << 8 << 7 << 6 << false;
    }
    void suggestions_find_the_true_k() {
        QFETCH(int, n);
        QFETCH(int, d);
        QFETCH(int, k);
        QFETCH(int, seed);
        QFETCH(bool, hierarchy);
        const std::size_t truth = std::size_t(k);
        auto points = std::make_shared<const kms::Matrix<double>>(separated_blobs(std::size_t(n), std::size_t(d), truth, std::uint64_t(seed)));
        kms::SweepOptions options = options_for("2:10", std::uint64_t(seed));
        options.hierarchy = hierarchy;
        options.fit.n_init = 3;  // the top level's restarts (every level's without the hierarchy)
        const kms::SweepResult result = kms::sweep(points, options);
        QCOMPARE(result.levels.size(), std::size_t(9));
        QVERIFY(!result.cancelled);
        QCOMPARE(result.elbow.k.value_or(0), std::size_t(truth));
        QCOMPARE(result.best_silhouette.k.value_or(0), std::size_t(truth));
        QCOMPARE(result.best_calinski_harabasz.k.value_or(0), std::size_t(truth));
        QCOMPARE(result.best_davies_bouldin.k.value_or(0), std::size_t(truth));
        for (std::size_t i = 0; i < result.levels.size(); ++i) {
            QCOMPARE(result.levels[i].k, std::size_t(2 + i));
            QCOMPARE(result.levels[i].fit.centroids.rows(), result.levels[i].k);
            QVERIFY(result.levels[i].scores.silhouette > -1 && result.levels[i].scores.silhouette <= 1);
        }
    }

    // A plain sweep's level k is the fit with k: same seed, same bits.
    void levels_equal_single_fits() {
        for (const char* spec : {"blobs:n=800,k=6,d=3", "varied:n=700,k=4", "uniform:n=500,d=4"}) {
            const kms::Dataset data = kms::generate_dataset(spec, 11);
            auto points = std::make_shared<const kms::Matrix<double>>(data.points);
            kms::SweepOptions options = options_for("2:9:3", 11);
            options.fit.solver.algorithm = kms::Algorithm::Hamerly;
            options.fit.n_init = 2;
            options.scores = false;
            const kms::SweepResult result = kms::sweep(points, options);
            QCOMPARE(result.levels.size(), std::size_t(3));
            for (const kms::SweepLevel& level : result.levels) {
                kms::FitOptions single = options.fit;
                single.k = level.k;
                const kms::FitResult fit = kms::fit(points, single);
                QCOMPARE(level.fit.inertia, fit.inertia);  // bitwise
                QCOMPARE(level.fit.labels, fit.labels);
                QCOMPARE(level.fit.iterations, fit.iterations);
            }
        }
    }

    // The hierarchy: each lower level starts from the level above, merged by the rule.
    void hierarchy_seeds_each_level_from_the_one_above() {
        const kms::Dataset data = kms::generate_dataset("blobs:n=1000,k=7,d=3", 21);
        auto points = std::make_shared<const kms::Matrix<double>>(data.points);
        kms::SweepOptions options = options_for("3:11:2", 21);
        options.hierarchy = true;
        options.scores = false;
        const kms::SweepResult result = kms::sweep(points, options);
        QCOMPARE(result.levels.size(), std::size_t(5));
        // The top level is the plain fit.
        kms::FitOptions top = options.fit;
        top.k = 11;
        QCOMPARE(result.levels.back().fit.inertia, kms::fit(points, top).inertia);
        for (std::size_t i = 0; i + 1 < result.levels.size(); ++i) {
            const kms::SweepLevel& above = result.levels[i + 1];
            std::vector<double> sizes(above.k, 0.0);
            for (const auto label : above.fit.labels) sizes[std::size_t(label)] += 1.0;
            kms::Matrix<double> expected = above.fit.centroids;
            while (expected.rows() > result.levels[i].k) kms::merge_closest_centroids(expected, sizes);
            const kms::Matrix<double>& start = result.levels[i].fit.initial_centroids;
            QCOMPARE(start.rows(), expected.rows());
            for (std::size_t r = 0; r < start.rows(); ++r)
                for (std::size_t c = 0; c < start.cols(); ++c) QCOMPARE(start(r, c), expected(r, c));
            // Refining from the merged start never ends above the merged start's own inertia.
            const kms::Assignment merged = kms::assign(points, expected, options.fit.solver);
            QVERIFY(result.levels[i].fit.inertia <= merged.inertia * (1 + 1e-12));
        }
    }

    void cancel_keeps_finished_levels() {
        const kms::Dataset data = kms::generate_dataset("blobs:n=2000,k=5,d=2", 3);
        auto points = std::make_shared<const kms::Matrix<double>>(data.points);
        std::stop_source source;
        StopAfter observer(source, 2);
        const kms::SweepResult result = kms::sweep(points, options_for("2:12", 3), &observer, source.get_token());
        QVERIFY(result.cancelled);
        QCOMPARE(result.levels.size(), std::size_t(2));
        QCOMPARE(result.levels[1].k, std::size_t(3));
        QVERIFY(!result.elbow.k);  // two levels: too few for an elbow
    }

    // --------------------------------------------------------------- the CLI
    void cli_matches_run_bitwise_and_writes_levels() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        write_csv(path("four.csv"), separated_blobs(900, 3, 4, 8));
        const QStringList common{"--input", path("four.csv"), "--seed", "8", "--solver", "elkan",
                                 "--precision", "f32", "--n-init", "2", "--threads", "2"};
        const Result sweep = run_cli(QStringList{"sweep", "--k-range", "2:6", "--report", "json", "--levels-out",
                                                 path("levels.csv")} + common);
        QVERIFY2(sweep.exit_code == 0, qPrintable(sweep.err));
        const std::vector<QJsonObject> lines = json_lines(sweep.out);
        QCOMPARE(lines.size(), std::size_t(6));
        for (std::size_t i = 0; i < 5; ++i) {
            const QJsonObject& level = lines[i];
            QCOMPARE(level["type"].toString(), QString("level"));
            const int k = level["k"].toInt();
            QCOMPARE(k, int(2 + i));
            for (const char* key : {"silhouette", "calinski_harabasz", "davies_bouldin", "fit_ms", "iterations"})
                QVERIFY2(level.contains(key), key);
            const Result run = run_cli(QStringList{"run", "--k", QString::number(k), "--report", "json"} + common);
            QVERIFY2(run.exit_code == 0, qPrintable(run.err));
            const QJsonObject summary = json_lines(run.out).back();
            QCOMPARE(level["inertia"].toDouble(), summary["inertia"].toDouble());  // shortest round trip: bitwise
            QCOMPARE(level["iterations"].toInt(), summary["iterations"].toInt());
        }
        const QJsonObject summary = lines.back();
        QCOMPARE(summary["type"].toString(), QString("sweep_summary"));
        QCOMPARE(summary["elbow_k"].toInt(), 4);
        QCOMPARE(summary["best_silhouette_k"].toInt(), 4);

        // The levels file: header, one row per point, labels within each level's k.
        std::ifstream file(path("levels.csv").toStdString());
        std::string line;
        QVERIFY(std::getline(file, line));
        QCOMPARE(QString::fromStdString(line), QString("k=2,k=3,k=4,k=5,k=6"));
        std::size_t rows = 0;
        while (std::getline(file, line)) {
            std::stringstream cells(line);
            std::string cell;
            int k = 2, columns = 0;
            while (std::getline(cells, cell, ',')) {
                const int label = std::stoi(cell);
                QVERIFY(label >= 0 && label < k);
                ++k;
                ++columns;
            }
            QCOMPARE(columns, 5);
            ++rows;
        }
        QCOMPARE(rows, std::size_t(900));
    }

    void cli_table_and_hierarchy() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        write_csv(path("three.csv"), separated_blobs(600, 2, 3, 4));
        const Result r = run_cli({"sweep", "--input", path("three.csv"), "--seed", "4", "--k-range", "2:7", "--hierarchy",
                                  "--scores", "sampled:200", "--backend", "seq", "--levels-out", path("h.csv")});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("# elbow (kneedle on inertia): k = 3"), qPrintable(r.out));
        QVERIFY2(r.out.contains("# best silhouette: k = 3"), qPrintable(r.out));
        QVERIFY(r.out.contains("hierarchy"));
        QFile levels(path("h.csv"));
        QVERIFY(levels.open(QIODevice::ReadOnly));
        QCOMPARE(levels.readLine().trimmed(), QByteArray("k=2,k=3,k=4,k=5,k=6,k=7"));
    }

    void cli_errors_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QString>("message");
        const QStringList data{"--generate", "blobs:n=30"};
        QTest::newRow("2:1") << (data + QStringList{"--k-range", "2:1"}) << 2 << "smaller than the first";
        QTest::newRow("0:5") << (data + QStringList{"--k-range", "0:5"}) << 2 << "starts at 1";
        QTest::newRow("step 0") << (data + QStringList{"--k-range", "2:5:0"}) << 2 << "step";
        QTest::newRow("words") << (data + QStringList{"--k-range", "two:five"}) << 2 << "'two' is not a whole number";
        QTest::newRow("k > n") << (data + QStringList{"--k-range", "2:31"}) << 1 << "asks for k = 31 but there are 30";
        QTest::newRow("no range") << data << 2 << "--k-range FIRST:LAST[:STEP] is required";
        QTest::newRow("--k") << (data + QStringList{"--k", "3", "--k-range", "2:4"}) << 2 << "not --k";
        QTest::newRow("scores") << (data + QStringList{"--k-range", "2:4", "--scores", "fast"}) << 2 << "--scores";
        QTest::newRow("solver") << (data + QStringList{"--k-range", "2:4", "--solver", "x"}) << 2 << "--solver";
        QTest::newRow("output") << (data + QStringList{"--k-range", "2:4", "--levels-out", "/nonexistent/l.csv"}) << 1
                                << "cannot write /nonexistent/l.csv";
    }
    void cli_errors() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        QFETCH(QStringList, arguments);
        QFETCH(int, exit_code);
        QFETCH(QString, message);
        const Result r = run_cli(QStringList{"sweep"} + arguments);
        QCOMPARE(r.exit_code, exit_code);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void cli_bad_file_names_line() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        std::ofstream(path("bad.csv").toStdString()) << "1,2\n3,4\n5,x\n";
        const Result r = run_cli({"sweep", "--input", path("bad.csv"), "--k-range", "2:3"});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains(path("bad.csv") + ":3"), qPrintable(r.err));
    }

    // Ctrl-C: the levels done so far are reported and written, exit 130.
    void cli_sigint_keeps_finished_levels() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        QProcess process;
        process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")),
                      {"sweep", "--generate", "blobs:n=60000,k=40", "--k-range", "2:400", "--tol", "0", "--scores",
                       "none", "--threads", "2", "--report", "json", "--levels-out", path("cancel.csv")});
        QByteArray out;
        QVERIFY(kms::test::wait_for([&] {
            process.waitForReadyRead(10);
            out += process.readAllStandardOutput();
            return out.count('\n') >= 1;  // one level done
        }));
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(60000));
        out += process.readAllStandardOutput();
        QCOMPARE(process.exitCode(), 130);
        const std::vector<QJsonObject> lines = json_lines(QString::fromUtf8(out));
        const QJsonObject summary = lines.back();
        QCOMPARE(summary["type"].toString(), QString("sweep_summary"));
        QVERIFY(summary["cancelled"].toBool());
        const int levels = summary["levels"].toInt();
        QCOMPARE(levels, int(lines.size()) - 1);
        QVERIFY(levels >= 1 && levels < 399);
        QFile file(path("cancel.csv"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readLine().trimmed().split(',').size(), qsizetype(levels));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
