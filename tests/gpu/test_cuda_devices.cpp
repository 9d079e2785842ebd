// Several devices (--devices, FitOptions::devices): the rows split over devices
// (or over blocks of one device listed more than once), the update summed in the
// CPU's package tree and combined across them in its fixed order. Checked: every
// split gives bitwise the same labels, centroids, inertia and iterations as one
// device's --devices run; and that run's centroids are bitwise the CPU's whenever
// the labels agree (always in double on these data; float labels may differ from
// the CPU's on distance-rounding ties, counted). Skips without a CUDA device.
// KMS_GPU_TEST_SMALL=1 shrinks the cases (compute-sanitizer runs).
#include <QtTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/gpu_backends.hpp"
#include "kms/row_source.hpp"
#include "kms/scores.hpp"
#include "kms/spectral.hpp"
#include "test_support.hpp"

namespace {

using kms::Algorithm;
using kms::Matrix;
using kms::Precision;
using kms::test::gpu_small_mode;

// Fits with several devices (FitOptions::devices) against one.
struct Case {
    std::string name;
    std::size_t n, d, k;
    bool duplicates = false;  // every point twice, pairs of equal initial centroids: empty clusters
    bool weighted = false;
    kms::EmptyClusterPolicy policy = kms::EmptyClusterPolicy::Keep;
};

std::shared_ptr<Matrix<double>> make_points(const Case& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(-20.0, 20.0);
    const std::size_t centers = std::max<std::size_t>(1, std::min<std::size_t>(c.k, 16));
    std::vector<double> center(centers * c.d);
    for (double& v : center) v = uniform(rng);
    auto points = std::make_shared<Matrix<double>>(c.n, c.d);
    for (std::size_t i = 0; i < c.n; ++i)
        for (std::size_t j = 0; j < c.d; ++j)
            (*points)(i, j) = c.duplicates && i % 2 == 1 ? (*points)(i - 1, j)
                                                         : center[(i % centers) * c.d + j] + 2.0 * normal(rng);
    return points;
}

Matrix<double> initial_centroids(const Case& c, const Matrix<double>& points) {
    Matrix<double> out(c.k, c.d);
    for (std::size_t r = 0; r < c.k; ++r) {
        const std::size_t row = ((c.duplicates ? r / 2 : r) * 7919) % points.rows();
        for (std::size_t j = 0; j < c.d; ++j) out(r, j) = points(row, j);
    }
    return out;
}

// A CUDA fit of case c: k-means++ (seed), tol 0, at most max_iterations steps; the
// duplicates cases start from pairs of equal centroids (empty clusters).
kms::FitOptions cuda_fit_options(const Case& c, const Matrix<double>& points, const std::vector<double>& weights,
                                 Algorithm algorithm, Precision precision, kms::KernelVariant variant,
                                 std::uint64_t seed, int max_iterations) {
    kms::FitOptions options;
    options.k = c.k;
    options.init.method = kms::InitMethod::KMeansPlusPlus;
    options.init.seed = seed;
    options.solver.algorithm = algorithm;
    options.solver.backend = kms::Backend::Cuda;
    options.solver.precision = precision;
    options.solver.variant = variant;
    options.solver.max_iterations = max_iterations;
    options.solver.tol = 0.0;
    options.solver.empty_policy = c.policy;
    if (c.duplicates) {
        options.init.method = kms::InitMethod::File;
        options.init.given = std::make_shared<const Matrix<double>>(initial_centroids(c, points));
    }
    if (c.weighted) options.sample_weight = std::make_shared<const std::vector<double>>(weights);
    return options;
}

// The rows of a matrix as a RowSource: out of core without a file (the loaders'
// values are the matrix's; float reads are those values rounded).
class MatrixRows final : public kms::RowSource {
public:
    explicit MatrixRows(std::shared_ptr<const Matrix<double>> points) : points_(std::move(points)) {}
    std::size_t rows() const override { return points_->rows(); }
    std::size_t cols() const override { return points_->cols(); }
    const std::string& name() const override { return name_; }
    std::size_t file_row_bytes() const override { return cols() * sizeof(double); }
    void read(std::size_t first, std::size_t count, double* out) const override {
        std::copy_n(points_->row(first), count * cols(), out);
    }
    void read(std::size_t first, std::size_t count, float* out) const override {
        const double* in = points_->row(first);
        for (std::size_t i = 0; i < count * cols(); ++i) out[i] = static_cast<float>(in[i]);
    }

private:
    std::shared_ptr<const Matrix<double>> points_;
    std::string name_ = "rows.npy";
};

bool same_bits(const Matrix<double>& a, const Matrix<double>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<std::uint64_t>(a.data()[i]) != std::bit_cast<std::uint64_t>(b.data()[i])) return false;
    return true;
}

