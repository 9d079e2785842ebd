// Initial centroids: random, k-means++, greedy k-means++, maximin, k-means‖, from a file.
//
// REPRODUCIBLE ORDER (a CUDA implementation must follow this to the bit):
//
//  * Squared distance of point i to a centre: kms::squared_distance<double>
//    (kms/distance.hpp): Σ_j (x_ij - c_j)², coordinates in index order j = 0..d-1,
//    one rounding per operation, no FMA (-ffp-contract=off; nvcc --fmad=false).
//  * D[i] (weight of point i) = min over chosen centres of that squared distance;
//    after a centre c is chosen, D[i] = (s < D[i]) ? s : D[i] with s = dist(i, c).
//    Before the first update D[i] = +infinity.
//  * Blocks: point i belongs to block i / 4096 (kBlockSize) and to sub-block i / 64
//    (kSubBlockSize). A sub-block sum is Σ D[i] over its points in increasing i,
//    starting from 0.0; a block sum is Σ of its 64 sub-block sums in increasing
//    order, starting from 0.0. The total is Σ block sums in increasing block order,
//    starting from 0.0. (Until issue 41's speed work a block was summed point by
//    point; the two levels let a changed D re-sum 64 values, not 4096. The picks
//    for a seed changed with it.)
//  * D² sampling with a uniform u in [0, 1): r = u * total. Walk the blocks with
//    running = 0.0: the block is b when running + sum[b] > r, else running += sum[b].
//    Inside block b, continue from that `running` over its sub-blocks the same way:
//    the sub-block is s when running + sub[s] > r, else running += sub[s]. Inside
//    sub-block s, running += D[i] for i in increasing order, pick the first i with
//    running > r; if rounding leaves no such i, pick the last i of sub-block s with
//    D[i] > 0. If no sub-block of b qualifies, pick the last i of block b with
//    D[i] > 0. If no block qualifies, pick the last i overall with D[i] > 0.
//  * Random numbers (kms/random.hpp, seed = InitOptions::seed):
//      first centre (k-means++, greedy, maximin): random_below(seed, 0x1171, 0, n)
//      k-means++ centre of round r (r = 1..k-1): u = random_uniform(seed, 0x1172, r)
//      greedy candidate t of round r: u = random_uniform(seed, 0x1173, r * trials + t)
//      random init, Floyd step s = 0..k-1 (j = n-k+s): random_below(seed, 0x1175, s, j + 1)
//  * Greedy k-means++ (scikit-learn's): trials = 2 + ⌊ln k⌋ unless given. Each
//    round samples `trials` candidates by D² from the same D (repeats allowed),
//    computes each candidate's potential Σ min(D[i], dist(i, candidate)) in the
//    two-level blocked order above, and keeps the candidate with the smallest potential
//    (ties → the lowest t).
//  * Maximin: the point with the largest D[i], ties → the lowest i.
//  * Fallback when the total is 0 (every point coincides with a chosen centre:
//    fewer distinct points than k): the centre of round r is the m-th point not yet
//    chosen, in increasing index order, with m = random_below(seed, 0x1174, r,
//    number of points not yet chosen). Chosen indices are therefore always distinct.
//
//  * Sample weights w (InitOptions::sample_weight): every D[i] above becomes the
//    mass w[i]·D[i] (sums, sampling walk, greedy potentials Σ w[i]·min(D[i], s));
//    the first centre is drawn ∝ w by the same blocked walk over w with
//    u = random_uniform(seed, 0x1176, 0); maximin skips points of weight 0; the
//    random init draws k distinct points ∝ w, step s by the walk over the weights
//    of the points not yet drawn with u = random_uniform(seed, 0x1177, s). The
//    fallback (and a random draw with no weight left) takes the m-th unchosen point
//    of positive weight, or of any weight once none is left.
//
// The OpenMP loops only split whole blocks (sums) or independent points (D
// updates) between threads, so the result is identical for any thread count.
//
// BOUNDS (InitOptions::bounds: on, or auto with k >= 200 and d <= 4; one process): k-means++ and greedy
// k-means++ keep D with a tree of boxes over the points (bounded_nearest.hpp):
// a distance is skipped only where the computed one surely would not lower D, and
// a sub-block's sum is summed again, in the order above, only where a D of it changed
// (and its block's from the sub-block sums kept),
// so every choice above is made from the same bits. Maximin and split rows take
// the plain passes. k-means‖ (InitMethod::KMeansParallel): kmeans_parallel.cpp.
#include "kms/init.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/row_source.hpp"
#include "bounded_nearest.hpp"
#include "rows.hpp"
#include "seeding.hpp"

