// kmeans-cli run, end to end: the options scripts rely on, the JSON lines
// report, the written labels and centroids, and clear errors with exit codes.
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <csignal>
#include <signal.h>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

#include "kms/io.hpp"
#include "test_support.hpp"

namespace {

using Result = kms::test::CliRun;
using kms::test::run_cli;

void write(const QString& path, const std::string& text) { std::ofstream(path.toStdString(), std::ios::binary) << text; }
// Points as a .npy file, through the engine's own writer (kms::write_npy).
void write_npy_file(const QString& path, const kms::Matrix<double>& points) {
    kms::OutputFile file(path.toStdString());
    kms::write_npy(file, points);
    file.commit();
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QFAIL("KMS_CLI is not set (run through CTest)");
        QVERIFY(dir_.isValid());
    }

    void json_report_and_outputs() {
        const Result r = run_cli({"run", "--generate", "blobs:n=3000,k=4,d=3", "--seed", "5", "--k", "4", "--solver",
                                  "hamerly", "--backend", "omp", "--threads", "2", "--precision", "f32", "--init",
                                  "kmeans++", "--tol", "0", "--report", "json", "--inertia", "--labels-out",
                                  path("labels.txt"), "--centroids-out", path("centroids.csv")});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 2);
        int iterations = 0;
        for (const QString& line : lines) {
            QJsonParseError error;
            const QJsonObject object = QJsonDocument::fromJson(line.toUtf8(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(line));
            if (object["type"].toString() == "iteration") {
                ++iterations;
                QCOMPARE(object["iteration"].toInt(), iterations);
                for (const char* key : {"time_assign_ms", "time_bounds_ms", "time_update_ms", "time_total_ms",
                                        "point_centroid_distances", "centroid_centroid_distances", "bound_skips",
                                        "labels_changed", "verified_points", "gemm_certified", "gemm_listed", "max_shift", "mean_shift", "empty_clusters",
                                        "inertia"})
                    QVERIFY2(object.contains(key), key);
                QVERIFY(object["inertia"].isDouble());  // --inertia asked for it
            } else {
                QCOMPARE(object["type"].toString(), QString("summary"));
                QCOMPARE(object["iterations"].toInt(), iterations);
                QVERIFY(object["converged"].toBool());
                QCOMPARE(object["stop_reason"].toString(), QString("no-label-change"));
                QCOMPARE(object["solver"].toString(), QString("hamerly/omp/f32"));
                QVERIFY(object["inertia"].toDouble() > 0.0);
            }
        }
        QVERIFY(iterations >= 2);
        const auto labels = kms::load_labels(path("labels.txt").toStdString());
        QCOMPARE(labels.size(), std::size_t{3000});
        for (auto label : labels) QVERIFY(label >= 0 && label < 4);
        const auto centroids = kms::load_matrix(path("centroids.csv").toStdString());
        QCOMPARE(centroids.rows(), std::size_t{4});
        QCOMPARE(centroids.cols(), std::size_t{3});
    }

