#pragma once
// The CPU distance kernels shared by every CPU solver and by kms::assign: squared
// distances to all centroids (vectorised over centroids) and the argmin scans.
// Every distance is accumulated over coordinates in index order from zero, exactly
// as squared_distance() (kms/distance.hpp) does, so all paths give the same bits.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace kms::cpu {

using Clock = std::chrono::steady_clock;

inline double elapsed_ms(Clock::time_point since) {
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Lloyd's distance kernel: squared distances from one point to all k centroids,
// centroids transposed (d × k) so the loop over centroids vectorises. Each
// distance is accumulated over coordinates in index order starting from zero,
// exactly as squared_distance() does, so the values are bitwise the same.
template <typename T>
inline void distances_to_all(const T* __restrict point, const T* __restrict centroids_t, std::size_t d,
                             std::size_t k, T* __restrict out) {
    for (std::size_t j = 0; j < k; ++j) out[j] = T(0);
    for (std::size_t t = 0; t < d; ++t) {
        const T x = point[t];
        const T* c = centroids_t + t * k;
        for (std::size_t j = 0; j < k; ++j) {
            const T diff = x - c[j];
            out[j] += diff * diff;
        }
    }
}

// Lowest index of the smallest value (ties keep the lower index). Kept per lane
// of kLanes interleaved columns so the compiler can vectorise it; each lane keeps
// its first minimum, and the lanes are merged by value, then by index, which is
// exactly the sequential scan's answer.
constexpr std::size_t kLanes = 8;

template <typename T>
inline std::size_t argmin(const T* values, std::size_t k) {
    if (k < 2 * kLanes) {
        std::size_t best = 0;
        for (std::size_t j = 1; j < k; ++j)
            if (values[j] < values[best]) best = j;
        return best;
    }
    T lane_min[kLanes];
    std::size_t lane_index[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
        lane_min[l] = values[l];
        lane_index[l] = l;
    }
    std::size_t j = kLanes;
    for (; j + kLanes <= k; j += kLanes)
        for (std::size_t l = 0; l < kLanes; ++l) {
            const bool smaller = values[j + l] < lane_min[l];
            lane_min[l] = smaller ? values[j + l] : lane_min[l];
            lane_index[l] = smaller ? j + l : lane_index[l];
        }
    std::size_t best = lane_index[0];
    T best_value = lane_min[0];
    for (std::size_t l = 1; l < kLanes; ++l)
        if (lane_min[l] < best_value || (lane_min[l] == best_value && lane_index[l] < best)) {
            best_value = lane_min[l];
            best = lane_index[l];
        }
    for (; j < k; ++j)  // the tail, after every lane: strictly smaller only
        if (values[j] < best_value) {
            best_value = values[j];
            best = j;
        }
    return best;
}

// Nearest (lowest index on ties) and the second smallest value, by a sequential scan.
template <typename T>
inline std::size_t nearest_two(const T* values, std::size_t k, T& best, T& second) {
    best = std::numeric_limits<T>::infinity();
    second = best;
    std::size_t best_index = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const T v = values[j];
        if (v < best) {
            second = best;
            best = v;
            best_index = j;
        } else if (v < second) {
            second = v;
        }
    }
    return best_index;
}

// Label a range of points by full search; returns how many labels changed.

// Compiled for AVX2 as well as the baseline, chosen at run time (kernels.cpp).
std::uint64_t lloyd_label_range_f32(const float* points, std::size_t d, const float* centroids_t, std::size_t k,
                                    std::size_t begin, std::size_t end, std::int32_t* labels, float* scratch);
std::uint64_t lloyd_label_range_f64(const double* points, std::size_t d, const double* centroids_t, std::size_t k,
                                    std::size_t begin, std::size_t end, std::int32_t* labels, double* scratch);
void distances_to_all_f32(const float* p, const float* ct, std::size_t d, std::size_t k, float* out);
void distances_to_all_f64(const double* p, const double* ct, std::size_t d, std::size_t k, double* out);

inline void all_distances(const float* p, const float* ct, std::size_t d, std::size_t k, float* out) {
    distances_to_all_f32(p, ct, d, k, out);
}
inline void all_distances(const double* p, const double* ct, std::size_t d, std::size_t k, double* out) {
    distances_to_all_f64(p, ct, d, k, out);
}
inline std::uint64_t label_range(const float* p, std::size_t d, const float* ct, std::size_t k, std::size_t b,
                                 std::size_t e, std::int32_t* l, float* s) {
    return lloyd_label_range_f32(p, d, ct, k, b, e, l, s);
}
inline std::uint64_t label_range(const double* p, std::size_t d, const double* ct, std::size_t k, std::size_t b,
                                 std::size_t e, std::int32_t* l, double* s) {
    return lloyd_label_range_f64(p, d, ct, k, b, e, l, s);
}

}  // namespace kms::cpu
