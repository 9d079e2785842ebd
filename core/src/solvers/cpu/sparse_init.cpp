// Initial centroids of sparse points (kms/sparse.hpp): kms/init.hpp's rules, step by
// step (random streams 0x1171..0x1177, blocks of 4096 points summed in order, the
// blocked D² walk, the fallbacks), with the sparse squared distance of
// sparse_distance.hpp in place of the dense one. Each distance pass costs O(nnz);
// the D updates run over independent points and the block sums over whole blocks, so
// the result does not depend on the thread count.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/sparse_solver.hpp"
#include "sparse_distance.hpp"
#include "../../init/seeding.hpp"

namespace kms {
namespace {

// The streams, the blocks and the blocked D² walk of the dense seeding (seeding.hpp).
using seeding::blocked_sample;
using seeding::block_sums_of;
using seeding::kBlockSize;
using seeding::kStreamFallback;
using seeding::kStreamFirstCentre;
using seeding::kStreamGreedyCandidates;
using seeding::kStreamKMeansPlusPlus;
using seeding::kStreamParallel;
using seeding::kStreamRandom;
using seeding::kStreamWeightedFirst;
using seeding::kStreamWeightedRandom;

double total_of(const std::vector<double>& sums) {
    double total = 0.0;
    for (double s : sums) total += s;
    return total;
}

template <typename T>
class SparseSeeding {
public:
    SparseSeeding(const SparseMatrix<T>& points, std::size_t k, const InitOptions& options, const std::string& source)
        : x_(points), n_(points.rows), d_(points.cols), k_(k), options_(options), source_(source),
          threads_(options.threads > 0 ? options.threads : omp_get_max_threads()),
          weight_(options.sample_weight.empty() ? nullptr : options.sample_weight.data()),
          chosen_(n_, 0), xx_(n_), nearest_(n_, std::numeric_limits<double>::infinity()) {
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t i = 0; i < n_; ++i) xx_[i] = sparse::squared_norm(sparse::row(x_, i));
        if (weight_)
            for (std::size_t i = 0; i < n_; ++i) positive_left_ += weight_[i] > 0.0;
    }

    Matrix<double> run(std::vector<std::size_t>& order) {
        if (options_.method == InitMethod::KMeansParallel) return parallel(order);
        switch (options_.method) {
            case InitMethod::Random: weight_ ? weighted_random() : random(); break;
            default: seeded(); break;
        }
        order = order_;
        Matrix<double> out(order_.size(), d_);
        for (std::size_t c = 0; c < order_.size(); ++c) std::copy(centres_[c].begin(), centres_[c].end(), out.row(c));
        return out;
    }

private:
    double w(std::size_t i) const { return weight_ ? weight_[i] : 1.0; }
    double mass(std::size_t i) const { return weight_ ? weight_[i] * nearest_[i] : nearest_[i]; }

    void check_cancel() const {
        if (options_.cancel.stop_requested()) throw Error(source_ + ": initialisation cancelled");
    }

    std::vector<double> dense_row(std::size_t i) const {
        std::vector<double> out(d_, 0.0);
        const sparse::Row<T> x = sparse::row(x_, i);
        for (std::size_t e = 0; e < x.count; ++e) out[static_cast<std::size_t>(x.index[e])] = static_cast<double>(x.value[e]);
        return out;
    }

    void add(std::size_t i) {
        chosen_[i] = 1;
        order_.push_back(i);
        centres_.push_back(dense_row(i));
        if (weight_ && weight_[i] > 0.0) --positive_left_;
    }

    // The m-th unchosen point (of positive weight while any is left).
    std::size_t uniform_unchosen(std::uint64_t round) const {
        const bool positive_only = weight_ && positive_left_ > 0;
        const std::uint64_t remaining = positive_only ? positive_left_ : n_ - order_.size();
        std::uint64_t m = random_below(options_.seed, kStreamFallback, round, remaining);
        for (std::size_t i = 0; i < n_; ++i)
            if (!chosen_[i] && (!positive_only || weight_[i] > 0.0) && m-- == 0) return i;
        return n_ - 1;
    }

    // Robert Floyd's k distinct indices (kms/init.cpp's random_init).
    void random() {
        std::unordered_set<std::uint64_t> taken;
        for (std::uint64_t step = 0; step < k_; ++step) {
            const std::uint64_t j = n_ - k_ + step;
            const std::uint64_t t = random_below(options_.seed, kStreamRandom, step, j + 1);
            const std::uint64_t pick = taken.count(t) ? j : t;
            taken.insert(pick);
            add(pick);
        }
    }