// `result` bitwise the device run `one`: labels, centroids, iterations. QVERIFY
// returns from here (as from verify_cpu_bits): callers check QTest::currentTestFailed().
void verify_same_run(const kms::FitResult& result, const kms::FitResult& one, const std::string& label) {
    QVERIFY2(result.labels == one.labels, label.c_str());
    QVERIFY2(same_bits(result.centroids, one.centroids), label.c_str());
    QCOMPARE(result.iterations, one.iterations);
}

// The CPU (OpenMP) with the options of the device run `one`: the same labels and
// centroid bits, in double always, in float where the labels agree (a distance
// rounding tie may label a point otherwise). QVERIFY returns from here: callers
// check QTest::currentTestFailed().
void verify_cpu_bits(const std::shared_ptr<const Matrix<double>>& points, kms::FitOptions options,
                     const kms::FitResult& one, const std::string& label, int& compared) {
    options.devices.clear();
    options.solver.stream_chunk = 0;
    options.solver.backend = kms::Backend::OpenMP;
    const kms::FitResult cpu = kms::fit(points, options);
    if (options.solver.precision != Precision::F64 && cpu.labels != one.labels) return;
    QVERIFY2(cpu.labels == one.labels, label.c_str());
    QVERIFY2(same_bits(cpu.centroids, one.centroids), label.c_str());
    ++compared;
}

}  // namespace

class TestCudaDevices : public QObject {
    Q_OBJECT

    int devices_ = 0;

    std::vector<Case> cases() const {
        auto n = [](std::size_t big, std::size_t tiny) { return gpu_small_mode() ? tiny : big; };
        return {
            {"d=2 k=5", n(300000, 5000), 2, 5},
            {"d=2 k=100", n(200000, 5000), 2, 100},
            {"d=3 k=7 weighted", n(60000, 3000), 3, 7, false, true},
            {"d=16 k=64", n(50000, 3000), 16, 64},
            {"d=70 k=30 weighted", n(20000, 2000), 70, 30, false, true},
            {"duplicates farthest", n(40000, 3000), 3, 10, true, false, kms::EmptyClusterPolicy::Farthest},
            {"duplicates farthest weighted", n(40000, 3000), 2, 8, true, true, kms::EmptyClusterPolicy::Farthest},
            {"n < one package per device", 3000, 2, 4},
            // The package sums' rounds path (k > 8, d ≤ 4; d ≤ 8 in float) at each register
            // width, with fewer warps where k·d is large; the rest takes the sorted path's walks.
            {"d=6 k=20 rounds", n(30000, 3000), 6, 20},
            {"d=12 k=128 rounds", n(30000, 3000), 12, 128},
            {"d=4 k=700 rounds", n(40000, 3000), 4, 700},
            {"d=6 k=200 rounds", n(30000, 3000), 6, 200},
            {"d=12 k=150 rounds", n(30000, 3000), 12, 150},
            {"d=33 k=150 sorted", n(20000, 2000), 33, 150},
            // Few clusters past the direct path (k·d > 64): the sorted path walks sub-packages.
            {"d=24 k=4 sub-package walks", n(40000, 3000), 24, 4},
        };
    }

private slots:
    void initTestCase() {
        kms::register_gpu_backends();
        const kms::BackendAvailability availability = kms::backend_availability(kms::Backend::Cuda);
        if (!availability.available) QSKIP(qPrintable(QString("no CUDA device: ") + availability.reason.c_str()));
        devices_ = kms::find_backend(kms::Backend::Cuda)->device_count();
        qInfo("%d CUDA device(s) visible", devices_);
    }

