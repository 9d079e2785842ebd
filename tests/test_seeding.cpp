// Seeding with bounds and k-means‖ (issue 41): the bounded k-means++ and greedy
// k-means++ (a tree of boxes) choose bitwise the plain passes' centres on data made to
// break them (ties, duplicates, fewer distinct points than k, huge offsets, values
// whose squares are subnormal or beyond 2^900, float data, weights with zeros, any
// thread count) with fewer distances; k-means‖ is deterministic for a seed across
// thread counts, draws its centres from the data and seeds about as well as
// k-means++; its options parse from the one option table.
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/options.hpp"
#include "../core/src/init/bounded_nearest.hpp"

namespace {

using kms::Matrix;

enum class Shape { Uniform, Blobs, Grid, Duplicates, Offset, Tiny, Subnormal, Huge, Wide };

Matrix<double> make(Shape shape, std::size_t n, std::size_t d, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(-5.0, 5.0);
    Matrix<double> points(n, d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            double& x = points(i, j);
            switch (shape) {
                case Shape::Uniform: x = uniform(random); break;
                case Shape::Blobs: x = 10.0 * static_cast<double>((i * 7919) % 9 + j) + normal(random); break;
                case Shape::Grid: x = static_cast<double>((i / (j + 1)) % 23); break;  // many equal distances
                case Shape::Duplicates: x = static_cast<double>((i * 13) % 25 + 3 * j); break;  // 25 distinct points
                case Shape::Offset: x = 1e8 + normal(random); break;
                case Shape::Tiny: x = 1e-150 * normal(random); break;       // D below 2^-900
                case Shape::Subnormal: x = 1e-158 * normal(random); break;  // squares subnormal or 0
                case Shape::Huge: x = 1e138 * normal(random); break;        // D above 2^900
                case Shape::Wide: x = normal(random) * (j % 3 == 0 ? 100.0 : 1.0); break;
            }
        }
    return points;
}

struct Case {
    Shape shape;
    std::size_t n, d, k;
};

Matrix<double> seed_points(const Matrix<double>& points, bool as_float, std::size_t k, kms::InitOptions options) {
    return as_float ? kms::initialize_centroids(points.cast<float>(), k, options)
                    : kms::initialize_centroids(points, k, options);
}

// The k-means potential Σ min_c ||x - c||².
double potential(const Matrix<double>& points, const Matrix<double>& centres) {
    double total = 0.0;
    for (std::size_t i = 0; i < points.rows(); ++i) {
        double best = INFINITY;
        for (std::size_t c = 0; c < centres.rows(); ++c) {
            double s = 0.0;
            for (std::size_t j = 0; j < points.cols(); ++j) {
                const double diff = points(i, j) - centres(c, j);
                s += diff * diff;
            }
            best = std::min(best, s);
        }
        total += best;
    }
    return total;
}

bool rows_drawn_from(const Matrix<double>& centres, const Matrix<double>& points) {
    std::map<std::vector<double>, int> available;
    for (std::size_t i = 0; i < points.rows(); ++i) ++available[std::vector<double>(points.row(i), points.row(i) + points.cols())];
    for (std::size_t c = 0; c < centres.rows(); ++c)
        if (--available[std::vector<double>(centres.row(c), centres.row(c) + centres.cols())] < 0) return false;
    return true;
}

}  // namespace

Q_DECLARE_METATYPE(Case)

class TestSeeding : public QObject {
    Q_OBJECT

