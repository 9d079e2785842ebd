// Replay files (.kmsrun): a run read back repeats the original bit for bit (labels
// and centroids at every iteration), for generated and inline data; malformed
// files are refused with file, line and reason.
#include <QtTest>
#include <QTemporaryDir>

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/run_file.hpp"
#include "test_support.hpp"

namespace {

struct Trace {
    std::vector<std::vector<std::int32_t>> labels;
    std::vector<kms::Matrix<double>> centroids;
};

Trace trace_run(const kms::Dataset& data, const kms::FitOptions& options, const kms::Matrix<double>& initial) {
    auto points = std::make_shared<const kms::Matrix<double>>(data.points);
    kms::KMeansRun run(kms::make_solver(options.solver));
    run.solver().set_data(points);
    run.solver().set_initial_centroids(initial);
    Trace trace;
    run.advance(-1, {}, [&](const kms::IterationStats&) {
        trace.labels.push_back(run.solver().labels());
        trace.centroids.push_back(run.solver().centroids());
        return true;
    });
    return trace;
}

bool same_bits(const kms::Matrix<double>& a, const kms::Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), a.rows() * a.cols() * sizeof(double)) == 0;
}

}  // namespace

class TestRunFile : public QObject {
    Q_OBJECT
private slots:
    void generatedRunReplaysBitwise() {
        kms::RunFile original;
        original.generator = "blobs:n=2000,k=6,d=3";
        original.data_seed = 11;
        original.options.solver.algorithm = kms::Algorithm::Hamerly;
        original.options.solver.backend = kms::Backend::OpenMP;
        original.options.solver.tol = 1.0 / 3.0 * 1e-5;  // not a short decimal
        original.options.init.method = kms::InitMethod::Random;
        original.options.init.seed = 5;
        const kms::Dataset data = original.dataset();
        original.initial_centroids = kms::initialize_centroids(data.points, 6, original.options.init);
        // Nudge the centroids off the data points by amounts no short decimal holds.
        for (std::size_t i = 0; i < 6; ++i) original.initial_centroids(i, 0) += 1e-9 / 7.0 * double(i + 1);
        original.options.k = 6;
        original.steps = 4;  // how far the saved run was stepped (issue 36: replays export that many frames)

        const std::string text = kms::run_file_text(original);
        const kms::RunFile read = kms::parse_run_file(text, "mem.kmsrun");
        QCOMPARE(read.generator, original.generator);
        QCOMPARE(read.data_seed, original.data_seed);
        QCOMPARE(read.options.solver.algorithm, kms::Algorithm::Hamerly);
        QCOMPARE(read.options.solver.backend, kms::Backend::OpenMP);
        QCOMPARE(read.options.solver.tol, original.options.solver.tol);
        QCOMPARE(read.options.k, std::size_t(6));
        QCOMPARE(read.steps, 4);
        QVERIFY(same_bits(read.initial_centroids, original.initial_centroids));

        const Trace a = trace_run(data, original.options, original.initial_centroids);
        const Trace b = trace_run(read.dataset(), read.options, read.initial_centroids);
        QVERIFY(a.labels.size() >= 2);
        QCOMPARE(b.labels.size(), a.labels.size());
        for (std::size_t i = 0; i < a.labels.size(); ++i) {
            QVERIFY2(a.labels[i] == b.labels[i], qPrintable(QStringLiteral("labels differ at iteration %1").arg(i + 1)));
            QVERIFY(same_bits(a.centroids[i], b.centroids[i]));
        }
        // Writing what was read gives the same text: nothing is lost or rounded.
        QCOMPARE(kms::run_file_text(read), text);
    }

    void inlineDataReplaysBitwise() {
        kms::RunFile original;
        original.inline_data = kms::generate_dataset("moons:n=300", 3);
        original.inline_data.name = "drawn by hand";
        for (std::size_t i = 0; i < original.inline_data.n(); ++i)
            original.inline_data.points(i, 1) *= 1.0 + 1e-12 * double(i);  // full-precision coordinates
        original.options.solver.algorithm = kms::Algorithm::Elkan;
        original.options.solver.precision = kms::Precision::F32;
        original.initial_centroids = kms::Matrix<double>(3, 2);
        const double start[3][2] = {{-0.7, 0.1}, {0.3, 0.9}, {1.9, -0.3}};
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 2; ++j) original.initial_centroids(i, j) = start[i][j];
        original.options.k = 3;

