// k-means‖ (Bahmani, Moseley, Vattani, Kumar & Vassilvitskii, VLDB 2012), in one
// process or over ranks (each holding its block of rows, as k-means++ over ranks).
//
// ORDER (deterministic for a seed, whatever the thread or rank count):
//  * The first candidate is k-means++'s first centre (init.cpp's streams 0x1171/0x1176).
//  * Round r = 1, 2, ...: ψ = Σ mass(i) in the blocked order of init.cpp (mass = w·D);
//    point i with mass > 0 is taken when random_uniform(seed, 0x1178, r·n + i) <
//    ℓ·mass(i)/ψ, ℓ = oversampling·k; the round's candidates in increasing i. Then
//    every point's D drops to its nearest new candidate's distance where that is
//    smaller (BoundedNearest::add_centres: a tree of boxes skips most distances;
//    a tie goes to the earlier candidate, fixed by the point and the candidates,
//    not by the threads or by the other points a rank holds).
//  * `parallel_rounds` rounds; more (up to 64) while fewer than k candidates came
//    and some D is positive; then, with fewer than k still (fewer distinct points
//    than k), the m-th point not taken with m = random_below(seed, 0x1174, s,
//    points not taken) for s = 0, 1, ... (of positive weight while there are any).
//  * Candidate c weighs Σ w(i) over the points whose D it gave (1 per point
//    unweighted), summed in increasing i; the k centres are weighted k-means++ over
//    the candidates in their order with the same seed (InitOptions::bounds kept).
//
// OVER RANKS each rank keeps the D of its rows (a BoundedNearest of its block: D
// and the nearest candidate of a point do not depend on the other points), ψ is
// every rank's block sums added in block order (blocks never straddle ranks), the
// candidates are every rank's picks in rank (= row) order with their rows, and the
// candidate weights run through the ranks in rank order, each adding its rows to
// the sums so far: every step is the one process's, so every rank reduces the same
// candidates with the same weights to the same centres. A split run takes no stop
// request (every rank must make the same collective calls) and agrees on a rank's
// failure before the next collective.
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stop_token>
#include <string>
#include <vector>

#include "bounded_nearest.hpp"
#include "kms/error.hpp"
#include "kms/random.hpp"
#include "kms/region_guard.hpp"
#include "rows.hpp"
#include "seeding.hpp"

namespace kms::seeding {
namespace {

// A round's draws for `count` points from the counter `counter` on: hit[i] when
// random_uniform(seed, kStreamParallel, counter + i) < ℓ·mass/ψ (mass = w·D, or D).
// A mass of 0 is never taken (0/ψ = 0), so no test for it. Alone in a loop with
// nothing in memory it could change, the (seed, stream) part of each draw is
// computed once, not once a point.
// (Built for AVX-512 too where the processor has it: eight mixes and divisions at
// a time, the same integer and IEEE operations, so the same bits.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void draw_block(std::uint64_t seed, std::uint64_t counter, const double* distances, const double* weights,
                std::size_t count, double ell, double psi, unsigned char* hit) {
    if (weights)
        for (std::size_t i = 0; i < count; ++i)
            hit[i] = random_uniform(seed, kStreamParallel, counter + i) < ell * (weights[i] * distances[i]) / psi;
    else
        for (std::size_t i = 0; i < count; ++i)
            hit[i] = random_uniform(seed, kStreamParallel, counter + i) < ell * distances[i] / psi;
}

// Out of core: the nearest-candidate masses D[i] (and the candidate giving each) of this
// rank's rows, kept in memory while the rows are read from the file a window of whole
// 4096-row blocks at a time, one pass a round. Each row takes the nearest new candidate
// when nearer than its D (ties: the earlier), by the plain pass's computed distance and
// strict test, and the block sums are the plain pass's fixed order (seeding.hpp): what
// BoundedNearest gives in memory, bit for bit (its tree only skips distances that
// could not change D). No tree: a round computes every row's distance to every new
// candidate, but reads the file once where k-means++ reads it once a centre.
template <typename T>
class WindowedNearest {
public:
    WindowedNearest(const Rows<T>& rows, int threads, const double* sample_weight, std::stop_token stop,
                    std::string source_name)
        : rows_(rows), threads_(threads), weight_(sample_weight), stop_(std::move(stop)),
          source_name_(std::move(source_name)), nearest_(rows.local(), std::numeric_limits<double>::infinity()),
          owner_(rows.local(), 0), block_sums_((rows.local() + kBlockSize - 1) / kBlockSize, 0.0) {}