namespace kms {
namespace {

using namespace seeding;  // the blocked order's constants, walk and distance (seeding.hpp), Rows (rows.hpp)

// The nearest-centre weights D[i] of this rank's rows with their fixed-order block
// sums; the sums of every block of the data set (gathered) make the total.
template <typename T>
class NearestDistances {
public:
    NearestDistances(const Rows<T>& rows, int threads, const double* sample_weight)
        : rows_(rows),
          threads_(threads),
          sample_weight_(sample_weight),
          weights_(rows.local(), std::numeric_limits<double>::infinity()),
          block_sums_((rows.local() + kBlockSize - 1) / kBlockSize, 0.0) {}

    // D[i] = min(D[i], dist(i, centre)) and the block sums, in one pass.
    // (Out of core: one pass over the file, a window of whole blocks at a time.)
    void add_centre(const double* centre) {
        const std::size_t n = rows_.local(), d = rows_.cols();
        rows_.for_each_window([&](const T* values, std::size_t first, std::size_t count) {
            const auto first_block = static_cast<std::int64_t>(first / kBlockSize);
            const auto blocks = static_cast<std::int64_t>((count + kBlockSize - 1) / kBlockSize);
#pragma omp parallel for num_threads(threads_) schedule(static) if (blocks > 1)
            for (std::int64_t b = first_block; b < first_block + blocks; ++b) {
                const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
                const std::size_t end = std::min(first + count, begin + kBlockSize);
                double sum = 0.0;
                for (std::size_t sub = begin; sub < end; sub += kSubBlockSize) {
                    double part = 0.0;  // the sub-block's sum, in the fixed order
                    for (std::size_t i = sub; i < std::min(end, sub + kSubBlockSize); ++i) {
                        const double s = widened_squared_distance(values + (i - first) * d, centre, d);
                        weights_[i] = s < weights_[i] ? s : weights_[i];  // branch-free: a minsd
                        part += mass(i);
                    }
                    sum += part;
                }
                block_sums_[static_cast<std::size_t>(b)] = sum;
            }
        });
        point_distances_ += n;
        all_sums_ = rows_.gather(block_sums_);
        total_ = 0.0;
        for (double sum : all_sums_) total_ += sum;
    }

    double total() const { return total_; }
    std::uint64_t point_distances() const { return point_distances_; }
    std::uint64_t centre_distances() const { return 0; }

    // D² sampling with u in [0, 1) (see the order at the top of the file): the
    // global row chosen. Needs total() > 0.
    std::size_t sample(double u) const {
        const double target = u * total_;
        double running = 0.0;
        for (std::size_t b = 0; b < all_sums_.size(); ++b) {
            if (running + all_sums_[b] > target) {
                const std::size_t begin = b * kBlockSize;  // global rows of block b
                double pick = 0.0;
                if (rows_.mine(begin)) {
                    const std::size_t local_begin = begin - rows_.first();
                    const std::size_t local_end = std::min(rows_.local(), local_begin + kBlockSize);
                    pick = static_cast<double>(rows_.first() +
                                               walk_block(local_begin, local_end, running, target,
                                                          [this](std::size_t i) { return mass(i); }));
                }
                return static_cast<std::size_t>(rows_.from_owner(pick, begin));
            }
            running += all_sums_[b];
        }
        // Rounding left no block: the last row of positive mass overall.
        const std::vector<double> last = rows_.gather(
            {rows_.local() > 0 ? static_cast<double>(rows_.first() + seeding::last_positive(0, rows_.local(), [this](std::size_t i) { return mass(i); }))
                                : -1.0});
        return static_cast<std::size_t>(*std::max_element(last.begin(), last.end()));
    }

