// The CPU's certified GEMM assignment (core/src/solvers/cpu/gemm_assign.hpp,
// issue 37 item 3): Lloyd with --gemm-filter on against the exact kernel in
// lockstep, every iteration, labels and centroids bitwise, f32 and f64, weighted,
// 1, 2 and 3 OpenMP threads, at every vector level with a micro-kernel; double data
// through the float GEMM and its fallback to the double GEMM; and the GemmAssign class
// alone on adversarial data (duplicates, exact ties, 1e6 + tiny spread, huge and tiny
// norms mixed, NaN and inf, subnormals, d = 1000, k = 2..300), where certification
// must fail and the exact search take over.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../core/src/solvers/cpu/gemm_assign.hpp"
#include "../core/src/solvers/cpu/kernels.hpp"
#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/options.hpp"
#include "kms/random.hpp"
#include "kms/simd.hpp"
#include "kms/solver.hpp"

using namespace kms;

namespace {

// The vector levels that have a micro-kernel on this CPU (none: the suite skips).
std::vector<SimdLevel> gemm_levels() {
    std::vector<SimdLevel> levels;
    for (SimdLevel level : supported_simd_levels()) {
        if (level < SimdLevel::Avx2) continue;
        force_simd_level(level);
        if (cpu::gemm_assign_applies(64, 64, true)) levels.push_back(level);
    }
    force_simd_level(detected_simd_level());
    return levels;
}

struct RestoreLevel {
    ~RestoreLevel() { force_simd_level(detected_simd_level()); }
};

double normal(std::uint64_t seed, std::uint64_t counter) {
    const double u1 = 1.0 - random_uniform(seed, 1, 2 * counter);
    const double u2 = random_uniform(seed, 1, 2 * counter + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// n points around `blobs` centres in [-10, 10)^d (spread 1), plus `offset` on every coordinate.
Matrix<double> blobs(std::size_t n, std::size_t d, std::size_t count, std::uint64_t seed, double offset = 0.0) {
    Matrix<double> points(n, d);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t blob = random_below(seed, 2, i, count);
        for (std::size_t t = 0; t < d; ++t)
            points(i, t) = offset + 20.0 * random_uniform(seed, 3, blob * d + t) - 10.0 + normal(seed, i * d + t);
    }
    return points;
}

Matrix<double> rows_of(const Matrix<double>& points, std::size_t k, std::uint64_t seed) {
    Matrix<double> centroids(k, points.cols());
    for (std::size_t j = 0; j < k; ++j) {
        const std::size_t row = random_below(seed, 9, j, points.rows());
        for (std::size_t t = 0; t < points.cols(); ++t) centroids(j, t) = points(row, t);
    }
    return centroids;
}

bool same_bits(const Matrix<double>& a, const Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), a.rows() * a.cols() * sizeof(double)) == 0;
}

std::unique_ptr<Solver> lloyd(Backend backend, Precision precision, int threads, bool gemm) {
    SolverConfig config;
    config.algorithm = Algorithm::Lloyd;
    config.backend = backend;
    config.precision = precision;
    config.threads = threads;
    config.tol = 0.0;
    config.max_iterations = 100;
    config.gemm_filter = gemm;
    return make_solver(config);
}

struct LockstepTotals {
    std::uint64_t certified = 0, verified = 0;
};

