#pragma once
// Internal to core/src/init: the blocked order every seeding follows (init.cpp
// documents it), shared by the plain k-means++ (init.cpp), the bounded one
// (bounded_nearest.cpp) and k-means‖ (kmeans_parallel.cpp).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"

namespace kms::seeding {

constexpr std::size_t kBlockSize = 4096;
constexpr std::size_t kSubBlockSize = 64;  // a block's sum adds 64 sub-block sums (init.cpp)
constexpr std::uint64_t kStreamFirstCentre = 0x1171;
constexpr std::uint64_t kStreamKMeansPlusPlus = 0x1172;
constexpr std::uint64_t kStreamGreedyCandidates = 0x1173;
constexpr std::uint64_t kStreamFallback = 0x1174;
constexpr std::uint64_t kStreamRandom = 0x1175;
constexpr std::uint64_t kStreamWeightedFirst = 0x1176;
constexpr std::uint64_t kStreamWeightedRandom = 0x1177;
constexpr std::uint64_t kStreamParallel = 0x1178;  // k-means‖: point i of round r draws counter r·n + i

// A stop request (InitOptions::cancel) seen inside a round's long loops, by any
// thread: the token is read once every kPollPoints points (nothing measurable) and,
// once seen, every loop of the round is left at its next poll. An exception
// must not leave an OpenMP region, so the caller throws after it (throw_if_stopped:
// kms::Cancelled, "SOURCE: initialisation cancelled" as between rounds); the
// half-done round is then discarded with the seeding.
class StopPoll {
public:
    static constexpr std::size_t kPollPoints = 4096;
    StopPoll(std::stop_token token, std::string source_name)
        : token_(std::move(token)), source_name_(std::move(source_name)) {}
    // True once a stop was requested (the first thread to see it tells the others).
    bool poll() {
        if (seen_.load(std::memory_order_relaxed)) return true;
        if (!token_.stop_requested()) return false;
        seen_.store(true, std::memory_order_relaxed);
        return true;
    }
    // poll() at every kPollPoints-th point, else false: for loops that end at the first true.
    bool stopped(std::size_t i) { return i % kPollPoints == 0 && poll(); }
    void throw_if_stopped() const {
        if (seen_.load(std::memory_order_relaxed)) throw Cancelled(source_name_ + ": initialisation cancelled");
    }

private:
    std::stop_token token_;
    std::string source_name_;
    std::atomic<bool> seen_{false};
};

// A block's sum in the fixed order (init.cpp): its 64-point sub-blocks each summed
// in increasing i from 0.0, their sums added in increasing order from 0.0. Fed the
// block's masses in increasing i (the block's first point on a sub-block boundary).
class OrderedSum {
public:
    void add(double mass) {
        sub_ += mass;
        if (++count_ == kSubBlockSize) close();
    }
    void add_sub_block(double sub_sum) { sum_ += sub_sum; }  // a whole sub-block's sum, count_ == 0
    double value() const { return count_ ? sum_ + sub_ : sum_; }

private:
    void close() {
        sum_ += sub_;
        sub_ = 0.0;
        count_ = 0;
    }
    double sum_ = 0.0, sub_ = 0.0;
    std::size_t count_ = 0;
};

// Σ mass(i) over the sub-block or block [begin, end) in the fixed order.
template <typename Mass>
double ordered_sum(std::size_t begin, std::size_t end, Mass mass) {
    double sum = 0.0;
    for (std::size_t s = begin; s < end; s += kSubBlockSize) {
        double sub = 0.0;
        for (std::size_t i = s; i < std::min(end, s + kSubBlockSize); ++i) sub += mass(i);
        sum += sub;
    }
    return sum;
}

// The fixed-order sums of whole 64-point sub-blocks of the masses D[i] (weighted:
// w[i]·D[i]; `weight` null: unweighted) into out[s] for each sub-block s of `subs`.
// Eight at a time: eight add chains in flight, each in its own sub-block's order.
inline void sub_block_sums(const double* nearest, const double* weight, const std::size_t* subs, std::size_t count,
                           double* out) {
    for (std::size_t first = 0; first < count; first += 8) {
        const std::size_t lanes = std::min<std::size_t>(8, count - first);
        double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        const double* at[8];
        const double* w[8];
        for (std::size_t l = 0; l < 8; ++l) {
            const std::size_t begin = subs[first + std::min(l, lanes - 1)] * kSubBlockSize;
            at[l] = nearest + begin;
            w[l] = weight ? weight + begin : nullptr;
        }
        if (weight) {
            for (std::size_t i = 0; i < kSubBlockSize; ++i)
                for (std::size_t l = 0; l < 8; ++l) sums[l] += w[l][i] * at[l][i];
        } else {
            for (std::size_t i = 0; i < kSubBlockSize; ++i)
                for (std::size_t l = 0; l < 8; ++l) sums[l] += at[l][i];
        }
        for (std::size_t l = 0; l < lanes; ++l) out[subs[first + l]] = sums[l];
    }
}

// The block [begin, end) of masses D[i] (w[i]·D[i]) in the fixed order; its
// sub-block sums are left in sub[0 .. ceil((end - begin) / 64)).
inline double block_sum(const double* nearest, const double* weight, std::size_t begin, std::size_t end, double* sub) {
    std::size_t subs[kBlockSize / kSubBlockSize];
    const std::size_t whole = (end - begin) / kSubBlockSize;
    for (std::size_t s = 0; s < whole; ++s) subs[s] = s;
    sub_block_sums(nearest + begin, weight ? weight + begin : nullptr, subs, whole, sub);
    const std::size_t parts = (end - begin + kSubBlockSize - 1) / kSubBlockSize;
    if (parts > whole) {
        const std::size_t from = begin + whole * kSubBlockSize;
        sub[whole] = ordered_sum(from, end, [&](std::size_t i) { return weight ? weight[i] * nearest[i] : nearest[i]; });
    }
    double sum = 0.0;
    for (std::size_t s = 0; s < parts; ++s) sum += sub[s];
    return sum;
}

// The last i in [begin, end) with mass(i) > 0 (end - 1 if none: unreachable when the caller saw a positive sum).
template <typename Mass>
std::size_t last_positive(std::size_t begin, std::size_t end, Mass mass) {
    for (std::size_t i = end; i > begin; --i)
        if (mass(i - 1) > 0.0) return i - 1;
    return end - 1;
}

// The walk inside the block [begin, end) that D² sampling chose, from `running`
// (the sum of the blocks before): sub-block by sub-block (running + its sum >
// target: inside it, running += mass(i) to the first i with running > target,
// else its last positive i), else the block's last positive i.
template <typename Mass>
std::size_t walk_block(std::size_t begin, std::size_t end, double running, double target, Mass mass) {
    for (std::size_t s = begin; s < end; s += kSubBlockSize) {
        const std::size_t stop = std::min(end, s + kSubBlockSize);
        const double sub = ordered_sum(s, stop, mass);
        if (running + sub > target) {
            for (std::size_t i = s; i < stop; ++i) {
                running += mass(i);
                if (running > target) return i;
            }
            return last_positive(s, stop, mass);
        }
        running += sub;
    }
    return last_positive(begin, end, mass);
}

// The blocked walk of D² sampling (see the order in init.cpp) over any per-point
// mass: the first i whose running sum exceeds u·total.
template <typename Mass>
std::size_t blocked_sample(const std::vector<double>& block_sums, double total, double u, std::size_t n, Mass mass) {
    const double target = u * total;
    double running = 0.0;
    for (std::size_t b = 0; b < block_sums.size(); ++b) {
        if (running + block_sums[b] > target)
            return walk_block(b * kBlockSize, std::min(n, (b + 1) * kBlockSize), running, target, mass);
        running += block_sums[b];
    }
    return last_positive(0, n, mass);
}

// Block sums of a per-point mass, in the fixed order.
template <typename Mass>
std::vector<double> block_sums_of(std::size_t n, Mass mass) {
    std::vector<double> sums((n + kBlockSize - 1) / kBlockSize, 0.0);
    for (std::size_t b = 0; b < sums.size(); ++b) sums[b] = ordered_sum(b * kBlockSize, std::min(n, (b + 1) * kBlockSize), mass);
    return sums;
}

// kms::squared_distance<double> of points of any precision, widened to double
// first (exactly), so float data seeds as the same values in a double matrix do.
template <typename T, typename U>
double widened_squared_distance(const T* a, const U* b, std::size_t d) {
    double sum = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        const double diff = static_cast<double>(a[j]) - static_cast<double>(b[j]);
        sum += diff * diff;
    }
    return sum;
}

// k-means‖ (kmeans_parallel.cpp): candidates by rounds of independent D²
// sampling, weighted by the points nearest to them, reduced to k centres by
// weighted k-means++; over ranks (Rows with a communicator) the one process's bits.
template <typename T>
class Rows;
Matrix<double> kmeans_parallel_init(const Rows<double>& rows, std::size_t k, const InitOptions& options,
                                    const std::string& source_name);
Matrix<double> kmeans_parallel_init(const Rows<float>& rows, std::size_t k, const InitOptions& options,
                                    const std::string& source_name);

}  // namespace kms::seeding