    // The seeding's cost in the summary (issue 41): bounds on and off give the same
    // centroids with fewer distances; k-means‖ runs with its options and reports
    // its candidates and rounds.
    void seeding_in_the_summary() {
        const auto summary_of = [](const Result& r) {
            const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
            return QJsonDocument::fromJson(lines.last().toUtf8()).object();
        };
        QJsonObject seeding[2];
        for (int on = 0; on < 2; ++on) {
            const Result r = run_cli({"run", "--generate", "blobs:n=20000,k=10,d=2", "--seed", "3", "--k", "60",
                                      "--max-iter", "1", "--init-bounds", on ? "on" : "off", "--report", "json",
                                      "--centroids-out", path(on ? "bounded.csv" : "plain.csv")});
            QVERIFY2(r.exit_code == 0, qPrintable(r.err));
            seeding[on] = summary_of(r)["init"].toObject();
            QCOMPARE(seeding[on]["method"].toString(), QString("kmeans++"));
            QCOMPARE(seeding[on]["bounds"].toBool(), on == 1);
            QVERIFY(seeding[on]["time_ms"].isDouble());
        }
        QCOMPARE(seeding[0]["point_centroid_distances"].toDouble(), 20000.0 * 60);
        QVERIFY(seeding[1]["point_centroid_distances"].toDouble() < 20000.0 * 60 / 4);
        QVERIFY(kms::load_matrix(path("bounded.csv").toStdString()) == kms::load_matrix(path("plain.csv").toStdString()));

        const Result r = run_cli({"run", "--generate", "blobs:n=20000,k=10,d=2", "--seed", "3", "--k", "10",
                                  "--init", "kmeans-parallel", "--oversampling", "1.5", "--init-rounds", "2",
                                  "--report", "json"});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        const QJsonObject parallel = summary_of(r)["init"].toObject();
        QCOMPARE(parallel["method"].toString(), QString("kmeans-parallel"));
        QCOMPARE(parallel["rounds"].toInt(), 2);
        QVERIFY(parallel["candidates"].toInt() >= 10);
        const Result bad = run_cli({"run", "--generate", "blobs:n=200,k=2,d=2", "--k", "2", "--init-rounds", "0"});
        QCOMPARE(bad.exit_code, 2);
        QVERIFY2(bad.err.contains("--init-rounds"), qPrintable(bad.err));
    }

    // The same run from a data file, with centroids given as a file, agrees
    // between the table and JSON reports and across solvers.
    void file_input_and_centroid_file() {
        write(path("points.csv"), "x,y\n0,0\n0,1\n1,0\n10,10\n10,11\n11,10\n");
        write(path("init.csv"), "0,0\n10,10\n");
        for (const char* solver : {"lloyd", "elkan", "hamerly"}) {
            const Result r = run_cli({"run", "--input", path("points.csv"), "--k", "2", "--init", path("init.csv"),
                                      "--solver", solver, "--backend", "seq", "--labels-out", path("l.txt"),
                                      "--centroids-out", path("c.csv")});
            QVERIFY2(r.exit_code == 0, qPrintable(r.err));
            QVERIFY(r.out.contains("converged after"));
            QCOMPARE(kms::load_labels(path("l.txt").toStdString()), (std::vector<std::int32_t>{0, 0, 0, 1, 1, 1}));
            const auto c = kms::load_matrix(path("c.csv").toStdString());
            QCOMPARE(c(0, 0), 1.0 / 3.0);
            QCOMPARE(c(1, 1), 31.0 / 3.0);
        }
    }