    // Σ_i min(D[i], dist(i, candidate)) for each candidate (rows, widened), in the fixed blocked order.
    std::vector<double> potentials(const std::vector<std::vector<double>>& candidates) const {
        const std::size_t n = rows_.local(), d = rows_.cols(), count = candidates.size();
        const std::size_t blocks = block_sums_.size();
        std::vector<double> block_potentials(count * blocks, 0.0);  // [t * blocks + b]
        RegionGuard guard;
        rows_.for_each_window([&](const T* values, std::size_t first, std::size_t rows) {
            const auto first_block = static_cast<std::int64_t>(first / kBlockSize);
            const auto window_blocks = static_cast<std::int64_t>((rows + kBlockSize - 1) / kBlockSize);
#pragma omp parallel num_threads(threads_) if (window_blocks > 1)
            {
                std::vector<OrderedSum> sums;
                guard.run([&] { sums.resize(count); });
#pragma omp for schedule(static)
                for (std::int64_t b = first_block; b < first_block + window_blocks; ++b) {
                    if (guard.failed()) continue;
                    const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
                    const std::size_t end = std::min(first + rows, begin + kBlockSize);
                    std::fill(sums.begin(), sums.end(), OrderedSum{});
                    for (std::size_t i = begin; i < end; ++i)
                        for (std::size_t t = 0; t < count; ++t) {
                            const double s =
                                widened_squared_distance(values + (i - first) * d, candidates[t].data(), d);
                            const double nearest = s < weights_[i] ? s : weights_[i];
                            sums[t].add(sample_weight_ ? weight(i) * nearest : nearest);
                        }
                    for (std::size_t t = 0; t < count; ++t)
                        block_potentials[t * blocks + static_cast<std::size_t>(b)] = sums[t].value();
                }
            }
            guard.rethrow();
        });
        point_distances_ += n * count;
        std::vector<double> totals(count, 0.0);
        for (std::size_t t = 0; t < count; ++t) {
            const std::vector<double> all = rows_.gather(std::vector<double>(
                block_potentials.begin() + static_cast<std::ptrdiff_t>(t * blocks),
                block_potentials.begin() + static_cast<std::ptrdiff_t>((t + 1) * blocks)));
            for (double value : all) totals[t] += value;
        }
        return totals;
    }

    // The global row with the largest D[i], ties → lowest row (weighted: of positive weight).
    std::size_t farthest() const {
        const std::size_t best = sample_weight_ ? farthest_weighted() : farthest_unweighted();
        // Each rank offers its best (distance, global row); ranks are in row order, so the first maximum is the lowest row.
        const std::vector<double> offers = rows_.gather(
            best < rows_.local() ? std::vector<double>{weights_[best], static_cast<double>(rows_.first() + best)}
                                 : std::vector<double>{});
        std::size_t chosen = 0;
        for (std::size_t o = 2; o < offers.size(); o += 2)
            if (offers[o] > offers[chosen]) chosen = o;
        return static_cast<std::size_t>(offers[chosen + 1]);
    }

private:
    double weight(std::size_t i) const { return sample_weight_[rows_.first() + i]; }
    // What D² sampling draws by: D[i], or w[i]·D[i] with sample weights.
    double mass(std::size_t i) const { return sample_weight_ ? weight(i) * weights_[i] : weights_[i]; }

    std::size_t farthest_unweighted() const {
        const std::size_t n = weights_.size(), blocks = block_sums_.size();
        if (n == 0) return 0;
        std::vector<std::size_t> block_best(blocks);
#pragma omp parallel for num_threads(threads_) schedule(static) if (blocks > 1)
        for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
            const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
            const std::size_t end = std::min(n, begin + kBlockSize);
            std::size_t best = begin;
            for (std::size_t i = begin + 1; i < end; ++i)
                if (weights_[i] > weights_[best]) best = i;
            block_best[static_cast<std::size_t>(b)] = best;
        }
        std::size_t best = block_best[0];
        for (std::size_t b = 1; b < blocks; ++b)
            if (weights_[block_best[b]] > weights_[best]) best = block_best[b];
        return best;
    }

