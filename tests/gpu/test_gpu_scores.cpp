// CUDA silhouette against the CPU one: 1e-12 relative in double, 1e-6 in float.
// Skips (never passes vacuously) when there is no CUDA device.
#include <QtTest>

#include <cmath>
#include <stop_token>

#include "kms/error.hpp"
#include "kms/gpu_scores.hpp"
#include "kms/random.hpp"
#include "kms/scores.hpp"

namespace {

struct Labelled {
    kms::Matrix<double> points;
    std::vector<std::int32_t> labels;
};

// k blobs, a share of random labels, label values spread out (non-contiguous).
Labelled blobs(std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed) {
    Labelled out{kms::Matrix<double>(n, d), std::vector<std::int32_t>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t blob = i < k ? i : kms::random_below(seed, 1, i, k);
        for (std::size_t j = 0; j < d; ++j)
            out.points(i, j) = double(blob * 3 % 17) + (j == 0 ? double(blob) : 0.0) +
                               2.0 * kms::random_uniform(seed, 2, i * d + j);
        const std::uint64_t label = kms::random_uniform(seed, 3, i) < 0.15 ? kms::random_below(seed, 4, i, k) : blob;
        out.labels[i] = std::int32_t(label) * 5 - 7;
    }
    return out;
}

bool close(double a, double b, double tol, double floor) {
    return std::abs(a - b) <= tol * std::max({std::abs(a), std::abs(b), floor});
}

}  // namespace

class TestGpuScores : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        std::string reason;
        if (!kms::gpu_silhouette_available(&reason)) {
            // Unavailable must be a clear error, not a crash or a wrong value.
            bool threw = false;
            try {
                kms::gpu_silhouette(kms::Matrix<double>(3, 1, 1.0), std::vector<std::int32_t>{0, 0, 1});
            } catch (const kms::Error& e) {
                threw = std::string(e.what()).find(reason) != std::string::npos;
            }
            QVERIFY2(threw, "gpu_silhouette must throw kms::Error with the reason when CUDA is unavailable");
            QSKIP(qPrintable(QString::fromStdString("no CUDA device: " + reason)));
        }
    }

    void gpu_matches_cpu() {
        QFETCH(int, n);
        QFETCH(int, d);
        QFETCH(int, k);
        const Labelled data = blobs(std::size_t(n), std::size_t(d), std::size_t(k), std::uint64_t(n * 31 + d * 7 + k));
        std::vector<std::int32_t> labels = data.labels;
        labels[std::size_t(n) / 2] = 100000;  // a singleton
        const kms::SilhouetteResult cpu = kms::silhouette(data.points, labels);
        const kms::SilhouetteResult gpu = kms::gpu_silhouette(data.points, labels);
        QVERIFY2(close(gpu.score, cpu.score, 1e-12, 0.0),
                 qPrintable(QString("double: gpu %1 cpu %2").arg(gpu.score, 0, 'g', 17).arg(cpu.score, 0, 'g', 17)));
        QCOMPARE(gpu.values.size(), cpu.values.size());
        for (std::size_t i = 0; i < cpu.values.size(); ++i)
            QVERIFY2(close(gpu.values[i], cpu.values[i], 1e-12, 1.0), qPrintable(QString("double value %1").arg(i)));

        const kms::Matrix<float> as_float = data.points.cast<float>();
        const kms::SilhouetteResult cpu_f = kms::silhouette(as_float, labels);
        const kms::SilhouetteResult gpu_f = kms::gpu_silhouette(as_float, labels);
        QVERIFY2(close(gpu_f.score, cpu_f.score, 1e-6, 0.0),
                 qPrintable(QString("float: gpu %1 cpu %2").arg(gpu_f.score, 0, 'g', 9).arg(cpu_f.score, 0, 'g', 9)));
        for (std::size_t i = 0; i < cpu_f.values.size(); ++i)
            QVERIFY2(close(gpu_f.values[i], cpu_f.values[i], 1e-5, 1.0), qPrintable(QString("float value %1").arg(i)));
    }
    void gpu_matches_cpu_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("k");
        QTest::newRow("tiny") << 7 << 2 << 3;
        QTest::newRow("1d") << 1000 << 1 << 4;
        QTest::newRow("2d") << 5000 << 2 << 20;
        QTest::newRow("3d") << 3001 << 3 << 7;
        QTest::newRow("4d") << 2500 << 4 << 2;
        QTest::newRow("generic d=9") << 2000 << 9 << 11;
        QTest::newRow("generic d=70") << 700 << 70 << 5;
        QTest::newRow("many clusters") << 4000 << 2 << 900;
        // More than one launch (columns split across launches: partial sums carried).
        QTest::newRow("multi-launch") << 200000 << 2 << 6;
    }

    void refuses_bad_labels_and_honours_stop() {
        const Labelled data = blobs(100, 2, 3, 1);
        bool threw = false;
        try {
            kms::gpu_silhouette(data.points, std::vector<std::int32_t>(100, 1));
        } catch (const kms::Error& e) {
            threw = std::string(e.what()).find("Number of labels is 1") != std::string::npos;
        }
        QVERIFY(threw);
        std::stop_source source;
        source.request_stop();
        threw = false;
        try {
            kms::gpu_silhouette(data.points, data.labels, source.get_token());
        } catch (const kms::Error& e) {
            threw = std::string(e.what()).find("cancelled") != std::string::npos;
        }
        QVERIFY(threw);
    }
};

QTEST_GUILESS_MAIN(TestGpuScores)
#include "test_gpu_scores.moc"