    void splitsGiveOneDevicesBits() {
        // Device lists: one block; two and three blocks on device 0; and across devices when there are several.
        std::vector<std::vector<int>> splits = {{0}, {0, 0}, {0, 0, 0}};
        if (devices_ >= 2) splits.insert(splits.end(), {{0, 1}, {1, 0}, {0, 1, 0, 1}});
        if (devices_ >= 4) splits.insert(splits.end(), {{0, 1, 2, 3}, {3, 2, 1, 0}});
        // Last, no --devices: one device's default update, the package update too (so
        // the CPU's bits) where its rounds path applies: k > 8, d ≤ 4, or d ≤ 8 in float
        // (these cases' package sums fit on chip).
        splits.push_back({});
        int default_bitwise = 0;
        int compared = 0, cpu_bitwise = 0, cpu_label_differences = 0;
        for (const Case& c : cases()) {
            const auto points = make_points(c, 17);
            std::vector<double> weights(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weights[i] = 0.25 + static_cast<double>((i * 37) % 11) / 4.0;
            for (Precision p : {Precision::F64, Precision::F32})
                for (Algorithm a : kms::test::registered_solvers(kms::Backend::Cuda))
                    for (kms::KernelVariant v : {kms::KernelVariant::Global, kms::KernelVariant::Shared}) {
                        if (a != Algorithm::Lloyd && v == kms::KernelVariant::Shared) continue;
                        kms::FitOptions options = cuda_fit_options(c, *points, weights, a, p, v, 3, 25);
                        const std::string label = c.name + " " + options.solver.describe();
                        kms::FitResult one, by_default;
                        for (const std::vector<int>& split : splits) {
                            options.devices = split;
                            const kms::FitResult result = kms::fit(points, options);
                            if (split.size() == 1) {
                                one = result;
                                QVERIFY2(!one.labels.empty(), label.c_str());
                                continue;
                            }
                            if (split.empty()) {
                                if (c.k <= 8 || c.d > 8 || (c.d > 4 && p == Precision::F64)) continue;
                                by_default = result;
                                ++default_bitwise;
                            }
                            QVERIFY2(result.labels == one.labels, label.c_str());
                            QVERIFY2(same_bits(result.centroids, one.centroids), label.c_str());
                            QVERIFY2(std::bit_cast<std::uint64_t>(result.inertia) == std::bit_cast<std::uint64_t>(one.inertia),
                                     label.c_str());
                            QCOMPARE(result.iterations, one.iterations);
                            ++compared;
                        }
                        // The CPU (OpenMP) with the same options: the same tree, so the same bits when the labels agree.
                        options.devices.clear();
                        options.solver.backend = kms::Backend::OpenMP;
                        options.solver.variant = kms::KernelVariant::Auto;
                        const kms::FitResult cpu = kms::fit(points, options);
                        if (cpu.labels == one.labels && cpu.iterations == one.iterations) {
                            QVERIFY2(same_bits(cpu.centroids, one.centroids), label.c_str());
                            if (!by_default.labels.empty())
                                QVERIFY2(same_bits(cpu.centroids, by_default.centroids), label.c_str());
                            QVERIFY2(std::abs(cpu.inertia - one.inertia) <= 1e-12 * cpu.inertia, label.c_str());
                            ++cpu_bitwise;
                        } else {
                            QVERIFY2(p == Precision::F32, ("double labels differ from the CPU's: " + label).c_str());
                            ++cpu_label_differences;
                        }
                    }
        }
        qInfo("%d split runs bitwise equal to one device's (%d of them without --devices); %d configurations bitwise "
              "the CPU's centroids, %d (float) with labels differing from the CPU's on rounding ties",
              compared, default_bitwise, cpu_bitwise, cpu_label_differences);
        QVERIFY(compared > 0 && cpu_bitwise > 0 && default_bitwise > 0);
    }

    // Past 2^25 points the layout has more than 256 packages (one per 2^17 points,
    // in 4096-point blocks), so that several devices each get some per
    // multiprocessor: every split, the default one-device run (the rounds path) and
    // the CPU still give the same bits there, float and double.
    void manyPackagesPastTwoPow25() {
        if (gpu_small_mode()) QSKIP("KMS_GPU_TEST_SMALL: 34 million points are not small");
        const Case c{"n = 2^25 + 2^20, d = 2, k = 20", (std::size_t{1} << 25) + (std::size_t{1} << 20), 2, 20};
        const kms::PackageLayout layout = kms::package_layout(c.n, c.k, c.d);
        QVERIFY(layout.packages > 256);
        const auto points = make_points(c, 29);
        std::vector<std::vector<int>> splits = {{0}, {0, 0, 0}, {}};
        if (devices_ >= 2) splits.insert(splits.begin() + 2, {0, 1});
        if (devices_ >= 4) splits.insert(splits.begin() + 2, {0, 1, 2, 3});
        int compared = 0;
        for (Precision p : {Precision::F64, Precision::F32})
            for (Algorithm a : {Algorithm::Lloyd, Algorithm::Hamerly}) {
                kms::FitOptions options;
                options.k = c.k;
                options.init.method = kms::InitMethod::File;
                options.init.given = std::make_shared<const Matrix<double>>(initial_centroids(c, *points));
                options.solver.algorithm = a;
                options.solver.backend = kms::Backend::Cuda;
                options.solver.precision = p;
                options.solver.max_iterations = 6;
                options.solver.tol = 0.0;
                const std::string label = c.name + " " + options.solver.describe();
                kms::FitResult one;
                for (const std::vector<int>& split : splits) {
                    options.devices = split;
                    const kms::FitResult result = kms::fit(points, options);
                    if (split.size() == 1) {
                        one = result;
                        continue;
                    }
                    verify_same_run(result, one, label);
                    if (QTest::currentTestFailed()) return;
                    ++compared;
                }
                verify_cpu_bits(points, options, one, label, compared);
                if (QTest::currentTestFailed()) return;
            }
        qInfo("%zu packages of %zu points: %d runs bitwise equal to one device's --devices run", layout.packages,
              layout.package_size, compared);
    }

    // Many package sums (253 packages × k·d = 32768): the sorted path's walk makes the
    // tree's first four levels (groups of 16 packages, the last one of 13) where a block
    // starts and ends on whole groups (--devices 0), and fewer or none where it does
    // not (three blocks, streamed chunks of a third): all bitwise the --devices 0 run,
    // and the CPU's.
    void packageWalkMakesTreeLevels() {
        const Case c{"n = 253 packages of 1024, d = 128, k = 256", 253 * 1024, 128, 256};
        QCOMPARE(kms::package_layout(c.n, c.k, c.d).packages, std::size_t{253});
        const auto points = make_points(c, 31);
        int compared = 0;
        for (Precision p : {Precision::F64, Precision::F32}) {
            kms::FitOptions options;
            options.k = c.k;
            options.init.method = kms::InitMethod::File;
            options.init.given = std::make_shared<const Matrix<double>>(initial_centroids(c, *points));
            options.solver.backend = kms::Backend::Cuda;
            options.solver.precision = p;
            options.solver.max_iterations = 3;
            options.solver.tol = 0.0;
            const std::string label = c.name + " " + options.solver.describe();
            options.devices = {0};
            const kms::FitResult one = kms::fit(points, options);
            for (int how = 0; how < 2; ++how) {
                options.devices = how == 0 ? std::vector<int>{0, 0, 0} : std::vector<int>{};
                options.solver.stream_chunk = how == 1 ? static_cast<long long>(c.n / 3) : 0;
                verify_same_run(kms::fit(points, options), one, label);
                if (QTest::currentTestFailed()) return;
                ++compared;
            }
            verify_cpu_bits(points, options, one, label, compared);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d runs bitwise equal to one device's --devices run", compared);
    }

    // Issue 42: one device's package update (--devices 0; by default where the rounds
    // path applies) at every shape gives bitwise the CPU's (OpenMP) centroids — in
    // double always, in float where the labels agree (a distance-rounding tie may label
    // a point otherwise: counted). Shapes over d = 1..300, k = 1..1100
    // reach every way to the package sums (direct, rounds, rows, the sorted walk one
    // package a thread and several, sub-package walks); each in f64 and f32, plain and
    // one more way in turn: weighted, empty clusters (pairs of equal initial centroids;
    // Keep or Farthest), Hamerly, streamed in chunks of about a third (resident: one chunk).
    void packageUpdateGivesTheCpusBitsAtEveryShape() {
        struct Shape {
            std::size_t d, k;
        };
        const std::vector<Shape> shapes = {
            {1, 1},    {1, 9},     {2, 3},    {2, 5},     {2, 100},   {3, 8},     {4, 7},    {4, 33},
            {5, 9},    {6, 2},     {7, 31},   {8, 8},     {8, 10},    {8, 64},    {9, 5},    {12, 16},
            {16, 5},   {16, 10},   {16, 32},  {16, 33},   {16, 100},  {17, 1000}, {24, 4},   {31, 20},
            {32, 10},  {33, 150},  {64, 5},   {64, 10},   {64, 100},  {64, 1100}, {100, 2},  {128, 10},
            {128, 32}, {128, 257}, {128, 1000}, {200, 17}, {300, 3},  {300, 40},  {300, 1100}};
        int compared = 0, runs = 0, label_differences = 0;
        for (std::size_t s = 0; s < shapes.size(); ++s) {
            const std::size_t d = shapes[s].d, k = shapes[s].k;
            // Odd row counts (a short last sub-package), a few packages; the CPU's fits stay short.
            const std::size_t most = gpu_small_mode() ? 2001 : 9001;
            const std::size_t n = std::max<std::size_t>(3 * k + 1, std::min<std::size_t>(most, 200000000 / (k * d)) | 1);
            for (int flavour : {0, 1 + static_cast<int>(s % 5)}) {
                Case c{"d=" + std::to_string(d) + " k=" + std::to_string(k), n, d, k};
                c.weighted = flavour == 1;
                c.duplicates = (flavour == 2 || flavour == 3) && k >= 2;
                if (flavour == 3) c.policy = kms::EmptyClusterPolicy::Farthest;
                const auto points = make_points(c, 41 + s);
                std::vector<double> weights(n);
                for (std::size_t i = 0; i < n; ++i) weights[i] = 0.25 + static_cast<double>((i * 29) % 13) / 4.0;
                for (Precision p : {Precision::F64, Precision::F32}) {
                    kms::FitOptions options =
                        cuda_fit_options(c, *points, weights, flavour == 4 ? Algorithm::Hamerly : Algorithm::Lloyd, p,
                                         kms::KernelVariant::Auto, 5 + s, 6);
                    if (flavour == 5) options.solver.stream_chunk = static_cast<long long>(n / 3);
                    options.devices = {0};
                    const std::string label = c.name + " flavour " + std::to_string(flavour) + " " +
                                              options.solver.describe() + " n=" + std::to_string(n);
                    const kms::FitResult one = kms::fit(points, options);
                    QVERIFY2(!one.labels.empty(), label.c_str());
                    ++runs;
                    const int before = compared;
                    verify_cpu_bits(points, options, one, label, compared);
                    if (QTest::currentTestFailed()) return;
                    if (compared == before) ++label_differences;
                }
            }
        }
        qInfo("%d one-device runs (--devices 0) over %zu shapes: %d bitwise the CPU's "
              "centroids, %d (float) with labels "
              "differing from the CPU's on rounding ties",
              runs, shapes.size(), compared, label_differences);
        QVERIFY(compared > 0 && compared + label_differences == runs);
    }

    // Streamed points (--stream-chunk): Lloyd on chunks of whole packages copied from
    // page-locked host memory while the previous chunk is assigned, summed in the
    // package tree: bitwise one device's --devices run (the CPU's bits), alone and
    // under a split; the smallest chunk (one package) and a chunk of about a third.
    void streamedChunksGiveOneDevicesBits() {
        int compared = 0;
        for (const Case& c : cases()) {
            const auto points = make_points(c, 23);
            std::vector<double> weights(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weights[i] = 0.5 + static_cast<double>((i * 13) % 7) / 2.0;
            for (Precision p : {Precision::F64, Precision::F32})
                for (kms::KernelVariant v : {kms::KernelVariant::Global, kms::KernelVariant::Shared}) {
                    kms::FitOptions options = cuda_fit_options(c, *points, weights, Algorithm::Lloyd, p, v, 5, 20);
                    const std::string label = c.name + " " + options.solver.describe();
                    options.devices = {0};
                    const kms::FitResult one = kms::fit(points, options);
                    QVERIFY2(!one.labels.empty(), label.c_str());
                    for (long long chunk : {1ll, static_cast<long long>(c.n / 3)})
                        for (const std::vector<int>& split : {std::vector<int>{}, std::vector<int>{0, 0}}) {
                            options.devices = split;
                            options.solver.stream_chunk = chunk;
                            const kms::FitResult streamed = kms::fit(points, options);
                            const std::string what = label + " chunk " + std::to_string(chunk) + " over " +
                                                     std::to_string(split.size()) + " block(s)";
                            QVERIFY2(streamed.labels == one.labels, what.c_str());
                            QVERIFY2(same_bits(streamed.centroids, one.centroids), what.c_str());
                            QVERIFY2(std::bit_cast<std::uint64_t>(streamed.inertia) ==
                                         std::bit_cast<std::uint64_t>(one.inertia),
                                     what.c_str());
                            QCOMPARE(streamed.iterations, one.iterations);
                            ++compared;
                        }
                    options.solver.stream_chunk = 0;
                }
        }
        qInfo("%d streamed runs bitwise equal to one device's --devices run", compared);
        QVERIFY(compared > 0);
    }

    // The bounded solvers that stream (Hamerly, Yinyang, Exponion, Shallot: every pruning
    // solver registered as streaming on CUDA; their per-point state stays on the device,
    // each chunk with its slice of it): bitwise the resident run with
    // the same update (--devices 0) - labels, centroids, inertia, iterations and the
    // distance count, so the bounds pruned the same - chunk by chunk (one package, about a
    // third) and under a split.
    void streamedBoundedSolversGiveTheResidentBits() {
        struct DistanceCount : kms::FitObserver {  // every step's point-centroid distances, in order
            std::vector<std::uint64_t> steps;
            void iteration_done(int, const kms::IterationStats& stats, const kms::Solver&) override {
                steps.push_back(stats.point_centroid_distances);
            }
        };
        int compared = 0;
        for (const Case& c : cases()) {
            const auto points = make_points(c, 31);
            std::vector<double> weights(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weights[i] = 0.5 + static_cast<double>((i * 13) % 7) / 2.0;
            for (Algorithm a : kms::test::registered_solvers(kms::Backend::Cuda))
                for (Precision p : {Precision::F64, Precision::F32})
                    for (kms::KernelVariant v : {kms::KernelVariant::Global, kms::KernelVariant::Shared}) {
                        if (!kms::algorithm_info(a)->prunes() || !kms::solver_traits(a, kms::Backend::Cuda).streams_points)
                            continue;
                        kms::FitOptions options = cuda_fit_options(c, *points, weights, a, p, v, 5, 20);
                        const std::string label = c.name + " " + options.solver.describe();
                        options.devices = {0};
                        DistanceCount resident_distances;
                        const kms::FitResult resident = kms::fit(points, options, &resident_distances);
                        QVERIFY2(!resident.labels.empty(), label.c_str());
                        for (long long chunk : {1ll, static_cast<long long>(c.n / 3)})
                            for (const std::vector<int>& split : {std::vector<int>{}, std::vector<int>{0, 0}}) {
                                options.devices = split;
                                options.solver.stream_chunk = chunk;
                                DistanceCount streamed_distances;
                                const kms::FitResult streamed = kms::fit(points, options, &streamed_distances);
                                const std::string what = label + " chunk " + std::to_string(chunk) + " over " +
                                                         std::to_string(split.size()) + " block(s)";
                                QVERIFY2(streamed.labels == resident.labels, what.c_str());
                                QVERIFY2(same_bits(streamed.centroids, resident.centroids), what.c_str());
                                QVERIFY2(std::bit_cast<std::uint64_t>(streamed.inertia) ==
                                             std::bit_cast<std::uint64_t>(resident.inertia),
                                         what.c_str());
                                QCOMPARE(streamed.iterations, resident.iterations);
                                QVERIFY2(streamed_distances.steps == resident_distances.steps, what.c_str());
                                ++compared;
                            }
                        options.solver.stream_chunk = 0;
                    }
        }
        qInfo("%d streamed bounded runs bitwise equal to the resident run", compared);
        QVERIFY(compared > 0);
    }

    // Out of core on the device (fit() of a RowSource): the rows read chunk by chunk into
    // two page-locked buffers on every pass, by Lloyd and Hamerly: bitwise the loaded run
    // with the same update (--devices 0); buffers of one package and of a third of the rows.
    void outOfCoreGivesTheLoadedBits() {
        int compared = 0;
        for (const Case& c : cases()) {
            if (c.weighted || c.policy != kms::EmptyClusterPolicy::Keep) continue;  // refused out of core
            const auto points = make_points(c, 37);
            const auto source = std::make_shared<const MatrixRows>(points);
            for (Algorithm a : {Algorithm::Lloyd, Algorithm::Hamerly})
                for (Precision p : {Precision::F64, Precision::F32}) {
                    kms::FitOptions options = cuda_fit_options(c, *points, {}, a, p, kms::KernelVariant::Auto, 5, 20);
                    const std::string label = c.name + " " + options.solver.describe();
                    options.devices = {0};
                    const kms::FitResult loaded = kms::fit(points, options);
                    options.devices = {};
                    for (std::size_t buffer : {std::size_t{1}, c.n / 3 * c.d * 2 * sizeof(double)}) {
                        const kms::FitResult read = kms::fit(source, buffer, options);
                        const std::string what = label + " buffers of " + std::to_string(buffer) + " bytes";
                        QVERIFY2(read.labels == loaded.labels, what.c_str());
                        QVERIFY2(same_bits(read.centroids, loaded.centroids), what.c_str());
                        QVERIFY2(std::bit_cast<std::uint64_t>(read.inertia) == std::bit_cast<std::uint64_t>(loaded.inertia),
                                 what.c_str());
                        QCOMPARE(read.iterations, loaded.iterations);
                        ++compared;
                    }
                }
        }
        qInfo("%d out-of-core runs bitwise equal to the loaded run", compared);
        QVERIFY(compared > 0);
        const auto points = make_points(cases().front(), 37);
        const kms::FitOptions elkan = cuda_fit_options(cases().front(), *points, {}, Algorithm::Elkan, Precision::F64,
                                                       kms::KernelVariant::Auto, 5, 5);
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::fit(std::make_shared<const MatrixRows>(points), 1 << 20, elkan));
    }

    // A streamed solver copies every point once per step (the statistic says so) and
    // keeps no copy of them on the device; device data and the bounded solvers are refused.
    void streamedStepCopiesEveryPoint() {
        const Case c{"d=4 k=9", gpu_small_mode() ? 4000u : 100000u, 4, 9};
        const auto points = make_points(c, 29);
        for (Precision p : {Precision::F64, Precision::F32}) {
            kms::SolverConfig config;
            config.backend = kms::Backend::Cuda;
            config.precision = p;
            config.stream_chunk = 10000;
            config.tol = 0.0;
            auto solver = kms::make_solver(config);
            solver->set_data(points);
            // Double points are page-locked in place; float ones rounded into a page-locked copy.
            QCOMPARE(solver->data_address() == points->data(), p == Precision::F64);
            QVERIFY(solver->data_address() != nullptr);
            solver->set_initial_centroids(initial_centroids(c, *points));
            const kms::IterationStats stats = solver->step();
            const std::size_t element = p == Precision::F64 ? 8 : 4;
            QCOMPARE(stats.streamed_bytes, static_cast<std::uint64_t>(c.n * c.d * element));
            QCOMPARE(stats.point_centroid_distances, static_cast<std::uint64_t>(c.n * c.k));
            QCOMPARE(stats.labels_changed, static_cast<std::uint64_t>(c.n));
        }
        kms::SolverConfig elkan;
        elkan.backend = kms::Backend::Cuda;
        elkan.algorithm = Algorithm::Elkan;
        elkan.stream_chunk = 10000;
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, kms::make_solver(elkan));
    }

    // Spectral clustering's eigen-path on the device (cuSOLVER syevd) against the
    // CPU's (LAPACK dsyevr): the same eigenvalues to round-off, the same clusters.
    void spectralEigenPathAgreesWithCpu() {
        for (const char* spec : {"moons:n=20000,noise=0.05", "circles:n=20000,noise=0.05,factor=0.5"}) {
            const kms::Dataset data = kms::generate_dataset(spec, 1);
            const auto points = std::make_shared<const Matrix<double>>(data.points);
            kms::SpectralOptions options;
            options.kmeans.init.seed = 1;
            options.representatives = gpu_small_mode() ? 300 : 1000;
            options.kmeans.solver.backend = kms::Backend::OpenMP;
            const kms::SpectralResult cpu = kms::spectral_cluster(points, options);
            options.kmeans.solver.backend = kms::Backend::Cuda;
            const kms::SpectralResult gpu = kms::spectral_cluster(points, options);
            QVERIFY2(gpu.eigen.method.find("cuSOLVER") != std::string::npos, gpu.eigen.method.c_str());
            QVERIFY2(gpu.eigensolver_note.empty(), gpu.eigensolver_note.c_str());
            QCOMPARE(gpu.eigen.values.size(), cpu.eigen.values.size());
            for (std::size_t i = 0; i < cpu.eigen.values.size(); ++i)
                QVERIFY2(std::abs(gpu.eigen.values[i] - cpu.eigen.values[i]) <= 1e-9, spec);
            QCOMPARE(gpu.clusters, std::size_t{2});
            QCOMPARE(cpu.clusters, std::size_t{2});
            const double agreement = kms::adjusted_rand_index(cpu.labels, gpu.labels);
            const double truth = kms::adjusted_rand_index(data.truth_labels, gpu.labels);
            qInfo("%s: ARI(GPU eigen-path, CPU) = %.6f, ARI(GPU, truth) = %.4f; eigensolver %.1f ms (GPU) vs %.1f ms "
                  "(CPU) for %zu representatives",
                  spec, agreement, truth, gpu.times.eigensolver_ms, cpu.times.eigensolver_ms, gpu.representatives);
            QVERIFY(agreement >= 0.999);
            QVERIFY(truth >= 0.95);
        }
    }

    // Refusals: a device that does not exist, device data, a back end without devices.
    void refusals() {
        const Case c{"refusals", 5000, 2, 4};
        const auto points = make_points(c, 5);
        kms::FitOptions options;
        options.k = c.k;
        options.solver.backend = kms::Backend::Cuda;
        options.devices = {0, 999};
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::fit(points, options));
        options.solver.backend = kms::Backend::OpenMP;
        options.devices = {0};
        try {
            kms::fit(points, options);
            QFAIL("--devices accepted on the CPU");
        } catch (const kms::Error& error) {
            QVERIFY2(std::string(error.what()).find("--devices") != std::string::npos, error.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestCudaDevices)
#include "test_cuda_devices.moc"
