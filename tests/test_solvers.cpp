// Correctness of the CPU solvers: Elkan, Hamerly, Yinyang and Exponion are exact
// accelerations of Lloyd (same labels and centroids at every iteration), results do not depend
// on the thread count, and the stopping rules, empty-cluster policies and error
// paths behave as documented.
#include <QtTest>

#include <omp.h>
#if defined(__linux__)
#include <sched.h>
#include <sys/resource.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "kms/communicator.hpp"
#include "kms/device_group_solver.hpp"
#include "kms/error.hpp"
#include "kms/random.hpp"
#include "kms/backends.hpp"
#include "kms/simd.hpp"
#include "kms/solver.hpp"
#include "kms/fit.hpp"
#include "kms/report.hpp"
#include "test_support.hpp"

using namespace kms;

namespace {

// Kinds of random data, chosen to provoke ties, duplicates and empty clusters.
enum class Shape { Blobs, Uniform, IntegerGrid, FewDistinct, AllIdentical };

struct Case {
    std::size_t n, d, k;
    Shape shape;
    bool far_centroids;  // some initial centroids far away: empty clusters
    std::uint64_t seed;
    double offset = 0.0;  // added to every coordinate (± by coordinate): data far from the origin
};

// Every registered solver; Lloyd first (the reference of the lockstep tests).
const std::vector<Algorithm> kSolvers = kms::test::registered_solvers();  // kms/algorithms.hpp
const int kSolverCount = static_cast<int>(kSolvers.size());
// Where a solver stands in kSolvers (for tests that compare two in particular).
std::size_t solver_index(Algorithm algorithm) {
    return static_cast<std::size_t>(std::find(kSolvers.begin(), kSolvers.end(), algorithm) - kSolvers.begin());
}
// What --solver auto picks on the CPU at measured shapes (docs/solvers.md).
constexpr Algorithm kAutoLowK = Algorithm::Lloyd;             // n = 10^5, d = 2, k = 5
constexpr Algorithm kAutoLowDMidK = Algorithm::Hamerly;       // n = 10^5, d = 2, k = 100
constexpr Algorithm kAutoLowDManyKFewN = Algorithm::Hamerly;  // n = 3·10^4, d = 2, k = 1000
constexpr Algorithm kAutoLowDManyK = Algorithm::Exponion;     // n = 10^5, d = 2, k = 1000
constexpr Algorithm kAutoLowDManyKManyN = Algorithm::Exponion;  // n = 10^6, d = 2, k = 1000
constexpr Algorithm kAutoHighDMidK = Algorithm::Hamerly;      // n = 10^5, d = 64, k = 20
constexpr Algorithm kAutoHighDManyK = Algorithm::Exponion;    // n = 10^5, d = 64, k = 1000
constexpr Algorithm kAutoHighD200 = Algorithm::Exponion;      // n = 10^5, d = 32, k = 200 (blobs: 0.83x Hamerly's time)
constexpr Algorithm kAutoHighD100 = Algorithm::Hamerly;       // n = 10^5, d = 16, k = 100 (Exponion 1.08x, uniform 1.31x)
constexpr Algorithm kAutoBall{"ball"};  // n = 10^5, d = 4 and 8, k = 5000 (Exponion's time 1.83-1.84x Ball's at d = 4, 1.16-1.42x at 8)
constexpr Algorithm kAutoD8K1000 = Algorithm::Exponion;   // n = 10^5, d = 8, k = 1000 (Ball 1.25x blobs, 0.73x uniform)
constexpr Algorithm kAutoD16K5000 = Algorithm::Exponion;  // n = 10^5, d = 16, k = 5000 (Ball 1.11x blobs, 0.44x uniform)
constexpr Algorithm kAutoD2K5000 = Algorithm::Hamerly;    // n = 10^5, d = 2, k = 5000 (Ball, Exponion, Hamerly level)

double gaussian(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
    const double u1 = 1.0 - random_uniform(seed, stream, 2 * counter);
    const double u2 = random_uniform(seed, stream, 2 * counter + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::shared_ptr<const Matrix<double>> make_points(const Case& c) {
    auto points = std::make_shared<Matrix<double>>(c.n, c.d);
    const std::size_t blobs = 1 + random_below(c.seed, 1, 0, 8);
    for (std::size_t i = 0; i < c.n; ++i) {
        const std::size_t blob = random_below(c.seed, 2, i, blobs);
        for (std::size_t t = 0; t < c.d; ++t) {
            double& v = (*points)(i, t);
            const std::uint64_t counter = i * c.d + t;
            switch (c.shape) {
                case Shape::Blobs: v = 10.0 * random_uniform(c.seed, 3, blob * c.d + t) + gaussian(c.seed, 4, counter); break;
                case Shape::Uniform: v = random_uniform(c.seed, 5, counter) * 100.0 - 50.0; break;
                case Shape::IntegerGrid: v = static_cast<double>(random_below(c.seed, 6, counter, 5)); break;
                case Shape::FewDistinct: v = static_cast<double>(blob) * 3.0 + static_cast<double>(t); break;
                case Shape::AllIdentical: v = 1.5; break;
            }
            v += t % 2 ? -c.offset : c.offset;
        }
    }
    return points;
}

Matrix<double> make_centroids(const Case& c, const Matrix<double>& points) {
    Matrix<double> centroids(c.k, c.d);
    for (std::size_t j = 0; j < c.k; ++j) {
        const std::size_t row = random_below(c.seed, 7, j, c.n);  // repeats allowed: duplicate centroids
        for (std::size_t t = 0; t < c.d; ++t) centroids(j, t) = points(row, t);
        if (c.far_centroids && j % 3 == 1)
            for (std::size_t t = 0; t < c.d; ++t) centroids(j, t) += 1000.0 * (1.0 + static_cast<double>(j));
    }
    return centroids;
}

std::unique_ptr<Solver> make(Algorithm algorithm, Backend backend, Precision precision, int threads,
                             EmptyClusterPolicy policy, bool record_status = false, int max_iterations = 40) {
    SolverConfig config;
    config.algorithm = algorithm;
    config.backend = backend;
    config.precision = precision;
    config.threads = threads;
    config.empty_policy = policy;
    config.tol = 0.0;
    config.max_iterations = max_iterations;
    config.record_point_status = record_status;
    return make_solver(config);
}

Case random_case(std::uint64_t index) {
    const std::uint64_t seed = 1000 + index;
    Case c{};
    c.seed = seed;
    c.shape = static_cast<Shape>(random_below(seed, 10, 0, 5));
    const std::size_t size_class = random_below(seed, 10, 1, 4);
    c.n = size_class == 0 ? 1 + random_below(seed, 10, 2, 12) : 10 + random_below(seed, 10, 3, size_class * 700);
    c.d = 1 + random_below(seed, 10, 4, index % 5 == 0 ? 40 : 6);
    c.k = 1 + random_below(seed, 10, 5, std::min<std::size_t>(c.n, 64));
    if (index % 17 == 0) c.k = c.n <= 200 ? c.n : c.k;  // k = n
    c.far_centroids = random_below(seed, 10, 6, 4) == 0;
    if (index % 11 == 5) c.offset = 3.0e7;  // huge offsets: float distances near their rounding limits
    return c;
}

}  // namespace

class TestSolvers : public QObject {
    Q_OBJECT

private:
    // Runs every solver (or Lloyd and `only`) in lockstep with Lloyd and requires
    // identical labels and bitwise-identical centroids at every iteration.
    void check_lockstep(const Case& c, Precision precision, Backend backend, int threads, EmptyClusterPolicy policy,
                        const std::vector<Algorithm>& only = {}, int max_iterations = 40) {
        const auto points = make_points(c);
        const Matrix<double> initial = make_centroids(c, *points);
        std::vector<std::unique_ptr<Solver>> solvers(kSolvers.size());
        const auto runs = [&](int a) {
            return a == 0 || only.empty() || std::find(only.begin(), only.end(), kSolvers[a]) != only.end();
        };
        for (int a = 0; a < kSolverCount; ++a)
            if (runs(a)) {
                solvers[a] = make(kSolvers[a], backend, precision, threads, policy, a > 0, max_iterations);
                solvers[a]->set_data(points);
                solvers[a]->set_initial_centroids(initial);
            }
        const std::string where = "n=" + std::to_string(c.n) + " d=" + std::to_string(c.d) + " k=" +
                                  std::to_string(c.k) + " shape=" + std::to_string(static_cast<int>(c.shape)) +
                                  " seed=" + std::to_string(c.seed) + " " + solvers[0]->config().describe();
        while (!solvers[0]->converged()) {
            std::vector<IterationStats> stats(kSolvers.size());
            for (int a = 0; a < kSolverCount; ++a)
                if (runs(a)) stats[a] = solvers[a]->step();
            for (int a = 1; a < kSolverCount; ++a) {
                if (!runs(a)) continue;
                const std::string at = where + " " + std::string(to_string(solvers[a]->config().algorithm)) +
                                       " iteration " + std::to_string(stats[0].iteration);
                QVERIFY2(solvers[a]->labels() == solvers[0]->labels(), at.c_str());
                QVERIFY2(solvers[a]->centroids() == solvers[0]->centroids(), at.c_str());
                QCOMPARE(stats[a].labels_changed, stats[0].labels_changed);
                QCOMPARE(stats[a].empty_clusters, stats[0].empty_clusters);
                QCOMPARE(solvers[a]->stop_reason(), solvers[0]->stop_reason());
                // The accelerated solvers never do more point work than Lloyd
                // (plus one tightening distance per point for Hamerly and Exponion).
                QVERIFY2(stats[a].point_centroid_distances <= stats[0].point_centroid_distances + c.n, at.c_str());
                std::uint64_t skipped = 0;
                for (PointStatus s : solvers[a]->point_status()) skipped += s == PointStatus::Skipped;
                QCOMPARE(skipped, stats[a].bound_skips);
                skips_[a] += stats[a].bound_skips;
                group_skips_[a] += stats[a].group_skips;
                pruned_[a] += stats[a].stable_points + stats[a].second_centred;
                distances_[a] += stats[a].point_centroid_distances;
            }
            distances_[0] += stats[0].point_centroid_distances;
        }
        ++cases_run_;
    }

    // The bounds did skip work in some case, for every solver that prunes
    // (AlgorithmInfo::prunes: a solver whose filters never fire would pass the
    // lockstep trivially).
    void require_skips() {
        for (int a = 1; a < kSolverCount; ++a)
            if (algorithm_info(kSolvers[a])->prunes())
                QVERIFY2(skips_[a] > 0, (std::string(to_string(kSolvers[a])) + " never skipped").c_str());
        QVERIFY2(group_skips_[solver_index(Algorithm::Yinyang)] > 0, "yinyang's group filter never fired");
    }
    void clear_counts() {
        std::fill(std::begin(skips_), std::end(skips_), 0);
        std::fill(std::begin(group_skips_), std::end(group_skips_), 0);
        std::fill(std::begin(distances_), std::end(distances_), 0);
        std::fill(std::begin(pruned_), std::end(pruned_), 0);
    }

    std::uint64_t cases_run_ = 0;
    // Per solver of kSolvers, summed over the cases of a test function.
    std::vector<std::uint64_t> skips_ = std::vector<std::uint64_t>(kSolvers.size());
    std::vector<std::uint64_t> group_skips_ = std::vector<std::uint64_t>(kSolvers.size());
    std::vector<std::uint64_t> distances_ = std::vector<std::uint64_t>(kSolvers.size());
    // Shallot's balls around the second and Ball k-means' stable points (their own counters).
    std::vector<std::uint64_t> pruned_ = std::vector<std::uint64_t>(kSolvers.size());

private slots:
    void exact_accelerations_double() {
        clear_counts();
        for (std::uint64_t i = 0; i < 220; ++i) {
            const Case c = random_case(i);
            check_lockstep(c, Precision::F64, Backend::Sequential, 1,
                           i % 2 ? EmptyClusterPolicy::Farthest : EmptyClusterPolicy::Keep);
            if (QTest::currentTestFailed()) return;
        }
        require_skips();
    }

    void exact_accelerations_float() {
        clear_counts();
        for (std::uint64_t i = 0; i < 220; ++i) {
            const Case c = random_case(5000 + i);
            check_lockstep(c, Precision::F32, Backend::Sequential, 1,
                           i % 2 ? EmptyClusterPolicy::Keep : EmptyClusterPolicy::Farthest);
            if (QTest::currentTestFailed()) return;
        }
        require_skips();
    }

    void exact_accelerations_openmp() {
        clear_counts();
        for (std::uint64_t i = 0; i < 40; ++i) {
            const Case c = random_case(9000 + i);
            check_lockstep(c, i % 2 ? Precision::F32 : Precision::F64, Backend::OpenMP, 3, EmptyClusterPolicy::Keep);
            if (QTest::currentTestFailed()) return;
        }
        require_skips();
    }

    // Many clusters, where Yinyang has tens of groups and Exponion's balls hold a
    // few annuli rather than every centroid: still Lloyd's run bit for bit, and
    // the pruning is real (Yinyang and Exponion evaluate less than Hamerly in 2-D).
    void exact_accelerations_many_clusters() {
        clear_counts();
        // The sanitizer lanes run it at half the points (memory and UB errors show at any size;
        // the Release lane keeps the full sizes): it was their largest test, for CI's time.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        constexpr std::size_t kPoints = 2000;
#else
        constexpr std::size_t kPoints = 4000;
#endif
        std::uint64_t index = 0;
        for (std::size_t k : {150, 400})
            for (std::size_t d : {2, 3, 12})
                for (Precision precision : {Precision::F64, Precision::F32}) {
                    const Case c{kPoints + kPoints / 4 * (index % 3), d, k, index % 4 == 3 ? Shape::IntegerGrid : Shape::Blobs,
                                 index % 5 == 2, 31 + index, index % 6 == 5 ? 3.0e7 : 0.0};
                    const Backend backend = index % 2 ? Backend::OpenMP : Backend::Sequential;
                    check_lockstep(c, precision, backend, 2,
                                   index % 3 ? EmptyClusterPolicy::Keep : EmptyClusterPolicy::Farthest);
                    if (QTest::currentTestFailed()) return;
                    ++index;
                }
        require_skips();
        const std::uint64_t hamerly = distances_[solver_index(Algorithm::Hamerly)];
        QVERIFY2(distances_[solver_index(Algorithm::Yinyang)] < hamerly, "yinyang evaluated no fewer distances than hamerly");
        QVERIFY2(distances_[solver_index(Algorithm::Exponion)] < hamerly, "exponion evaluated no fewer distances than hamerly");
        for (const char* name : {"shallot", "ball"}) {
            const std::size_t a = solver_index(Algorithm(name));
            if (a == kSolvers.size()) continue;  // not registered in this build
            QVERIFY2(distances_[a] < hamerly, (std::string(name) + " evaluated no fewer distances than hamerly").c_str());
            QVERIFY2(pruned_[a] > 0, (std::string(name) + "'s own counter never moved").c_str());
        }
    }

    // Ball k-means' grouped walk, which only balls with a segment (32) or more of walking
    // points and long walks take (from ~10^4 points and k > 136): still Lloyd's run bit for
    // bit, and with the same counters on 1 and 3 threads. Lloyd and Ball only, 8 iterations
    // (CI's time: the walks are long from the second; 0.11 s of CPU in Release). The
    // sanitizer lanes run the threaded half only (races and memory errors show there).
    void ball_grouped_walk() {
        const Algorithm ball("ball");
        if (solver_index(ball) == kSolvers.size()) QSKIP("ball k-means is not registered in this build");
        const Case c{20000, 6, 300, Shape::Blobs, false, 91, 0.0};
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
        clear_counts();
        check_lockstep(c, Precision::F64, Backend::Sequential, 1, EmptyClusterPolicy::Keep, {ball}, 8);
        const std::uint64_t one_thread = distances_[solver_index(ball)], pruned = pruned_[solver_index(ball)];
#endif
        clear_counts();
        check_lockstep(c, Precision::F64, Backend::OpenMP, 3, EmptyClusterPolicy::Keep, {ball}, 8);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
        QCOMPARE(distances_[solver_index(ball)], one_thread);
        QCOMPARE(pruned_[solver_index(ball)], pruned);
#endif
    }

    // More points than one of Exponion's windows (32768 points at k < 103): its open
    // points are grouped window by window, and still give Lloyd's run bit for bit.
    void exact_accelerations_several_windows() {
        clear_counts();
        const Case seq_case{70000, 2, 40, Shape::Blobs, false, 77, 0.0};  // 3 windows (was 100 000: 4)
        check_lockstep(seq_case, Precision::F64, Backend::Sequential, 1, EmptyClusterPolicy::Keep);
        if (QTest::currentTestFailed()) return;
        const Case omp_case{70001, 3, 60, Shape::Uniform, true, 78, 0.0};
        check_lockstep(omp_case, Precision::F32, Backend::OpenMP, 2, EmptyClusterPolicy::Farthest);
        if (QTest::currentTestFailed()) return;
        require_skips();
    }

    // Every SIMD level of the distance kernels gives the scalar reference's
    // labels, centroids, statistics and (Hamerly) bound-driven decisions bit for
    // bit, on shapes that provoke ties, duplicates, empty clusters, k = 1, d past
    // the unrolled sizes, n not a multiple of any tile, and data far from the origin.
    void simd_levels_match_scalar() {
        const std::vector<SimdLevel> levels = supported_simd_levels();
        QVERIFY(levels.size() >= 2);  // at least scalar and the baseline vector level
        struct Restore {
            ~Restore() { force_simd_level(detected_simd_level()); }
        } restore;
        std::uint64_t compared = 0;
        for (std::uint64_t i = 0; i < 60; ++i) {
            Case c = random_case(20000 + i);
            if (i % 6 == 0) c.d = 5 + i % 70;        // past the unrolled d = 1..4, up to 74
            if (i % 10 == 3) c.k = 1;
            if (i % 7 == 2) c.k = std::min<std::size_t>(c.n, 130);
            const bool far = i % 5 == 4;            // huge offsets: float sums near their limits
            auto points = std::const_pointer_cast<Matrix<double>>(make_points(c));
            if (far)
                for (std::size_t r = 0; r < c.n; ++r)
                    for (std::size_t t = 0; t < c.d; ++t) (*points)(r, t) += 3.0e7 * (t % 2 ? -1.0 : 1.0);
            const Matrix<double> initial = make_centroids(c, *points);
            const Algorithm algorithm = kSolvers[i % kSolverCount];
            const auto precision = i % 2 ? Precision::F32 : Precision::F64;
            const Backend backend = i % 4 == 1 ? Backend::OpenMP : Backend::Sequential;
            const std::string where = "n=" + std::to_string(c.n) + " d=" + std::to_string(c.d) +
                                      " k=" + std::to_string(c.k) + " seed=" + std::to_string(c.seed) + " " +
                                      std::string(to_string(algorithm)) + " " + std::string(to_string(precision));
            auto run = [&](SimdLevel level) {
                force_simd_level(level);
                auto solver = make(algorithm, backend, precision, 3, EmptyClusterPolicy::Farthest, true);
                solver->set_data(points);
                solver->set_initial_centroids(initial);
                std::vector<std::vector<std::int32_t>> labels;
                std::vector<Matrix<double>> centroids;
                std::vector<IterationStats> stats;
                std::vector<std::vector<PointStatus>> status;
                while (!solver->converged()) {
                    IterationStats s = solver->step();
                    s.time_total_ms = s.time_assign_ms = s.time_update_ms = s.time_bounds_ms = 0.0;
                    stats.push_back(s);
                    labels.push_back(solver->labels());
                    centroids.push_back(solver->centroids());
                    status.push_back(solver->point_status());
                }
                const Assignment assigned = assign(points, centroids.back(), solver->config());
                return std::make_tuple(labels, centroids, stats, status, assigned.labels, assigned.inertia);
            };
            const auto reference = run(SimdLevel::Scalar);
            for (SimdLevel level : levels) {
                if (level == SimdLevel::Scalar) continue;
                const auto vector = run(level);
                QCOMPARE(active_simd_level(), level);
                const std::string at = where + " at " + to_string(level);
                QVERIFY2(std::get<0>(vector) == std::get<0>(reference), ("labels differ: " + at).c_str());
                QVERIFY2(std::get<1>(vector) == std::get<1>(reference), ("centroids differ: " + at).c_str());
                QVERIFY2(std::get<3>(vector) == std::get<3>(reference), ("skips differ: " + at).c_str());
                QVERIFY2(std::get<4>(vector) == std::get<4>(reference), ("assign() differs: " + at).c_str());
                QVERIFY2(std::get<5>(vector) == std::get<5>(reference), ("inertia differs: " + at).c_str());
                const auto& a = std::get<2>(vector);
                const auto& b = std::get<2>(reference);
                QCOMPARE(a.size(), b.size());
                for (std::size_t s = 0; s < a.size(); ++s) {
                    QCOMPARE(a[s].labels_changed, b[s].labels_changed);
                    // Lloyd's certified GEMM (vector levels only) adds k exact distances per point it verifies.
                    QCOMPARE(a[s].point_centroid_distances - a[s].verified_points * c.k, b[s].point_centroid_distances);
                    QCOMPARE(a[s].bound_skips, b[s].bound_skips);
                    QCOMPARE(a[s].group_skips, b[s].group_skips);
                    QCOMPARE(a[s].stable_points, b[s].stable_points);
                    QCOMPARE(a[s].second_centred, b[s].second_centred);
                    QCOMPARE(a[s].max_shift, b[s].max_shift);
                    QCOMPARE(a[s].inertia, b[s].inertia);
                }
                ++compared;
            }
        }
        QVERIFY(compared >= 60);
    }

    // --bind pins the OpenMP team's threads (one CPU each, distinct while there
    // are CPUs enough), --bind none gives them back the whole mask; results are
    // the same whatever the placement.
    void thread_binding_places_threads() {
#if defined(__linux__)
        cpu_set_t process_mask;
        QCOMPARE(sched_getaffinity(0, sizeof process_mask, &process_mask), 0);
        const int cpus = CPU_COUNT(&process_mask);
        const int threads = 2;
        const Case c{5000, 2, 8, Shape::Blobs, false, 5};
        const auto points = make_points(c);
        const Matrix<double> initial = make_centroids(c, *points);
        std::vector<std::int32_t> reference;
        for (ThreadBinding binding : {ThreadBinding::Compact, ThreadBinding::Spread, ThreadBinding::None}) {
            SolverConfig config;
            config.backend = Backend::OpenMP;
            config.threads = threads;
            config.binding = binding;
            auto solver = make_solver(config);
            solver->set_data(points);
            solver->set_initial_centroids(initial);
            solver->step();
            if (reference.empty()) reference = solver->labels();
            QVERIFY(solver->labels() == reference);
            // This thread's team is the solver's team: look at where its threads may run.
            std::vector<cpu_set_t> masks(threads);
#pragma omp parallel num_threads(threads)
            sched_getaffinity(0, sizeof(cpu_set_t), &masks[static_cast<std::size_t>(omp_get_thread_num())]);
            for (int t = 0; t < threads; ++t) {
                if (binding == ThreadBinding::None) {
                    QVERIFY(CPU_EQUAL(&masks[t], &process_mask));
                } else {
                    QCOMPARE(CPU_COUNT(&masks[t]), 1);
                    if (cpus >= threads && t > 0) QVERIFY(!CPU_EQUAL(&masks[t], &masks[0]));
                }
            }
        }
        SolverConfig sequential;
        sequential.binding = ThreadBinding::Compact;
        QVERIFY_THROWS_EXCEPTION(UsageError, sequential.validate());
#else
        QSKIP("thread binding is implemented with Linux thread affinity");
#endif
    }

    // Same labels and bitwise-same centroids for 1, 2 and 7 threads (the
    // two-step package reduction does not depend on the thread count), and the
    // sequential back end agrees too.
    void thread_count_does_not_change_results_data() {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<int>("precision");
        for (int a = 0; a < kSolverCount; ++a)
            for (int p = 0; p < 2; ++p)
                QTest::newRow((std::string(to_string(kSolvers[a])) + "/" +
                               std::string(to_string(static_cast<Precision>(p))))
                                  .c_str())
                    << a << p;
    }
    void thread_count_does_not_change_results() {
        QFETCH(int, algorithm);
        QFETCH(int, precision);
        // 80 000 points: two of Exponion's and Shallot's windows at two threads (was 120 000, cut
        // when Shallot and Ball k-means joined the list, to keep the suite's time).
        const Case c{80000, 3, 25, Shape::Blobs, false, 77};
        const auto points = make_points(c);
        const Matrix<double> initial = make_centroids(c, *points);
        std::vector<std::unique_ptr<Solver>> solvers;
        solvers.push_back(make(kSolvers[algorithm], Backend::Sequential,
                               static_cast<Precision>(precision), 1, EmptyClusterPolicy::Keep));
        for (int threads : {1, 2, 7})
            solvers.push_back(make(kSolvers[algorithm], Backend::OpenMP,
                                   static_cast<Precision>(precision), threads, EmptyClusterPolicy::Keep));
        for (auto& s : solvers) {
            s->set_data(points);
            s->set_initial_centroids(initial);
        }
        for (int it = 0; it < 12; ++it) {
            std::vector<IterationStats> stats;
            for (auto& s : solvers) stats.push_back(s->step());
            for (std::size_t s = 1; s < solvers.size(); ++s) {
                // The work done too: bounds and filters decide the same way on any team.
                QCOMPARE(stats[s].point_centroid_distances, stats[0].point_centroid_distances);
                QCOMPARE(stats[s].bound_skips, stats[0].bound_skips);
                QCOMPARE(stats[s].group_skips, stats[0].group_skips);
                QCOMPARE(stats[s].second_centred, stats[0].second_centred);
                QCOMPARE(stats[s].stable_points, stats[0].stable_points);
                QCOMPARE(stats[s].neighbour_clusters, stats[0].neighbour_clusters);
                QVERIFY(solvers[s]->labels() == solvers[0]->labels());
                QVERIFY(solvers[s]->centroids() == solvers[0]->centroids());
                QCOMPARE(solvers[s]->inertia(), solvers[0]->inertia());
            }
        }
    }

    // A data set split into row blocks over 1-4 ranks (threads of a ThreadGroup
    // standing for MPI processes) runs as one solver on all rows, bit for bit:
    // at every iteration the same centroids, inertia, counts, stop decision and, put
    // together in rank order, labels — every solver, both precisions, weighted or
    // not, with empty clusters relocated, including ranks that hold no rows.
    void partitioned_runs_equal_one_process() {
        const Case cases[] = {
            {20000, 2, 9, Shape::Blobs, true, 61},
            {13000, 5, 24, Shape::IntegerGrid, false, 62},   // ties everywhere
            {9000, 3, 6, Shape::FewDistinct, true, 63},      // duplicates, empty clusters
            {5000, 7, 4, Shape::Uniform, false, 64, 3.0e4},  // three ranks: one of them holds no rows
        };
        int case_index = 0;
        for (const Case& c : cases) {
            const auto points = make_points(c);
            const Matrix<double> initial = make_centroids(c, *points);
            std::vector<double> weight_values(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weight_values[i] = static_cast<double>(random_below(c.seed, 50, i, 4));
            weight_values[0] = 1.0;
            const auto weights = std::make_shared<const std::vector<double>>(weight_values);
            const Algorithm algorithm = kSolvers[case_index % kSolverCount];
            const Algorithm other = kSolvers[(case_index + 2) % kSolverCount];
            int combination = case_index;
            for (Algorithm a : {algorithm, other})
                for (Precision precision : {Precision::F32, Precision::F64}) {
                    {
                        const int ranks = 2 + combination++ % 3;  // 2, 3 and 4 ranks over the combinations
                        const bool weighted = (case_index + ranks) % 2 == 1;
                        const std::string where = "case " + std::to_string(case_index) + " " +
                                                  std::string(to_string(a)) + "/" +
                                                  std::string(to_string(precision)) + " ranks " +
                                                  std::to_string(ranks) + (weighted ? " weighted" : "");
                        auto single = make(a, Backend::OpenMP, precision, 2, EmptyClusterPolicy::Farthest);
                        single->set_data(points);
                        if (weighted) single->set_sample_weight(weights);
                        single->set_initial_centroids(initial);
                        const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, ranks);
                        struct Record {
                            Matrix<double> centroids;
                            IterationStats stats;
                            double inertia;
                            StopReason stop;
                            std::vector<std::int32_t> labels;
                        };
                        std::vector<std::vector<Record>> records(static_cast<std::size_t>(ranks));
                        constexpr int kSteps = 12;
                        ThreadGroup group(ranks);
                        group.run([&](std::shared_ptr<Communicator> comm) {
                            const auto r = static_cast<std::size_t>(comm->rank());
                            const std::size_t begin = first[r], rows = first[r + 1] - first[r];
                            auto block = std::make_shared<Matrix<double>>(rows, c.d);
                            std::copy(points->row(begin), points->row(begin) + rows * c.d, block->data());
                            auto solver = make(a, r % 2 ? Backend::Sequential : Backend::OpenMP, precision, 2,
                                               EmptyClusterPolicy::Farthest);
                            solver->set_partition(RowPartition{comm, c.n, begin});
                            solver->set_data(block);
                            if (weighted)
                                solver->set_sample_weight(std::make_shared<const std::vector<double>>(
                                    weights->begin() + static_cast<std::ptrdiff_t>(begin),
                                    weights->begin() + static_cast<std::ptrdiff_t>(begin + rows)));
                            solver->set_initial_centroids(initial);
                            for (int it = 0; it < kSteps; ++it) {
                                Record record;
                                record.stats = solver->step();
                                record.centroids = solver->centroids();
                                record.inertia = solver->inertia();
                                record.stop = solver->stop_reason();
                                record.labels = solver->labels();
                                records[r].push_back(std::move(record));
                            }
                        });
                        for (int it = 0; it < kSteps; ++it) {
                            const IterationStats expected = single->step();
                            std::vector<std::int32_t> labels;
                            for (int r = 0; r < ranks; ++r) {
                                const Record& got = records[static_cast<std::size_t>(r)][static_cast<std::size_t>(it)];
                                const std::string at = where + " iteration " + std::to_string(it + 1) + " rank " +
                                                       std::to_string(r);
                                QVERIFY2(got.centroids == single->centroids(), at.c_str());
                                QVERIFY2(got.inertia == single->inertia(), at.c_str());
                                QVERIFY2(got.stop == single->stop_reason(), at.c_str());
                                QVERIFY2(got.stats.labels_changed == expected.labels_changed, at.c_str());
                                QVERIFY2(got.stats.point_centroid_distances == expected.point_centroid_distances,
                                         at.c_str());
                                QVERIFY2(got.stats.bound_skips == expected.bound_skips, at.c_str());
                                QVERIFY2(got.stats.stable_points == expected.stable_points &&
                                             got.stats.second_centred == expected.second_centred &&
                                             got.stats.neighbour_clusters == expected.neighbour_clusters,
                                         at.c_str());
                                QVERIFY2(got.stats.empty_clusters == expected.empty_clusters, at.c_str());
                                QVERIFY2(got.stats.shift_sq_total == expected.shift_sq_total, at.c_str());
                                labels.insert(labels.end(), got.labels.begin(), got.labels.end());
                            }
                            QVERIFY2(labels == single->labels(), (where + " labels").c_str());
                        }
                    }
                }
            ++case_index;
        }
    }

    // Blocks that do not fall on the update's packages are refused, not summed in another order.
    // The package tree split over ranks (kms/communicator.hpp): each rank completes
    // the nodes inside its packages, ships its cover, and finish_package_tree()
    // completes the rest; in float, where the order of additions shows in the bits,
    // the root equals the whole tree's for every package count and split tried.
    void package_tree_split_over_ranks_adds_in_the_whole_trees_order() {
        std::mt19937_64 random(77);
        std::uniform_real_distribution<float> value(-1.0e3f, 1.0e3f);
        int splits = 0;
        for (std::size_t packages : {1, 2, 3, 5, 7, 8, 13, 64, 100, 255, 256}) {
            std::vector<float> leaves(packages);
            for (float& v : leaves) v = value(random) * std::ldexp(1.0f, static_cast<int>(random() % 20) - 10);
            std::vector<float> whole = leaves;  // the CPU's loop
            for (std::size_t stride = 1; stride < packages; stride *= 2)
                for (std::size_t p = 0; p + stride < packages; p += 2 * stride) whole[p] += whole[p + stride];
            for (int trial = 0; trial < 30; ++trial) {
                const std::size_t ranks = 1 + random() % std::min<std::size_t>(packages + 1, 6);
                std::vector<std::size_t> cuts{0, packages};
                for (std::size_t r = 1; r < ranks; ++r) cuts.push_back(random() % (packages + 1));
                std::sort(cuts.begin(), cuts.end());
                std::vector<PackageSpan> covers;
                std::vector<float> shipped;
                for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
                    std::vector<float> mine = leaves;  // only [cuts[r], cuts[r + 1]) is read
                    for (const PackageTreeLevel& level : package_tree_local_levels(packages, cuts[r], cuts[r + 1]))
                        for (std::size_t p : level.nodes) {
                            QVERIFY(p >= cuts[r] && std::min(p + 2 * level.stride, packages) <= cuts[r + 1]);
                            mine[p] += mine[p + level.stride];
                        }
                    for (const PackageSpan& span : package_tree_cover(packages, cuts[r], cuts[r + 1])) {
                        covers.push_back(span);
                        shipped.push_back(mine[span.first]);
                    }
                }
                finish_package_tree(packages, covers, [&](std::size_t dst, std::size_t src) { shipped[dst] += shipped[src]; });
                QCOMPARE(std::bit_cast<std::uint32_t>(shipped[0]), std::bit_cast<std::uint32_t>(whole[0]));
                ++splits;
            }
        }
        QCOMPARE(splits, 11 * 30);
        // Covers that do not tile the packages are refused.
        QVERIFY_THROWS_EXCEPTION(Error, finish_package_tree(8, {{0, 4}, {5, 8}}, [](std::size_t, std::size_t) {}));
        QVERIFY_THROWS_EXCEPTION(Error, package_tree_cover(8, 3, 9));
    }

    // Memory scale-out: each rank holds only its block (fit_block), seeds over the
    // blocks and gets one process's fit on all rows, bit for bit.
    void fit_block_equals_one_process() {
        const Case cases[] = {
            {30000, 3, 12, Shape::Blobs, true, 81},
            {9000, 2, 7, Shape::FewDistinct, false, 82},
        };
        for (const Case& c : cases) {
            const auto points = make_points(c);
            std::vector<double> weights(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weights[i] = 0.5 + static_cast<double>(i % 3);
            for (InitMethod method : {InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus, InitMethod::Random})
                for (Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Hamerly})
                    for (bool weighted : {false, true}) {
                        FitOptions options;
                        options.k = c.k;
                        options.init.method = method;
                        options.init.seed = 5;
                        options.solver.algorithm = algorithm;
                        options.solver.backend = Backend::Sequential;
                        options.solver.empty_policy = EmptyClusterPolicy::Farthest;
                        if (weighted) options.sample_weight = std::make_shared<const std::vector<double>>(weights);
                        const FitResult one = fit(points, options);
                        for (int ranks : {2, 3}) {
                            const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, ranks);
                            std::vector<FitResult> results(static_cast<std::size_t>(ranks));
                            ThreadGroup group(ranks);
                            group.run([&](std::shared_ptr<Communicator> comm) {
                                const auto r = static_cast<std::size_t>(comm->rank());
                                auto block = std::make_shared<Matrix<double>>(first[r + 1] - first[r], c.d);
                                std::copy(points->row(first[r]), points->row(first[r]) + block->size(), block->data());
                                FitOptions mine = options;
                                mine.ranks = std::move(comm);
                                results[r] = fit_block(block, c.n, first[r], mine);
                            });
                            for (const FitResult& result : results) {
                                QVERIFY(result.initial_centroids == one.initial_centroids);
                                QVERIFY(result.centroids == one.centroids);
                                QVERIFY(result.labels == one.labels);
                                QCOMPARE(result.iterations, one.iterations);
                                QCOMPARE(std::bit_cast<std::uint64_t>(result.inertia), std::bit_cast<std::uint64_t>(one.inertia));
                            }
                        }
                    }
        }
        // A rank holding rows other than its block is refused.
        ThreadGroup group(2);
        bool refused = false;
        try {
            const Case c{20000, 2, 4, Shape::Blobs, false, 83};
            const auto points = make_points(c);
            group.run([&](std::shared_ptr<Communicator> comm) {
                const std::size_t begin = comm->rank() == 0 ? 0 : 5000;
                auto block = std::make_shared<Matrix<double>>(comm->rank() == 0 ? 5000 : 15000, c.d);
                std::copy(points->row(begin), points->row(begin) + block->size(), block->data());
                FitOptions options;
                options.k = c.k;
                options.ranks = std::move(comm);
                fit_block(block, c.n, begin, options);
            });
        } catch (const Error& error) {
            refused = std::string(error.what()).find("partition_rows") != std::string::npos;
        }
        QVERIFY(refused);
    }

