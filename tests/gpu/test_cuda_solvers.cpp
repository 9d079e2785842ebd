// CUDA solvers against the CPU Lloyd solver and against each other, iteration by
// iteration. Skips (with the reason) where there is no CUDA build or device.
//
// double: every CUDA solver's labels equal the CPU Lloyd labels exactly at every
//         iteration; centroids within 1e-12 (relative to the data's scale).
// float:  every CUDA solver equals the CUDA Lloyd (global) solver exactly (labels
//         and centroid bits: the update sums in a fixed order that depends on the
//         labels and the launch geometry only); CUDA Lloyd vs CPU Lloyd: labels equal
//         except points whose two nearest distances tie within float rounding
//         (counted, bounded), centroids within 1e-5 relative.
// The "gemm" cases reach Lloyd cuda-shared's GEMM filter-and-verify path (d ≥ 16,
// k ≥ 64); gemmFilterPath() checks, in both of its formats (tf32, int8), that the
// path is taken, certifies, verifies and falls back, on adversarial data.
// KMS_GPU_TEST_SMALL=1 shrinks every case (for compute-sanitizer runs).
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/distance.hpp"
#include "kms/fit.hpp"
#include "kms/error.hpp"
#include "kms/gpu_backends.hpp"
#include "kms/solver.hpp"
#include "test_support.hpp"

namespace {

using kms::Algorithm;
// Where a solver runs: the device and, for CUDA, the kernel variant.
struct Backend {
    kms::Backend device;
    kms::KernelVariant variant;
    bool operator==(const Backend&) const = default;
};
const Backend kOpenMP{kms::Backend::OpenMP, kms::KernelVariant::Auto};
const Backend kCudaGlobal{kms::Backend::Cuda, kms::KernelVariant::Global};
const Backend kCudaShared{kms::Backend::Cuda, kms::KernelVariant::Shared};
using kms::Matrix;
using kms::Precision;

bool small_mode() { return kms::test::gpu_small_mode(); }

struct Case {
    std::string name;
    std::size_t n, d, k;
    int iterations;
    enum Kind { Blobs, Grid, Duplicates, Bisectors, FarFromOrigin, FarOutlier, HugeOffset, MixedScales, Decoys } kind = Blobs;
    kms::EmptyClusterPolicy policy = kms::EmptyClusterPolicy::Keep;
    int block = 0;
    std::size_t blobs = 0;  // 0: min(k, 12)
    double centres = 10.0;  // blob centres uniform in ±centres (1e3: tight blobs far apart)
};

// Points: Gaussian blobs, an integer grid (many exact distance ties), blobs
// with every point repeated (duplicates) and duplicated initial centroids, blobs
// with every fifth point moved onto the bisector of two initial centroids
// (place_on_bisectors), unit-spread blobs offset by +1e3 or −1e3 in every
// coordinate (far from the data mean, which the GEMM filter subtracts: its int8
// quantisation step s ≈ 1e3/127 is far coarser than the blobs), or blobs with one
// point at 1e6 in every coordinate (a far outlier: s ≈ 1e6/127 quantises every
// other point and centroid to the same row, so the filter certifies nothing), or
// every coordinate near 1e6 (HugeOffset, below), or blobs whose centres and
// spreads range over 10^-3..10^3 (MixedScales: huge and tiny norms side by side).
// Case::centres = 1e3 spreads the blob centres over ±1e3 (the blobs stay as tight):
// the filter's bound, which grows with the norms, then holds every centroid of a
// point's blob (clustered data: k = 10·blobs), and those of no other blob.
std::shared_ptr<Matrix<double>> make_points(const Case& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(-c.centres, c.centres);
    std::uniform_int_distribution<int> cell(0, 6);
    auto points = std::make_shared<Matrix<double>>(c.n, c.d);
    const std::size_t centers = c.blobs ? c.blobs : std::max<std::size_t>(1, std::min<std::size_t>(c.k, 12));
    std::vector<double> center(centers * c.d);
    for (double& v : center) v = uniform(rng);
    // 1e3, not more: the float CPU comparison below tolerates rounding ties only, and
    // farther out float centroids differ by whole ulps of the offset.
    // HugeOffset: every coordinate 1e6 + a tiny spread (float's step there is 1/16:
    // many equal points and exact distance ties; the sums' cancellation at its worst).
    const double far = c.kind == Case::FarFromOrigin ? 1e3 : 0.0;
    const double spread = c.kind == Case::FarFromOrigin ? 1.0 : c.kind == Case::HugeOffset ? 0.05 : 1.5;
    for (std::size_t i = 0; i < c.n; ++i) {
        if (c.kind == Case::FarOutlier && i == c.n / 2) {
            for (std::size_t j = 0; j < c.d; ++j) (*points)(i, j) = 1e6;
            continue;
        }
        if (c.kind == Case::Duplicates && i % 2 == 1) {
            for (std::size_t j = 0; j < c.d; ++j) (*points)(i, j) = (*points)(i - 1, j);
            continue;
        }
        const std::size_t g = i % centers;
        const double offset = c.kind == Case::HugeOffset ? 1e6 : g % 2 == 0 ? far : -far;
        const double scale = c.kind == Case::MixedScales ? std::pow(10.0, static_cast<double>(g % 7) - 3.0) : 1.0;
        for (std::size_t j = 0; j < c.d; ++j)
            (*points)(i, j) = c.kind == Case::Grid ? static_cast<double>(cell(rng))
                                                    : offset + scale * (center[g * c.d + j] + spread * normal(rng));
    }
    return points;
}

Matrix<double> initial_centroids(const Case& c, const Matrix<double>& points, std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x5bd1e995u);
    std::vector<std::size_t> rows(points.rows());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    std::shuffle(rows.begin(), rows.end(), rng);
    Matrix<double> out(c.k, c.d);
    for (std::size_t r = 0; r < c.k; ++r) {
        // Duplicates: pairs of identical initial centroids (exact ties, empty clusters).
        // Decoys: the first 128 (the GEMM filter's first centroid tile) all the first
        // point, so every point's best of that tile ties 128 times.
        const std::size_t source = c.kind == Case::Duplicates ? rows[r / 2]
                                   : c.kind == Case::Decoys && r < 128 ? 0
                                                                       : rows[r];
        for (std::size_t j = 0; j < c.d; ++j) out(r, j) = points(source, j);
    }
    return out;
}