    // Sequential: maximin is O(n) per round beside the O(n·d) distance pass.
    // weights_.size() when this rank has no row of positive weight.
    std::size_t farthest_weighted() const {
        std::size_t best = weights_.size();
        for (std::size_t i = 0; i < weights_.size(); ++i)
            if (weight(i) > 0.0 && (best == weights_.size() || weights_[i] > weights_[best])) best = i;
        return best;
    }

    const Rows<T>& rows_;
    int threads_;
    const double* sample_weight_;  // every global row's weight; null: unweighted
    std::vector<double> weights_;
    std::vector<double> block_sums_;  // this rank's blocks
    std::vector<double> all_sums_;    // every block's, in order
    double total_ = 0.0;
    mutable std::uint64_t point_distances_ = 0;  // this rank's (potentials() is const)
};

// Chosen global rows, in order, and the centres they make (rows fetched from their owners).
template <typename T>
class Selection {
public:
    Selection(const Rows<T>& rows, std::size_t k, const double* sample_weight = nullptr)
        : rows_(rows), sample_weight_(sample_weight), chosen_(rows.global(), 0) {
        order_.reserve(k);
        if (sample_weight_)
            for (std::size_t i = 0; i < chosen_.size(); ++i) positive_left_ += sample_weight_[i] > 0.0;
    }

    // Chooses global row `index`; returns its coordinates (widened), the same on every rank.
    const std::vector<double>& add(std::size_t index) {
        chosen_[index] = 1;
        order_.push_back(index);
        centres_.push_back(rows_.row(index));
        if (sample_weight_ && sample_weight_[index] > 0.0) --positive_left_;
        return centres_.back();
    }
    bool chosen(std::size_t index) const { return chosen_[index] != 0; }
    std::size_t count() const { return order_.size(); }

    // Fallback when every point coincides with a chosen centre: the m-th unchosen point.
    // Weighted: among the unchosen points of positive weight while there are any.
    std::size_t uniform_unchosen(std::uint64_t seed, std::uint64_t round) const {
        const bool positive_only = sample_weight_ && positive_left_ > 0;
        const std::uint64_t remaining = positive_only ? positive_left_ : chosen_.size() - order_.size();
        std::uint64_t m = random_below(seed, kStreamFallback, round, remaining);
        for (std::size_t i = 0; i < chosen_.size(); ++i)
            if (!chosen_[i] && (!positive_only || sample_weight_[i] > 0.0) && m-- == 0) return i;
        return chosen_.size() - 1;  // unreachable: remaining > 0 because k ≤ n
    }

