// Initial centroids: random, k-means++, greedy k-means++, maximin, from a file.
//
// REPRODUCIBLE ORDER (a CUDA implementation must follow this to the bit):
//
//  * Squared distance of point i to a centre: kms::squared_distance<double>
//    (kms/distance.hpp): Σ_j (x_ij - c_j)², coordinates in index order j = 0..d-1,
//    one rounding per operation, no FMA (-ffp-contract=off; nvcc --fmad=false).
//  * D[i] (weight of point i) = min over chosen centres of that squared distance;
//    after a centre c is chosen, D[i] = (s < D[i]) ? s : D[i] with s = dist(i, c).
//    Before the first update D[i] = +infinity.
//  * Blocks: point i belongs to block i / 4096 (kBlockSize). A block sum is
//    Σ D[i] over the block's points in increasing i, starting from 0.0. The total
//    is Σ block sums in increasing block order, starting from 0.0.
//  * D² sampling with a uniform u in [0, 1): r = u * total. Walk the blocks with
//    running = 0.0: the block is b when running + sum[b] > r, else running += sum[b].
//    Inside block b, continue from that `running`: running += D[i] for i in
//    increasing order, pick the first i with running > r. If rounding leaves no
//    such i inside block b, pick the last i of block b with D[i] > 0. If no block
//    qualifies, pick the last i overall with D[i] > 0.
//  * Random numbers (kms/random.hpp, seed = InitOptions::seed):
//      first centre (k-means++, greedy, maximin): random_below(seed, 0x1171, 0, n)
//      k-means++ centre of round r (r = 1..k-1): u = random_uniform(seed, 0x1172, r)
//      greedy candidate t of round r: u = random_uniform(seed, 0x1173, r * trials + t)
//      random init, Floyd step s = 0..k-1 (j = n-k+s): random_below(seed, 0x1175, s, j + 1)
//  * Greedy k-means++ (scikit-learn's): trials = 2 + ⌊ln k⌋ unless given. Each
//    round samples `trials` candidates by D² from the same D (repeats allowed),
//    computes each candidate's potential Σ min(D[i], dist(i, candidate)) in the
//    blocked order above, and keeps the candidate with the smallest potential
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
#include "kms/init.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"

namespace kms {
namespace {

constexpr std::size_t kBlockSize = 4096;
constexpr std::uint64_t kStreamFirstCentre = 0x1171;
constexpr std::uint64_t kStreamKMeansPlusPlus = 0x1172;
constexpr std::uint64_t kStreamGreedyCandidates = 0x1173;
constexpr std::uint64_t kStreamFallback = 0x1174;
constexpr std::uint64_t kStreamRandom = 0x1175;
constexpr std::uint64_t kStreamWeightedFirst = 0x1176;
constexpr std::uint64_t kStreamWeightedRandom = 0x1177;

// The blocked walk of D² sampling (see the order above) over any per-point mass:
// the first i whose running sum exceeds u·total.
template <typename Mass>
std::size_t blocked_sample(const std::vector<double>& block_sums, double total, double u, std::size_t n, Mass mass) {
    const auto last_positive = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = end; i > begin; --i)
            if (mass(i - 1) > 0.0) return i - 1;
        return end - 1;  // unreachable when the caller saw a positive sum
    };
    const double target = u * total;
    double running = 0.0;
    for (std::size_t b = 0; b < block_sums.size(); ++b) {
        if (running + block_sums[b] > target) {
            const std::size_t begin = b * kBlockSize;
            const std::size_t end = std::min(n, begin + kBlockSize);
            for (std::size_t i = begin; i < end; ++i) {
                running += mass(i);
                if (running > target) return i;
            }
            return last_positive(begin, end);
        }
        running += block_sums[b];
    }
    return last_positive(0, n);
}

