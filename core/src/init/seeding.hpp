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

// The blocked walk of D² sampling (see the order in init.cpp) over any per-point
// mass: the first i whose running sum exceeds u·total.
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