// Bisectors: every fifth point becomes the midpoint of two initial centroids
// (near or exact ties between its two nearest centroids in the first step).
void place_on_bisectors(const Case& c, Matrix<double>& points, const Matrix<double>& start) {
    if (c.kind != Case::Bisectors || c.k < 2) return;
    for (std::size_t i = 1; i < c.n; i += 5) {
        const std::size_t a = i % c.k, b = (a + 1 + (i / 5) % (c.k - 1)) % c.k;
        for (std::size_t j = 0; j < c.d; ++j) points(i, j) = 0.5 * (start(a, j) + start(b, j));
    }
}

// What the GEMM filter's first step must show; Any: only the lockstep (adversarial
// data where either outcome is sound).
// Listed: most points uncertified, and settled by the filter's own candidate lists
// (no list pass, few searches over all k); ListPass: the same, but most lists made by
// the list pass (the filter's overflowed), which is work enough for the second step
// to probe the exact kernel; Overflows: most points' lists overflow (searched over all k).
enum class FilterOutcome { MostlyCertified, TwoCandidates, Listed, ListPass, Overflows, FallsBack, Any };

std::unique_ptr<kms::Solver> make(Algorithm a, Backend b, Precision p, const Case& c) {
    kms::SolverConfig config;
    config.algorithm = a;
    config.backend = b.device;
    config.variant = b.variant;
    config.precision = p;
    config.max_iterations = 1000;
    config.tol = 0.0;
    config.empty_policy = c.policy;
    config.cuda_block_size = c.block;
    config.record_point_status = true;
    return kms::make_solver(config);
}

double max_relative_difference(const Matrix<double>& a, const Matrix<double>& b, double scale) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]) / scale);
    return worst;
}

double data_scale(const Matrix<double>& points) {
    double m = 1e-300;
    for (double v : points.values()) m = std::max(m, std::abs(v));
    return m;
}

std::vector<Case> cases() {
    const bool small = small_mode();
    auto n = [&](std::size_t big, std::size_t tiny) { return small ? tiny : big; };
    std::vector<Case> list = {
        {"n=1 k=1 d=1", 1, 1, 1, 3},
        {"k=n tiny", 5, 3, 5, 3},
        {"d=1 k=3", n(3000, 300), 1, 3, 6},
        {"d=2 k=5 (fused small update)", n(200000, 2000), 2, 5, 6},
        {"d=4 k=4 (fused small update)", n(50000, 2000), 4, 4, 6},
        {"d=3 k=7 (fused small update)", n(20000, 1000), 3, 7, 6},
        {"d=2 k=9 (general update)", n(20000, 1000), 2, 9, 6},
        {"d=70 k=30", n(20000, 600), 70, 30, 5},
        {"d=33 k=300", n(30000, 700), 33, 300, 4},
        {"d=5 k=64 block 64", n(10000, 500), 5, 64, 5, Case::Blobs, kms::EmptyClusterPolicy::Keep, 64},
        {"d=5 k=64 block 1024", n(10000, 500), 5, 64, 5, Case::Blobs, kms::EmptyClusterPolicy::Keep, 1024},
        {"grid ties d=2 k=6", n(5000, 400), 2, 6, 6, Case::Grid},
        {"grid ties d=3 k=40", n(5000, 400), 3, 40, 6, Case::Grid},
        {"duplicates keep", n(4000, 300), 3, 10, 5, Case::Duplicates},
        {"duplicates farthest", n(4000, 300), 3, 10, 5, Case::Duplicates, kms::EmptyClusterPolicy::Farthest},
        {"duplicates farthest small path", n(4000, 300), 2, 8, 5, Case::Duplicates,
         kms::EmptyClusterPolicy::Farthest},
        // The small path's update runs in the last block of the summing kernel: block
        // sizes other than 256 (fewer or more than 8 warps, uneven warp counts), every
        // exact-k kernel size, and more blocks than the 256 virtual reducing threads.
        {"d=2 k=2 block 64 (fused small update)", n(30000, 1000), 2, 2, 6, Case::Blobs,
         kms::EmptyClusterPolicy::Keep, 64},
        {"d=3 k=6 block 96 (fused small update)", n(30000, 1000), 3, 6, 6, Case::Blobs,
         kms::EmptyClusterPolicy::Keep, 96},
        {"d=4 k=8 block 1024 (fused small update)", n(60000, 1000), 4, 8, 6, Case::Blobs,
         kms::EmptyClusterPolicy::Keep, 1024},
        {"d=1 k=8 block 32 (fused small update)", n(30000, 1000), 1, 8, 6, Case::Blobs,
         kms::EmptyClusterPolicy::Keep, 32},
        {"d=2 k=3 many blocks (fused small update)", n(400000, 3000), 2, 3, 5},
        // Yinyang: low d with many groups (each thread walks its open groups), and
        // d >= 8 with k > 32 (points with many open groups go to the tiled search);
        // enough steps for the lazy group bounds to lag several updates behind.
        {"d=2 k=150 (groups walked)", n(30000, 1500), 2, 150, 10},
        {"d=8 k=100 (groups deferred)", n(20000, 800), 8, 100, 8},
        {"grid ties d=2 k=60", n(8000, 600), 2, 60, 8, Case::Grid},
        // Exponion: rows longer than its sorted list of 128 near centroids (balls that
        // outgrow it go to the full search), in 2-D and with many coordinates.
        {"d=2 k=400 (rows past the near list)", n(40000, 2000), 2, 400, 8},
        {"d=24 k=300 uniform-ish", n(20000, 900), 24, 300, 6, Case::Blobs, kms::EmptyClusterPolicy::Keep, 0, 300},
        // Low d (≤ 4) with k > 32: every centroid resident in shared memory, each thread
        // scanning all k for its points; d = 1 and d = 4, hostile offsets, and a k·d past
        // the shared-memory limit in double only (so f32 and f64 take different kernels).
        {"d=1 k=50 (low-d search)", n(20000, 800), 1, 50, 6},
        {"d=4 k=700 (low-d search)", n(30000, 1500), 4, 700, 5},
        {"far from origin d=2 k=64 (low-d search)", n(10000, 600), 2, 64, 5, Case::FarFromOrigin},
        {"d=2 k=3500 (low-d f32, tiled f64)", n(14000, 3600), 2, 3500, 3},
        // Shallot: its tracked second centroid in ties (points on the bisector of two
        // initial centroids: the pair equidistant; duplicated centroids: the second at the
        // own centroid's distance, clusters emptied and refilled), over enough steps for
        // the seconds to be tracked from earlier ones, in 2-D (one lane a point) and 8-D
        // (four lanes a point).
        {"bisectors d=2 k=80 (tracked second ties)", n(20000, 1000), 2, 80, 10, Case::Bisectors},
        {"bisectors d=8 k=60 (tracked second ties)", n(20000, 1000), 8, 60, 8, Case::Bisectors},
        {"duplicates farthest d=2 k=60 (tracked second)", n(20000, 1000), 2, 60, 10, Case::Duplicates,
         kms::EmptyClusterPolicy::Farthest},
    };
    // Lloyd cuda-shared with k ≤ 32 (the small-k kernel): 16-byte copies (d·size a
    // multiple of 16) and element copies (odd d), a row of several chunks, one tile
    // and a part tile; smallKMatchesExact() below sweeps k and hostile data.
    const std::vector<Case> small_k = {
        {"d=17 k=5 (small-k kernel)", n(30000, 700), 17, 5, 5},
        {"d=64 k=32 (small-k kernel)", n(20000, 600), 64, 32, 4},
        {"d=100 k=13 (small-k kernel)", n(10000, 300), 100, 13, 4},
        {"grid ties d=16 k=20 (small-k kernel)", n(5000, 400), 16, 20, 5, Case::Grid},
    };
    list.insert(list.end(), small_k.begin(), small_k.end());
    // The GEMM filter-and-verify path of Lloyd cuda-shared (d ≥ 16, k ≥ 64): partial
    // coordinate chunks, scalar loads (d % 4 ≠ 0), k below / not a multiple of the
    // 128-centroid tile, n not a multiple of the 128-point tile, and hostile data.
    const std::vector<Case> gemm = {
        {"gemm d=36 k=100", n(20000, 700), 36, 100, 4},
        {"gemm d=133 k=300 n=3001", n(3001, 400), 133, 300, 3},
        {"gemm duplicates d=20 k=80", n(6000, 500), 20, 80, 4, Case::Duplicates},
        {"gemm bisectors d=24 k=64", n(8000, 500), 24, 64, 4, Case::Bisectors},
        {"gemm grid ties d=16 k=64", n(6000, 500), 16, 64, 4, Case::Grid},
        {"gemm far from origin d=32 k=64", n(8000, 500), 32, 64, 4, Case::FarFromOrigin},
        {"gemm d=17 k=64", n(8000, 500), 17, 64, 4},
        {"gemm d=45 k=130", n(10000, 600), 45, 130, 3},
    };
    list.insert(list.end(), gemm.begin(), gemm.end());
    if (!small) list.push_back({"d=16 k=200 n=200k", 200000, 16, 200, 3});
    return list;
}