    void errors_name_the_problem_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QString>("message");
        QTest::newRow("no data") << QStringList{"run", "--k", "2"} << 2 << "exactly one of --input";
        QTest::newRow("no k") << QStringList{"run", "--generate", "blobs"} << 2 << "--k K is required";
        QTest::newRow("unknown option") << QStringList{"run", "--generate", "blobs", "--k", "2", "--speed", "9"} << 2
                                        << "unknown option --speed";
        QTest::newRow("bad solver") << QStringList{"run", "--generate", "blobs", "--k", "2", "--solver", "fast"} << 2
                                    << "unknown value 'fast'";
        QTest::newRow("bad number") << QStringList{"run", "--generate", "blobs", "--k", "two"} << 2
                                    << "'two' is not a valid number";
        QTest::newRow("k too large") << QStringList{"run", "--generate", "blobs:n=10", "--k", "11"} << 1
                                     << "k = 11 must be between 1 and the number of points n = 10";
        // Bad usage, like any other bad option value (exit 2).
        QTest::newRow("k zero") << QStringList{"run", "--generate", "blobs:n=10", "--k", "0"} << 2
                                << "--k must be at least 1";
        QTest::newRow("k negative") << QStringList{"run", "--generate", "blobs:n=10", "--k", "-3"} << 2
                                    << "--k must be at least 1";
        QTest::newRow("tol inf") << QStringList{"run", "--generate", "blobs", "--k", "2", "--tol", "inf"} << 2
                                 << "--tol must be a finite number";
        QTest::newRow("tol nan") << QStringList{"run", "--generate", "blobs", "--k", "2", "--tol", "nan"} << 2
                                 << "--tol must be a finite number";
        QTest::newRow("threads 100000") << QStringList{"run", "--generate", "blobs", "--k", "2", "--threads", "100000"}
                                        << 2 << "--threads 100000 is more than";
        // Found by fuzz_options: a name too long for the file system threw out of std::filesystem::exists.
        QTest::newRow("init name too long")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--init", QString(5000, QChar('x'))} << 2
            << "is neither random";
        QTest::newRow("n-init zero") << QStringList{"run", "--generate", "blobs", "--k", "2", "--n-init", "0"} << 2
                                     << "--n-init must be between 1";
        QTest::newRow("variant without cuda")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--variant", "shared"} << 2
            << "--variant shared needs a CUDA back end";
        QTest::newRow("stream-chunk without cuda")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--stream-chunk", "4096"} << 2
            << "--stream-chunk streams the points to a CUDA device: it needs --backend cuda, not omp";
        QTest::newRow("stream-chunk negative")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--backend", "cuda", "--stream-chunk", "-1"} << 2
            << "--stream-chunk must be 0";
        QTest::newRow("variant twice")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--backend", "cuda-global", "--variant", "shared"}
            << 2 << "give the CUDA variant once";
        QTest::newRow("bad init") << QStringList{"run", "--generate", "blobs", "--k", "2", "--init", "nowhere.csv"}
                                  << 2 << "neither random";
        QTest::newRow("missing file") << QStringList{"run", "--input", "/nonexistent/data.csv", "--k", "2"} << 1
                                      << "/nonexistent/data.csv";
        QTest::newRow("bad report") << QStringList{"run", "--generate", "blobs", "--k", "2", "--report", "xml"} << 2
                                    << "--report must be table or json";
        // Issue 39: --report was taken as --scores' value, then 'json' was an unexpected argument.
        QTest::newRow("value is an option")
            << QStringList{"sweep", "--generate", "blobs:n=100", "--k-range", "2:3", "--scores", "--report", "json"} << 2
            << "option --scores needs a value, but the next argument is the option --report (--scores=VALUE takes";
        QTest::newRow("value starts with --")
            << QStringList{"run", "--generate", "blobs", "--k", "2", "--labels-out", "--x.txt"} << 2
            << "option --labels-out needs a value, but the next argument is --x.txt";
    }
    void errors_name_the_problem() {
        QFETCH(QStringList, arguments);
        QFETCH(int, exit_code);
        QFETCH(QString, message);
        const Result r = run_cli(arguments);
        QCOMPARE(r.exit_code, exit_code);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // Issue 39: predict's centroids are "the centroids", not "the initial centroids"; numbers
    // in messages are short (1e300 printed with %f made a first line of 590 characters).
    void predict_names_its_centroids_and_prints_numbers_short() {
        write(path("predict-data.csv"), "0,0\n1,1\n");
        write(path("predict-huge.csv"), "1e300,0\n0,0\n");
        const Result r = run_cli({"predict", "--input", path("predict-data.csv"), "--centroids", path("predict-huge.csv"),
                                  "--labels-out", path("predict-labels.txt")});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains(path("predict-huge.csv") +
                                ": coordinates up to 1e+300, too large for f64 distances at d = 2 (limit "),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains("initial"), qPrintable(r.err));
        QVERIFY2(r.err.split('\n').first().size() < 200, qPrintable(r.err));
    }

    // Issue 39: a non-finite result is an error, never "converged" with exit 0 (here the
    // inertia of 400 points 1e153 from their centroids overflows; k-means++ refuses the
    // data earlier, random centroids do not), and no output is written.
    void non_finite_result_is_an_error() {
        std::string text;
        for (int i = 0; i < 100; ++i) text += "5e153\n3e153\n-4e153\n-6e153\n";
        write(path("inertia-overflow.csv"), text);
        const Result r = run_cli({"run", "--input", path("inertia-overflow.csv"), "--k", "2", "--init", "random",
                                  "--labels-out", path("inertia-overflow-labels.txt")});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains(path("inertia-overflow.csv") + ": the inertia is not finite (inf): the f64 sum of squared "
                                                               "distances overflowed; rescale the data or the weights"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(path("inertia-overflow-labels.txt")));
    }

    // Issue 39: the distance kernels' scratch was 64 × d values a thread whatever the work
    // (a row of 25 M columns asked 12.8 GB a thread). 2 points × 2 M coordinates (32 MB)
    // now run in a 600 MB address space with 2 threads (before: 2 × 1 GB of scratch).
    void wide_rows_run_in_memory_sized_by_the_work() {
        KMS_SKIP_ADDRESS_LIMIT_IF_SANITIZED();
        const std::size_t d = 2'000'000;
        kms::Matrix<double> wide(2, d);
        for (std::size_t i = 0; i < wide.size(); ++i) wide.data()[i] = double(i % 7) + (i >= d ? 10.0 : 0.0);
        write_npy_file(path("wide.npy"), wide);
        // Every solver: Yinyang's groups were padded to 32 lanes × d (512 MB for k = 2 here).
        for (const kms::AlgorithmInfo& info : kms::registered_algorithms()) {  // every registered solver
            const QString solver = QString::fromStdString(std::string(info.algorithm.name()));
            QProcess process;
            process.start("/bin/sh", {"-c", "ulimit -v 600000 && exec \"$0\" \"$@\"",
                                      QString::fromStdString(kms::test::env_or_empty("KMS_CLI")), "run", "--input",
                                      path("wide.npy"), "--k", "2", "--threads", "2", "--max-iter", "2", "--solver",
                                      solver});
            QVERIFY(process.waitForFinished(120000));
            QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
                     qPrintable(solver + ": " + process.readAllStandardError()));
        }
    }

    // A thread's scratch that does not fit, allocated inside an OpenMP region, ended the
    // process ("terminate called after throwing std::bad_alloc", SIGABRT): 3 points ×
    // 500 000 coordinates (12 MB), 8 threads, a 400 MB address space. The silhouette's
    // tiles (16 × d values a thread) and every solver's per-thread scratch now fail as a
    // message (exit 1), or fit.
    void scratch_that_does_not_fit_is_a_message() {
        KMS_SKIP_ADDRESS_LIMIT_IF_SANITIZED();
        const std::size_t d = 500'000;
        kms::Matrix<double> three(3, d);
        for (std::size_t i = 0; i < three.size(); ++i) three.data()[i] = double(i / d);
        write_npy_file(path("three-wide.npy"), three);
        write(path("three-wide-labels.txt"), "0\n1\n1\n");
        const auto limited = [&](const QStringList& args) {
            QProcess process;
            process.start("/bin/sh", QStringList{"-c", "ulimit -v 400000 && exec \"$0\" \"$@\"",
                                                 QString::fromStdString(kms::test::env_or_empty("KMS_CLI"))} + args);
            QVERIFY(process.waitForFinished(120000));
            const QString err = process.readAllStandardError();
            QVERIFY2(process.exitStatus() == QProcess::NormalExit, qPrintable(args.join(' ') + ": crashed: " + err));
            QVERIFY2(process.exitCode() == 0 || (process.exitCode() == 1 && err.contains("not enough memory")),
                     qPrintable(args.join(' ') + ": exit " + QString::number(process.exitCode()) + ": " + err));
        };
        limited({"score", "--input", path("three-wide.npy"), "--labels", path("three-wide-labels.txt"), "--threads", "8"});
        for (const kms::AlgorithmInfo& info : kms::registered_algorithms())
            limited({"run", "--input", path("three-wide.npy"), "--k", "2", "--threads", "8", "--max-iter", "2",
                     "--solver", QString::fromStdString(std::string(info.algorithm.name()))});
    }

    // The first SIGINT/SIGTERM ends the run after the step in progress: the summary
    // says "cancelled", the outputs hold the last completed iteration, exit 130/143.
    void signal_cancels_gracefully_data() {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("exit_code");
        QTest::newRow("SIGINT") << int(SIGINT) << 130;
        QTest::newRow("SIGTERM") << int(SIGTERM) << 143;
    }
    void signal_cancels_gracefully() {
        QFETCH(int, signal);
        QFETCH(int, exit_code);
        QProcess process;
        process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")),
                      {"run", "--generate", "blobs:n=200000,k=50", "--k", "300", "--tol", "0", "--max-iter", "100000",
                       "--report", "json", "--labels-out", path("cancel-labels.txt"), "--centroids-out",
                       path("cancel-centroids.csv")});
        QByteArray out;
        QVERIFY(kms::test::wait_for([&] {
            process.waitForReadyRead(10);
            out += process.readAllStandardOutput();
            return out.count('\n') >= 2;  // two iterations done
        }));
        ::kill(static_cast<pid_t>(process.processId()), signal);
        QVERIFY(process.waitForFinished(60000));
        out += process.readAllStandardOutput();
        QCOMPARE(process.exitCode(), exit_code);
        const QList<QByteArray> lines = out.trimmed().split('\n');
        const QJsonObject summary = QJsonDocument::fromJson(lines.back()).object();
        QCOMPARE(summary["stop_reason"].toString(), QString("cancelled"));
        QCOMPARE(summary["converged"].toBool(), false);
        const int iterations = summary["iterations"].toInt();
        QCOMPARE(iterations, static_cast<int>(lines.size()) - 1);  // the summary names the last completed one
        QCOMPARE(kms::load_labels(path("cancel-labels.txt").toStdString()).size(), std::size_t(200000));
        QCOMPARE(kms::load_matrix(path("cancel-centroids.csv").toStdString()).rows(), std::size_t(300));
    }

    // Destinations are checked before any work, and a run writes all its outputs or none.
    void outputs_checked_first_all_or_none() {
        const QString ok = path("ok-labels.txt");
        const Result r = run_cli({"run", "--generate", "blobs:n=500", "--k", "3", "--labels-out", ok, "--centroids-out",
                                  "/nonexistent-folder/c.csv"});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("cannot write /nonexistent-folder/c.csv"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());  // refused before the first iteration
        QVERIFY(!QFileInfo::exists(ok));
        const Result directory = run_cli({"run", "--generate", "blobs:n=500", "--k", "3", "--labels-out", dir_.path()});
        QCOMPARE(directory.exit_code, 1);
        QVERIFY(directory.out.isEmpty());
        const Result predict = run_cli({"predict", "--input", path("none.csv"), "--centroids", path("none.csv"),
                                        "--labels-out", "/nonexistent-folder/l.txt"});
        QCOMPARE(predict.exit_code, 1);
        QVERIFY2(predict.err.contains("cannot write /nonexistent-folder/l.txt"), qPrintable(predict.err));
    }

    // generate: a signal while writing leaves no file behind (not even a temporary).
    void generate_cancelled_leaves_nothing() {
        QTemporaryDir out_dir;
        QProcess process;
        process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")),
                      {"generate", "--generate", "blobs:n=30000000,k=5", "--out", out_dir.filePath("big.csv")});
        QVERIFY(process.waitForStarted());
        QTest::qWait(1500);
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 130);
        QCOMPARE(QDir(out_dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void bad_data_file_names_line() {
        write(path("ragged.csv"), "1,2\n3,4\n5\n");
        const Result r = run_cli({"run", "--input", path("ragged.csv"), "--k", "1"});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains(path("ragged.csv") + ":3"), qPrintable(r.err));
        // A failed run writes no output files.
        QVERIFY(!QFile::exists(path("never.txt")));
    }

    void cuda_backend_without_device_is_a_clear_error() {
        const Result r = run_cli({"run", "--generate", "blobs:n=100", "--k", "2", "--backend", "cuda-global"});
        if (r.exit_code == 0) QSKIP("a CUDA device is present: the unavailable path cannot be exercised here");
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("cuda-global is unavailable"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
