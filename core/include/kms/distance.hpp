#pragma once
// The one squared-distance function and the bound arithmetic that make Elkan
// and Hamerly exact accelerations of Lloyd in floating point.
//
// Every solver (CPU and CUDA) compares candidates by squared_distance() computed
// in the same order with no FMA contraction (CMake: -ffp-contract=off; nvcc:
// --fmad=false or __fmul_rn/__fadd_rn), so equal inputs give bitwise-equal
// distances and the argmin (ties → lowest index) is the same everywhere.
//
// The bounds hold TRUE distances, inflated/deflated so floating-point rounding
// can never make them wrong, and a skip needs a relative gap larger than the
// rounding error of squared_distance(): then the skipped centroids are provably
// farther in computed arithmetic too, and the label equals Lloyd's.
#include <cstddef>
#include <limits>

#include "kms/random.hpp"  // KMS_HOST_DEVICE

namespace kms {

template <typename T>
KMS_HOST_DEVICE inline T squared_distance(const T* a, const T* b, std::size_t d) {
    T sum = T(0);
    for (std::size_t j = 0; j < d; ++j) {
        const T diff = a[j] - b[j];
        sum += diff * diff;
    }
    return sum;
}

// Relative error bound of sqrt(squared_distance) against the exact distance,
// with a safety factor: (d + 8) units of round-off.
template <typename T>
KMS_HOST_DEVICE inline T distance_rounding(std::size_t d) {
    return static_cast<T>(d + 8) * std::numeric_limits<T>::epsilon();
}

template <typename T>
struct BoundArithmetic {
    T rel;  // distance_rounding<T>(d)

    KMS_HOST_DEVICE explicit BoundArithmetic(std::size_t d) : rel(distance_rounding<T>(d)) {}

    // A computed distance made into a certain upper / lower bound of the true one.
    KMS_HOST_DEVICE T upper(T computed) const { return computed * (T(1) + T(2) * rel); }
    KMS_HOST_DEVICE T lower(T computed) const { return computed * (T(1) - T(2) * rel); }
    // Bound maintenance after centroids moved by (an upper bound of) `shift`.
    KMS_HOST_DEVICE T grow(T bound, T shift_upper) const {
        return (bound + shift_upper) * (T(1) + T(4) * std::numeric_limits<T>::epsilon());
    }
    KMS_HOST_DEVICE T shrink(T bound, T shift_upper) const {
        const T b = (bound - shift_upper) * (T(1) - T(4) * std::numeric_limits<T>::epsilon());
        return b > T(0) ? b : T(0);
    }
    // True when every centroid whose distance is ≥ `lower_bound` is farther than
    // the one within `upper_bound` by more than rounding: it may be skipped.
    KMS_HOST_DEVICE bool separated(T upper_bound, T lower_bound) const {
        return upper_bound * (T(1) + T(4) * rel) < lower_bound;
    }
};

}  // namespace kms