// Block sums of a per-point mass, in the fixed order.
template <typename Mass>
std::vector<double> block_sums_of(std::size_t n, Mass mass) {
    std::vector<double> sums((n + kBlockSize - 1) / kBlockSize, 0.0);
    for (std::size_t i = 0; i < n; ++i) sums[i / kBlockSize] += mass(i);
    return sums;
}

// kms::squared_distance<double> of points of any precision, widened to double
// first (exactly), so float data seeds as the same values in a double matrix do.
template <typename T>
double widened_squared_distance(const T* a, const T* b, std::size_t d) {
    double sum = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        const double diff = static_cast<double>(a[j]) - static_cast<double>(b[j]);
        sum += diff * diff;
    }
    return sum;
}

// The nearest-centre weights D[i] with their fixed-order block sums.
template <typename T>
class NearestDistances {
public:
    NearestDistances(const Matrix<T>& points, int threads, const double* sample_weight)
        : points_(points),
          threads_(threads),
          sample_weight_(sample_weight),
          weights_(points.rows(), std::numeric_limits<double>::infinity()),
          block_sums_((points.rows() + kBlockSize - 1) / kBlockSize, 0.0) {}

    // D[i] = min(D[i], dist(i, centre)) and the block sums, in one pass.
    void add_centre(const T* centre) {
        const std::size_t n = points_.rows(), d = points_.cols();
        const auto blocks = static_cast<std::int64_t>(block_sums_.size());
#pragma omp parallel for num_threads(threads_) schedule(static) if (blocks > 1)
        for (std::int64_t b = 0; b < blocks; ++b) {
            const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
            const std::size_t end = std::min(n, begin + kBlockSize);
            double sum = 0.0;
            for (std::size_t i = begin; i < end; ++i) {
                const double s = widened_squared_distance(points_.row(i), centre, d);
                if (s < weights_[i]) weights_[i] = s;
                sum += mass(i);
            }
            block_sums_[static_cast<std::size_t>(b)] = sum;
        }
        total_ = 0.0;
        for (double sum : block_sums_) total_ += sum;
    }

    double total() const { return total_; }
    const std::vector<double>& weights() const { return weights_; }

    // D² sampling with u in [0, 1) (see the order at the top of the file). Needs total() > 0.
    std::size_t sample(double u) const {
        return blocked_sample(block_sums_, total_, u, weights_.size(), [this](std::size_t i) { return mass(i); });
    }

    // Σ_i min(D[i], dist(i, candidate)) for each candidate, in the fixed blocked order.
    std::vector<double> potentials(const std::vector<std::size_t>& candidates) const {
        const std::size_t n = points_.rows(), d = points_.cols(), count = candidates.size();
        const std::size_t blocks = block_sums_.size();
        std::vector<double> block_potentials(count * blocks, 0.0);  // [t * blocks + b]
#pragma omp parallel num_threads(threads_) if (blocks > 1)
        {
            std::vector<double> sums(count);
#pragma omp for schedule(static)
            for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
                const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
                const std::size_t end = std::min(n, begin + kBlockSize);
                std::fill(sums.begin(), sums.end(), 0.0);
                for (std::size_t i = begin; i < end; ++i)
                    for (std::size_t t = 0; t < count; ++t) {
                        const double s = widened_squared_distance(points_.row(i), points_.row(candidates[t]), d);
                        const double nearest = s < weights_[i] ? s : weights_[i];
                        sums[t] += sample_weight_ ? sample_weight_[i] * nearest : nearest;
                    }
                for (std::size_t t = 0; t < count; ++t) block_potentials[t * blocks + static_cast<std::size_t>(b)] = sums[t];
            }
        }
        std::vector<double> totals(count, 0.0);
        for (std::size_t t = 0; t < count; ++t)
            for (std::size_t b = 0; b < blocks; ++b) totals[t] += block_potentials[t * blocks + b];
        return totals;
    }

    // The point with the largest D[i], ties → lowest i (weighted: of positive weight).
    std::size_t farthest() const {
        if (sample_weight_) return farthest_weighted();
        const std::size_t n = weights_.size(), blocks = block_sums_.size();
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

private:
    // What D² sampling draws by: D[i], or w[i]·D[i] with sample weights.
    double mass(std::size_t i) const { return sample_weight_ ? sample_weight_[i] * weights_[i] : weights_[i]; }

    // Sequential: maximin is O(n) per round beside the O(n·d) distance pass.
    std::size_t farthest_weighted() const {
        std::size_t best = weights_.size();
        for (std::size_t i = 0; i < weights_.size(); ++i)
            if (sample_weight_[i] > 0.0 && (best == weights_.size() || weights_[i] > weights_[best])) best = i;
        return best;  // total() > 0 guarantees a point of positive weight
    }

    const Matrix<T>& points_;
    int threads_;
    const double* sample_weight_;  // null: unweighted
    std::vector<double> weights_;
    std::vector<double> block_sums_;
    double total_ = 0.0;
};