// Lloyd through the GEMM (sequential and 1, 2, 3 OpenMP threads) against the exact
// kernel, step by step: labels, centroids and the stop decision bitwise equal;
// certified + verified = n on every GEMM step, distances counted as n·k + k·verified.
LockstepTotals lockstep(const Matrix<double>& data, const Matrix<double>& initial, Precision precision,
                        const std::vector<double>* weights, int iterations, const std::string& where) {
    auto points = std::make_shared<const Matrix<double>>(data);
    const std::size_t n = data.rows(), k = initial.rows();
    std::vector<std::unique_ptr<Solver>> solvers;
    solvers.push_back(lloyd(Backend::Sequential, precision, 1, false));  // the reference
    solvers.push_back(lloyd(Backend::Sequential, precision, 1, true));
    for (int threads : {1, 2, 3}) solvers.push_back(lloyd(Backend::OpenMP, precision, threads, true));
    for (auto& solver : solvers) {
        solver->set_data(points);
        if (weights) solver->set_sample_weight(std::make_shared<const std::vector<double>>(*weights));
        solver->set_initial_centroids(initial);
    }
    LockstepTotals totals;
    for (int it = 1; it <= iterations && !solvers[0]->converged(); ++it) {
        const IterationStats reference = solvers[0]->step();
        if (reference.gemm_certified != 0 || reference.verified_points != 0)
            throw std::runtime_error("the exact kernel counted GEMM points: " + where);
        for (std::size_t s = 1; s < solvers.size(); ++s) {
            const IterationStats stats = solvers[s]->step();
            const std::string at = where + " solver " + std::to_string(s) + " iteration " + std::to_string(it);
            if (solvers[s]->labels() != solvers[0]->labels()) throw std::runtime_error("labels differ: " + at);
            if (!same_bits(solvers[s]->centroids(), solvers[0]->centroids()))
                throw std::runtime_error("centroids differ: " + at);
            if (stats.labels_changed != reference.labels_changed || solvers[s]->converged() != solvers[0]->converged())
                throw std::runtime_error("changes or stop differ: " + at);
            const bool gemm = stats.gemm_certified + stats.verified_points > 0;
            if (gemm && stats.gemm_certified + stats.verified_points != n)
                throw std::runtime_error("certified + verified != n: " + at);
            if (stats.point_centroid_distances != n * k + stats.verified_points * k)
                throw std::runtime_error("distance count: " + at);
            if (s == 1) {
                totals.certified += stats.gemm_certified;
                totals.verified += stats.verified_points;
            }
        }
    }
    return totals;
}

// GemmAssign alone against the exact full search (kms::cpu::label_range), any k ≥ 2.
template <typename T>
cpu::GemmAssignCounts check_assign(const Matrix<double>& data, const Matrix<double>& centroid_rows,
                                   const std::string& where) {
    const Matrix<T> points = data.cast<T>(), centroids = centroid_rows.cast<T>();
    const std::size_t n = points.rows(), d = points.cols(), k = centroids.rows();
    std::vector<std::int32_t> exact(n, -1), gemm(n, -1);
    std::vector<T> scratch(cpu::kernel_scratch_size(d));
    cpu::label_range(points.data(), d, centroids.data(), k, 0, n, exact.data(), scratch.data());
    cpu::GemmAssign<T> assign;
    assign.prepare(centroids.data(), k, d);
    typename cpu::GemmAssign<T>::Scratch s;
    cpu::GemmAssignCounts counts;
    for (std::size_t begin = 0; begin < n; begin += 100)  // chunks that split the kernel's blocks
        assign.label_range(points.data(), centroids.data(), begin, std::min(n, begin + 100), gemm.data(), s, counts);
    assign.finish(points.data(), centroids.data(), gemm.data(), s, counts);
    if (gemm != exact) {
        std::size_t i = 0;
        while (gemm[i] == exact[i]) ++i;
        throw std::runtime_error("GemmAssign differs from the exact kernel at point " + std::to_string(i) + ": " +
                                 std::to_string(gemm[i]) + " against " + std::to_string(exact[i]) + " (" + where + ")");
    }
    if (counts.certified + counts.verified != n || counts.changed != n)
        throw std::runtime_error("counts do not add up: " + where);
    return counts;
}

// Both precisions, every level with a micro-kernel; returns the counts of the last run of each precision.
struct BothCounts {
    cpu::GemmAssignCounts f32, f64;
};
BothCounts check_both(const Matrix<double>& data, const Matrix<double>& centroids, const std::string& where) {
    RestoreLevel restore;
    BothCounts counts;
    for (SimdLevel level : gemm_levels()) {
        force_simd_level(level);
        const std::string at = where + " " + to_string(level);
        counts.f32 = check_assign<float>(data, centroids, at + " f32");
        counts.f64 = check_assign<double>(data, centroids, at + " f64");
    }
    return counts;
}

}  // namespace