    void weighted_random() {
        const auto left = [&](std::size_t i) { return chosen_[i] ? 0.0 : weight_[i]; };
        std::vector<double> sums = block_sums_of(n_, left);
        for (std::uint64_t step = 0; step < k_; ++step) {
            const double total = total_of(sums);
            if (!(total > 0.0)) {
                add(uniform_unchosen(step));
                continue;
            }
            const std::size_t pick =
                blocked_sample(sums, total, random_uniform(options_.seed, kStreamWeightedRandom, step), n_, left);
            add(pick);
            const std::size_t begin = pick / kBlockSize * kBlockSize, end = std::min(n_, begin + kBlockSize);
            sums[pick / kBlockSize] = seeding::ordered_sum(begin, end, left);
        }
    }

    void add_centre(std::size_t index) {
        add(index);
        update_nearest(centres_.size() - 1);
    }

    // D[i] = min(D[i], distance to each centre from `first` on, in order), with `owner`
    // the index of the centre that gave it (ties: the earlier); the block sums again.
    void update_nearest(std::size_t first, std::uint32_t* owner = nullptr) {
        std::vector<double> norms;
        for (std::size_t c = first; c < centres_.size(); ++c) norms.push_back(sparse::squared_norm(centres_[c].data(), d_));
        const std::size_t blocks = (n_ + kBlockSize - 1) / kBlockSize;
        sums_.assign(blocks, 0.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (threads_ > 1)
        for (std::size_t b = 0; b < blocks; ++b) {
            if (options_.cancel.stop_requested()) continue;
            seeding::OrderedSum sum;
            for (std::size_t i = b * kBlockSize; i < std::min(n_, (b + 1) * kBlockSize); ++i) {
                for (std::size_t c = first; c < centres_.size(); ++c) {
                    const double s =
                        sparse::squared_distance(sparse::row(x_, i), xx_[i], centres_[c].data(), norms[c - first]);
                    if (s < nearest_[i]) {
                        nearest_[i] = s;
                        if (owner) owner[i] = static_cast<std::uint32_t>(c);
                    }
                }
                sum.add(mass(i));
            }
            sums_[b] = sum.value();
        }
        check_cancel();
        total_ = total_of(sums_);
        if (!std::isfinite(total_))
            throw InputError::whole(source_, "squared distances between points overflow (or are not numbers); "
                                             "rescale the data");
    }

    // Σ w·min(D, distance to the candidate), blocked, for each candidate.
    std::vector<double> potentials(const std::vector<std::size_t>& candidates) {
        const std::size_t blocks = (n_ + kBlockSize - 1) / kBlockSize, count = candidates.size();
        std::vector<std::vector<double>> rows(count);
        std::vector<double> norms(count);
        for (std::size_t t = 0; t < count; ++t) {
            rows[t] = dense_row(candidates[t]);
            norms[t] = sparse::squared_norm(rows[t].data(), d_);
        }
        std::vector<double> block_potentials(count * blocks, 0.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (threads_ > 1)
        for (std::size_t b = 0; b < blocks; ++b) {
            if (options_.cancel.stop_requested()) continue;
            for (std::size_t t = 0; t < count; ++t) {
                seeding::OrderedSum sum;
                for (std::size_t i = b * kBlockSize; i < std::min(n_, (b + 1) * kBlockSize); ++i) {
                    const double s = sparse::squared_distance(sparse::row(x_, i), xx_[i], rows[t].data(), norms[t]);
                    const double m = s < nearest_[i] ? s : nearest_[i];
                    sum.add(weight_ ? weight_[i] * m : m);
                }
                block_potentials[t * blocks + b] = sum.value();
            }
        }
        check_cancel();
        std::vector<double> out(count, 0.0);
        for (std::size_t t = 0; t < count; ++t)
            for (std::size_t b = 0; b < blocks; ++b) out[t] += block_potentials[t * blocks + b];
        return out;
    }

    std::size_t farthest() const {
        std::size_t best = n_;
        for (std::size_t i = 0; i < n_; ++i)
            if ((!weight_ || weight_[i] > 0.0) && (best == n_ || nearest_[i] > nearest_[best])) best = i;
        return best == n_ ? n_ - 1 : best;
    }

    // k-means++'s first centre: drawn ∝ w, or uniformly.
    std::size_t first_centre() const {
        if (!weight_) return random_below(options_.seed, kStreamFirstCentre, 0, n_);
        const auto by_weight = [&](std::size_t i) { return weight_[i]; };
        const std::vector<double> sums = block_sums_of(n_, by_weight);
        return blocked_sample(sums, total_of(sums), random_uniform(options_.seed, kStreamWeightedFirst, 0), n_, by_weight);
    }

    // k-means‖, as the dense rounds (core/src/init/kmeans_parallel.cpp) with every
    // distance (no bounds): k-means++'s first centre; rounds in which each point draws
    // on its own (point i of round r: counter r·n + i) and is taken with probability
    // ℓ·w·D/ψ, a round's draws added in row order; every point owned by its nearest
    // candidate (ties: the earlier); the candidates, weighted by what they own,
    // reduced to k by weighted k-means++ over their sparse rows. A round costs
    // O(nnz · its candidates).
    Matrix<double> parallel(std::vector<std::size_t>& order) {
        if (n_ >= (std::size_t{1} << 32)) throw Error("k-means‖ seeds fewer than 2^32 points");
        const std::uint64_t seed = options_.seed;
        std::vector<std::uint32_t> owner(n_, 0);
        add(first_centre());
        update_nearest(0, owner.data());
        const double ell = options_.oversampling * static_cast<double>(k_);
        const std::size_t blocks = (n_ + kBlockSize - 1) / kBlockSize;
        const int most = options_.parallel_rounds + 64;
        for (int rounds = 0; total_ > 0.0 && (rounds < options_.parallel_rounds || (order_.size() < k_ && rounds < most));) {
            check_cancel();
            ++rounds;
            const double psi = total_;
            const std::uint64_t base = static_cast<std::uint64_t>(rounds) * n_;
            std::vector<std::vector<std::size_t>> picks(blocks);
            RegionGuard guard;
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
            for (std::size_t b = 0; b < blocks; ++b)
                for (std::size_t i = b * kBlockSize; i < std::min(n_, (b + 1) * kBlockSize) && !guard.failed(); ++i) {
                    const double m = mass(i);  // a candidate's own D is 0 in the dense rounds: never drawn again
                    if (!chosen_[i] && m > 0.0 && random_uniform(seed, kStreamParallel, base + i) < ell * m / psi)
                        guard.run([&] { picks[b].push_back(i); });
                }
            guard.rethrow();
            const std::size_t first = centres_.size();
            for (const std::vector<std::size_t>& block : picks)
                for (std::size_t i : block) add(i);
            update_nearest(first, owner.data());
        }
        if (order_.size() < k_) {  // fewer distinct points than k
            const std::size_t first = centres_.size();
            for (std::uint64_t step = 0; order_.size() < k_; ++step) add(uniform_unchosen(step));
            update_nearest(first, owner.data());
        }

        // The candidates' rows as a sparse matrix, weighted by the points they own.
        const std::size_t count = order_.size();
        std::vector<double> candidate_weight(count, 0.0);
        for (std::size_t i = 0; i < n_; ++i) candidate_weight[owner[i]] += w(i);
        std::vector<std::int64_t> indptr(count + 1, 0);
        std::vector<std::int32_t> indices;
        std::vector<T> values;
        for (std::size_t c = 0; c < count; ++c) {
            const sparse::Row<T> x = sparse::row(x_, order_[c]);
            indices.insert(indices.end(), x.index, x.index + x.count);
            values.insert(values.end(), x.value, x.value + x.count);
            indptr[c + 1] = static_cast<std::int64_t>(indices.size());
        }
        SparseMatrix<T> candidates;
        candidates.rows = count;
        candidates.cols = d_;
        candidates.indptr = indptr.data();
        candidates.indices = indices.data();
        candidates.values = values.data();
        InitOptions reduce;
        reduce.method = InitMethod::KMeansPlusPlus;
        reduce.seed = seed;
        reduce.threads = threads_;
        reduce.cancel = options_.cancel;
        reduce.sample_weight = std::move(candidate_weight);
        std::vector<std::size_t> picked;
        Matrix<double> centres = initialize_centroids(candidates, k_, reduce, source_, &picked);
        order.resize(picked.size());
        for (std::size_t c = 0; c < picked.size(); ++c) order[c] = order_[picked[c]];
        return centres;
    }

    void seeded() {
        const std::uint64_t seed = options_.seed;
        add_centre(first_centre());
        const std::size_t trials = options_.greedy_trials > 0
                                       ? static_cast<std::size_t>(options_.greedy_trials)
                                       : 2 + static_cast<std::size_t>(std::floor(std::log(static_cast<double>(k_))));
        const auto sample = [&](double u) { return blocked_sample(sums_, total_, u, n_, [&](std::size_t i) { return mass(i); }); };
        for (std::uint64_t round = 1; round < k_; ++round) {
            check_cancel();
            if (!(total_ > 0.0)) {
                add_centre(uniform_unchosen(round));
                continue;
            }
            switch (options_.method) {
                case InitMethod::KMeansPlusPlus:
                    add_centre(sample(random_uniform(seed, kStreamKMeansPlusPlus, round)));
                    break;
                case InitMethod::GreedyKMeansPlusPlus: {
                    std::vector<std::size_t> candidates(trials);
                    for (std::size_t t = 0; t < trials; ++t)
                        candidates[t] = sample(random_uniform(seed, kStreamGreedyCandidates, round * trials + t));
                    const std::vector<double> p = potentials(candidates);
                    std::size_t best = 0;
                    for (std::size_t t = 1; t < trials; ++t)
                        if (p[t] < p[best]) best = t;
                    add_centre(candidates[best]);
                    break;
                }
                case InitMethod::Maximin:
                    add_centre(farthest());
                    break;
                default:
                    throw UsageError("sparse input seeds with random, kmeans++, greedy-kmeans++, maximin or "
                                     "kmeans-parallel; got " + std::string(to_string(options_.method)));
            }
        }
    }

    const SparseMatrix<T>& x_;
    std::size_t n_, d_, k_;
    const InitOptions& options_;
    const std::string& source_;
    int threads_;
    const double* weight_;
    std::uint64_t positive_left_ = 0;
    std::vector<char> chosen_;
    std::vector<std::size_t> order_;
    std::vector<std::vector<double>> centres_;
    std::vector<double> xx_, nearest_, sums_;
    double total_ = 0.0;
};

}  // namespace

template <typename T>
Matrix<double> initialize_centroids(const SparseMatrix<T>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name, std::vector<std::size_t>* chosen) {
    const std::size_t n = points.rows;
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " + std::to_string(n));
    if (!options.sample_weight.empty() && options.sample_weight.size() != n)
        throw Error(std::to_string(options.sample_weight.size()) + " sample weights for n = " + std::to_string(n) + " points");
    if (options.method == InitMethod::File) {
        if (options.path.empty() && !options.given) throw Error("initialisation 'file' needs the path of a centroid file");
        Matrix<double> centres = options.given ? Matrix<double>(*options.given) : load_matrix(options.path);
        const std::string source = options.given ? std::string("init") : options.path;
        if (centres.rows() != k || centres.cols() != points.cols)
            throw InputError::whole(source, "the initial centroids are " + std::to_string(centres.rows()) + " rows × " +
                                                std::to_string(centres.cols()) + " columns; expected k = " +
                                                std::to_string(k) + " rows × d = " + std::to_string(points.cols) +
                                                " columns");
        for (double v : centres.values())
            if (!std::isfinite(v)) throw InputError::whole(source, "the initial centroids contain NaN or infinity");
        if (chosen) chosen->clear();
        return centres;
    }
    // Equal weights draw as no weights do (kms/init.hpp's rule: sample_weight=ones seeds as None).
    if (options.sample_weight.size() > 1 &&
        std::all_of(options.sample_weight.begin(), options.sample_weight.end(),
                    [&](double w) { return w == options.sample_weight[0]; })) {
        InitOptions unweighted = options;
        unweighted.sample_weight = {};
        return initialize_centroids(points, k, unweighted, source_name, chosen);
    }
    std::vector<std::size_t> order;
    SparseSeeding<T> seeding(points, k, options, source_name);
    Matrix<double> centres = seeding.run(order);
    if (chosen) *chosen = std::move(order);
    return centres;
}

template Matrix<double> initialize_centroids<float>(const SparseMatrix<float>&, std::size_t, const InitOptions&,
                                                    const std::string&, std::vector<std::size_t>*);
template Matrix<double> initialize_centroids<double>(const SparseMatrix<double>&, std::size_t, const InitOptions&,
                                                     const std::string&, std::vector<std::size_t>*);

}  // namespace kms