    void add_centre(const double* centre) { add_centres({std::vector<double>(centre, centre + rows_.cols())}); }
    void add_centres(const std::vector<std::vector<double>>& centres) {
        const std::size_t d = rows_.cols(), m = centres.size();
        const auto first_centre = static_cast<std::uint32_t>(centres_);
        RegionGuard guard;
        rows_.for_each_window([&](const T* values, std::size_t first, std::size_t count) {
            const auto first_block = static_cast<std::int64_t>(first / kBlockSize);
            const auto blocks = static_cast<std::int64_t>((count + kBlockSize - 1) / kBlockSize);
#pragma omp parallel for num_threads(threads_) schedule(static) if (blocks > 1)
            for (std::int64_t b = first_block; b < first_block + blocks; ++b) {
                if (guard.failed() || stop_.stop_requested()) continue;
                const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
                const std::size_t end = std::min(first + count, begin + kBlockSize);
                for (std::size_t i = begin; i < end; ++i)
                    for (std::size_t t = 0; t < m; ++t) {
                        const double s = widened_squared_distance(values + (i - first) * d, centres[t].data(), d);
                        if (s < nearest_[i]) {
                            nearest_[i] = s;
                            owner_[i] = first_centre + static_cast<std::uint32_t>(t);
                        }
                    }
                block_sums_[static_cast<std::size_t>(b)] =
                    ordered_sum(begin, end, [this](std::size_t i) { return mass(i); });
            }
            guard.rethrow();
            if (stop_.stop_requested()) throw Cancelled(source_name_ + ": initialisation cancelled");
        });
        centres_ += m;
        point_distances_ += static_cast<std::uint64_t>(rows_.local()) * m;
    }

    const std::vector<double>& block_sums() const { return block_sums_; }
    const double* distances() const { return nearest_.data(); }
    const std::vector<std::uint32_t>& owner() const { return owner_; }
    std::uint64_t point_distances() const { return point_distances_; }
    std::uint64_t centre_distances() const { return 0; }

private:
    double mass(std::size_t i) const { return weight_ ? weight_[i] * nearest_[i] : nearest_[i]; }

    const Rows<T>& rows_;
    int threads_;
    const double* weight_;
    std::stop_token stop_;
    std::string source_name_;
    std::vector<double> nearest_;
    std::vector<std::uint32_t> owner_;
    std::vector<double> block_sums_;
    std::size_t centres_ = 0;
    std::uint64_t point_distances_ = 0;
};

// The candidates' unweighted counts: exact in any order (integers below 2^53), so in
// the order the nearest structure holds them.
template <typename T>
const std::vector<std::uint32_t>& owners_in_any_order(const WindowedNearest<T>& nearest) { return nearest.owner(); }
template <typename T>
const LargeVector<std::uint32_t>& owners_in_any_order(const BoundedNearest<T>& nearest) {
    return nearest.owner_in_tree_order();
}

template <typename T, typename Nearest>
Matrix<double> parallel_init(const Rows<T>& rows, Nearest& nearest, std::size_t k, const InitOptions& options,
                             const std::string& source_name) {
    const std::size_t n = rows.global(), local = rows.local(), offset = rows.first(), d = rows.cols();
    Communicator* comm = rows.comm();
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data();  // every row's
    const std::uint64_t seed = options.seed;
    const std::stop_token stop = comm ? std::stop_token{} : options.cancel;
    std::vector<std::size_t> chosen;     // candidate c is global row chosen[c]: the centres' order in `nearest`
    std::vector<double> chosen_rows;     // and its coordinates, widened: chosen.size() × d
    std::vector<char> taken(n, 0);
    const auto take = [&](std::size_t row, const double* values) {
        chosen.push_back(row);
        chosen_rows.insert(chosen_rows.end(), values, values + d);
        taken[row] = 1;
    };
    double total = 0.0;  // ψ: every block's sum of mass, in block order
    const auto add_up = [&] {
        total = 0.0;
        for (double sum : rows.gather(nearest.block_sums())) total += sum;
        if (!std::isfinite(total))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
    };

    std::size_t first = 0;
    if (weight) {
        const auto by_weight = [weight](std::size_t i) { return weight[i]; };
        const std::vector<double> sums = block_sums_of(n, by_weight);
        double sum_of_weights = 0.0;
        for (double sum : sums) sum_of_weights += sum;
        first = blocked_sample(sums, sum_of_weights, random_uniform(seed, kStreamWeightedFirst, 0), n, by_weight);
    } else {
        first = random_below(seed, kStreamFirstCentre, 0, n);
    }
    const std::vector<double> first_row = rows.row(first);
    agreed(comm, [&] { nearest.add_centre(first_row.data()); });
    take(first, first_row.data());
    add_up();

    const double ell = options.oversampling * static_cast<double>(k);
    const std::size_t blocks = (local + kBlockSize - 1) / kBlockSize;
    int rounds = 0;
    const int most = options.parallel_rounds + 64;
    while (total > 0.0 && (rounds < options.parallel_rounds || (chosen.size() < k && rounds < most))) {
        if (!comm && options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
        ++rounds;
        const double psi = total;
        const std::uint64_t base = static_cast<std::uint64_t>(rounds) * n + offset;  // + local row: r·n + global row
        std::vector<std::vector<std::size_t>> picks(blocks);                          // local rows, by local block
        const double* distances = nearest.distances();
        const double* weights = weight ? weight + offset : nullptr;
        agreed(comm, [&] {
            RegionGuard guard;
#pragma omp parallel for num_threads(threads) schedule(static) if (blocks > 1)
            for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
                if (guard.failed()) continue;
                const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize, end = std::min(local, begin + kBlockSize);
                unsigned char hit[kBlockSize];
                draw_block(seed, base + begin, distances + begin, weights ? weights + begin : nullptr, end - begin, ell,
                           psi, hit);
                guard.run([&] {
                    for (std::size_t i = begin; i < end; ++i)
                        if (hit[i - begin]) picks[static_cast<std::size_t>(b)].push_back(i);
                });
            }
            guard.rethrow();
        });
        // This rank's picks (global row, coordinates); every rank's in rank order are in row order.
        std::vector<double> mine, mine_rows;
        agreed(comm, [&] {  // (out of core a pick's row is read from the file, which may fail)
            for (const std::vector<std::size_t>& picked : picks)
                for (std::size_t i : picked) {
                    mine.push_back(static_cast<double>(offset + i));
                    const std::vector<double> values = rows.local_row(i);
                    mine_rows.insert(mine_rows.end(), values.begin(), values.end());
                }
        });
        const std::vector<double> all = rows.gather(mine), all_rows = rows.gather(mine_rows);
        std::vector<std::vector<double>> centres(all.size());
        for (std::size_t c = 0; c < all.size(); ++c) {
            centres[c].assign(all_rows.begin() + static_cast<std::ptrdiff_t>(c * d),
                              all_rows.begin() + static_cast<std::ptrdiff_t>((c + 1) * d));
            take(static_cast<std::size_t>(all[c]), centres[c].data());
        }
        agreed(comm, [&] { nearest.add_centres(centres); });
        add_up();
    }
    if (chosen.size() < k) {  // fewer distinct points than k
        std::vector<std::vector<double>> centres;
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
            centres.push_back(rows.row(pick));
            take(pick, centres.back().data());
        }
        agreed(comm, [&] { nearest.add_centres(centres); });
    }