class TestGemmAssign : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (gemm_levels().empty()) QSKIP("no GEMM micro-kernel on this CPU (needs AVX2 with FMA, or AVX-512)");
    }

    // Easy data: most points certified, labels and centroids bitwise the exact
    // kernel's every iteration, f32 and f64, weighted, 1, 2 and 3 threads, each level.
    void lockstep_with_exact_kernel() {
        RestoreLevel restore;
        const Matrix<double> data = blobs(2000, 48, 12, 11);
        const Matrix<double> initial = rows_of(data, 90, 12);  // d·k = 4320: above the GEMM's threshold
        std::vector<double> weights(data.rows());
        for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.25 + 2.0 * random_uniform(13, 1, i);
        for (SimdLevel level : gemm_levels()) {
            force_simd_level(level);
            for (Precision precision : {Precision::F32, Precision::F64})
                for (bool weighted : {false, true}) {
                    const std::string where = std::string(to_string(level)) + " " + std::string(to_string(precision)) +
                                              (weighted ? " weighted" : "");
                    LockstepTotals totals;
                    try {
                        totals = lockstep(data, initial, precision, weighted ? &weights : nullptr, 8, where);
                    } catch (const std::exception& error) {
                        QFAIL(error.what());
                    }
                    // Blobs 1 apart at spread 1: nearly every point is certified.
                    QVERIFY2(totals.certified > 8 * totals.verified, (where + ": " + std::to_string(totals.certified) +
                                                                      " certified, " + std::to_string(totals.verified) +
                                                                      " verified").c_str());
                }
        }
    }

    // Lockstep where the fallback must engage: duplicated points and duplicated
    // initial centroids (exact ties), and data at 1e6 with a tiny spread.
    void lockstep_adversarial() {
        RestoreLevel restore;
        Matrix<double> data = blobs(1200, 32, 6, 21);
        for (std::size_t i = 600; i < 1200; ++i)
            for (std::size_t t = 0; t < 32; ++t) data(i, t) = data(i % 37, t);  // duplicates
        Matrix<double> initial = rows_of(data, 130, 22);
        for (std::size_t t = 0; t < 32; ++t) initial(129, t) = initial(3, t);  // a duplicated centroid
        Matrix<double> far = blobs(1200, 32, 6, 23);
        for (std::size_t i = 0; i < far.rows(); ++i)
            for (std::size_t t = 0; t < far.cols(); ++t) far(i, t) = 1.0e6 + 1.0e-3 * far(i, t);
        const Matrix<double> far_initial = rows_of(far, 130, 24);
        for (SimdLevel level : gemm_levels()) {
            force_simd_level(level);
            for (Precision precision : {Precision::F32, Precision::F64}) {
                const std::string where = std::string(to_string(level)) + " " + std::string(to_string(precision));
                try {
                    const LockstepTotals ties = lockstep(data, initial, precision, nullptr, 6, where + " duplicates");
                    QVERIFY2(ties.verified > 0, (where + ": ties never fell back").c_str());
                    const LockstepTotals offset = lockstep(far, far_initial, precision, nullptr, 4, where + " 1e6");
                    // Cancellation: ‖x‖² ≈ 3.2e13 against gaps of ~1e-6: nothing can be certified.
                    QCOMPARE(offset.certified, std::uint64_t{0});
                    QVERIFY(offset.verified > 0);
                } catch (const std::exception& error) {
                    QFAIL(error.what());
                }
            }
        }
    }

    // Double data through the float GEMM (narrow): used while it certifies, and given
    // up for the double GEMM after a step that left more than an eighth to the exact search.
    void narrow_gemm_and_its_fallback() {
        RestoreLevel restore;
        const Matrix<double> data = blobs(600, 32, 8, 81);
        const Matrix<double> centroids = rows_of(data, 64, 82);
        for (SimdLevel level : gemm_levels()) {
            force_simd_level(level);
            cpu::GemmAssign<double> assign;
            assign.prepare(centroids.data(), 64, 32);
            QVERIFY(assign.narrow());
            assign.record({0, 900, 100});  // 10 % verified: kept
            assign.prepare(centroids.data(), 64, 32);
            QVERIFY(assign.narrow());
            assign.record({0, 800, 200});  // 20 %: declined from now on
            assign.prepare(centroids.data(), 64, 32);
            QVERIFY(!assign.narrow());
        }
        // Blobs at 1e4 (k = 130: d·k above the GEMM's threshold): float's 24 bits certify nothing (E ~ 5e4 against gaps of ~100),
        // double's certify nearly all. The first step is all exact, the later ones double.
        Matrix<double> far = blobs(800, 32, 6, 83);
        for (std::size_t i = 0; i < far.rows(); ++i)
            for (std::size_t t = 0; t < far.cols(); ++t) far(i, t) += 1.0e4;
        for (SimdLevel level : gemm_levels()) {
            force_simd_level(level);
            try {
                const LockstepTotals totals = lockstep(far, rows_of(far, 130, 84), Precision::F64, nullptr, 4,
                                                       std::string(to_string(level)) + " f64 at 1e4");
                QVERIFY2(totals.verified >= far.rows() && totals.certified >= 2 * far.rows(),
                         (std::to_string(totals.certified) + " certified, " + std::to_string(totals.verified) +
                          " verified").c_str());
            } catch (const std::exception& error) {
                QFAIL(error.what());
            }
        }
    }

    // The assignment alone, k = 1 .. 300 (panels partly filled, several panels),
    // blocks split by the chunks, d = 16 .. 1000.
    void shapes() {
        try {
            for (std::size_t k : {2, 3, 17, 33, 64, 65, 300}) {
                const Matrix<double> data = blobs(700, 16, 9, 30 + k);
                const BothCounts counts = check_both(data, rows_of(data, k, 31 + k), "k=" + std::to_string(k));
                QVERIFY(counts.f64.certified > 0);
            }
            const Matrix<double> single = blobs(100, 16, 3, 29);  // k = 1: nothing to compare, all exact
            QCOMPARE(check_both(single, rows_of(single, 1, 28), "k=1").f64.certified, std::uint64_t{0});
            const Matrix<double> wide = blobs(300, 1000, 5, 41);
            const BothCounts counts = check_both(wide, rows_of(wide, 40, 42), "d=1000");
            QVERIFY(counts.f64.certified > 0);
            const Matrix<double> odd = blobs(257, 37, 4, 43);
            check_both(odd, rows_of(odd, 70, 44), "d=37");
        } catch (const std::exception& error) {
            QFAIL(error.what());
        }
    }

    // Where the bound must refuse: points exactly halfway between two centroids,
    // duplicate centroids, huge and tiny norms mixed, NaN and inf coordinates, subnormals.
    void adversarial() {
        try {
            const std::size_t d = 16;
            // Equidistant: centroids ±e_0·(j+1) in pairs, points on the hyperplane x_0 = 0.
            Matrix<double> centroids(40, d), points(400, d);
            for (std::size_t j = 0; j < 40; ++j)
                for (std::size_t t = 0; t < d; ++t)
                    centroids(j, t) = t == 0 ? (j % 2 ? -1.0 : 1.0) * static_cast<double>(j / 2 + 1)
                                             : 0.5 * static_cast<double>(t % 3);
            for (std::size_t i = 0; i < points.rows(); ++i)
                for (std::size_t t = 0; t < d; ++t)
                    points(i, t) = t == 0 ? 0.0 : 0.5 * static_cast<double>(t % 3) + 0.25 * random_uniform(51, 1, i * d + t);
            BothCounts counts = check_both(points, centroids, "equidistant");
            QCOMPARE(counts.f32.certified, std::uint64_t{0});
            QCOMPARE(counts.f64.certified, std::uint64_t{0});

            // Duplicate centroids: every point's two nearest are tied.
            Matrix<double> twins(40, d);
            const Matrix<double> data = blobs(300, d, 20, 52);
            const Matrix<double> base = rows_of(data, 20, 53);
            for (std::size_t j = 0; j < 40; ++j)
                for (std::size_t t = 0; t < d; ++t) twins(j, t) = base(j / 2, t);
            counts = check_both(data, twins, "duplicate centroids");
            QCOMPARE(counts.f64.certified, std::uint64_t{0});

            // Mixed norms: half the points and centroids at scale 1e-3, half at 1e3.
            Matrix<double> mixed = blobs(600, d, 10, 54);
            for (std::size_t i = 0; i < mixed.rows(); ++i)
                for (std::size_t t = 0; t < d; ++t) mixed(i, t) *= i % 2 ? 1.0e3 : 1.0e-3;
            counts = check_both(mixed, rows_of(mixed, 50, 55), "mixed norms");
            QVERIFY(counts.f64.verified > 0);  // the small points: R ~ 1e4 hides their gaps

            // 1e6 + tiny spread, 20 dimensions: cancellation everywhere.
            Matrix<double> far = blobs(300, 20, 5, 56);
            for (std::size_t i = 0; i < far.rows(); ++i)
                for (std::size_t t = 0; t < far.cols(); ++t) far(i, t) = 1.0e6 + 1.0e-4 * far(i, t);
            counts = check_both(far, rows_of(far, 40, 57), "1e6 + tiny");
            QCOMPARE(counts.f32.certified, std::uint64_t{0});
            QCOMPARE(counts.f64.certified, std::uint64_t{0});

            // NaN and inf in some points (the solvers refuse such data; the kernel must not certify them).
            Matrix<double> special = blobs(200, d, 5, 58);
            special(3, 5) = std::numeric_limits<double>::quiet_NaN();
            special(7, 0) = std::numeric_limits<double>::infinity();
            special(11, 15) = -std::numeric_limits<double>::infinity();
            const Matrix<double> special_centroids = rows_of(blobs(200, d, 5, 58), 40, 59);
            counts = check_both(special, special_centroids, "nan and inf");
            QVERIFY(counts.f64.verified >= 3);
            // A non-finite centroid turns the GEMM off for the step: all exact.
            Matrix<double> bad_centroids = special_centroids;
            bad_centroids(4, 2) = std::numeric_limits<double>::infinity();
            counts = check_both(blobs(200, d, 5, 60), bad_centroids, "inf centroid");
            QCOMPARE(counts.f64.certified, std::uint64_t{0});

            // Subnormal and tiny data (float: 1e-41 is subnormal), and data near float's overflow.
            for (double scale : {1.0e-41, 1.0e-300, 1.0e18, 1.0e150}) {
                Matrix<double> scaled = blobs(200, d, 5, 61);
                for (std::size_t i = 0; i < scaled.rows(); ++i)
                    for (std::size_t t = 0; t < d; ++t) scaled(i, t) *= scale;
                if (scale > 1.0e38 || scale < 1.0e-44) {  // outside float's range: double only
                    RestoreLevel restore;
                    for (SimdLevel level : gemm_levels()) {
                        force_simd_level(level);
                        check_assign<double>(scaled, rows_of(scaled, 40, 62), "scale " + std::to_string(scale));
                    }
                } else {
                    check_both(scaled, rows_of(scaled, 40, 62), "scale " + std::to_string(scale));
                }
            }
        } catch (const std::exception& error) {
            QFAIL(error.what());
        }
    }

    // The switch: --gemm-filter off (SolverConfig::gemm_filter = false) and shapes
    // below the thresholds count nothing; the reference path is unchanged.
    void off_and_below_thresholds() {
        const Matrix<double> data = blobs(700, 160, 5, 70);
        auto points = std::make_shared<const Matrix<double>>(data);
        struct Shape {
            std::size_t d, k;
            bool gemm;
        };
        for (Shape shape : {Shape{16, 300, false}, Shape{8, 600, true}, Shape{160, 31, true}, Shape{16, 100, true}}) {
            Matrix<double> cut(data.rows(), shape.d);
            for (std::size_t i = 0; i < data.rows(); ++i)
                for (std::size_t t = 0; t < shape.d; ++t) cut(i, t) = data(i, t);
            auto solver = lloyd(Backend::OpenMP, Precision::F32, 2, shape.gemm);
            solver->set_data(std::make_shared<const Matrix<double>>(cut));
            solver->set_initial_centroids(rows_of(cut, shape.k, 71));
            const IterationStats stats = solver->step();
            QCOMPARE(stats.gemm_certified, std::uint64_t{0});
            QCOMPARE(stats.verified_points, std::uint64_t{0});
        }
        // finalize_labels() goes through the GEMM too and agrees with the exact kernel.
        auto exact = lloyd(Backend::Sequential, Precision::F64, 1, false);
        auto gemm = lloyd(Backend::OpenMP, Precision::F64, 2, true);
        for (Solver* solver : {exact.get(), gemm.get()}) {
            solver->set_data(points);
            solver->set_initial_centroids(rows_of(data, 60, 72));
            solver->step();
        }
        QCOMPARE(gemm->finalize_labels(), exact->finalize_labels());
        QCOMPARE(gemm->labels(), exact->labels());
    }

    // --gemm-filter on|off, and --int8-filter as its older spelling (run files keep it).
    void option_spellings() {
        const auto filter = [](std::vector<std::string> args) {
            args.insert(args.end(), {"--k", "3"});
            return fit_options_from(ParsedOptions(args, {fit_option_table()})).solver.gemm_filter;
        };
        QVERIFY(filter({}));
        QVERIFY(!filter({"--gemm-filter", "off"}));
        QVERIFY(!filter({"--int8-filter", "off"}));
        QVERIFY(filter({"--int8-filter=on"}));
        QVERIFY_THROWS_EXCEPTION(UsageError, filter({"--gemm-filter", "on", "--int8-filter", "on"}));
        QVERIFY_THROWS_EXCEPTION(UsageError, filter({"--gemm-filter", "yes"}));
    }
};

QTEST_GUILESS_MAIN(TestGemmAssign)
#include "test_gemm_assign.moc"