    static void addCases() {
        QTest::addColumn<Case>("shape");
        QTest::newRow("uniform 9000x2 k=60 (3 blocks)") << Case{Shape::Uniform, 9000, 2, 60};
        QTest::newRow("blobs 5000x3 k=40") << Case{Shape::Blobs, 5000, 3, 40};
        QTest::newRow("grid ties 6000x2 k=50") << Case{Shape::Grid, 6000, 2, 50};
        QTest::newRow("25 distinct points, k=40") << Case{Shape::Duplicates, 3000, 2, 40};
        QTest::newRow("offset 1e8 5000x2 k=30") << Case{Shape::Offset, 5000, 2, 30};
        QTest::newRow("tiny 1e-150 3000x3 k=20") << Case{Shape::Tiny, 3000, 3, 20};
        QTest::newRow("subnormal squares 2000x2 k=12") << Case{Shape::Subnormal, 2000, 2, 12};
        QTest::newRow("huge 1e138 2000x2 k=15") << Case{Shape::Huge, 2000, 2, 15};
        QTest::newRow("d=17 2500 k=25") << Case{Shape::Wide, 2500, 17, 25};
        QTest::newRow("k = n = 200") << Case{Shape::Uniform, 200, 2, 200};
        QTest::newRow("one centre") << Case{Shape::Blobs, 1000, 2, 1};
    }

private slots:
    // Bounds on and off: the same centres, bit for bit, for k-means++ and greedy,
    // weighted or not, double and float, 1 and 3 threads; never more distances.
    void boundedIsPlain_data() { addCases(); }
    void boundedIsPlain() {
        QFETCH(Case, shape);
        const Matrix<double> points = make(shape.shape, shape.n, shape.d, shape.n + shape.k);
        std::vector<double> weights(shape.n);
        for (std::size_t i = 0; i < shape.n; ++i) weights[i] = static_cast<double>((i * 7) % 5) * (i % 11 == 0 ? 1e3 : 1.0);
        for (kms::InitMethod method : {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::GreedyKMeansPlusPlus})
            for (bool weighted : {false, true})
                for (bool as_float : {false, true})
                    for (std::uint64_t seed : {1u, 2u}) {
                        if (as_float && shape.shape == Shape::Huge) continue;  // beyond float's range
                        kms::InitOptions options;
                        options.method = method;
                        options.seed = seed;
                        options.threads = 1;
                        if (weighted) options.sample_weight = weights;
                        options.bounds = kms::SeedingBounds::Off;
                        kms::InitStats plain_stats;
                        options.stats = &plain_stats;
                        const Matrix<double> plain = seed_points(points, as_float, shape.k, options);
                        for (int threads : {1, 3}) {
                            options.bounds = kms::SeedingBounds::On;
                            options.threads = threads;
                            kms::InitStats stats;
                            options.stats = &stats;
                            const Matrix<double> bounded = seed_points(points, as_float, shape.k, options);
                            const QString what = QString("%1 weighted=%2 float=%3 seed=%4 threads=%5")
                                                     .arg(QString::fromStdString(std::string(kms::to_string(method))))
                                                     .arg(weighted).arg(as_float).arg(seed).arg(threads);
                            QVERIFY2(bounded == plain, qPrintable(what));
                            QVERIFY2(stats.point_centroid_distances <= plain_stats.point_centroid_distances, qPrintable(what));
                        }
                    }
    }