// Chosen point indices, in order, and the centres they make.
template <typename T>
class Selection {
public:
    Selection(const Matrix<T>& points, std::size_t k, const double* sample_weight = nullptr)
        : points_(points), sample_weight_(sample_weight), chosen_(points.rows(), 0) {
        order_.reserve(k);
        if (sample_weight_)
            for (std::size_t i = 0; i < chosen_.size(); ++i) positive_left_ += sample_weight_[i] > 0.0;
    }

    void add(std::size_t index) {
        chosen_[index] = 1;
        order_.push_back(index);
        if (sample_weight_ && sample_weight_[index] > 0.0) --positive_left_;
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
        const std::size_t d = points_.cols();
        Matrix<double> out(order_.size(), d);
        for (std::size_t c = 0; c < order_.size(); ++c)
            std::copy(points_.row(order_[c]), points_.row(order_[c]) + d, out.row(c));  // widened exactly
        return out;
    }

private:
    const Matrix<T>& points_;
    const double* sample_weight_;
    std::uint64_t positive_left_ = 0;  // unchosen points of positive weight
    std::vector<char> chosen_;
    std::vector<std::size_t> order_;
};

// k distinct indices, uniformly (Robert Floyd's sampling: k draws, no O(n) memory).
template <typename T>
Matrix<double> random_init(const Matrix<T>& points, std::size_t k, std::uint64_t seed) {
    const std::uint64_t n = points.rows();
    std::unordered_set<std::uint64_t> taken;
    taken.reserve(k);
    Selection<T> selection(points, k);
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
template <typename T>
Matrix<double> weighted_random_init(const Matrix<T>& points, std::size_t k, std::uint64_t seed,
                                    const double* sample_weight) {
    const std::size_t n = points.rows();
    Selection<T> selection(points, k, sample_weight);
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
        double sum = 0.0;
        for (std::size_t i = begin; i < end; ++i) sum += mass(i);
        block_sums[pick / kBlockSize] = sum;
    }
    return selection.centres();
}

int default_greedy_trials(std::size_t k) {
    return 2 + static_cast<int>(std::floor(std::log(static_cast<double>(k))));
}

