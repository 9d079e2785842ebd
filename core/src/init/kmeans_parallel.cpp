// k-means‖ (Bahmani, Moseley, Vattani, Kumar & Vassilvitskii, VLDB 2012), one process.
//
// ORDER (deterministic for a seed, whatever the thread count):
//  * The first candidate is k-means++'s first centre (init.cpp's streams 0x1171/0x1176).
//  * Round r = 1, 2, ...: ψ = Σ mass(i) in the blocked order of init.cpp (mass = w·D);
//    point i with mass > 0 is taken when random_uniform(seed, 0x1178, r·n + i) <
//    ℓ·mass(i)/ψ, ℓ = oversampling·k; the round's candidates in increasing i. Then
//    every point's D drops to its nearest new candidate's distance where that is
//    smaller (BoundedNearest::add_centres: the triangle inequality skips most
//    distances; which candidate a tie goes to is fixed by the data, not the threads).
//  * `parallel_rounds` rounds; more (up to 64) while fewer than k candidates came
//    and some D is positive; then, with fewer than k still (fewer distinct points
//    than k), the m-th point not taken with m = random_below(seed, 0x1174, s,
//    points not taken) for s = 0, 1, ... (of positive weight while there are any).
//  * Candidate c weighs Σ w(i) over the points whose D it gave (1 per point
//    unweighted), summed in increasing i; the k centres are weighted k-means++ over
//    the candidates in their order with the same seed (InitOptions::bounds kept).
#include <omp.h>

#include <cmath>
#include <vector>

#include "bounded_nearest.hpp"
#include "kms/error.hpp"
#include "kms/random.hpp"
#include "seeding.hpp"

namespace kms::seeding {
namespace {

template <typename T>
std::vector<double> widened_row(const Matrix<T>& points, std::size_t i) {
    return std::vector<double>(points.row(i), points.row(i) + points.cols());
}

template <typename T>
Matrix<double> parallel_init(const Matrix<T>& points, std::size_t k, const InitOptions& options,
                             const std::string& source_name) {
    const std::size_t n = points.rows(), d = points.cols();
    if (n >= (std::size_t{1} << 32)) throw Error("k-means‖ seeds fewer than 2^32 points");
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data();
    const std::uint64_t seed = options.seed;
    BoundedNearest<T> nearest(points, threads, weight, options.cancel, source_name);
    std::vector<std::size_t> chosen;  // candidate c is row chosen[c]: the centres' order in `nearest`
    std::vector<char> taken(n, 0);
    const auto check_total = [&] {
        if (!std::isfinite(nearest.total()))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
    };

    std::size_t first = 0;
    if (weight) {
        const auto by_weight = [weight](std::size_t i) { return weight[i]; };
        const std::vector<double> sums = block_sums_of(n, by_weight);
        double total = 0.0;
        for (double sum : sums) total += sum;
        first = blocked_sample(sums, total, random_uniform(seed, kStreamWeightedFirst, 0), n, by_weight);
    } else {
        first = random_below(seed, kStreamFirstCentre, 0, n);
    }
    nearest.add_centre(widened_row(points, first).data());
    chosen.push_back(first);
    taken[first] = 1;
    check_total();

    const double ell = options.oversampling * static_cast<double>(k);
    const std::size_t blocks = (n + kBlockSize - 1) / kBlockSize;
    int rounds = 0;
    const int most = options.parallel_rounds + 64;
    while (nearest.total() > 0.0 && (rounds < options.parallel_rounds || (chosen.size() < k && rounds < most))) {
        if (options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
        ++rounds;
        const double psi = nearest.total();
        const std::uint64_t base = static_cast<std::uint64_t>(rounds) * n;
        std::vector<std::vector<std::size_t>> picks(blocks);
        RegionGuard guard;
#pragma omp parallel for num_threads(threads) schedule(static) if (blocks > 1)
        for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
            const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
            for (std::size_t i = begin; i < std::min(n, begin + kBlockSize) && !guard.failed(); ++i) {
                const double mass = nearest.mass(i);
                if (!(mass > 0.0)) continue;
                if (random_uniform(seed, kStreamParallel, base + i) < ell * mass / psi)
                    guard.run([&] { picks[static_cast<std::size_t>(b)].push_back(i); });
            }
        }
        guard.rethrow();
        std::vector<std::vector<double>> rows;
        for (const std::vector<std::size_t>& block : picks)
            for (std::size_t i : block) {
                rows.push_back(widened_row(points, i));
                chosen.push_back(i);
                taken[i] = 1;
            }
        nearest.add_centres(rows);
        check_total();
    }
    if (chosen.size() < k) {  // fewer distinct points than k
        std::vector<std::vector<double>> rows;
        std::size_t positive_left = 0;
        if (weight)
            for (std::size_t i = 0; i < n; ++i) positive_left += !taken[i] && weight[i] > 0.0;
        for (std::uint64_t step = 0; chosen.size() < k; ++step) {
            const bool positive_only = positive_left > 0;
            std::uint64_t m = random_below(seed, kStreamFallback, step, positive_only ? positive_left : n - chosen.size());
            std::size_t pick = n;
            for (std::size_t i = 0; i < n && pick == n; ++i)
                if (!taken[i] && (!positive_only || weight[i] > 0.0) && m-- == 0) pick = i;
            if (pick == n) throw Error("k-means‖ ran out of points to take");  // unreachable: k <= n
            if (positive_only) --positive_left;
            taken[pick] = 1;
            chosen.push_back(pick);
            rows.push_back(widened_row(points, pick));
        }
        nearest.add_centres(rows);
    }

    const std::size_t count = chosen.size();
    std::vector<double> candidate_weight(count, 0.0);
    const std::vector<std::uint32_t>& owner = nearest.owner();
    for (std::size_t i = 0; i < n; ++i) candidate_weight[owner[i]] += weight ? weight[i] : 1.0;
    Matrix<double> candidates(count, d);
    for (std::size_t c = 0; c < count; ++c)
        for (std::size_t j = 0; j < d; ++j) candidates(c, j) = static_cast<double>(points(chosen[c], j));

    InitOptions reduce;
    reduce.method = InitMethod::KMeansPlusPlus;
    reduce.seed = seed;
    reduce.threads = threads;
    reduce.bounds = options.bounds;
    reduce.cancel = options.cancel;
    reduce.sample_weight = candidate_weight;
    InitStats reduced;
    reduce.stats = &reduced;
    Matrix<double> centres = initialize_centroids(candidates, k, reduce, source_name);
    if (options.stats) {
        options.stats->bounded = reduced.bounded;
        options.stats->point_centroid_distances += nearest.point_distances() + reduced.point_centroid_distances;
        options.stats->centroid_centroid_distances += nearest.centre_distances() + reduced.centroid_centroid_distances;
        options.stats->candidates = count;
        options.stats->rounds = rounds;
    }
    return centres;
}

}  // namespace

Matrix<double> kmeans_parallel_init(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return parallel_init(points, k, options, source_name);
}

Matrix<double> kmeans_parallel_init(const Matrix<float>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return parallel_init(points, k, options, source_name);
}

}  // namespace kms::seeding