    // The bounds pay: far fewer distances on clustered data, and the counts reach
    // the statistics (the CLI's JSON summary reads them).
    void boundsSkipDistances() {
        const auto data = kms::generate_dataset("blobs:n=40000,k=20,d=2", 3);
        kms::InitOptions options;
        options.seed = 4;
        options.threads = 1;  // counts, not threads, are checked here
        kms::InitStats plain, bounded;
        options.bounds = kms::SeedingBounds::Off;
        options.stats = &plain;
        const Matrix<double> a = kms::initialize_centroids(data.points, 200, options);
        options.bounds = kms::SeedingBounds::On;
        options.stats = &bounded;
        const Matrix<double> b = kms::initialize_centroids(data.points, 200, options);
        QVERIFY(a == b);
        QCOMPARE(plain.point_centroid_distances, std::uint64_t(40000) * 200);
        QCOMPARE(plain.centroid_centroid_distances, std::uint64_t(0));
        QVERIFY2(bounded.point_centroid_distances * 8 < plain.point_centroid_distances,
                 qPrintable(QString::number(bounded.point_centroid_distances)));
        // The bounds' own distances (centre to a tree node's box): counted, and far fewer than the points'.
        QVERIFY(bounded.centroid_centroid_distances > 0 &&
                bounded.centroid_centroid_distances < bounded.point_centroid_distances);
        QVERIFY(bounded.time_ms > 0.0);
        QVERIFY(bounded.bounded && !plain.bounded);
        // Auto: the bounds only from k = kAutoBoundsCpuK on (below, the plain passes were as fast).
        options.bounds = kms::SeedingBounds::Auto;
        kms::InitStats automatic;
        options.stats = &automatic;
        QVERIFY(kms::initialize_centroids(data.points, 200, options) == a);
        automatic = {};
        kms::initialize_centroids(data.points, kms::kAutoBoundsCpuK - 1, options);
        QVERIFY(!automatic.bounded);
        automatic = {};
        kms::initialize_centroids(data.points, kms::kAutoBoundsCpuK, options);
        QVERIFY(automatic.bounded);
        automatic = {};  // ... and up to d = kAutoBoundsD
        kms::initialize_centroids(kms::generate_dataset("blobs:n=2000,k=5,d=5", 3).points, kms::kAutoBoundsCpuK, options);
        QVERIFY(!automatic.bounded);
        automatic = {};  // ... and up to kAutoBoundsThreads threads (past them the plain pass shares out better)
        options.threads = kms::kAutoBoundsThreads + 1;
        QVERIFY(kms::initialize_centroids(data.points, kms::kAutoBoundsCpuK, options) ==
                kms::initialize_centroids(data.points, kms::kAutoBoundsCpuK, [&] {
                    kms::InitOptions on = options;
                    on.bounds = kms::SeedingBounds::On;
                    on.stats = nullptr;
                    return on;
                }()));
        QVERIFY(!automatic.bounded);
    }

    // k-means‖: the same centres for 1, 2 and 5 threads and with bounds off (the
    // rounds' nearest-candidate updates skip distances too), rows of the data, k
    // distinct rows when there are k distinct points; float data as its widened values.
    void parallelDeterministic_data() { addCases(); }
    void parallelDeterministic() {
        QFETCH(Case, shape);
        if (shape.shape == Shape::Huge) QSKIP("D above 2^900 overflows the candidates' weighted sums alike");
        const Matrix<double> points = make(shape.shape, shape.n, shape.d, shape.n + shape.k);
        std::vector<double> weights(shape.n);
        for (std::size_t i = 0; i < shape.n; ++i) weights[i] = static_cast<double>((i * 7) % 5);
        for (bool weighted : {false, true}) {
            kms::InitOptions options;
            options.method = kms::InitMethod::KMeansParallel;
            options.seed = 7;
            options.threads = 1;
            if (weighted) options.sample_weight = weights;
            kms::InitStats stats;
            options.stats = &stats;
            const Matrix<double> one = kms::initialize_centroids(points, shape.k, options);
            QCOMPARE(one.rows(), shape.k);
            QVERIFY(rows_drawn_from(one, points));
            QVERIFY(stats.candidates >= shape.k);
            for (int threads : {2, 5}) {
                options.threads = threads;
                QVERIFY2(kms::initialize_centroids(points, shape.k, options) == one, qPrintable(QString::number(threads)));
            }
            options.bounds = kms::SeedingBounds::Off;
            QVERIFY(kms::initialize_centroids(points, shape.k, options) == one);
            options.bounds = kms::SeedingBounds::On;
            QVERIFY(seed_points(points, true, shape.k, options) ==
                    kms::initialize_centroids(Matrix<double>(points.cast<float>().cast<double>()), shape.k, options));
            if (!weighted) {  // as many distinct centres as there can be
                std::set<std::vector<double>> distinct, available;
                for (std::size_t c = 0; c < one.rows(); ++c) distinct.insert(std::vector<double>(one.row(c), one.row(c) + one.cols()));
                for (std::size_t i = 0; i < points.rows(); ++i)
                    available.insert(std::vector<double>(points.row(i), points.row(i) + points.cols()));
                QCOMPARE(distinct.size(), std::min(shape.k, available.size()));
            }
        }
    }