template <typename T>
Matrix<double> seeded_init(const Matrix<T>& points, std::size_t k, const InitOptions& options,
                           const std::string& source_name) {
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
    const std::uint64_t seed = options.seed;
    const double* weight = options.sample_weight.empty() ? nullptr : options.sample_weight.data();
    NearestDistances<T> nearest(points, threads, weight);
    Selection<T> selection(points, k, weight);
    const auto choose = [&](std::size_t index) {
        selection.add(index);
        nearest.add_centre(points.row(index));
        if (!std::isfinite(nearest.total()))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
    };
    if (weight) {
        const auto by_weight = [weight](std::size_t i) { return weight[i]; };
        const std::vector<double> sums = block_sums_of(points.rows(), by_weight);
        double total = 0.0;
        for (double sum : sums) total += sum;
        choose(blocked_sample(sums, total, random_uniform(seed, kStreamWeightedFirst, 0), points.rows(), by_weight));
    } else {
        choose(random_below(seed, kStreamFirstCentre, 0, points.rows()));
    }

    const std::size_t trials = options.greedy_trials > 0 ? static_cast<std::size_t>(options.greedy_trials)
                                                          : static_cast<std::size_t>(default_greedy_trials(k));
    for (std::uint64_t round = 1; round < k; ++round) {
        if (options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
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
                for (std::size_t t = 0; t < trials; ++t)
                    candidates[t] = nearest.sample(random_uniform(seed, kStreamGreedyCandidates, round * trials + t));
                const std::vector<double> potentials = nearest.potentials(candidates);
                std::size_t best = 0;
                for (std::size_t t = 1; t < trials; ++t)
                    if (potentials[t] < potentials[best]) best = t;
                choose(candidates[best]);
                break;
            }
            default:  // Maximin
                choose(nearest.farthest());
                break;
        }
    }
    return selection.centres();
}

template <typename T>
Matrix<double> file_init(const Matrix<T>& points, std::size_t k, const InitOptions& options) {
    if (options.path.empty() && !options.given) throw Error("initialisation 'file' needs the path of a centroid file");
    Matrix<double> centres = options.given ? Matrix<double>(*options.given) : load_matrix(options.path);
    const std::string source = options.given ? std::string("init") : options.path;
    if (centres.rows() != k || centres.cols() != points.cols())
        throw InputError::whole(source, "the initial centroids are " + std::to_string(centres.rows()) +
                                                  " rows × " + std::to_string(centres.cols()) +
                                                  " columns; expected k = " + std::to_string(k) + " rows × d = " +
                                                  std::to_string(points.cols()) + " columns");
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
    }
    return "unknown";
}

std::optional<InitMethod> parse_init_method(std::string_view name) {
    for (InitMethod method : {InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus,
                              InitMethod::Maximin, InitMethod::File})
        if (name == to_string(method)) return method;
    return std::nullopt;
}

namespace {
template <typename T>
Matrix<double> initialize_from(const Matrix<T>& points, std::size_t k, const InitOptions& options,
                               const std::string& source_name) {
    const std::size_t n = points.rows();
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " +
                                                 std::to_string(n));
    if (points.cols() == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    if (!options.sample_weight.empty() && options.sample_weight.size() != n)
        throw Error(std::to_string(options.sample_weight.size()) + " sample weights for n = " + std::to_string(n) +
                    " points");
    if (options.greedy_trials < 0)
        throw Error("greedy k-means++ trials = " + std::to_string(options.greedy_trials) + " must be ≥ 0 (0 = 2 + ⌊ln k⌋)");
    // Equal weights draw as no weights do: seed exactly as the unweighted run
    // (scikit-learn's check that sample_weight=ones equals None).
    if (options.sample_weight.size() > 1 &&
        std::all_of(options.sample_weight.begin(), options.sample_weight.end(),
                    [&](double w) { return w == options.sample_weight[0]; })) {
        InitOptions unweighted = options;
        unweighted.sample_weight = {};
        return initialize_from(points, k, unweighted, source_name);
    }
    switch (options.method) {
        case InitMethod::Random:
            if (!options.sample_weight.empty())
                return weighted_random_init(points, k, options.seed, options.sample_weight.data());
            return random_init(points, k, options.seed);
        case InitMethod::File: return file_init(points, k, options);
        case InitMethod::KMeansPlusPlus:
        case InitMethod::GreedyKMeansPlusPlus:
        case InitMethod::Maximin: return seeded_init(points, k, options, source_name);
    }
    throw Error("unknown initialisation method");
}
}  // namespace

Matrix<double> initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return initialize_from(points, k, options, source_name);
}

Matrix<double> initialize_centroids(const Matrix<float>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name) {
    return initialize_from(points, k, options, source_name);
}

}  // namespace kms
