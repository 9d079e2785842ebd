// GPU k-means++ / maximin initialisation: the same centroids, bit for bit, as the
// CPU initialiser for the same data, k and seed. Skips without a CUDA device.
#include <QtTest>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/gpu_backends.hpp"
#include "kms/cuda_init.hpp"
#include "kms/error.hpp"
#include "kms/init.hpp"
#include "test_support.hpp"

namespace {

kms::Matrix<double> random_points(std::size_t n, std::size_t d, std::uint64_t seed, bool duplicates) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 3.0);
    kms::Matrix<double> points(n, d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            points(i, j) = duplicates ? static_cast<double>((i % 3) * 10 + j) : normal(rng) + static_cast<double>(i % 7);
    return points;
}

}  // namespace

class TestCudaInit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        kms::register_gpu_backends();
        const kms::BackendAvailability availability = kms::backend_availability(kms::Backend::Cuda);
        if (!availability.available) QSKIP(qPrintable(QString("no CUDA device: ") + availability.reason.c_str()));
    }

    void sameAsCpu() {
        const bool small = !kms::test::env_or_empty("KMS_GPU_TEST_SMALL").empty();
        struct Shape {
            std::size_t n, d, k;
            bool duplicates;
        };
        std::vector<Shape> shapes = {{1, 1, 1, false},        {10, 2, 10, false},   {5000, 3, 17, false},
                                     {small ? 9000u : 100000u, 2, 50, false}, {12289, 8, 64, false},
                                     {3000, 2, 8, true},      {4096, 5, 40, false}};
        // More than 4096 blocks of 4096 points: the selection stages the block sums in chunks.
        if (!small) shapes.push_back({4096u * 4096u + 4099u, 1, 3, false});
        for (const Shape& s : shapes) {
            const kms::Matrix<double> points = random_points(s.n, s.d, s.n * 31 + s.k, s.duplicates);
            for (kms::InitMethod method : {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::Maximin})
                for (std::uint64_t seed : {0ull, 7ull, 123456789ull}) {
                    kms::InitOptions options;
                    options.method = method;
                    options.seed = seed;
                    const kms::Matrix<double> cpu = kms::initialize_centroids(points, s.k, options);
                    const kms::Matrix<double> gpu = kms::cuda_initialize_centroids(points, s.k, options);
                    const std::string where = std::string(kms::to_string(method)) + " n=" + std::to_string(s.n) +
                                              " d=" + std::to_string(s.d) + " k=" + std::to_string(s.k) +
                                              " seed=" + std::to_string(seed);
                    QVERIFY2(gpu == cpu, ("GPU centroids differ from the CPU initialiser: " + where).c_str());
                }
        }
    }

    // Raff's bounds on the GPU (--init-bounds on): the plain pass's centres, bit for bit, and
    // fewer point distances; clustered data (where the bounds prune) and ties (duplicates).
    void boundedIsPlain() {
        struct Shape {
            std::size_t n, d, k;
            bool duplicates;
        };
        for (const Shape& s : std::vector<Shape>{{40000, 2, 600, false}, {8000, 16, 300, false}, {3000, 2, 8, true},
                                                 {12289, 64, 100, false}, {5000, 3, 17, false},
                                                 {3000, 64, 520, false}}) {
            const kms::Matrix<double> points = random_points(s.n, s.d, s.n * 17 + s.k, s.duplicates);
            for (kms::InitMethod method : {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::Maximin})
                for (std::uint64_t seed : {3ull, 99ull}) {
                    kms::InitOptions options;
                    options.method = method;
                    options.seed = seed;
                    options.bounds = kms::SeedingBounds::Off;
                    const kms::Matrix<double> cpu = kms::initialize_centroids(points, s.k, options);
                    kms::InitStats plain_stats, bounded_stats;
                    options.stats = &plain_stats;
                    const kms::Matrix<double> plain = kms::cuda_initialize_centroids(points, s.k, options);
                    options.bounds = kms::SeedingBounds::On;
                    options.stats = &bounded_stats;
                    const kms::Matrix<double> bounded = kms::cuda_initialize_centroids(points, s.k, options);
                    const std::string where = std::string(kms::to_string(method)) + " n=" + std::to_string(s.n) +
                                              " d=" + std::to_string(s.d) + " k=" + std::to_string(s.k) +
                                              " seed=" + std::to_string(seed);
                    QVERIFY2(plain == cpu, ("plain GPU seeding differs from the CPU's: " + where).c_str());
                    QVERIFY2(bounded == cpu, ("bounded GPU seeding differs from the plain CPU's: " + where).c_str());
                    if (s.k >= kms::kAutoBoundsK && s.d > kms::kAutoBoundsD) {
                        // Auto starts bounded and drops the bounds where they skip almost nothing
                        // (uniform at d = 64): the same centres, at least the distances of `on`.
                        kms::InitStats auto_stats;
                        options.bounds = kms::SeedingBounds::Auto;
                        options.stats = &auto_stats;
                        QVERIFY2(kms::cuda_initialize_centroids(points, s.k, options) == cpu,
                                 ("auto-bounded GPU seeding differs from the plain CPU's: " + where).c_str());
                        QVERIFY(auto_stats.bounded);
                        QVERIFY2(auto_stats.point_centroid_distances > bounded_stats.point_centroid_distances,
                                 (where + ": auto kept bounds that skip almost nothing").c_str());
                    }
                    QCOMPARE(plain_stats.point_centroid_distances, static_cast<std::uint64_t>(s.n * s.k));
                    QVERIFY(!plain_stats.bounded && bounded_stats.bounded);
                    QCOMPARE(bounded_stats.centroid_centroid_distances, static_cast<std::uint64_t>(s.k * (s.k - 1) / 2));
                    QVERIFY2(bounded_stats.point_centroid_distances <= plain_stats.point_centroid_distances, where.c_str());
                    if (s.d == 2 && s.k >= 100)  // (where the bounds prune: in 2-D)
                        QVERIFY2(bounded_stats.point_centroid_distances < plain_stats.point_centroid_distances / 2,
                                 (where + ": the bounds pruned less than half").c_str());
                    if (method == kms::InitMethod::KMeansPlusPlus && seed == 3)
                        qInfo("%s: %llu point distances bounded against %llu plain (%.1f%%)", where.c_str(),
                              static_cast<unsigned long long>(bounded_stats.point_centroid_distances),
                              static_cast<unsigned long long>(plain_stats.point_centroid_distances),
                              100.0 * static_cast<double>(bounded_stats.point_centroid_distances) /
                                  static_cast<double>(plain_stats.point_centroid_distances));
                }
        }
    }

    void errors() {
        const kms::Matrix<double> points = random_points(10, 2, 1, false);
        kms::InitOptions options;
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::cuda_initialize_centroids(points, 0, options));
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::cuda_initialize_centroids(points, 11, options));
        // Delegated methods give the CPU's answer.
        options.method = kms::InitMethod::Random;
        QVERIFY(kms::cuda_initialize_centroids(points, 4, options) == kms::initialize_centroids(points, 4, options));
    }
};

QTEST_APPLESS_MAIN(TestCudaInit)
#include "test_cuda_init.moc"