    // Rounds and oversampling do what they say; the seeding is about as good as
    // k-means++ (its potential, mean of 6 seeds, within 30 %) on clustered data.
    void parallelRoundsAndQuality() {
        const auto data = kms::generate_dataset("blobs:n=20000,k=30,d=2", 5);
        const std::size_t k = 30;
        double plus_plus = 0.0, parallel = 0.0;
        for (std::uint64_t seed = 0; seed < 6; ++seed) {
            kms::InitOptions options;
            options.seed = seed;
            plus_plus += potential(data.points, kms::initialize_centroids(data.points, k, options));
            options.method = kms::InitMethod::KMeansParallel;
            kms::InitStats stats;
            options.stats = &stats;
            parallel += potential(data.points, kms::initialize_centroids(data.points, k, options));
            QCOMPARE(stats.rounds, 5);
            // 1 + Σ of 5 rounds' draws of expected ℓ = 2k each (at most; fewer once D is 0)
            QVERIFY2(stats.candidates > 4 * k && stats.candidates < 16 * k, qPrintable(QString::number(stats.candidates)));
        }
        QVERIFY2(parallel < 1.3 * plus_plus, qPrintable(QString("%1 vs %2").arg(parallel).arg(plus_plus)));

        kms::InitOptions options;
        options.method = kms::InitMethod::KMeansParallel;
        options.parallel_rounds = 2;
        options.oversampling = 0.5;
        kms::InitStats stats;
        options.stats = &stats;
        kms::initialize_centroids(data.points, k, options);
        QCOMPARE(stats.rounds, 2);
        QVERIFY2(stats.candidates < 3 * k, qPrintable(QString::number(stats.candidates)));
        options.parallel_rounds = 0;
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::initialize_centroids(data.points, k, options));
        options.parallel_rounds = 1;
        options.oversampling = 0.0;
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::initialize_centroids(data.points, k, options));
    }

    // The option table: --init kmeans-parallel (also k-means||), --oversampling,
    // --init-rounds, --init-bounds; bad values are usage errors naming the option.
    void commandLineOptions() {
        const auto parse = [](std::vector<std::string> args) {
            args.insert(args.begin(), {"--k", "3"});
            return kms::fit_options_from(kms::ParsedOptions(args, {kms::fit_option_table()}));
        };
        const kms::FitOptions defaults = parse({});
        QCOMPARE(defaults.init.method, kms::InitMethod::KMeansPlusPlus);
        QCOMPARE(defaults.init.bounds, kms::SeedingBounds::Auto);
        QCOMPARE(defaults.init.oversampling, 2.0);
        QCOMPARE(defaults.init.parallel_rounds, 5);
        const kms::FitOptions given =
            parse({"--init", "kmeans-parallel", "--oversampling", "0.5", "--init-rounds", "3", "--init-bounds", "off"});
        QCOMPARE(given.init.method, kms::InitMethod::KMeansParallel);
        QCOMPARE(given.init.oversampling, 0.5);
        QCOMPARE(given.init.parallel_rounds, 3);
        QCOMPARE(given.init.bounds, kms::SeedingBounds::Off);
        QCOMPARE(parse({"--init", "k-means||"}).init.method, kms::InitMethod::KMeansParallel);
        QCOMPARE(kms::parse_init_method(kms::to_string(kms::InitMethod::KMeansParallel)),
                 std::optional(kms::InitMethod::KMeansParallel));
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse({"--init-bounds", "maybe"}));
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse({"--oversampling", "0"}));
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse({"--init-rounds", "0"}));
    }

    // The documented order (core/src/init/init.cpp), transcribed here on its own: a
    // block's sum is the sum of its 64-point sub-blocks' sums (each in increasing i),
    // and D² sampling walks block, sub-block, point. The keeper's block sums, total
    // and picks equal the transcription bit for bit (weighted or not; a last block and
    // sub-block cut short) after single and batched centres; a block summed point by
    // point (the order before) differs from it in some block here.
    void blockSumsFollowTheDocumentedOrder() {
        const Matrix<double> points = make(Shape::Uniform, 9000, 2, 11);
        std::vector<double> weights(points.rows());
        for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = 0.25 + static_cast<double>((i * 7) % 5);
        bool flat_differs = false;
        for (bool weighted : {false, true}) {
            kms::seeding::BoundedNearest<double> nearest(points, 2, weighted ? weights.data() : nullptr, {}, "x");
            for (std::size_t c = 0; c < 4; ++c) nearest.add_centre(points.row(c * 997));
            std::vector<std::vector<double>> batch;
            for (std::size_t c = 0; c < 30; ++c) batch.emplace_back(points.row(5000 + c * 13), points.row(5000 + c * 13) + 2);
            nearest.add_centres(batch);
            const std::size_t n = points.rows();
            std::vector<double> sums;
            double total = 0.0;
            for (std::size_t begin = 0; begin < n; begin += 4096) {
                double sum = 0.0, flat = 0.0;
                for (std::size_t sub = begin; sub < std::min(n, begin + 4096); sub += 64) {
                    double part = 0.0;
                    for (std::size_t i = sub; i < std::min({n, begin + 4096, sub + 64}); ++i) {
                        part += nearest.mass(i);
                        flat += nearest.mass(i);
                    }
                    sum += part;
                }
                flat_differs |= flat != sum;
                sums.push_back(sum);
                total += sum;
            }
            QVERIFY(nearest.block_sums() == sums);
            QCOMPARE(nearest.total(), total);
            for (int draw = 0; draw < 400; ++draw) {
                const double u = (draw + 0.5) / 400.0, target = u * total;
                std::size_t pick = n;
                double running = 0.0;
                for (std::size_t b = 0; b < sums.size() && pick == n; ++b) {
                    if (!(running + sums[b] > target)) {
                        running += sums[b];
                        continue;
                    }
                    for (std::size_t sub = b * 4096; sub < std::min(n, (b + 1) * 4096) && pick == n; sub += 64) {
                        const std::size_t end = std::min(n, sub + 64);
                        double part = 0.0;
                        for (std::size_t i = sub; i < end; ++i) part += nearest.mass(i);
                        if (!(running + part > target)) {
                            running += part;
                            continue;
                        }
                        for (std::size_t i = sub; i < end && pick == n; ++i)
                            if ((running += nearest.mass(i)) > target) pick = i;
                        QVERIFY2(pick < n, "a draw the transcription's rounding leaves to the fallback: pick other draws");
                    }
                }
                QCOMPARE(nearest.sample(u), pick);
            }
        }
        QVERIFY(flat_differs);
    }

    // Past 2^17 points the tree's walks and k-means‖'s filter pass share subtrees out
    // among threads (bounded_nearest.cpp's kParallelPoints; the cases above stay
    // below it): 3 threads give one thread's centres (the TSan lane runs this; 2.5 s
    // there for four cases, so two). 300000 × 2 points, k = 8 (a centre reaches past
    // 2^17 points in the first rounds).
    void parallelWalksMatchOneThread() {
        const Matrix<double> points = make(Shape::Uniform, 300000, 2, 5);
        std::vector<double> weights(points.rows());
        for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<double>(i % 3);
        for (kms::InitMethod method : {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::KMeansParallel}) {
            kms::InitOptions options;
            options.method = method;
            options.seed = 3;
            if (method == kms::InitMethod::KMeansParallel) options.sample_weight = weights;  // weighted here
            options.threads = 1;
            options.bounds = kms::SeedingBounds::Off;
            const Matrix<double> one = kms::initialize_centroids(points, 8, options);
            options.threads = 3;
            options.bounds = kms::SeedingBounds::On;
            QVERIFY2(kms::initialize_centroids(points, 8, options) == one, kms::to_string(method).data());
        }
    }

    // k-means‖'s batch pass (BoundedNearest::add_centres: the tree's filter, its loops
    // unrolled for d = 1..4, a generic loop above) gives each point the D and the
    // centre that the plain rule gives, one centre at a time in order (D = s when
    // s < D: the nearest, a tie to the earlier), so the candidates' weights (points
    // per owner) are the brute force's and add up to n. d = 1..6 on a grid (many equal
    // distances) and uniform data, float and double, a batch with repeated centres,
    // 1 and 3 threads past kParallelPoints (the subtrees shared out).
    void batchTakesEachPointsNearest_data() {
        QTest::addColumn<int>("shape");
        QTest::addColumn<int>("d");
        for (int d = 1; d <= 6; ++d) {
            QTest::addRow("grid d=%d", d) << static_cast<int>(Shape::Grid) << d;
            QTest::addRow("uniform d=%d", d) << static_cast<int>(Shape::Uniform) << d;
        }
    }
    void batchTakesEachPointsNearest() {
        QFETCH(int, shape);
        QFETCH(int, d);
        const std::size_t n = 140000, dims = static_cast<std::size_t>(d);
        const Matrix<double> points = make(static_cast<Shape>(shape), n, dims, 17 + dims);
        std::vector<std::vector<double>> first{{points.row(7), points.row(7) + dims}}, one, two;
        for (std::size_t c = 0; c < 150; ++c) one.emplace_back(points.row(c * 911 + 3), points.row(c * 911 + 3) + dims);
        for (std::size_t c = 0; c < 150; ++c) two.emplace_back(points.row(c * 577 + 1), points.row(c * 577 + 1) + dims);
        for (std::size_t c = 0; c < 20; ++c) two.push_back(one[c * 7]);  // the same centre again: its first stays
        // The plain rule, centre by centre.
        std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
        std::vector<std::uint32_t> owner(n, 0);
        std::uint32_t number = 0;
        const auto plain = [&](const std::vector<std::vector<double>>& centres) {
            for (const std::vector<double>& centre : centres) {
                for (std::size_t i = 0; i < n; ++i) {
                    const double s = kms::squared_distance<double>(points.row(i), centre.data(), dims);
                    if (s < nearest[i]) {
                        nearest[i] = s;
                        owner[i] = number;
                    }
                }
                ++number;
            }
        };
        plain(first);
        plain(one);
        const std::vector<double> after_one = nearest;
        const std::vector<std::uint32_t> owner_one = owner;
        plain(two);
        std::vector<double> weight(number, 0.0);
        for (std::size_t i = 0; i < n; ++i) weight[owner[i]] += 1.0;
        for (bool as_float : {false, true}) {
            if (as_float && d != 2) continue;
            const Matrix<float> narrow = points.cast<float>();
            const Matrix<double> wide(narrow.cast<double>());
            for (int threads : {1, 3}) {
                const auto check = [&](auto& keeper) {
                    keeper.add_centres(first);
                    keeper.add_centres(one);
                    if (!as_float) {
                        for (std::size_t i = 0; i < n; ++i) QCOMPARE(keeper.mass(i), after_one[i]);
                        QVERIFY(keeper.owner() == owner_one);
                    }
                    keeper.add_centres(two);
                    QCOMPARE(keeper.centres(), std::size_t{number});
                    if (as_float) return;
                    for (std::size_t i = 0; i < n; ++i) QCOMPARE(keeper.mass(i), nearest[i]);
                    QVERIFY(keeper.owner() == owner);
                    std::vector<double> counted(number, 0.0);
                    double sum = 0.0;
                    for (std::uint32_t o : keeper.owner()) counted[o] += 1.0;
                    for (double w : counted) sum += w;
                    QVERIFY(counted == weight);
                    QCOMPARE(sum, static_cast<double>(n));
                };
                if (as_float) {
                    // Float rows seed as their widened values do (the double keeper on them).
                    kms::seeding::BoundedNearest<float> narrow_keeper(narrow, threads, nullptr, {}, "x");
                    kms::seeding::BoundedNearest<double> wide_keeper(wide, threads, nullptr, {}, "x");
                    check(narrow_keeper);
                    check(wide_keeper);
                    for (std::size_t i = 0; i < n; ++i) QCOMPARE(narrow_keeper.mass(i), wide_keeper.mass(i));
                    QVERIFY(narrow_keeper.owner() == wide_keeper.owner());
                } else {
                    kms::seeding::BoundedNearest<double> keeper(points, threads, nullptr, {}, "x");
                    check(keeper);
                }
            }
        }
    }

    // k-means‖ gives the same centres at 1, 2 and 3 threads past kParallelPoints,
    // unweighted, for d = 2 (the unrolled loops), 3 and 5 (the generic loop).
    void parallelSameCentresAtAnyThreadCount_data() {
        QTest::addColumn<int>("d");
        for (int d : {2, 3, 5}) QTest::addRow("d=%d", d) << d;
    }
    void parallelSameCentresAtAnyThreadCount() {
        QFETCH(int, d);
        const Matrix<double> points = make(Shape::Blobs, 200000, static_cast<std::size_t>(d), 23);
        kms::InitOptions options;
        options.method = kms::InitMethod::KMeansParallel;
        options.seed = 11;
        options.threads = 1;
        kms::InitStats stats;
        options.stats = &stats;
        const Matrix<double> one = kms::initialize_centroids(points, 40, options);
        QVERIFY(stats.candidates >= 40);
        for (int threads : {2, 3}) {
            options.threads = threads;
            QVERIFY2(kms::initialize_centroids(points, 40, options) == one, qPrintable(QString::number(threads)));
        }
    }

    // A stop request ends each bounded pass inside its loops, not at the next round
    // (issue 40: a round over 10^7 points answered Ctrl-C after 244-309 ms): the first
    // centre's pass, a later centre, greedy's potentials and a k-means‖ batch (both
    // ways: one by one beside few centres, and the batch search) throw kms::Cancelled
    // naming the source. Each call gets a fresh keeper: a stopped one is unusable.
    void boundedPassesStop() {
        const Matrix<double> points = make(Shape::Uniform, 9000, 2, 7);
        const auto row = [&](std::size_t i) { return std::vector<double>(points.row(i), points.row(i) + points.cols()); };
        const auto rows = [&](std::size_t first, std::size_t count) {
            std::vector<std::vector<double>> out;
            for (std::size_t i = first; i < first + count; ++i) out.push_back(row(i));
            return out;
        };
        using Keeper = kms::seeding::BoundedNearest<double>;
        const auto stopped_in = [&](const char* what, std::size_t centres, const std::function<void(Keeper&)>& call) {
            std::stop_source stop;
            Keeper nearest(points, 2, nullptr, stop.get_token(), "cancel-me");
            for (std::size_t c = 0; c < centres; ++c) nearest.add_centre(row(c).data());
            stop.request_stop();
            try {
                call(nearest);
                QFAIL(qPrintable(QString("%1 ran to its end after a stop request").arg(what)));
            } catch (const kms::Cancelled& error) {
                QCOMPARE(std::string(error.what()), std::string("cancel-me: initialisation cancelled"));
            }
        };
        stopped_in("the first centre", 0, [&](Keeper& k) { k.add_centre(row(0).data()); });
        stopped_in("a later centre", 3, [&](Keeper& k) { k.add_centre(row(100).data()); });
        stopped_in("greedy's potentials", 3, [&](Keeper& k) { k.potentials(rows(100, 3)); });
        stopped_in("a batch beside few centres", 2, [&](Keeper& k) { k.add_centres(rows(100, 40)); });
        stopped_in("a batch search", 60, [&](Keeper& k) { k.add_centres(rows(100, 40)); });
        // An unrequested stop changes nothing: the same masses as a keeper without one.
        std::stop_source never;
        Keeper watched(points, 2, nullptr, never.get_token(), "x"), plain(points, 2, nullptr, {}, "x");
        for (Keeper* keeper : {&watched, &plain}) {
            for (std::size_t c = 0; c < 5; ++c) keeper->add_centre(row(c * 11).data());
            keeper->add_centres(rows(200, 30));
        }
        QCOMPARE(watched.total(), plain.total());
        for (std::size_t i = 0; i < points.rows(); ++i) QCOMPARE(watched.mass(i), plain.mass(i));
    }
};

QTEST_APPLESS_MAIN(TestSeeding)
#include "test_seeding.moc"