        const kms::RunFile read = kms::parse_run_file(kms::run_file_text(original), "mem.kmsrun");
        QVERIFY(read.generator.empty());
        QCOMPARE(read.inline_data.name, std::string("drawn by hand"));
        QVERIFY(same_bits(read.inline_data.points, original.inline_data.points));
        QCOMPARE(read.inline_data.truth_labels, original.inline_data.truth_labels);
        QCOMPARE(read.options.solver.precision, kms::Precision::F32);
        const Trace a = trace_run(original.inline_data, original.options, original.initial_centroids);
        const Trace b = trace_run(read.dataset(), read.options, read.initial_centroids);
        QCOMPARE(b.labels, a.labels);
    }

    void malformedFilesNameLineAndReason_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");  // "mem.kmsrun:LINE: part of the reason"
        const QString head = QStringLiteral("kmsrun 1\ndata generate 7 blobs:n=100,k=3,d=2\n");
        QTest::newRow("magic") << QStringLiteral("kmsrun 2\n") << QStringLiteral("mem.kmsrun:1: not a kmeans-studio run file");
        QTest::newRow("empty") << QString() << QStringLiteral("mem.kmsrun:1: empty file");
        QTest::newRow("truncated") << head + QStringLiteral("centroid 0x1p+0 0x1p+0\n")
                                   << QStringLiteral("mem.kmsrun:3: the file ends without 'end'");
        QTest::newRow("bad number") << head + QStringLiteral("centroid 0x1p+0 0xzz\nend\n")
                                    << QStringLiteral("mem.kmsrun:3: '0xzz' is not a number");
        QTest::newRow("infinite") << head + QStringLiteral("centroid inf 1\nend\n")
                                  << QStringLiteral("mem.kmsrun:3: 'inf' is not a finite number");
        QTest::newRow("ragged centroids") << head + QStringLiteral("centroid 1 2\ncentroid 1 2 3\nend\n")
                                          << QStringLiteral("mem.kmsrun:4: this centroid has 3 coordinates");
        QTest::newRow("unknown option") << head + QStringLiteral("option --colour red\ncentroid 1 2\nend\n")
                                        << QStringLiteral("mem.kmsrun:3: unknown option --colour");
        QTest::newRow("bad option value")
            << head + QStringLiteral("option --solver kmedoids\ncentroid 1 2\nend\n")
            << QStringLiteral("mem.kmsrun:3: option --solver: unknown value 'kmedoids'");
        QTest::newRow("unknown line") << head + QStringLiteral("labels 1 2\n") << QStringLiteral("mem.kmsrun:3: unknown line 'labels'");
        QTest::newRow("few points") << QStringLiteral("kmsrun 1\ndata inline 3 2 x\npoint 1 2\ncentroid 1 2\nend\n")
                                    << QStringLiteral("mem.kmsrun:5: 'data inline' announced 3 points, the file has 1");
        QTest::newRow("point width") << QStringLiteral("kmsrun 1\ndata inline 1 2 x\npoint 1 2 3\n")
                                     << QStringLiteral("mem.kmsrun:3: a point needs 2 coordinates");
        QTest::newRow("steps twice") << head + QStringLiteral("steps 3\nsteps 4\ncentroid 1 2\nend\n")
                                     << QStringLiteral("mem.kmsrun:4: a second 'steps' line");
        QTest::newRow("negative steps") << head + QStringLiteral("steps -2\ncentroid 1 2\nend\n")
                                        << QStringLiteral("mem.kmsrun:3: steps must be 0 or more");
        // Issue 39: N·D that wraps to 0 (2^63 × 2, 2^62 × 4) crashed the studio; blanks after the magic too.
        QTest::newRow("wrapping size") << QStringLiteral("kmsrun 1\ndata inline 9223372036854775808 2 x\nend\n")
                                       << QStringLiteral("mem.kmsrun:2: 'data inline' announces 9223372036854775808 points");
        QTest::newRow("wrapping size 4") << QStringLiteral("kmsrun 1\ndata inline 4611686018427387904 4 x\nend\n")
                                         << QStringLiteral("mem.kmsrun:2: 'data inline' announces");
        QTest::newRow("blank line") << QStringLiteral("kmsrun 1\n   \n\t\nend\n") << QStringLiteral("mem.kmsrun:4: no 'data' line");
        QTest::newRow("negative label") << QStringLiteral("kmsrun 1\ndata inline 2 1 truth x\npoint 1 0\npoint 2 -5\n")
                                        << QStringLiteral("mem.kmsrun:4: label -5 is negative: ground-truth labels are 0 or more");
        QTest::newRow("bom") << QStringLiteral("\uFEFFkmsrun 1\nend\n") << QStringLiteral("mem.kmsrun:2: no 'data' line");
        QTest::newRow("after end") << head + QStringLiteral("centroid 1 2\nend\ncentroid 1 2\n")
                                   << QStringLiteral("mem.kmsrun:5: text after 'end'");
    }

    void malformedFilesNameLineAndReason() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            (void)kms::parse_run_file(text.toStdString(), "mem.kmsrun");
            QFAIL("accepted a malformed run file");
        } catch (const kms::InputError& error) {
            QVERIFY2(QString::fromStdString(error.what()).startsWith(expected), error.what());
        }
    }

    // Issue 39: a FIFO nobody writes to hung the studio's replay (an ifstream blocks in
    // open()); a folder read as an empty file. Both are refused as the data loaders refuse them.
    void fifoWithoutWriterAndFolderAreRefused() {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath(QStringLiteral("run.kmsrun")).toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        kms::LoadOptions options;
        options.fifo_writer_wait = std::chrono::milliseconds(100);
        try {
            (void)kms::read_run_file(fifo, options);
            QFAIL("read a FIFO without a writer");
        } catch (const kms::InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("no process opened the FIFO for writing")),
                     error.what());
        }
        try {
            (void)kms::read_run_file(dir.path().toStdString());
            QFAIL("read a folder");
        } catch (const kms::InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("is a directory")), error.what());
        }
    }

    // Issue 39: every loader says what kind of file it was given instead.
    void npyFileIsNamedAsSuch() {
        try {
            (void)kms::parse_run_file(std::string("\x93NUMPY\x01\x00", 8), "mem.kmsrun");
            QFAIL("read a .npy file as a run file");
        } catch (const kms::InputError& error) {
            QVERIFY2(QString::fromUtf8(error.what()).startsWith("mem.kmsrun: byte 0: a NumPy .npy file, not a run file"),
                     error.what());
        }
    }

    void missingFileNamesIt() {
        try {
            (void)kms::read_run_file("/nonexistent/run.kmsrun");
            QFAIL("read a missing file");
        } catch (const kms::InputError& error) {
            QCOMPARE(QString::fromStdString(error.source()), QStringLiteral("/nonexistent/run.kmsrun"));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunFile)
#include "test_run_file.moc"