// Every solver registered on the CUDA back end (kms/algorithms.hpp), Lloyd first; asked once
// the GPU's registrations ran (initTestCase).
const std::vector<Algorithm>& cuda_algorithms() {
    static const std::vector<Algorithm> list = kms::test::registered_solvers(kms::Backend::Cuda);
    return list;
}
const Backend kCudaBackends[] = {kCudaGlobal, kCudaShared};

}  // namespace

class TestCudaSolvers : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        kms::register_gpu_backends();
        const kms::BackendAvailability availability = kms::backend_availability(kms::Backend::Cuda);
        if (!availability.available) QSKIP(qPrintable(QString("no CUDA device: ") + availability.reason.c_str()));
    }

    // double: every CUDA solver equals CPU Lloyd exactly at every iteration.
    void doubleMatchesCpuLloyd() {
        int seed = 1;
        for (const Case& c : cases()) {
            const auto points = make_points(c, static_cast<std::uint64_t>(seed));
            const Matrix<double> start = initial_centroids(c, *points, static_cast<std::uint64_t>(seed++));
            place_on_bisectors(c, *points, start);
            const double scale = data_scale(*points);
            auto cpu = make(Algorithm::Lloyd, kOpenMP, Precision::F64, c);
            cpu->set_data(points);
            cpu->set_initial_centroids(start);
            std::vector<std::unique_ptr<kms::Solver>> gpus;
            for (Algorithm a : cuda_algorithms())
                for (Backend b : kCudaBackends) {
                    gpus.push_back(make(a, b, Precision::F64, c));
                    gpus.back()->set_data(points);
                    gpus.back()->set_initial_centroids(start);
                }
            for (int it = 1; it <= c.iterations; ++it) {
                const kms::IterationStats reference = cpu->step();
                for (auto& gpu : gpus) {
                    const std::vector<std::int32_t> before = gpu->labels();
                    const kms::IterationStats stats = gpu->step();
                    const std::string where = c.name + " / " + gpu->config().describe() + " / iteration " +
                                              std::to_string(it);
                    QVERIFY2(gpu->labels() == cpu->labels(), ("labels differ from CPU Lloyd: " + where).c_str());
                    const double diff = max_relative_difference(gpu->centroids(), cpu->centroids(), scale);
                    QVERIFY2(diff <= 1e-12, (where + ": centroid difference " + std::to_string(diff)).c_str());
                    QCOMPARE(stats.iteration, it);
                    QCOMPARE(stats.empty_clusters, reference.empty_clusters);
                    QCOMPARE(stats.labels_changed, reference.labels_changed);
                    std::uint64_t changed = 0;
                    for (std::size_t i = 0; i < before.size(); ++i) changed += before[i] != gpu->labels()[i];
                    QCOMPARE(stats.labels_changed, changed);
                    QVERIFY(std::abs(stats.shift_sq_total - reference.shift_sq_total) <=
                            1e-9 * std::max(1.0, reference.shift_sq_total));
                    // Lloyd cuda-shared with the GEMM filter: n·k, and per verified point k for
                    // the list pass and its list (at most 32) or k.
                    QVERIFY(stats.point_centroid_distances <= static_cast<std::uint64_t>(c.n) * (3 * c.k + 32));
                    QVERIFY(stats.time_total_ms >= 0.0);
                    QCOMPARE(gpu->point_status().size(), c.n);
                    QVERIFY(gpu->device_labels() != nullptr);
                }
            }
            const double cpu_inertia = cpu->inertia();
            for (auto& gpu : gpus)
                QVERIFY(std::abs(gpu->inertia() - cpu_inertia) <= 1e-9 * std::max(1.0, cpu_inertia));
        }
    }

    // float: all CUDA solvers bitwise equal to CUDA Lloyd; CUDA Lloyd vs CPU Lloyd
    // equal except near-ties, which are counted and bounded.
    void floatMatchesLloydAndCpu() {
        int seed = 100;
        std::size_t total_points = 0, total_ties = 0;
        for (const Case& c : cases()) {
            const auto points = make_points(c, static_cast<std::uint64_t>(seed));
            const Matrix<double> start = initial_centroids(c, *points, static_cast<std::uint64_t>(seed++));
            place_on_bisectors(c, *points, start);
            auto cpu = make(Algorithm::Lloyd, kOpenMP, Precision::F32, c);
            auto reference = make(Algorithm::Lloyd, kCudaGlobal, Precision::F32, c);
            std::vector<std::unique_ptr<kms::Solver>> gpus;
            for (Algorithm a : cuda_algorithms())
                for (Backend b : kCudaBackends)
                    if (a != Algorithm::Lloyd || b != kCudaGlobal) gpus.push_back(make(a, b, Precision::F32, c));
            for (auto* s : {cpu.get(), reference.get()}) {
                s->set_data(points);
                s->set_initial_centroids(start);
            }
            for (auto& gpu : gpus) {
                gpu->set_data(points);
                gpu->set_initial_centroids(start);
            }
            bool in_step_with_cpu = true;
            for (int it = 1; it <= c.iterations; ++it) {
                const Matrix<double> centroids_before = reference->centroids();
                cpu->step();
                reference->step();
                for (auto& gpu : gpus) {
                    gpu->step();
                    const std::string where = c.name + " / " + gpu->config().describe() + " / iteration " +
                                              std::to_string(it);
                    QVERIFY2(gpu->labels() == reference->labels(),
                             ("labels differ from CUDA Lloyd f32: " + where).c_str());
                    QVERIFY2(gpu->centroids() == reference->centroids(),
                             ("centroids differ from CUDA Lloyd f32: " + where).c_str());
                }
                if (!in_step_with_cpu) continue;
                // Same centroids in → a label may differ only where the two nearest
                // float distances tie within rounding.
                const auto& a = reference->labels();
                const auto& b = cpu->labels();
                std::size_t ties = 0;
                const Matrix<float> x = points->cast<float>();
                const Matrix<float> cf = centroids_before.cast<float>();
                for (std::size_t i = 0; i < c.n; ++i) {
                    if (a[i] == b[i]) continue;
                    const float da = kms::squared_distance(x.row(i), cf.row(static_cast<std::size_t>(a[i])), c.d);
                    const float db = kms::squared_distance(x.row(i), cf.row(static_cast<std::size_t>(b[i])), c.d);
                    const float gap = std::abs(da - db);
                    QVERIFY2(gap <= 1e-4f * std::max({da, db, 1e-30f}),
                             (c.name + ": f32 label differs from CPU beyond a rounding tie at point " +
                              std::to_string(i))
                                 .c_str());
                    ++ties;
                }
                total_ties += ties;
                total_points += c.n;
                QVERIFY2(ties <= 1 + c.n / 1000, (c.name + ": too many float ties: " + std::to_string(ties)).c_str());
                if (ties > 0) {
                    in_step_with_cpu = false;  // centroids now differ by more than summation order
                    continue;
                }
                const double diff =
                    max_relative_difference(reference->centroids(), cpu->centroids(), data_scale(*points));
                QVERIFY2(diff <= 1e-5, (c.name + ": f32 centroid difference " + std::to_string(diff)).c_str());
            }
        }
        qInfo("float: %zu labels differed from CPU Lloyd by rounding ties out of %zu compared", total_ties,
              total_points);
    }

    // The filter path is really taken: IterationStats::verified_points counts
    // the points it could not certify, gemm_listed those of them settled by a list of
    // candidates, and the distance statistic n·k for the filter plus, per verified
    // point, its list (2 to 32) and k if the list pass made it, or k for a search over all
    // k (2k when its list overflowed twice). Blobs as many as
    // centroids (the int8 bound, |‖x − c‖ − s√Q| ≤ δ_x + δ_c with δ ≈ s·√(d/12),
    // cannot separate the near-equidistant centroids of one tight blob, which the
    // default 12 blobs give): points on bisectors (a fifth) must be verified while
    // most of the rest is certified (also for d < 32, d not a multiple of the 32-wide
    // MMA step, and k over two centroid tiles); with every initial centroid
    // duplicated no point can be certified, yet most are settled by two candidates;
    // with one far outlier the quantisation is too coarse to certify anything, so the
    // run times the exact kernel on its second step (and keeps it for good when the
    // filter left over 90% of the points to full searches).
    // Clustered (tight blobs far apart, ten centroids a blob): several centroids within
    // the bound, so few points are certified, and the filter's own lists settle them
    // (no list pass), with exact ties on bisectors and between duplicated centroids;
    // decoys (the first centroid tile 128 copies of one point): every point's running
    // list overflows on that tile, so the list pass makes the lists (the points of the
    // decoys' blob, a sixteenth, overflow it too); with 80 centroids a blob the lists
    // overflow to searches over all k.
    // Labels and centroids equal CUDA Lloyd global (the exact kernel) at every step.
    void gemmFilterPath() {
        const bool small = small_mode();
        using enum FilterOutcome;
        struct Expectation {
            Case c;
            Precision precision;
            FilterOutcome tf32, int8;
        };
        const std::size_t n = small ? 500u : 8000u;
        const auto keep = kms::EmptyClusterPolicy::Keep;
        const Expectation expectations[] = {
            {{"bisectors", n, 24, 64, 3, Case::Bisectors, keep, 0, 64}, Precision::F32, MostlyCertified, MostlyCertified},
            {{"bisectors", n, 24, 64, 3, Case::Bisectors, keep, 0, 64}, Precision::F64, MostlyCertified, MostlyCertified},
            {{"duplicates", n, 20, 80, 3, Case::Duplicates, keep, 0, 80}, Precision::F32, TwoCandidates, TwoCandidates},
            {{"duplicates", n, 20, 80, 3, Case::Duplicates, keep, 0, 80}, Precision::F64, TwoCandidates, TwoCandidates},
            // int8's coarse grid holds about one offset group's centroids (~32 of 64) within
            // each point's bound: lists near their capacity, so whether the next step probes
            // the exact kernel depends on the draw (the probe: decoys, far outlier).
            {{"far from origin", n, 32, 64, 3, Case::FarFromOrigin}, Precision::F32, Any, Any},
            {{"bisectors d=17", n, 17, 64, 3, Case::Bisectors, keep, 0, 64}, Precision::F32, MostlyCertified, MostlyCertified},
            {{"bisectors d=40 k=130", n, 40, 130, 3, Case::Bisectors, keep, 0, 130}, Precision::F64, MostlyCertified,
             MostlyCertified},
            // One point at 1e6: int8's one scale makes every other row the same; tf32
            // rounds each row on its own, but the outlier moves the shift (the mean) 125
            // away from every blob, so its rounding is coarse too (9 % certified, f32).
            {{"far outlier", n, 24, 64, 3, Case::FarOutlier}, Precision::F32, Any, FallsBack},
            {{"far outlier", n, 24, 64, 3, Case::FarOutlier}, Precision::F64, Any, FallsBack},
            {{"1e6 + tiny spread", n, 24, 64, 3, Case::HugeOffset}, Precision::F32, Any, Any},
            {{"1e6 + tiny spread", n, 24, 64, 3, Case::HugeOffset}, Precision::F64, Any, Any},
            {{"mixed scales", n, 32, 70, 3, Case::MixedScales}, Precision::F32, Any, Any},
            {{"mixed scales", n, 32, 70, 3, Case::MixedScales}, Precision::F64, Any, Any},
            {{"d=1000", small ? 300u : 2000u, 1000, 64, 2, Case::Blobs}, Precision::F32, MostlyCertified, Any},
            {{"d=1000", small ? 300u : 2000u, 1000, 64, 2, Case::Blobs}, Precision::F64, MostlyCertified, Any},
            {{"clustered", n, 48, 160, 3, Case::Blobs, keep, 0, 16, 1e3}, Precision::F32, Listed, Listed},
            {{"clustered", n, 48, 160, 3, Case::Blobs, keep, 0, 16, 1e3}, Precision::F64, Listed, Listed},
            {{"clustered, bisectors", n, 32, 100, 3, Case::Bisectors, keep, 0, 10, 1e3}, Precision::F32, Listed, Listed},
            {{"clustered, duplicates", n, 24, 128, 3, Case::Duplicates, keep, 0, 16, 1e3}, Precision::F32, Listed, Listed},
            {{"clustered, duplicates", n, 24, 128, 3, Case::Duplicates, keep, 0, 16, 1e3}, Precision::F64, Listed, Listed},
            {{"clustered, lists overflow", n, 32, 160, 3, Case::Blobs, keep, 0, 2, 1e3}, Precision::F32, Overflows,
             Overflows},
            {{"clustered, decoys", n, 32, 288, 3, Case::Decoys, keep, 0, 16, 1e3}, Precision::F32, ListPass, ListPass},
            {{"clustered, decoys", n, 32, 288, 3, Case::Decoys, keep, 0, 16, 1e3}, Precision::F64, ListPass, ListPass},
            // k ≤ 128 keeps the centroids resident and walks several point tiles a block
            // (the next tile's first stages loading during an epilogue) once n exceeds the
            // grid's 128 points a block (up to two blocks a multiprocessor): these n do on
            // 132 multiprocessors, the last tile ragged.
            {{"clustered, bisectors, tiles a block", small ? 40001u : 120001u, 32, 100, 2, Case::Bisectors, keep, 0, 10,
              1e3},
             Precision::F32, Listed, Listed},
            {{"blobs d=128, tiles a block", small ? 20001u : 60001u, 128, 100, 2, Case::Blobs}, Precision::F32, Any, Any},
            {{"duplicates d=200, tiles a block", small ? 20001u : 40001u, 200, 96, 2, Case::Duplicates}, Precision::F64,
             Any, Any},
        };
        for (const char* format : {"tf32", "int8"}) {
            setenv("KMS_GEMM_FORMAT", format, 1);  // read when the data are set
            for (const Expectation& e : expectations) {
                gemm_filter_case(e.c, e.precision, std::string(format) == "tf32" ? e.tf32 : e.int8, format);
                if (QTest::currentTestFailed()) break;
            }
        }
        unsetenv("KMS_GEMM_FORMAT");
    }

    // One case of gemmFilterPath(): the filtered run (cuda-shared) in lockstep with
    // the exact kernel (cuda-global), the counters' accounts, and the first step's
    // outcome. (Not a test function: it takes arguments.)
    void gemm_filter_case(const Case& c, Precision precision, FilterOutcome outcome, const std::string& format) {
        using enum FilterOutcome;
        auto points = make_points(c, 31);
        const Matrix<double> start = initial_centroids(c, *points, 31);
        place_on_bisectors(c, *points, start);
        auto gemm = make(Algorithm::Lloyd, kCudaShared, precision, c);
        auto exact = make(Algorithm::Lloyd, kCudaGlobal, precision, c);
        for (auto* s : {gemm.get(), exact.get()}) {
            s->set_data(points);
            s->set_initial_centroids(start);
        }
        const std::uint64_t nk = static_cast<std::uint64_t>(c.n) * c.k;
        double first_full_share = 0.0;  // of the points searched over all k by the first step
        for (int it = 1; it <= c.iterations; ++it) {
            const kms::IterationStats stats = gemm->step();
            const kms::IterationStats reference = exact->step();
            const std::string where = c.name + " / " + format + " / " + gemm->config().describe() + " / iteration " +
                                      std::to_string(it) + ": " + std::to_string(stats.gemm_certified) + " certified, " +
                                      std::to_string(stats.verified_points) + " verified (" +
                                      std::to_string(stats.gemm_listed) + " by lists), " +
                                      std::to_string(stats.point_centroid_distances) + " distances, n·k = " +
                                      std::to_string(nk);
            QVERIFY2(gemm->labels() == exact->labels(), ("labels differ from the exact kernel: " + where).c_str());
            QVERIFY2(gemm->centroids() == exact->centroids(), ("centroids differ: " + where).c_str());
            QCOMPARE(stats.labels_changed, reference.labels_changed);
            QVERIFY2(stats.gemm_listed <= stats.verified_points, ("listed > verified: " + where).c_str());
            const std::uint64_t full = stats.verified_points - stats.gemm_listed;
            QVERIFY2(stats.point_centroid_distances >= nk + 2 * stats.gemm_listed + c.k * full &&
                         stats.point_centroid_distances <= nk + 2 * c.k * stats.verified_points,
                     ("distance count: " + where).c_str());
            const bool filtered = stats.gemm_certified + stats.verified_points > 0;
            QVERIFY2(!filtered || stats.gemm_certified + stats.verified_points == c.n,
                     ("certified + verified != n: " + where).c_str());
            QCOMPARE(reference.verified_points, std::uint64_t{0});
            QCOMPARE(reference.gemm_certified, std::uint64_t{0});
            QCOMPARE(reference.gemm_listed, std::uint64_t{0});
            if (it == 1) {
                QVERIFY2(filtered, ("the filter did not run: " + where).c_str());
                first_full_share = static_cast<double>(full) / static_cast<double>(c.n);
                if (outcome == FallsBack)
                    QVERIFY2(stats.point_centroid_distances > nk + nk / 4, ("too few full searches: " + where).c_str());
                else if (outcome == MostlyCertified)
                    QVERIFY2(stats.gemm_certified > c.n / 2, ("too few certified: " + where).c_str());
                else if (outcome == TwoCandidates)
                    QVERIFY2(stats.verified_points == c.n && stats.point_centroid_distances < nk + nk / 2,
                             ("not settled by two candidates: " + where).c_str());
                else if (outcome == Listed)
                    QVERIFY2(stats.gemm_certified < c.n / 2 && stats.gemm_listed > c.n / 2 && full < c.n / 10 &&
                                 stats.point_centroid_distances < nk + nk / 2,
                             ("not settled by the filter's candidate lists: " + where).c_str());
                else if (outcome == ListPass)
                    QVERIFY2(stats.gemm_certified < c.n / 2 && stats.gemm_listed > c.n / 2 && full < c.n / 10 &&
                                 stats.point_centroid_distances > nk + nk / 2,
                             ("not settled by the list pass's candidate lists: " + where).c_str());
                else if (outcome == Overflows)
                    QVERIFY2(full > c.n / 2, ("the lists did not overflow: " + where).c_str());
            } else if ((outcome == FallsBack && (it == 2 || first_full_share > 0.9)) || (outcome == ListPass && it == 2)) {
                QVERIFY2(stats.point_centroid_distances == nk && stats.verified_points == 0,
                         ("no fallback to the exact kernel: " + where + ", first step's full searches " +
                          std::to_string(first_full_share)).c_str());
            }
        }
        gemm->reset();  // a reset run uses the filter again
        const kms::IterationStats again = gemm->step();
        QVERIFY2(again.gemm_certified + again.verified_points == c.n, (c.name + " / " + format + ": not after reset").c_str());
    }

    // Lloyd's small-k kernel (cuda-shared, k ≤ 32, no fused small-path sums) in
    // lockstep with the one-thread-per-point exact kernel (cuda-global): labels and
    // centroids bitwise equal at every iteration, f32 and f64, weighted and not; every
    // k from 1 to 32 at d = 16 (16-byte copies) and d = 33 (element copies, two
    // chunks), a sample of k at d = 17, 100 and 1000; exact ties (integer grid,
    // duplicated points and centroids, points on bisectors) and every coordinate near
    // 1e6; n a multiple of the 256-point tile, not, below it, and (full size) more
    // tiles than the grid has blocks. Labels also those of CPU Lloyd (below).
    void smallKMatchesExact() {
        const bool small = small_mode();
        struct Shape {
            std::size_t n, d;
            std::vector<std::size_t> ks;
            Case::Kind kind;
        };
        std::vector<std::size_t> every_k, some_k = {1, 5, 8, 9, 16, 17, 31, 32};
        for (std::size_t k = 1; k <= 32; ++k) every_k.push_back(k);
        const std::vector<Shape> shapes = {
            {small ? 700u : 5000u, 16, every_k, Case::Blobs},
            {small ? 600u : 3001u, 33, every_k, Case::Blobs},
            {small ? 300u : 2560u, 17, some_k, Case::Grid},
            {small ? 300u : 4000u, 100, some_k, Case::Duplicates},
            {small ? 200u : 1500u, 1000, {3, 32}, Case::Blobs},
            {small ? 257u : 6000u, 24, some_k, Case::HugeOffset},
            {small ? 100u : 3000u, 20, {2, 7, 32}, Case::Bisectors},
            {small ? 512u : 200000u, 16, {7}, Case::Blobs},
        };
        int seed = 500;
        std::size_t runs = 0;
        for (const Shape& shape : shapes)
            for (std::size_t k : shape.ks)
                for (bool weighted : {false, true}) {
                    const Case c{"small-k", shape.n, shape.d, k, 3, shape.kind};
                    const auto points = make_points(c, static_cast<std::uint64_t>(seed));
                    const Matrix<double> start = initial_centroids(c, *points, static_cast<std::uint64_t>(seed++));
                    place_on_bisectors(c, *points, start);
                    auto weights = std::make_shared<std::vector<double>>(c.n);
                    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
                    for (double& w : *weights) w = 0.25 + static_cast<double>(rng() % 8) * 0.5;
                    for (Precision p : {Precision::F32, Precision::F64}) {
                        auto fast = make(Algorithm::Lloyd, kCudaShared, p, c);
                        auto exact = make(Algorithm::Lloyd, kCudaGlobal, p, c);
                        auto cpu = make(Algorithm::Lloyd, kOpenMP, p, c);
                        for (auto* s : {fast.get(), exact.get(), cpu.get()}) {
                            s->set_data(points);
                            if (weighted) s->set_sample_weight(weights);
                            s->set_initial_centroids(start);
                        }
                        for (int it = 1; it <= c.iterations; ++it) {
                            const kms::IterationStats stats = fast->step();
                            const kms::IterationStats reference = exact->step();
                            const std::string where = "small-k d=" + std::to_string(c.d) + " k=" + std::to_string(k) +
                                                      " n=" + std::to_string(c.n) + " kind " +
                                                      std::to_string(static_cast<int>(c.kind)) +
                                                      (weighted ? " weighted " : " ") + fast->config().describe() +
                                                      " / iteration " + std::to_string(it);
                            QVERIFY2(fast->labels() == exact->labels(), ("labels differ: " + where).c_str());
                            QVERIFY2(fast->centroids() == exact->centroids(), ("centroids differ: " + where).c_str());
                            QCOMPARE(stats.labels_changed, reference.labels_changed);
                            // CPU Lloyd: the same labels from the same centroids (the first
                            // step); f64 unweighted, at every step (its sums round alike here).
                            if (it == 1 || (p == Precision::F64 && !weighted)) {
                                cpu->step();
                                QVERIFY2(fast->labels() == cpu->labels(), ("labels differ from CPU: " + where).c_str());
                            }
                        }
                        ++runs;
                    }
                }
        qInfo("small-k kernel: %zu runs in lockstep with the exact kernel", runs);
    }

    void lloydStatisticsAndStop() {
        Case c{"stop", small_mode() ? 500u : 5000u, 2, 4, 0};
        const auto points = make_points(c, 7);
        for (Backend b : kCudaBackends) {
            kms::SolverConfig config;
            config.algorithm = Algorithm::Hamerly;
            config.backend = b.device;
    config.variant = b.variant;
            config.precision = Precision::F64;
            config.compute_inertia = true;
            config.max_iterations = 50;
            auto gpu = kms::make_solver(config);
            gpu->set_data(points);
            gpu->set_initial_centroids(initial_centroids(c, *points, 7));
            kms::IterationStats last;
            while (!gpu->converged()) last = gpu->step();
            QVERIFY(gpu->stop_reason() != kms::StopReason::NotStopped);
            QVERIFY(std::abs(last.inertia - gpu->inertia()) <= 1e-9 * gpu->inertia());
            QVERIFY(last.bound_skips > 0);
            gpu->finalize_labels();
            QCOMPARE(gpu->finalize_labels(), std::uint64_t{0});  // same centroids: nothing moves
            const int done = gpu->iteration();
            gpu->reset();
            QCOMPARE(gpu->iteration(), 0);
            QCOMPARE(gpu->labels(), std::vector<std::int32_t>(c.n, -1));
            while (!gpu->converged()) gpu->step();
            QCOMPARE(gpu->iteration(), done);  // deterministic rerun
        }
    }

    // The fit layer on CUDA (GPU initialiser, every restart, final relabel) gives
    // the OpenMP fit's labels, centroids and choice of restart; assign() too.
    void fitLayerMatchesCpu() {
        // k = 6, d = 3: auto picks the global kernels; k = 70, d = 20: the shared ones with the int8 filter.
        for (const Case& c : {Case{"fit", small_mode() ? 2000u : 20000u, 3, 6, 0},
                              Case{"fit-wide", small_mode() ? 3000u : 12000u, 20, 70, 0}}) {
        const auto points = make_points(c, 11);
        for (Precision p : {Precision::F64, Precision::F32})
            for (Backend b : {kCudaGlobal, kCudaShared, Backend{kms::Backend::Cuda, kms::KernelVariant::Auto}}) {
                kms::FitOptions options;
                options.k = c.k;
                options.n_init = 3;
                options.init.seed = 5;
                options.solver.algorithm = Algorithm::Hamerly;
                options.solver.precision = p;
                options.solver.backend = kms::Backend::OpenMP;
                const kms::FitResult cpu = kms::fit(points, options);
                options.solver.backend = b.device;
                options.solver.variant = b.variant;
                const kms::FitResult gpu = kms::fit(points, options);
                // The GPU initialiser picks the CPU's centroids bit for bit.
                QVERIFY(gpu.initial_centroids == cpu.initial_centroids);
                QCOMPARE(static_cast<int>(gpu.restarts.size()), options.n_init);
                const double scale = data_scale(*points);
                if (p == Precision::F64) {
                    // As the solvers' own test: the same labels and iterations, centroids within 1e-12.
                    QCOMPARE(gpu.best_restart, cpu.best_restart);
                    QCOMPARE(gpu.iterations, cpu.iterations);
                    QVERIFY(gpu.labels == cpu.labels);
                    QVERIFY(max_relative_difference(gpu.centroids, cpu.centroids, scale) <= 1e-12);
                } else {
                    // Float: labels may differ on rounding ties, centroids by float rounding.
                    std::size_t differ = 0;
                    for (std::size_t i = 0; i < gpu.labels.size(); ++i) differ += gpu.labels[i] != cpu.labels[i];
                    QVERIFY2(differ <= gpu.labels.size() / 1000, qPrintable(QString::number(differ)));
                    QVERIFY(max_relative_difference(gpu.centroids, cpu.centroids, scale) <= 1e-5);
                }
                const kms::Assignment on_gpu = kms::assign(points, cpu.centroids, options.solver);
                options.solver.backend = kms::Backend::OpenMP;
                options.solver.variant = kms::KernelVariant::Auto;
                const kms::Assignment on_cpu = kms::assign(points, cpu.centroids, options.solver);
                if (p == Precision::F64) QVERIFY(on_gpu.labels == on_cpu.labels);
                QVERIFY(std::abs(on_gpu.inertia - on_cpu.inertia) <= 1e-6 * on_cpu.inertia);
            }
        }
    }

    // CUDA Shallot (the lockstep tests above hold its labels to Lloyd's) really walks its
    // balls around the tracked second: some open points are centred on it, and it
    // evaluates fewer distances than Hamerly (2-D); Exponion, the same kernel without
    // the second, never counts one. 2-D blobs (one lane a point) and 16-D (four).
    void shallotCentresOnTheSecond() {
        const Algorithm shallot("shallot");
        if (!kms::registered_solver(shallot, kms::Backend::Cuda)) QFAIL("shallot is not registered on CUDA");
        for (const Case& c : {Case{"shallot 2-D", small_mode() ? 3000u : 40000u, 2, 200, 12, Case::Blobs,
                                   kms::EmptyClusterPolicy::Keep, 0, 40},
                              Case{"shallot 16-D", small_mode() ? 3000u : 30000u, 16, 150, 10, Case::Blobs,
                                   kms::EmptyClusterPolicy::Keep, 0, 30}}) {
            const auto points = make_points(c, 23);
            const Matrix<double> start = initial_centroids(c, *points, 23);
            for (Precision p : {Precision::F32, Precision::F64}) {
                std::uint64_t distances[3] = {}, centred[3] = {};
                const Algorithm algorithms[3] = {shallot, Algorithm::Exponion, Algorithm::Hamerly};
                std::vector<std::int32_t> labels[3];
                for (int a = 0; a < 3; ++a) {
                    auto gpu = make(algorithms[a], kCudaShared, p, c);
                    gpu->set_data(points);
                    gpu->set_initial_centroids(start);
                    for (int it = 0; it < c.iterations; ++it) {
                        const kms::IterationStats stats = gpu->step();
                        distances[a] += stats.point_centroid_distances;
                        centred[a] += stats.second_centred;
                    }
                    labels[a] = gpu->labels();
                }
                const std::string where = c.name + (p == Precision::F32 ? " f32" : " f64");
                qInfo("%s: distances shallot %llu, exponion %llu, hamerly %llu; shallot centred %llu balls on the second",
                      where.c_str(), static_cast<unsigned long long>(distances[0]),
                      static_cast<unsigned long long>(distances[1]), static_cast<unsigned long long>(distances[2]),
                      static_cast<unsigned long long>(centred[0]));
                QVERIFY2(labels[0] == labels[1] && labels[0] == labels[2], where.c_str());
                QVERIFY2(centred[0] > 0, (where + ": no ball centred on the tracked second").c_str());
                QCOMPARE(centred[1], std::uint64_t{0});
                // 2-D: the balls hold a few centroids; at 16-D a ball past k/16 centroids goes to
                // the tiled search, which counts its own distance again (not asserted there).
                if (c.d == 2)
                    QVERIFY2(distances[0] < distances[2], (where + ": no fewer distances than hamerly").c_str());
            }
        }
    }

    // --solver auto on the GPU races Lloyd, Hamerly and Exponion on the run's data (a
    // few steps each from the first restart's centroids), keeps the fastest, reports the
    // timings, and gives the result every exact solver gives (float: CUDA solvers agree
    // bit for bit).
    void autoRacesOnTheData() {
        for (const Case& c : {Case{"race 2-D", small_mode() ? 3000u : 60000u, 2, 200, 0},
                              Case{"race 24-D", small_mode() ? 2000u : 20000u, 24, 80, 0}}) {
            const auto points = make_points(c, 17);
            kms::FitOptions options;
            options.k = c.k;
            options.n_init = 2;
            options.init.seed = 3;
            options.solver.precision = Precision::F32;
            options.solver.backend = kms::Backend::Cuda;
            options.solver.algorithm = Algorithm::Lloyd;
            const kms::FitResult lloyd = kms::fit(points, options);
            options.solver.algorithm = Algorithm::Auto;
            const kms::FitResult chosen = kms::fit(points, options);
            const std::string& note = chosen.solver_choice;
            qInfo("%s: %s", c.name.c_str(), note.c_str());
            QVERIFY2(chosen.solver.algorithm == Algorithm::Lloyd || chosen.solver.algorithm == Algorithm::Hamerly ||
                         chosen.solver.algorithm == Algorithm::Exponion,
                     note.c_str());
            for (const char* part : {"the fastest on this data of lloyd ", ", hamerly ", ", exponion ", " ms a step"})
                QVERIFY2(note.find(part) != std::string::npos, (note + " lacks " + part).c_str());
            QVERIFY(chosen.labels == lloyd.labels);
            QVERIFY(chosen.centroids == lloyd.centroids);
            QCOMPARE(chosen.iterations, lloyd.iterations);
        }
    }

    void errors() {
        kms::SolverConfig config;
        config.backend = kCudaShared.device;
        config.variant = kCudaShared.variant;
        config.cuda_block_size = 100;
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::make_solver(config));
        config.cuda_block_size = 0;
        config.cuda_device = 999;
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::make_solver(config));
        config.cuda_device = 0;
        config.algorithm = kms::Algorithm("no-such-solver");  // no CUDA solver: an error naming it, no fall-through
        try {
            kms::make_solver(config);
            QFAIL("an unknown algorithm made a CUDA solver");
        } catch (const kms::Error& error) {
            const std::string message = error.what();
            QVERIFY2(message.find("no-such-solver") != std::string::npos && message.find("cuda-shared") != std::string::npos,
                     message.c_str());
        }
        config.algorithm = kms::Algorithm::Lloyd;
        {
            // The shared set-up check: coordinates whose squared distances overflow are refused.
            kms::SolverConfig f32 = config;
            f32.precision = Precision::F32;
            auto huge = std::make_shared<Matrix<double>>(2, 1);
            (*huge)(1, 0) = 1e30;
            try {
                kms::make_solver(f32)->set_data(huge);
                QFAIL("overflowing float data accepted");
            } catch (const kms::Error& error) {
                QVERIFY2(std::string(error.what()).find("too large for f32") != std::string::npos, error.what());
            }
        }
        {
            // Issue 39: squared distances that underflow (every one 0) are refused in both
            // precisions, as on the CPU; a non-finite inertia is a fit's error, not a success.
            for (const Precision precision : {Precision::F32, Precision::F64}) {
                kms::SolverConfig both = config;
                both.precision = precision;
                auto tiny = std::make_shared<Matrix<double>>(4, 2, 0.0);
                (*tiny)(3, 1) = precision == Precision::F32 ? 1e-25 : 1e-160;
                try {
                    kms::make_solver(both)->set_data(tiny);
                    QFAIL("underflowing data accepted");
                } catch (const kms::InputError& error) {
                    QVERIFY2(std::string(error.what()).find("coordinates spread over only") != std::string::npos,
                             error.what());
                }
            }
            auto far = std::make_shared<Matrix<double>>(400, 1);
            for (std::size_t i = 0; i < 400; ++i) (*far)(i, 0) = std::vector<double>{5e153, 3e153, -4e153, -6e153}[i % 4];
            kms::FitOptions options;
            options.k = 2;
            options.solver = config;
            options.init.method = kms::InitMethod::Random;
            try {
                kms::fit(far, options, nullptr, {}, "far");
                QFAIL("a non-finite inertia reported as success");
            } catch (const kms::InputError& error) {
                QVERIFY2(std::string(error.what()).find("far: the inertia is not finite") == 0, error.what());
            }
        }
        auto gpu = kms::make_solver(config);
        QVERIFY_THROWS_EXCEPTION(kms::Error, gpu->step());  // no data
        QVERIFY_THROWS_EXCEPTION(kms::Error, gpu->set_data(std::make_shared<Matrix<double>>()));
        auto points = std::make_shared<Matrix<double>>(3, 2, 1.0);
        gpu->set_data(points);
        QVERIFY_THROWS_EXCEPTION(kms::Error, gpu->step());                                       // no centroids
        QVERIFY_THROWS_EXCEPTION(kms::Error, gpu->set_initial_centroids(Matrix<double>(2, 3)));  // wrong d
        QVERIFY_THROWS_EXCEPTION(kms::Error, gpu->set_initial_centroids(Matrix<double>(4, 2)));  // k > n
        QVERIFY_THROWS_EXCEPTION(kms::Error,
                                 gpu->set_initial_centroids(Matrix<double>(1, 2, std::nan(""))));  // NaN
        gpu->set_initial_centroids(Matrix<double>(1, 2, 0.0));
        const kms::IterationStats stats = gpu->step();
        QCOMPARE(stats.labels_changed, std::uint64_t{3});
        QCOMPARE(gpu->centroids()(0, 0), 1.0);
    }
};

QTEST_APPLESS_MAIN(TestCudaSolvers)
#include "test_cuda_solvers.moc"