    Matrix<double> centres() const {
        const std::size_t d = rows_.cols();
        Matrix<double> out(order_.size(), d);
        for (std::size_t c = 0; c < order_.size(); ++c) std::copy(centres_[c].begin(), centres_[c].end(), out.row(c));
        return out;
    }

private:
    const Rows<T>& rows_;
    const double* sample_weight_;
    std::uint64_t positive_left_ = 0;  // unchosen points of positive weight
    std::vector<char> chosen_;
    std::vector<std::size_t> order_;
    std::vector<std::vector<double>> centres_;
};

// k distinct indices, uniformly (Robert Floyd's sampling: k draws, no O(n) memory).
template <typename T>
Matrix<double> random_init(const Rows<T>& rows, std::size_t k, std::uint64_t seed) {
    const std::uint64_t n = rows.global();
    std::unordered_set<std::uint64_t> taken;
    taken.reserve(k);
    Selection<T> selection(rows, k);
    for (std::uint64_t step = 0; step < k; ++step) {
        const std::uint64_t j = n - k + step;
        const std::uint64_t t = random_below(seed, kStreamRandom, step, j + 1);
        const std::uint64_t pick = taken.count(t) ? j : t;
        taken.insert(pick);
        selection.add(pick);
    }
    return selection.centres();
}

// k distinct indices drawn ∝ w without replacement (numpy's choice(replace=False, p=w/Σw)).
// Only the weights (every rank has them all) decide; the rows come from their owners.
template <typename T>
Matrix<double> weighted_random_init(const Rows<T>& rows, std::size_t k, std::uint64_t seed,
                                    const double* sample_weight) {
    const std::size_t n = rows.global();
    Selection<T> selection(rows, k, sample_weight);
    const auto mass = [&](std::size_t i) { return selection.chosen(i) ? 0.0 : sample_weight[i]; };
    std::vector<double> block_sums = block_sums_of(n, mass);
    for (std::uint64_t step = 0; step < k; ++step) {
        double total = 0.0;
        for (double sum : block_sums) total += sum;
        if (!(total > 0.0)) {
            selection.add(selection.uniform_unchosen(seed, step));
            continue;
        }
        const std::size_t pick =
            blocked_sample(block_sums, total, random_uniform(seed, kStreamWeightedRandom, step), n, mass);
        selection.add(pick);
        // Its block's sum again from scratch, in order: no drift from subtracting.
        const std::size_t begin = pick / kBlockSize * kBlockSize, end = std::min(n, begin + kBlockSize);
        block_sums[pick / kBlockSize] = ordered_sum(begin, end, mass);
    }
    return selection.centres();
}

int default_greedy_trials(std::size_t k) {
    return 2 + static_cast<int>(std::floor(std::log(static_cast<double>(k))));
}

// The rounds of k-means++, greedy k-means++ and maximin over either keeper of the
// nearest-centre masses: NearestDistances (every distance) or BoundedNearest
// (bounded_nearest.hpp: the same masses with the distances a tree of boxes rules
// out skipped).
template <typename T, typename Nearest>
Matrix<double> seed_rounds(const Rows<T>& rows, Nearest& nearest, std::size_t k, const InitOptions& options,
                           const std::string& source_name) {
    const std::uint64_t seed = options.seed;
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data();
    Selection<T> selection(rows, k, weight);
    const auto choose = [&](std::size_t index) {
        nearest.add_centre(selection.add(index).data());
        if (!std::isfinite(nearest.total()))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
    };
    if (weight) {
        const auto by_weight = [weight](std::size_t i) { return weight[i]; };
        const std::vector<double> sums = block_sums_of(rows.global(), by_weight);
        double total = 0.0;
        for (double sum : sums) total += sum;
        choose(blocked_sample(sums, total, random_uniform(seed, kStreamWeightedFirst, 0), rows.global(), by_weight));
    } else {
        choose(random_below(seed, kStreamFirstCentre, 0, rows.global()));
    }

    const std::size_t trials = options.greedy_trials > 0 ? static_cast<std::size_t>(options.greedy_trials)
                                                          : static_cast<std::size_t>(default_greedy_trials(k));
    for (std::uint64_t round = 1; round < k; ++round) {
        // (A split run takes no stop request here: every rank must make the same collective calls.)
        if (!rows.comm() && options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
        if (!(nearest.total() > 0.0)) {
            choose(selection.uniform_unchosen(seed, round));
            continue;
        }
        switch (options.method) {
            case InitMethod::KMeansPlusPlus:
                choose(nearest.sample(random_uniform(seed, kStreamKMeansPlusPlus, round)));
                break;
            case InitMethod::GreedyKMeansPlusPlus: {
                std::vector<std::size_t> candidates(trials);
                std::vector<std::vector<double>> candidate_rows(trials);
                for (std::size_t t = 0; t < trials; ++t) {
                    candidates[t] = nearest.sample(random_uniform(seed, kStreamGreedyCandidates, round * trials + t));
                    candidate_rows[t] = rows.row(candidates[t]);
                }
                const std::vector<double> potentials = nearest.potentials(candidate_rows);
                std::size_t best = 0;
                for (std::size_t t = 1; t < trials; ++t)
                    if (potentials[t] < potentials[best]) best = t;
                choose(candidates[best]);
                break;
            }
            default:  // Maximin
                if constexpr (requires { nearest.farthest(); }) choose(nearest.farthest());
                else throw Error("maximin seeds without bounds");  // seeded_init never asks
                break;
        }
    }
    return selection.centres();
}

template <typename T>
Matrix<double> seeded_init(const Rows<T>& rows, std::size_t k, const InitOptions& options,
                           const std::string& source_name) {
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data();
    const auto counted = [&](const auto& nearest) {
        if (!options.stats) return;
        options.stats->point_centroid_distances += nearest.point_distances();
        options.stats->centroid_centroid_distances += nearest.centre_distances();
    };
    // Bounds for k-means++ and greedy in one process (ranks take the plain passes).
    const bool wanted = options.bounds == SeedingBounds::On ||
                        (options.bounds == SeedingBounds::Auto && k >= kAutoBoundsCpuK && rows.cols() <= kAutoBoundsD &&
                         threads <= kAutoBoundsThreads);
    // (Out of core too: the bounds' per-point state and reads are those of points in memory.)
    if (wanted && options.method != InitMethod::Maximin && !rows.comm() && !rows.out_of_core() &&
        rows.global() < (std::size_t{1} << 32)) {
        BoundedNearest<T> nearest(*rows.block(), threads, weight, options.cancel, source_name);
        Matrix<double> centres = seed_rounds(rows, nearest, k, options, source_name);
        counted(nearest);
        if (options.stats) options.stats->bounded = true;
        return centres;
    }
    NearestDistances<T> nearest(rows, threads, weight);
    Matrix<double> centres = seed_rounds(rows, nearest, k, options, source_name);
    counted(nearest);
    return centres;
}

Matrix<double> file_init(std::size_t d, std::size_t k, const InitOptions& options) {
    if (options.path.empty() && !options.given) throw Error("initialisation 'file' needs the path of a centroid file");
    Matrix<double> centres = options.given ? Matrix<double>(*options.given) : load_matrix(options.path);
    const std::string source = options.given ? std::string("init") : options.path;
    if (centres.rows() != k || centres.cols() != d)
        throw InputError::whole(source, "the initial centroids are " + std::to_string(centres.rows()) +
                                                  " rows × " + std::to_string(centres.cols()) +
                                                  " columns; expected k = " + std::to_string(k) + " rows × d = " +
                                                  std::to_string(d) + " columns");
    for (std::size_t c = 0; c < centres.rows(); ++c)
        for (std::size_t j = 0; j < centres.cols(); ++j)
            if (!std::isfinite(centres(c, j)))
                throw InputError::whole(source, "centroid " + std::to_string(c + 1) + ", column " +
                                                          std::to_string(j + 1) + " is not a finite number");
    return centres;
}

}  // namespace

std::string_view to_string(InitMethod method) {
    switch (method) {
        case InitMethod::Random: return "random";
        case InitMethod::KMeansPlusPlus: return "kmeans++";
        case InitMethod::GreedyKMeansPlusPlus: return "greedy-kmeans++";
        case InitMethod::Maximin: return "maximin";
        case InitMethod::File: return "file";
        case InitMethod::KMeansParallel: return "kmeans-parallel";
    }
    return "unknown";
}

std::string_view to_string(SeedingBounds bounds) {
    switch (bounds) {
        case SeedingBounds::Auto: return "auto";
        case SeedingBounds::On: return "on";
        case SeedingBounds::Off: return "off";
    }
    return "unknown";
}

std::optional<SeedingBounds> parse_seeding_bounds(std::string_view name) {
    for (SeedingBounds bounds : {SeedingBounds::Auto, SeedingBounds::On, SeedingBounds::Off})
        if (name == to_string(bounds)) return bounds;
    return std::nullopt;
}

std::optional<InitMethod> parse_init_method(std::string_view name) {
    for (InitMethod method : {InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus,
                              InitMethod::Maximin, InitMethod::File, InitMethod::KMeansParallel})
        if (name == to_string(method)) return method;
    if (name == "k-means||" || name == "kmeans||") return InitMethod::KMeansParallel;
    return std::nullopt;
}

namespace {
template <typename T>
Matrix<double> initialize_from(const Rows<T>& rows, std::size_t k, const InitOptions& options,
                               const std::string& source_name) {
    const std::size_t n = rows.global();
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " +
                                                 std::to_string(n));
    if (rows.cols() == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    if (!options.sample_weight.empty() && options.sample_weight.size() != n)
        throw Error(std::to_string(options.sample_weight.size()) + " sample weights for n = " + std::to_string(n) +
                    " points");
    if (options.greedy_trials < 0)
        throw Error("greedy k-means++ trials = " + std::to_string(options.greedy_trials) + " must be ≥ 0 (0 = 2 + ⌊ln k⌋)");
    if (options.method == InitMethod::KMeansParallel &&
        (!(options.oversampling > 0.0) || !std::isfinite(options.oversampling) || options.parallel_rounds < 1))
        throw Error("k-means‖ needs an oversampling factor > 0 and at least one round (given " +
                    std::to_string(options.oversampling) + " and " + std::to_string(options.parallel_rounds) + ")");
    // Equal weights draw as no weights do: seed exactly as the unweighted run
    // (scikit-learn's check that sample_weight=ones equals None).
    if (options.sample_weight.size() > 1 &&
        std::all_of(options.sample_weight.begin(), options.sample_weight.end(),
                    [&](double w) { return w == options.sample_weight[0]; })) {
        InitOptions unweighted = options;
        unweighted.sample_weight = {};
        return initialize_from(rows, k, unweighted, source_name);
    }
    switch (options.method) {
        case InitMethod::Random:
            if (!options.sample_weight.empty())
                return weighted_random_init(rows, k, options.seed, options.sample_weight.data());
            return random_init(rows, k, options.seed);
        case InitMethod::File: return file_init(rows.cols(), k, options);
        case InitMethod::KMeansPlusPlus:
        case InitMethod::GreedyKMeansPlusPlus:
        case InitMethod::Maximin: return seeded_init(rows, k, options, source_name);
        case InitMethod::KMeansParallel: return kmeans_parallel_init(rows, k, options, source_name);
    }
    throw Error("unknown initialisation method");
}

}  // namespace

Matrix<double> initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return timed_seeding(options, [&] { return initialize_from(Rows<double>(points), k, options, source_name); });
}