    void partition_must_fall_on_packages() {
        const Case c{20000, 2, 5, Shape::Blobs, false, 71};
        const auto points = make_points(c);
        const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, 2);
        QCOMPARE(first.front(), std::size_t{0});
        QCOMPARE(first.back(), c.n);
        QVERIFY(first[1] % 4096 == 0 && first[1] % package_layout(c.n, c.k, c.d).package_size == 0);
        ThreadGroup group(2);
        bool refused = false;
        try {
            group.run([&](std::shared_ptr<Communicator> comm) {
                const std::size_t begin = comm->rank() == 0 ? 0 : 1000, end = comm->rank() == 0 ? 1000 : c.n;
                auto block = std::make_shared<Matrix<double>>(end - begin, c.d);
                std::copy(points->row(begin), points->row(begin) + (end - begin) * c.d, block->data());
                auto solver = make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Keep);
                solver->set_partition(RowPartition{comm, c.n, begin});
                solver->set_data(block);
                solver->set_initial_centroids(make_centroids(c, *points));
            });
        } catch (const Error& e) {
            refused = std::string(e.what()).find("packages") != std::string::npos;
        }
        QVERIFY(refused);
    }

    // A device group (kms/device_group_solver.hpp: what --devices and the studio run)
    // steps its ranks together and is one solver on all rows, bit for bit, at every
    // iteration: centroids, statistics, stop decision, inertia, the gathered labels
    // and point status; weighted and not, a new k (new blocks), reset, relabelling,
    // more devices than the data has blocks, and a failure that leaves it usable.
    // Exercised here over the CPU back ends (a rank's device is then unused).
    void device_group_equals_one_solver() {
        const Case cases[] = {
            {20000, 2, 9, Shape::Blobs, true, 91},
            {9000, 3, 6, Shape::FewDistinct, true, 92},  // duplicates: empty clusters relocated
            {6000, 4, 5, Shape::Uniform, false, 93},     // 2 grains: the third device stays idle
        };
        int checked = 0;
        for (const Case& c : cases) {
            const auto points = make_points(c);
            const Matrix<double> initial = make_centroids(c, *points);
            std::vector<double> weight_values(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weight_values[i] = 0.5 + static_cast<double>(i % 7);
            const auto weights = std::make_shared<const std::vector<double>>(weight_values);
            for (Algorithm a : {Algorithm::Lloyd, Algorithm::Hamerly, Algorithm::Exponion})
                for (bool weighted : {false, true}) {
                    const std::string where = std::to_string(c.n) + " points " + std::string(to_string(a)) +
                                              (weighted ? " weighted" : "");
                    auto single = make(a, Backend::OpenMP, Precision::F64, 2, EmptyClusterPolicy::Farthest);
                    SolverConfig config = single->config();
                    config.record_point_status = true;
                    single = make_solver(config);
                    auto group = make_device_group_solver(config, {0, 0, 0});
                    for (Solver* solver : {single.get(), group.get()}) {
                        solver->set_data(points);
                        if (weighted) solver->set_sample_weight(weights);
                        solver->set_initial_centroids(initial);
                    }
                    QVERIFY2(group->labels() == single->labels(), where.c_str());  // -1 before the first step
                    for (int it = 0; it < 8; ++it) {
                        if (it == 5) {
                            single->reset();
                            group->reset();
                            QCOMPARE(group->iteration(), 0);
                        }
                        const IterationStats a_stats = single->step(), b_stats = group->step();
                        const std::string at = where + " iteration " + std::to_string(it + 1);
                        QVERIFY2(group->centroids() == single->centroids(), at.c_str());
                        QVERIFY2(b_stats.labels_changed == a_stats.labels_changed &&
                                     b_stats.point_centroid_distances == a_stats.point_centroid_distances &&
                                     b_stats.bound_skips == a_stats.bound_skips &&
                                     b_stats.shift_sq_total == a_stats.shift_sq_total &&
                                     b_stats.empty_clusters == a_stats.empty_clusters,
                                 at.c_str());
                        QCOMPARE(group->stop_reason(), single->stop_reason());
                        QCOMPARE(group->iteration(), single->iteration());
                        QVERIFY2(group->labels() == single->labels(), at.c_str());
                        QVERIFY2(group->point_status() == single->point_status(), at.c_str());
                        QCOMPARE(std::bit_cast<std::uint64_t>(group->inertia()), std::bit_cast<std::uint64_t>(single->inertia()));
                        ++checked;
                    }
                    QCOMPARE(group->finalize_labels(), single->finalize_labels());
                    QVERIFY2(group->labels() == single->labels(), where.c_str());
                    // Another k: new blocks (the package layout depends on k).
                    Matrix<double> fewer(c.k - 1, c.d);
                    std::copy(initial.data(), initial.data() + fewer.size(), fewer.data());
                    single->set_initial_centroids(fewer);
                    group->set_initial_centroids(fewer);
                    for (int it = 0; it < 3; ++it) single->step(), group->step();
                    QVERIFY2(group->centroids() == single->centroids() && group->labels() == single->labels(),
                             (where + " k - 1").c_str());
                }
        }
        QVERIFY(checked > 0);
        // A rank's failure reaches the caller as the error, and the group starts again.
        const Case c{5000, 2, 4, Shape::Blobs, false, 94};
        const auto points = make_points(c);
        auto group = make_device_group_solver(make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1,
                                                   EmptyClusterPolicy::Keep)->config(), {0, 0});
        group->set_data(points);
        QVERIFY_THROWS_EXCEPTION(Error, group->step());  // no centroids yet
        {  // every rank fails to make its solver (no such back end in this test): the error, no hang
            SolverConfig cuda = group->config();
            cuda.backend = Backend::Cuda;
            auto broken = make_device_group_solver(cuda, {0, 1});
            broken->set_data(points);
            QVERIFY_THROWS_EXCEPTION(Error, broken->set_initial_centroids(make_centroids(c, *points)));
            QVERIFY_THROWS_EXCEPTION(Error, broken->step());
            QVERIFY(broken->labels().empty());
        }
        QVERIFY_THROWS_EXCEPTION(Error, group->set_initial_centroids(Matrix<double>(3, 5)));
        group->set_initial_centroids(make_centroids(c, *points));
        group->step();
        QCOMPARE(group->iteration(), 1);
        QVERIFY_THROWS_EXCEPTION(Error, group->set_partition(RowPartition{}));
    }

    // kms::nested_communicator: 2 "processes" (an outer ThreadGroup) of 3 threads each (an
    // inner one) are one group of 6 ranks in process-major order: allgather concatenates in
    // that order (counts differing by rank), sums are over all 6, a broadcast from a rank of
    // the second process reaches every rank of both.
    void nested_communicator_is_one_flat_group() {
        constexpr int kOuter = 2, kInner = 3;
        std::atomic<int> checked{0};
        ThreadGroup outer(kOuter);
        outer.run([&](std::shared_ptr<Communicator> process) {
            ThreadGroup inner(kInner);
            inner.run([&](std::shared_ptr<Communicator> thread) {
                const std::shared_ptr<Communicator> flat = nested_communicator(process, thread);
                const int rank = flat->rank();
                if (flat->size() != kOuter * kInner || rank != process->rank() * kInner + thread->rank()) return;
                std::vector<std::int64_t> mine(static_cast<std::size_t>(rank), rank);  // rank r gives r values r
                const std::vector<std::int64_t> all = flat->allgather(std::span<const std::int64_t>(mine));
                std::vector<std::int64_t> expected;
                for (int r = 0; r < kOuter * kInner; ++r) expected.insert(expected.end(), static_cast<std::size_t>(r), r);
                const double value = 0.5 + rank;
                const std::vector<double> doubles = flat->allgather(std::span<const double>(&value, 1));
                std::uint64_t total[2] = {static_cast<std::uint64_t>(rank), 1};
                flat->sum(total);
                double root_values[2] = {static_cast<double>(rank), -static_cast<double>(rank)};
                flat->broadcast(root_values, 4);  // the second process's middle thread
                if (all == expected && doubles.size() == 6 && doubles[5] == 5.5 && doubles[0] == 0.5 &&
                    total[0] == 15 && total[1] == 6 && root_values[0] == 4.0 && root_values[1] == -4.0)
                    ++checked;
            });
        });
        QCOMPARE(checked.load(), kOuter * kInner);
    }

    // Device groups as ranks (--devices under MPI ranks; the ranks here are threads of a
    // ThreadGroup, the devices CPU solvers): each rank's block split again over its
    // devices, every device thread a rank of the nested communicator; one solver on all
    // rows, bit for bit, at every iteration (centroids, counts, inertia, labels). Too few
    // rows for ranks × devices and unequal device counts are refused on every rank alike.
    void device_groups_under_ranks_equal_one_solver() {
        const Case c{20000, 2, 9, Shape::Blobs, true, 95};
        const auto points = make_points(c);
        const Matrix<double> initial = make_centroids(c, *points);
        for (Algorithm a : {Algorithm::Lloyd, Algorithm::Hamerly})
            for (const auto& shape : {std::pair{2, 2}, std::pair{3, 1}}) {
                const int ranks = shape.first, devices = shape.second;  // (named: clang 14 captures no bindings)
                const std::string where = std::string(to_string(a)) + ", " + std::to_string(ranks) + " ranks x " +
                                          std::to_string(devices) + " devices";
                auto single = make(a, Backend::OpenMP, Precision::F64, 2, EmptyClusterPolicy::Farthest);
                single->set_data(points);
                single->set_initial_centroids(initial);
                const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, ranks, 0, devices);
                constexpr int kSteps = 6;
                std::vector<std::vector<Matrix<double>>> centroids(static_cast<std::size_t>(ranks));
                std::vector<std::vector<IterationStats>> stats(static_cast<std::size_t>(ranks));
                std::vector<std::vector<std::int32_t>> labels(static_cast<std::size_t>(ranks));
                std::vector<double> inertia(static_cast<std::size_t>(ranks));
                ThreadGroup group(ranks);
                group.run([&](std::shared_ptr<Communicator> comm) {
                    const auto r = static_cast<std::size_t>(comm->rank());
                    auto solver = make_device_group_solver(single->config(), std::vector<int>(static_cast<std::size_t>(devices), 0));
                    solver->set_partition(RowPartition{comm, c.n, first[r]});
                    solver->set_data(std::make_shared<const Matrix<double>>(
                        Matrix<double>::view(first[r + 1] - first[r], c.d, points->row(first[r]), points)));
                    solver->set_initial_centroids(initial);
                    for (int it = 0; it < kSteps; ++it) {
                        stats[r].push_back(solver->step());
                        centroids[r].push_back(solver->centroids());
                    }
                    inertia[r] = solver->inertia();
                    labels[r] = solver->labels();
                });
                for (int it = 0; it < kSteps; ++it) {
                    const IterationStats expected = single->step();
                    for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) {
                        const std::string at = where + " iteration " + std::to_string(it + 1) + " rank " + std::to_string(r);
                        const auto i = static_cast<std::size_t>(it);
                        QVERIFY2(centroids[r][i] == single->centroids(), at.c_str());
                        QVERIFY2(stats[r][i].labels_changed == expected.labels_changed &&
                                     stats[r][i].point_centroid_distances == expected.point_centroid_distances &&
                                     stats[r][i].bound_skips == expected.bound_skips &&
                                     stats[r][i].shift_sq_total == expected.shift_sq_total,
                                 at.c_str());
                    }
                }
                std::vector<std::int32_t> gathered;
                for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) {
                    QCOMPARE(std::bit_cast<std::uint64_t>(inertia[r]), std::bit_cast<std::uint64_t>(single->inertia()));
                    gathered.insert(gathered.end(), labels[r].begin(), labels[r].end());
                }
                QVERIFY2(gathered == single->labels(), (where + ": labels").c_str());
            }
        // 20000 rows are 5 grains of 4096: too few for 3 ranks x 2 devices; 2 ranks listing 2 and 1 devices.
        for (const auto& shape : {std::pair{3, false}, std::pair{2, true}}) {
            const int ranks = shape.first;
            const bool uneven = shape.second;
            std::atomic<int> refused{0};
            ThreadGroup group(ranks);
            group.run([&](std::shared_ptr<Communicator> comm) {
                const auto r = static_cast<std::size_t>(comm->rank());
                const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, ranks, 0, 2);
                const std::size_t devices = uneven && r == 1 ? 1 : 2;
                auto solver = make_device_group_solver(make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1,
                                                            EmptyClusterPolicy::Keep)->config(),
                                                       std::vector<int>(devices, 0));
                try {
                    solver->set_partition(RowPartition{comm, c.n, first[r]});
                    solver->set_data(std::make_shared<const Matrix<double>>(
                        Matrix<double>::view(first[r + 1] - first[r], c.d, points->row(first[r]), points)));
                    solver->set_initial_centroids(initial);
                } catch (const UsageError& error) {
                    const std::string text = error.what();
                    if (text.find(uneven ? "same number of devices" : "too few for 3 MPI ranks x 2 devices") !=
                        std::string::npos)
                        ++refused;
                    else
                        qWarning("%s", text.c_str());
                }
            });
            QCOMPARE(refused.load(), ranks);
        }
    }

    // The automatic layout: up to 256 packages while n <= 2^25 (the bits of every
    // earlier run of those sizes), then one per 2^17 points in whole 4096-point
    // blocks, so that 4 or 8 devices each still get a few packages per
    // multiprocessor and rank boundaries can fall on any package; the package sums
    // stay within 2^25 doubles; --packages is kept as asked.
    void package_layout_grows_past_2_25_points() {
        const std::size_t big = std::size_t{1} << 25;
        QCOMPARE(package_layout(big, 100, 4).packages, std::size_t{256});
        QCOMPARE(package_layout(big, 100, 4).package_size, std::size_t{131072});
        QCOMPARE(package_layout(20000, 5, 2).packages, std::size_t{20});
        for (std::size_t n : {big + 1, std::size_t{100000000}, std::size_t{400000000}, std::size_t{1070000000}}) {
            for (std::size_t kd : {std::size_t{8}, std::size_t{400}, std::size_t{4000}, std::size_t{64000}}) {
                const PackageLayout layout = package_layout(n, kd, 1);
                const std::string at = "n " + std::to_string(n) + " k*d " + std::to_string(kd);
                QVERIFY2(layout.packages * kd <= (std::size_t{1} << 25) || layout.packages == 1, at.c_str());
                QVERIFY2(layout.packages * layout.package_size >= n, at.c_str());
                QVERIFY2((layout.packages - 1) * layout.package_size < n, at.c_str());
                if (layout.packages > 256) {
                    QVERIFY2(layout.package_size % 4096 == 0, at.c_str());
                    QVERIFY2(layout.package_size >= (std::size_t{1} << 17), at.c_str());
                    const std::vector<std::size_t> first = partition_rows(n, kd, 1, 8);
                    for (std::size_t r = 1; r < 8; ++r)  // 8 ranks, blocks within one package of equal
                        QVERIFY2(first[r] % layout.package_size == 0 &&
                                     first[r + 1] - first[r] <= n / 8 + layout.package_size,
                                 at.c_str());
                }
            }
        }
        QCOMPARE(package_layout(400000000, 100, 4).packages, std::size_t{2960});  // 33 blocks of 4096 each
        QCOMPARE(package_layout(400000000, 100, 4).package_size, std::size_t{135168});
        QCOMPARE(package_layout(400000000, 1000, 64).packages, std::size_t{523});  // capped by 2^25 / (k·d)
        QCOMPARE(package_layout(400000000, 100, 4, 1024).packages, std::size_t{1024});
        QCOMPARE(package_layout(400000000, 100, 4, 1024).package_size, std::size_t{390656});  // as asked: 256s
    }

    // A failure under ranks is reported once: every rank meets it alike (k > n,
    // initial centroids of the wrong shape) -> rank 0 reports, the others stop with
    // ReportedByAnotherRank; a rank's own failure wins over echoes of it, in
    // agree_on_failure and in ThreadGroup::run's rethrow; nobody is left waiting.
    void ranks_report_a_failure_once() {
        const Case c{9000, 2, 4, Shape::Blobs, false, 91};
        const auto points = make_points(c);
        const auto run_ranks = [&](int ranks, const std::function<void(FitOptions&)>& adjust) {
            std::vector<std::string> own(static_cast<std::size_t>(ranks)), echo(own);
            ThreadGroup group(ranks);
            group.run([&](std::shared_ptr<Communicator> comm) {
                const auto r = static_cast<std::size_t>(comm->rank());
                const std::vector<std::size_t> first = partition_rows(c.n, c.k, c.d, ranks);
                auto block = std::make_shared<Matrix<double>>(first[r + 1] - first[r], c.d);
                std::copy(points->row(first[r]), points->row(first[r + 1]), block->data());
                FitOptions options;
                options.k = c.k;
                options.ranks = std::move(comm);
                adjust(options);
                try {
                    fit_block(block, c.n, first[r], options, nullptr, "data.csv");
                } catch (const ReportedByAnotherRank& error) {
                    echo[r] = error.what();
                } catch (const Error& error) {
                    own[r] = error.what();
                }
            });
            return std::pair{own, echo};
        };
        for (const int ranks : {1, 2, 3}) {
            const auto [too_many, echoes] = run_ranks(ranks, [&](FitOptions& o) { o.k = c.n + 1; });
            QVERIFY2(too_many[0].find("data.csv: k = 9001 must be between 1 and the number of points n = 9000") == 0,
                     too_many[0].c_str());
            for (int r = 1; r < ranks; ++r) QVERIFY(too_many[static_cast<std::size_t>(r)].empty() && !echoes[static_cast<std::size_t>(r)].empty());
            const auto [shape, shape_echoes] = run_ranks(ranks, [&](FitOptions& o) {
                o.init.method = InitMethod::File;
                o.init.given = std::make_shared<const Matrix<double>>(c.k, c.d + 1);
            });
            QVERIFY2(shape[0].find("expected k = 4 rows") != std::string::npos, shape[0].c_str());
            for (int r = 1; r < ranks; ++r) QVERIFY(shape[static_cast<std::size_t>(r)].empty() && !shape_echoes[static_cast<std::size_t>(r)].empty());
        }
        // ThreadGroup::run rethrows the failing rank's own error, never an echo (races: 30 tries).
        for (int attempt = 0; attempt < 30; ++attempt) {
            ThreadGroup group(3);
            try {
                group.run([&](std::shared_ptr<Communicator> comm) {
                    std::exception_ptr failure;
                    if (comm->rank() == 2) failure = std::make_exception_ptr(InputError::at_line("x.csv", 7, "bad"));
                    agree_on_failure(*comm, failure);
                });
                QFAIL("no failure");
            } catch (const ReportedByAnotherRank& error) {
                QFAIL(error.what());
            } catch (const InputError& error) {
                QCOMPARE(std::string(error.what()), std::string("x.csv:7: bad"));
            }
        }
        // A second agreement after the first: the rank with its own failure still reports.
        ThreadGroup group(3);
        std::vector<int> own_after(3, 0);
        group.run([&](std::shared_ptr<Communicator> comm) {
            std::exception_ptr failure;
            try {
                agreed(comm.get(), [&] {
                    if (comm->rank() == 1) throw InputError::at_line("y.csv", 3, "bad");
                });
            } catch (...) {
                failure = std::current_exception();
            }
            try {
                agree_on_failure(*comm, failure);
            } catch (const ReportedByAnotherRank&) {
            } catch (const InputError&) {
                own_after[static_cast<std::size_t>(comm->rank())] = 1;
            }
        });
        QCOMPARE(own_after, (std::vector<int>{0, 1, 0}));
    }

    // Float data (a float32 NumPy array) fits exactly as its values widened to
    // double do: every solver, both CPU back ends, both precisions, every seeded
    // initialisation, weighted or not; the f32 solvers read it in place (the
    // solver's data address is the caller's), the f64 ones from a converted copy.
    void float_data_fits_as_widened() {
        for (std::uint64_t index = 0; index < 8; ++index) {
            Case c = random_case(500 + index);
            c.n = std::max<std::size_t>(c.n, 40);
            c.k = std::min<std::size_t>(c.k, 12);
            const auto doubles = make_points(c);
            auto floats = std::make_shared<Matrix<float>>(doubles->cast<float>());
            if (index == 3) {  // far from the origin: widening must be exact, not re-centred
                for (float& v : floats->values()) v += 3.0e4f;
            }
            const auto widened = std::make_shared<const Matrix<double>>(floats->cast<double>());
            std::vector<double> weights(c.n);
            for (std::size_t i = 0; i < c.n; ++i) weights[i] = static_cast<double>(random_below(index, 40, i, 4));
            weights[0] = 1.0;
            const auto weight_source = std::make_shared<const std::vector<double>>(weights);
            const Algorithm algorithm = kSolvers[index % kSolverCount];
            const InitMethod init = std::array{InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus,
                                               InitMethod::Random, InitMethod::Maximin}[index % 4];
            for (Backend backend : {Backend::Sequential, Backend::OpenMP})
                for (Precision precision : {Precision::F32, Precision::F64}) {
                    const std::string where = "case " + std::to_string(index) + " " +
                                              std::string(to_string(algorithm)) + "/" +
                                              std::string(to_string(backend)) + "/" +
                                              std::string(to_string(precision));
                    FitOptions options;
                    options.k = c.k;
                    options.n_init = 1 + static_cast<int>(index % 2);
                    options.init.method = init;
                    options.init.seed = 11 + index;
                    options.solver.algorithm = algorithm;
                    options.solver.backend = backend;
                    options.solver.precision = precision;
                    options.solver.threads = 2;
                    options.sample_weight = index % 2 ? weight_source : nullptr;
                    const FitResult expected = fit(widened, options);
                    const FitResult got = fit(std::shared_ptr<const Matrix<float>>(floats), options);
                    QVERIFY2(got.initial_centroids == expected.initial_centroids, where.c_str());
                    QVERIFY2(got.centroids == expected.centroids, where.c_str());
                    QVERIFY2(got.labels == expected.labels, where.c_str());
                    QCOMPARE(got.inertia, expected.inertia);
                    QCOMPARE(got.iterations, expected.iterations);
                    if (precision == Precision::F32)
                        QVERIFY2(got.data_address == floats->data(), ("not read in place: " + where).c_str());
                    else
                        QVERIFY2(got.data_address != floats->data() && got.data_address != nullptr, where.c_str());
                    SolverConfig config = options.solver;
                    const Assignment a = assign(std::shared_ptr<const Matrix<float>>(floats), got.centroids, config,
                                                options.sample_weight);
                    const Assignment b = assign(widened, got.centroids, config, options.sample_weight);
                    QVERIFY2(a.labels == b.labels, where.c_str());
                    QCOMPARE(a.inertia, b.inertia);
                }
        }
    }

    // Float centroids keep double-like accuracy on many points thanks to the
    // two-step package sums: compare one update of float against double.
    void float_update_accuracy() {
        const std::size_t n = 2'000'000;
        auto points = std::make_shared<Matrix<double>>(n, 2);
        for (std::size_t i = 0; i < n; ++i) {
            (*points)(i, 0) = 1000.0 + random_uniform(3, 1, i);
            (*points)(i, 1) = -500.0 + 0.001 * random_uniform(3, 2, i);
        }
        Matrix<double> one(1, 2);
        one(0, 0) = 1000.0;
        one(0, 1) = -500.0;
        auto f32 = make(Algorithm::Lloyd, Backend::OpenMP, Precision::F32, 2, EmptyClusterPolicy::Keep);
        auto f64 = make(Algorithm::Lloyd, Backend::OpenMP, Precision::F64, 2, EmptyClusterPolicy::Keep);
        f32->set_data(points);
        f64->set_data(points);
        f32->set_initial_centroids(one);
        f64->set_initial_centroids(one);
        f32->step();
        f64->step();
        for (std::size_t t = 0; t < 2; ++t) {
            // The exact mean of the float-rounded coordinates (what the float solver sees).
            long double exact = 0.0L;
            for (std::size_t i = 0; i < n; ++i) exact += static_cast<float>((*points)(i, t));
            const double expected = static_cast<double>(exact / static_cast<long double>(n));
            const double got = f32->centroids()(0, t);
            const double ulp = std::nextafter(static_cast<float>(std::abs(expected)), 1e30f) -
                               static_cast<float>(std::abs(expected));
            // A plain float sum of 2M terms is off by hundreds of ulps here.
            QVERIFY2(std::abs(got - expected) <= 2 * ulp,
                     (std::to_string(got) + " vs " + std::to_string(expected)).c_str());
            QVERIFY(std::abs(f64->centroids()(0, t) - expected) < 1e-4);
        }
    }

    void stops_when_labels_settle_and_on_tol() {
        const Case c{3000, 2, 6, Shape::Blobs, false, 5};
        const auto points = make_points(c);
        const Matrix<double> initial = make_centroids(c, *points);
        SolverConfig config;
        config.tol = 0.0;
        auto exact = make_solver(config);
        exact->set_data(points);
        exact->set_initial_centroids(initial);
        IterationStats last;
        while (!exact->converged()) last = exact->step();
        QCOMPARE(exact->stop_reason(), StopReason::NoLabelChange);
        QCOMPARE(last.labels_changed, std::uint64_t{0});
        QCOMPARE(last.shift_sq_total, 0.0);

        config.tol = 1e-2;
        auto loose = make_solver(config);
        loose->set_data(points);
        loose->set_initial_centroids(initial);
        while (!loose->converged()) last = loose->step();
        QVERIFY(loose->iteration() <= exact->iteration());
        if (loose->stop_reason() == StopReason::Tolerance)
            QVERIFY(last.shift_sq_total <= 1e-2 * 1.0e9);  // bounded by tol·variance (variance < 1e9 here)

        config.tol = 0.0;
        config.max_iterations = 2;
        auto capped = make_solver(config);
        capped->set_data(points);
        capped->set_initial_centroids(initial);
        while (!capped->converged()) capped->step();
        QVERIFY(capped->iteration() <= 2);
    }

    void reset_replays_the_same_run() {
        const Case c{2000, 4, 9, Shape::Blobs, false, 11};
        const auto points = make_points(c);
        auto solver = make(Algorithm::Hamerly, Backend::OpenMP, Precision::F32, 2, EmptyClusterPolicy::Keep);
        solver->set_data(points);
        solver->set_initial_centroids(make_centroids(c, *points));
        solver->step();
        solver->step();
        const auto labels = solver->labels();
        const auto centroids = solver->centroids();
        solver->reset();
        QCOMPARE(solver->iteration(), 0);
        QVERIFY(solver->labels() == std::vector<std::int32_t>(c.n, -1));
        solver->step();
        solver->step();
        QVERIFY(solver->labels() == labels);
        QVERIFY(solver->centroids() == centroids);
    }

    void empty_cluster_policies() {
        // Two tight groups and a centroid far away that no point chooses.
        auto points = std::make_shared<Matrix<double>>(6, 1);
        const double values[] = {0.0, 0.1, 0.2, 10.0, 10.1, 10.2};
        for (std::size_t i = 0; i < 6; ++i) (*points)(i, 0) = values[i];
        Matrix<double> initial(3, 1);
        initial(0, 0) = 0.0;
        initial(1, 0) = 10.0;
        initial(2, 0) = 1000.0;
        auto keep = make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Keep);
        keep->set_data(points);
        keep->set_initial_centroids(initial);
        const IterationStats kept = keep->step();
        QCOMPARE(kept.empty_clusters, 1);
        QCOMPARE(keep->centroids()(2, 0), 1000.0);

        auto farthest = make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Farthest);
        farthest->set_data(points);
        farthest->set_initial_centroids(initial);
        const IterationStats moved = farthest->step();
        QCOMPARE(moved.empty_clusters, 1);
        // Squared distances to the old centroids are 0, .01, .04 and 0, .01, .04 up
        // to rounding; 0.2 - 0 rounds above 10.2 - 10, so point 0.2 is the farthest.
        QCOMPARE(farthest->centroids()(2, 0), 0.2);
        QCOMPARE(farthest->centroids()(0, 0), 0.05);  // cluster 0 lost 0.2: mean of 0 and 0.1 (fuzzy compare)
    }

    // A stop request during a step: the step throws Cancelled, the solver keeps
    // the last completed iteration (labels, status, centroids, count), and the run
    // continues from there exactly as one that was never interrupted.
    void cancelled_step_keeps_last_iteration() {
        Case c{};
        c.seed = 77;
        c.n = 20000;
        c.d = 3;
        c.k = 40;
        c.shape = static_cast<Shape>(0);
        const auto points = make_points(c);
        const Matrix<double> start = make_centroids(c, *points);
        for (Algorithm algorithm : kSolvers) {
            auto reference = make(algorithm, Backend::OpenMP, Precision::F32, 2, EmptyClusterPolicy::Keep, true);
            auto solver = make(algorithm, Backend::OpenMP, Precision::F32, 2, EmptyClusterPolicy::Keep, true);
            for (auto* s : {reference.get(), solver.get()}) {
                s->set_data(points);
                s->set_initial_centroids(start);
                s->step();
                s->step();
            }
            const std::vector<std::int32_t> labels = solver->labels();
            const std::vector<PointStatus> status = solver->point_status();
            const Matrix<double> centroids = solver->centroids();
            std::stop_source stop;
            stop.request_stop();
            solver->set_stop_token(stop.get_token());
            QVERIFY_THROWS_EXCEPTION(Cancelled, solver->step());
            QCOMPARE(solver->iteration(), 2);
            QVERIFY(solver->labels() == labels);
            QVERIFY(solver->point_status() == status);
            QVERIFY(solver->centroids() == centroids);
            solver->set_stop_token({});
            for (int it = 3; it <= 6; ++it) {
                reference->step();
                solver->step();
                QVERIFY2(solver->labels() == reference->labels(), to_string(algorithm).data());
                QVERIFY2(solver->centroids() == reference->centroids(), to_string(algorithm).data());
            }
        }
    }

    // Elkan's n·k bounds and Yinyang's group bounds are allocated answering a stop request
    // (issue 39: 10^6 × 1500 Elkan took 20 s to answer SIGTERM, zero-filling 12 GB): with a
    // stop already requested, set_initial_centroids throws Cancelled having touched almost
    // none of 2·10^5 × 600 Elkan bounds (0.9 GB) — the peak resident memory does not grow.
    void bounds_allocation_answers_a_stop() {  // (moc sees every slot: the sanitizer builds skip inside)
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        QSKIP("sanitizer build: its allocator and shadow memory make the peak resident memory meaningless");
#endif
        Case c{};
        c.seed = 5;
        c.n = 200000;
        c.d = 2;
        c.k = 600;
        c.shape = static_cast<Shape>(0);
        const auto points = make_points(c);
        const Matrix<double> start = make_centroids(c, *points);
        const auto peak_kib = [] {
            rusage usage{};
            getrusage(RUSAGE_SELF, &usage);
            return usage.ru_maxrss;
        };
        std::stop_source stop;
        stop.request_stop();
        for (Algorithm algorithm : {Algorithm::Elkan, Algorithm::Yinyang}) {
            auto solver = make(algorithm, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Keep);
            solver->set_stop_token(stop.get_token());
            solver->set_data(points);
            const long before = peak_kib();
            QVERIFY_THROWS_EXCEPTION(Cancelled, solver->set_initial_centroids(start));  // k known: the bounds
            QVERIFY2(peak_kib() - before < 256 * 1024, to_string(algorithm).data());
        }
    }

    void errors_are_clear() {
        auto solver = make(Algorithm::Elkan, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Keep);
        QVERIFY_THROWS_EXCEPTION(Error, solver->step());
        auto points = std::make_shared<Matrix<double>>(3, 2, 1.0);
        solver->set_data(points);
        QVERIFY_THROWS_EXCEPTION(Error, solver->step());
        try {
            solver->set_initial_centroids(Matrix<double>(4, 2));
            QFAIL("k > n accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("k = 4") != std::string::npos);
        }
        try {
            solver->set_initial_centroids(Matrix<double>(2, 3));
            QFAIL("wrong d accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("3 coordinates") != std::string::npos);
        }
        Matrix<double> nan(1, 2);
        nan(0, 0) = std::nan("");
        QVERIFY_THROWS_EXCEPTION(Error, solver->set_initial_centroids(nan));
        QVERIFY_THROWS_EXCEPTION(Error, solver->set_data(std::make_shared<Matrix<double>>()));
        // Coordinates whose squared distances overflow are refused, not silently mislabelled.
        auto huge = std::make_shared<Matrix<double>>(2, 1);
        (*huge)(1, 0) = 1e30;
        auto f32 = make(Algorithm::Lloyd, Backend::Sequential, Precision::F32, 1, EmptyClusterPolicy::Keep);
        try {
            f32->set_data(huge);
            QFAIL("overflowing float data accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("too large for f32") != std::string::npos);
        }
        auto f64 = make(Algorithm::Lloyd, Backend::Sequential, Precision::F64, 1, EmptyClusterPolicy::Keep);
        f64->set_data(huge);  // fine in double
        // Issue 39: squared distances that underflow (every one 0: one cluster took all) are
        // refused too, found by any thread, at d <= 512 (threads split the rows) and above
        // (blocks of columns); the same spread shifted far from 0 is fine.
        for (const std::size_t d : {std::size_t(3), std::size_t(700)}) {
            auto tiny = std::make_shared<Matrix<double>>(40, d, 0.0);
            (*tiny)(37, d - 1) = 1e-160;
            auto omp = make(Algorithm::Lloyd, Backend::OpenMP, Precision::F64, 2, EmptyClusterPolicy::Keep);
            try {
                omp->set_data(tiny);
                QFAIL("underflowing data accepted");
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find("coordinates spread over only 1e-160") != std::string::npos, e.what());
            }
            (*tiny)(2, 0) = 1.0;  // a spread of 1: fine
            omp->set_data(tiny);
        }
        // A back end this program does not register (no CUDA here) is an error naming it.
        SolverConfig cuda;
        cuda.backend = Backend::Cuda;
        try {
            make_solver(cuda);
            QFAIL("an unregistered back end made a solver");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("cuda is unavailable") != std::string::npos, e.what());
        }
        // Options no back end accepts are bad usage, named by their option.
        SolverConfig bad;
        bad.threads = max_threads() + 1;
        QVERIFY_THROWS_EXCEPTION(UsageError, make_solver(bad));
        bad = SolverConfig{};
        bad.tol = std::numeric_limits<double>::infinity();
        QVERIFY_THROWS_EXCEPTION(UsageError, make_solver(bad));
        bad = SolverConfig{};
        bad.variant = KernelVariant::Shared;  // a CUDA variant on a CPU back end
        QVERIFY_THROWS_EXCEPTION(UsageError, make_solver(bad));
    }

    // The registry lists what each back end has, and says why one is missing.
    void registry_describes_back_ends() {
        for (Backend backend : {Backend::Sequential, Backend::OpenMP}) {
            const BackendEntry* entry = find_backend(backend);
            QVERIFY(entry);
            QVERIFY(backend_availability(backend).available);
            for (Algorithm a : kSolvers) QVERIFY(entry->has(a));
            QVERIFY(!entry->has(Algorithm::Auto));  // a request the fit layer resolves, never built
        }
        QCOMPARE(find_backend(Backend::OpenMP)->uses_threads, true);
        QCOMPARE(find_backend(Backend::Sequential)->uses_threads, false);
        // A back end that registers without an algorithm refuses it by name, never falls through.
        const BackendEntry full = *find_backend(Backend::Sequential);
        BackendEntry partial = full;
        partial.algorithms = {Algorithm::Lloyd};
        register_backend(partial);
        SolverConfig config;
        config.algorithm = Algorithm::Elkan;
        try {
            make_solver(config);
            QFAIL("an algorithm the back end lacks was built");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()) == "back end seq has no elkan solver", e.what());
        }
        register_backend(full);  // restore the full entry for the other tests
        QVERIFY(make_solver(config) != nullptr);
    }

    void names_round_trip() {
        for (Algorithm a : kSolvers) QCOMPARE(parse_algorithm(to_string(a)), std::optional<Algorithm>(a));
        QCOMPARE(parse_algorithm("auto"), std::optional<Algorithm>(Algorithm::Auto));
        QCOMPARE(parse_algorithm("yin-yang"), std::optional<Algorithm>());
        for (auto b : {Backend::Sequential, Backend::OpenMP, Backend::Cuda}) {
            const auto spec = parse_backend(to_string(b));
            QVERIFY(spec && spec->backend == b && spec->variant == KernelVariant::Auto);
        }
        // The spellings scripts have always used: the device with its kernel variant.
        const auto global = parse_backend("cuda-global"), shared = parse_backend("cuda-shared");
        QVERIFY(global && global->backend == Backend::Cuda && global->variant == KernelVariant::Global);
        QVERIFY(shared && shared->backend == Backend::Cuda && shared->variant == KernelVariant::Shared);
        QVERIFY(!parse_backend("omp-global") && !parse_backend("cuda-auto") && !parse_backend("cuda-"));
        SolverConfig cuda;
        cuda.backend = Backend::Cuda;
        cuda.variant = KernelVariant::Shared;
        QCOMPARE(cuda.describe(), std::string("lloyd/cuda-shared/f64"));
        cuda.variant = KernelVariant::Auto;
        QCOMPARE(cuda.describe(), std::string("lloyd/cuda/f64"));
        QCOMPARE(parse_precision("f16"), std::optional<Precision>());
        SolverConfig config;
        config.algorithm = Algorithm::Hamerly;
        config.backend = Backend::OpenMP;
        config.precision = Precision::F32;
        QCOMPARE(config.describe(), std::string("hamerly/omp/f32"));
    }

    // --solver auto: the back end's rule picks an exact solver from n, d and k, the
    // same one every time; fit() runs it (Lloyd's result) and reports the choice;
    // no solver is ever made for "auto" itself.
    void auto_solver_resolves_deterministically() {
        for (Backend backend : {Backend::Sequential, Backend::OpenMP}) {
            SolverConfig config;
            config.algorithm = Algorithm::Auto;
            config.backend = backend;
            for (std::size_t n : {1000, 1000000})
                for (std::size_t d : {1, 2, 8, 16, 33, 64, 200})
                    for (std::size_t k : {1, 2, 5, 20, 100, 1000, 5000}) {
                        const SolverChoice once = choose_solver(config, n, d, k), again = choose_solver(config, n, d, k);
                        const std::string at = "n=" + std::to_string(n) + " d=" + std::to_string(d) +
                                               " k=" + std::to_string(k) + ": " + once.reason;
                        QCOMPARE(once.algorithm, again.algorithm);
                        QCOMPARE(once.reason, again.reason);
                        QVERIFY2(once.algorithm != Algorithm::Auto && find_backend(backend)->has(once.algorithm),
                                 at.c_str());
                        QVERIFY2(once.reason.rfind(std::string(to_string(once.algorithm)) + ": ", 0) == 0, at.c_str());
                        QCOMPARE(resolve_solver(config, n, d, k).algorithm, once.algorithm);
                    }
            // The rule of docs/solvers.md at the corners of the measured grid.
            QCOMPARE(choose_solver(config, 100000, 2, 1).algorithm, Algorithm::Lloyd);
            QCOMPARE(choose_solver(config, 100000, 2, 5).algorithm, kAutoLowK);
            QCOMPARE(choose_solver(config, 100000, 2, 100).algorithm, kAutoLowDMidK);
            QCOMPARE(choose_solver(config, 30000, 2, 1000).algorithm, kAutoLowDManyKFewN);
            QCOMPARE(choose_solver(config, 100000, 2, 1000).algorithm, kAutoLowDManyK);
            QCOMPARE(choose_solver(config, 1000000, 2, 1000).algorithm, kAutoLowDManyKManyN);
            QCOMPARE(choose_solver(config, 100000, 64, 20).algorithm, kAutoHighDMidK);
            QCOMPARE(choose_solver(config, 100000, 64, 1000).algorithm, kAutoHighDManyK);
            QCOMPARE(choose_solver(config, 100000, 32, 200).algorithm, kAutoHighD200);
            QCOMPARE(choose_solver(config, 100000, 16, 100).algorithm, kAutoHighD100);
            QCOMPARE(choose_solver(config, 100000, 8, 5000).algorithm, kAutoBall);
            QCOMPARE(choose_solver(config, 100000, 4, 5000).algorithm, kAutoBall);
            QCOMPARE(choose_solver(config, 200000, 5, 8192).algorithm, kAutoBall);
            QCOMPARE(choose_solver(config, 100000, 4, 1000).algorithm, Algorithm::Exponion);  // (Ball 1.01-1.23x its time)
            QCOMPARE(choose_solver(config, 100000, 8, 1000).algorithm, kAutoD8K1000);
            QCOMPARE(choose_solver(config, 100000, 16, 5000).algorithm, kAutoD16K5000);
            QCOMPARE(choose_solver(config, 100000, 2, 5000).algorithm, kAutoD2K5000);
            // Ball k-means only from 20 points a cluster (measured at 20 and 200) and up to 8192 clusters.
            QCOMPARE(choose_solver(config, 99999, 8, 5000).algorithm, Algorithm::Exponion);
            QCOMPARE(choose_solver(config, 99999, 4, 5000).algorithm, Algorithm::Hamerly);
            QCOMPARE(choose_solver(config, 1000000, 8, 8193).algorithm, Algorithm::Hamerly);
            // Never a solver whose memory grows as k²/k·n past what the machine can hold.
            QCOMPARE(choose_solver(config, 100000000, 64, 50000).algorithm, Algorithm::Hamerly);
            QCOMPARE(choose_solver(config, 100000000, 2, 50000).algorithm, Algorithm::Hamerly);
            // A named algorithm is kept, with no reason.
            config.algorithm = Algorithm::Elkan;
            const SolverChoice named = choose_solver(config, 10, 2, 3);
            QCOMPARE(named.algorithm, Algorithm::Elkan);
            QVERIFY(named.reason.empty());
        }
        SolverConfig config;
        config.algorithm = Algorithm::Auto;
        try {
            make_solver(config);
            QFAIL("a solver was made for auto");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("resolve_solver") != std::string::npos, e.what());
        }

        const Case c{3000, 2, 40, Shape::Blobs, false, 9};
        const auto points = make_points(c);
        FitOptions options;
        options.k = c.k;
        options.solver.algorithm = Algorithm::Auto;
        options.solver.backend = Backend::OpenMP;
        options.solver.threads = 2;
        const FitResult chosen = fit(points, options);
        const SolverChoice expected = choose_solver(options.solver, c.n, c.d, c.k);
        QCOMPARE(chosen.solver.algorithm, expected.algorithm);
        QCOMPARE(chosen.solver_choice, expected.reason);
        const std::string summary = to_json(summarize(chosen, options, "blobs", c.n, c.d));
        QVERIFY2(summary.find("\"solver\":\"" + chosen.solver.describe() + "\"") != std::string::npos, summary.c_str());
        QVERIFY2(summary.find("\"solver_choice\":\"" + expected.reason + "\"") != std::string::npos, summary.c_str());
        for (Algorithm algorithm : kSolvers) {  // every candidate would have given the same result
            options.solver.algorithm = algorithm;
            const FitResult named = fit(points, options);
            QVERIFY(named.solver_choice.empty());
            QVERIFY(named.labels == chosen.labels);
            QVERIFY(named.centroids == chosen.centroids);
            QCOMPARE(named.iterations, chosen.iterations);
        }
    }

    // A back end that races its candidates (as CUDA does): auto runs each a few steps on
    // the data from the first restart's centroids, keeps the fastest, says so with the
    // timings, and gives what every candidate gives; a candidate that fails drops out
    // with its reason; a run too short to race keeps the rule's choice. A stand-in CUDA
    // entry over the sequential solvers, the real one registered again at the end.
    void auto_races_candidates_on_the_points() {
        const std::optional<BackendEntry> original =
            find_backend(Backend::Cuda) ? std::optional<BackendEntry>(*find_backend(Backend::Cuda)) : std::nullopt;
        BackendEntry racing;
        racing.backend = Backend::Cuda;
        racing.label = "stand-in for CUDA";
        racing.algorithms = {Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Hamerly, Algorithm::Exponion};
        racing.availability = [] { return BackendAvailability{true, {}}; };
        racing.make_solver = [](const SolverConfig& config) {
            if (config.algorithm == Algorithm::Exponion) throw Error("out of device memory (test)");
            SolverConfig cpu = config;
            cpu.backend = Backend::Sequential;
            return make_solver(cpu);
        };
        racing.race_candidates = [](std::size_t, std::size_t, std::size_t) {
            return std::vector<Algorithm>{Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Exponion, Algorithm::Hamerly};
        };
        register_backend(racing);
        const Case c{4000, 2, 30, Shape::Blobs, false, 11};
        const auto points = make_points(c);
        FitOptions options;
        options.k = c.k;
        options.n_init = 2;
        options.solver.backend = Backend::Cuda;
        options.solver.algorithm = Algorithm::Lloyd;
        const FitResult lloyd = fit(points, options);
        options.solver.algorithm = Algorithm::Auto;
        const FitResult chosen = fit(points, options);
        const std::string note = chosen.solver_choice;
        QVERIFY2(chosen.solver.algorithm == Algorithm::Lloyd || chosen.solver.algorithm == Algorithm::Elkan ||
                     chosen.solver.algorithm == Algorithm::Hamerly,
                 note.c_str());
        QVERIFY2(note.rfind(std::string(to_string(chosen.solver.algorithm)) + ": the fastest on this data of lloyd ", 0) == 0,
                 note.c_str());
        for (const char* part : {", elkan ", ", hamerly ", " ms a step", "exponion failed: out of device memory (test)",
                                 "(n = 4000, d = 2, k = 30)"})
            QVERIFY2(note.find(part) != std::string::npos, (note + " lacks " + part).c_str());
        QVERIFY(chosen.labels == lloyd.labels);
        QVERIFY(chosen.centroids == lloyd.centroids);
        QCOMPARE(chosen.iterations, lloyd.iterations);
        QCOMPARE(chosen.best_restart, lloyd.best_restart);
        const std::string summary = to_json(summarize(chosen, options, "blobs", c.n, c.d));
        QVERIFY2(summary.find("the fastest on this data") != std::string::npos, summary.c_str());
        options.solver.max_iterations = 6;  // too short to race: the rule (none here: Lloyd)
        const FitResult rule = fit(points, options);
        QCOMPARE(rule.solver.algorithm, Algorithm::Lloyd);
        QVERIFY2(rule.solver_choice.find("no rule") != std::string::npos, rule.solver_choice.c_str());
        if (!original) racing.availability = [] { return BackendAvailability{false, "not built into this test"}; };
        register_backend(original ? *original : racing);  // the real CUDA entry again, or none usable
    }

    // How the race judges a candidate: the fastest step, or for a solver whose time
    // falls with its distance count, the least-squares time at half its fewest count,
    // only where that fit is sound.
    void race_judges_projected_steps() {
        const std::vector<double> counts{600e6, 450e6, 350e6, 290e6, 250e6};
        std::vector<double> linear;
        for (const double c : counts) linear.push_back(0.36 + 0.615e-9 * c);  // Hamerly-like: fixed part + per distance
        RaceJudgement j = judge_race_steps(linear, counts);
        QVERIFY(j.projected);
        QCOMPARE(j.fastest_ms, linear.back());
        QVERIFY2(std::abs(j.judged_ms - (0.36 + 0.615e-9 * 125e6)) < 1e-9, std::to_string(j.judged_ms).c_str());
        // Noise within R² >= 0.8 still projects, near the line.
        std::vector<double> noisy = linear;
        noisy[1] += 0.01;
        noisy[3] -= 0.01;
        j = judge_race_steps(noisy, counts);
        QVERIFY(j.projected);
        QVERIFY2(std::abs(j.judged_ms - (0.36 + 0.615e-9 * 125e6)) < 0.03, std::to_string(j.judged_ms).c_str());
        // Lloyd: the same count every step: the fastest step.
        j = judge_race_steps({0.47, 0.46, 0.465, 0.462, 0.468}, std::vector<double>(5, 1e9));
        QVERIFY(!j.projected);
        QCOMPARE(j.judged_ms, 0.46);
        QCOMPARE(j.fastest_ms, 0.46);
        // Counts spread by less than a quarter: the fastest step.
        j = judge_race_steps({0.50, 0.49, 0.48}, {300e6, 280e6, 260e6});
        QVERIFY(!j.projected);
        QCOMPARE(j.judged_ms, 0.48);
        // Two steps are not enough to fit.
        j = judge_race_steps({0.7, 0.5}, {600e6, 250e6});
        QVERIFY(!j.projected);
        QCOMPARE(j.judged_ms, 0.5);
        // Time not rising with the count (falling, or uncorrelated): the fastest step.
        j = judge_race_steps({0.40, 0.45, 0.50, 0.55, 0.60}, counts);
        QVERIFY(!j.projected);
        QCOMPARE(j.judged_ms, 0.40);
        j = judge_race_steps({0.50, 0.40, 0.52, 0.41, 0.50}, counts);
        QVERIFY(!j.projected);
        // Time at no distances at or below zero: no projection.
        std::vector<double> steep;
        for (const double c : counts) steep.push_back(1e-9 * c - 0.2);
        j = judge_race_steps(steep, counts);
        QVERIFY(!j.projected);
        QCOMPARE(j.judged_ms, steep.back());
        // Nothing to judge.
        QCOMPARE(judge_race_steps({}, {}).judged_ms, 0.0);
        QVERIFY(!judge_race_steps({0.5, 0.4, 0.3}, {1e6, 2e6}).projected);
    }

    // The race's pick: bounded solvers by their fastest steps among themselves, the best
    // of them by its projection against Lloyd. The cases are the H100's (steps 2-6, ms).
    void race_picks_bounded_against_lloyd() {
        auto entry = [](Algorithm a, double fastest, double judged) {
            return RacedCandidate{a, RaceJudgement{fastest, judged, judged < fastest}};
        };
        // 10^7 x 2-D, k = 100: Hamerly's projection beats Lloyd (65 against 70 ms to converge).
        std::optional<std::size_t> w = pick_race_winner({entry(Algorithm::Lloyd, 0.460, 0.460),
                                                         entry(Algorithm::Hamerly, 0.515, 0.419),
                                                         entry(Algorithm::Exponion, 0.628, 0.628)});
        QCOMPARE(w.value(), std::size_t{1});
        // 10^6 x 4-D, k = 1000: Exponion's fastest step beats Hamerly's projection, as it
        // does to convergence (52 against 64 ms): bounded solvers meet by fastest steps.
        w = pick_race_winner({entry(Algorithm::Lloyd, 0.606, 0.606), entry(Algorithm::Hamerly, 0.603, 0.314),
                              entry(Algorithm::Exponion, 0.388, 0.388)});
        QCOMPARE(w.value(), std::size_t{2});
        // 10^7 x 2-D, k = 5: Lloyd, whatever the bounded solvers project.
        w = pick_race_winner({entry(Algorithm::Lloyd, 0.069, 0.069), entry(Algorithm::Hamerly, 0.387, 0.373),
                              entry(Algorithm::Exponion, 0.358, 0.358)});
        QCOMPARE(w.value(), std::size_t{0});
        // Lloyd is judged by its fastest step even where its counts vary (the int8 filter).
        w = pick_race_winner({entry(Algorithm::Lloyd, 2.74, 1.0), entry(Algorithm::Hamerly, 2.46, 1.39)});
        QCOMPARE(w.value(), std::size_t{1});
        // Ties go to the earlier candidate; one candidate wins alone; none: nullopt.
        w = pick_race_winner({entry(Algorithm::Lloyd, 0.5, 0.5), entry(Algorithm::Hamerly, 0.6, 0.5)});
        QCOMPARE(w.value(), std::size_t{0});
        w = pick_race_winner({entry(Algorithm::Hamerly, 0.6, 0.5), entry(Algorithm::Exponion, 0.6, 0.6)});
        QCOMPARE(w.value(), std::size_t{0});
        QCOMPARE(pick_race_winner({entry(Algorithm::Exponion, 0.6, 0.6)}).value(), std::size_t{0});
        QVERIFY(!pick_race_winner({}).has_value());
    }

    // A back end that lacks the new solvers (as CUDA does) refuses them by name,
    // and auto on a back end without a rule of its own runs Lloyd. Runs last: it
    // registers a stand-in for the CUDA entry, then an unavailable one again.
    void back_end_without_new_solvers() {
        BackendEntry gpu_like;
        gpu_like.backend = Backend::Cuda;
        gpu_like.label = "stand-in for CUDA";
        gpu_like.algorithms = {Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Hamerly};
        gpu_like.availability = [] { return BackendAvailability{true, {}}; };
        gpu_like.make_solver = [](const SolverConfig& config) {
            SolverConfig cpu = config;
            cpu.backend = Backend::Sequential;
            return make_solver(cpu);
        };
        register_backend(gpu_like);
        for (Algorithm algorithm : {Algorithm::Yinyang, Algorithm::Exponion}) {
            SolverConfig config;
            config.backend = Backend::Cuda;
            config.algorithm = algorithm;
            try {
                make_solver(config);
                QFAIL("a solver the back end does not list was built");
            } catch (const Error& e) {
                QCOMPARE(std::string(e.what()), "back end cuda has no " + std::string(to_string(algorithm)) + " solver");
            }
        }
        SolverConfig config;
        config.backend = Backend::Cuda;
        config.algorithm = Algorithm::Auto;
        const SolverChoice choice = choose_solver(config, 1000000, 2, 1000);
        QCOMPARE(choice.algorithm, Algorithm::Lloyd);
        QVERIFY2(choice.reason.find("no rule") != std::string::npos, choice.reason.c_str());
        gpu_like.availability = [] { return BackendAvailability{false, "not built into this test"}; };
        register_backend(gpu_like);
    }
};

QTEST_APPLESS_MAIN(TestSolvers)
#include "test_solvers.moc"