    // Candidate weights in increasing row: rank by rank, each continuing the sums so far.
    const std::size_t count = chosen.size();
    std::vector<double> candidate_weight(count, 0.0);
    const auto add_mine = [&] {
        if (!weight) {  // counts of points: exact in any order, so in the tree's (read in order, not at random)
            for (std::uint32_t owner : owners_in_any_order(nearest)) candidate_weight[owner] += 1.0;
            return;
        }
        const std::vector<std::uint32_t>& owner = nearest.owner();
        for (std::size_t i = 0; i < local; ++i) candidate_weight[owner[i]] += weight[offset + i];
    };
    if (!comm) add_mine();
    else
        for (int r = 0; r < comm->size(); ++r) {
            if (r == comm->rank()) add_mine();
            comm->broadcast(candidate_weight, r);
        }
    Matrix<double> candidates(count, d);
    std::copy(chosen_rows.begin(), chosen_rows.end(), candidates.data());

    InitOptions reduce;
    reduce.method = InitMethod::KMeansPlusPlus;
    reduce.seed = seed;
    reduce.threads = threads;
    reduce.bounds = options.bounds;
    reduce.cancel = stop;
    reduce.sample_weight = candidate_weight;
    InitStats reduced;
    reduce.stats = &reduced;
    Matrix<double> centres = initialize_centroids(candidates, k, reduce, source_name);
    if (options.stats) {  // this rank's distances (as k-means++ over ranks counts) and the reduction's
        options.stats->bounded = reduced.bounded;
        options.stats->point_centroid_distances += nearest.point_distances() + reduced.point_centroid_distances;
        options.stats->centroid_centroid_distances += nearest.centre_distances() + reduced.centroid_centroid_distances;
        options.stats->candidates = count;
        options.stats->rounds = rounds;
    }
    return centres;
}

}  // namespace

namespace {
// In memory the boxes' tree (BoundedNearest), out of core a window at a time (WindowedNearest).
template <typename T>
Matrix<double> parallel_init(const Rows<T>& rows, std::size_t k, const InitOptions& options,
                             const std::string& source_name) {
    if (rows.global() >= (std::size_t{1} << 32)) throw Error("k-means‖ seeds fewer than 2^32 points");
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data() + rows.first();
    const std::stop_token stop = rows.comm() ? std::stop_token{} : options.cancel;
    if (rows.out_of_core()) {
        WindowedNearest<T> nearest(rows, threads, weight, stop, source_name);
        return parallel_init(rows, nearest, k, options, source_name);
    }
    BoundedNearest<T> nearest(*rows.block(), threads, weight, stop, source_name);
    return parallel_init(rows, nearest, k, options, source_name);
}
}  // namespace

Matrix<double> kmeans_parallel_init(const Rows<double>& rows, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return parallel_init(rows, k, options, source_name);
}

Matrix<double> kmeans_parallel_init(const Rows<float>& rows, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return parallel_init(rows, k, options, source_name);
}

}  // namespace kms::seeding