Matrix<double> initialize_centroids(const Matrix<float>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return timed_seeding(options, [&] { return initialize_from(Rows<float>(points), k, options, source_name); });
}

Matrix<double> initialize_centroids(const Matrix<double>& block, std::size_t k, const InitOptions& options,
                                    const RowPartition& partition, const std::string& source_name) {
    if (!partition.comm) return initialize_centroids(block, k, options, source_name);
    return timed_seeding(options, [&] { return initialize_from(Rows<double>(block, partition), k, options, source_name); });
}

Matrix<double> initialize_centroids(const Matrix<float>& block, std::size_t k, const InitOptions& options,
                                    const RowPartition& partition, const std::string& source_name) {
    if (!partition.comm) return initialize_centroids(block, k, options, source_name);
    return timed_seeding(options, [&] { return initialize_from(Rows<float>(block, partition), k, options, source_name); });
}

Matrix<double> initialize_centroids(const RowSource& source, std::size_t first_row, std::size_t rows, std::size_t k,
                                    const InitOptions& options, const RowPartition* partition,
                                    std::size_t buffer_bytes, const std::string& source_name) {
    if (partition && !partition->comm) partition = nullptr;
    const std::size_t window_rows = buffer_bytes / std::max<std::size_t>(1, source.cols() * sizeof(double));
    return timed_seeding(options, [&] {
        return initialize_from(Rows<double>(source, first_row, rows, partition, window_rows), k, options, source_name);
    });
}

}  // namespace kms
