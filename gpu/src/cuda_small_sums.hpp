#pragma once
// Per-thread register sums for small k·d (the update fused into Lloyd's
// assignment), reduced per block in a fixed order. Included by .cu files only.
#include "cuda_device.hpp"

namespace kms::cuda {

// Variants, smallest first: (K, D) = (8, 2), (4, 4), (8, 4).
template <int V>
struct SmallShape;
template <>
struct SmallShape<0> {
    static constexpr int K = 8, D = 2;
};
template <>
struct SmallShape<1> {
    static constexpr int K = 4, D = 4;
};
template <>
struct SmallShape<2> {
    static constexpr int K = 8, D = 4;
};

// No accumulation (plain assignment, or the general update path).
struct NoSums {
    static constexpr int K = 0, D = 0;
    __device__ __forceinline__ void zero() {}
    template <typename T>
    __device__ __forceinline__ void add(int, const T*, int, int) {}
    __device__ __forceinline__ void flush(double*, int, int, double*) {}
};

template <int V>
struct SmallSums {
    static constexpr int K = SmallShape<V>::K, D = SmallShape<V>::D;
    double sum[K][D];
    unsigned count[K];

    __device__ __forceinline__ void zero() {
#pragma unroll
        for (int c = 0; c < K; ++c) {
            count[c] = 0;
#pragma unroll
            for (int j = 0; j < D; ++j) sum[c][j] = 0.0;
        }
    }
    // Points are added in the order this thread visits them (fixed by the geometry).
    // label < k ≤ K; clusters from k on are skipped by a uniform test, not predicated.
    template <typename T>
    __device__ __forceinline__ void add(int label, const T* x, int d, int k) {
        double xr[D];
#pragma unroll
        for (int j = 0; j < D; ++j) xr[j] = j < d ? static_cast<double>(x[j]) : 0.0;
#pragma unroll
        for (int c = 0; c < K; ++c) {
            if (c >= k) break;
            if (c == label) {
#pragma unroll
                for (int j = 0; j < D; ++j) sum[c][j] += xr[j];
                ++count[c];
            }
        }
    }
    // Block partial: k·(d+1) doubles (d sums then the count per cluster), each a
    // fixed-order block sum. Every thread of the block must call this.
    __device__ __forceinline__ void flush(double* block_partial, int k, int d, double* scratch) {
#pragma unroll
        for (int c = 0; c < K; ++c) {
            if (c >= k) break;
#pragma unroll
            for (int j = 0; j <= D; ++j) {
                if (j > d) break;
                const double value = j == d ? static_cast<double>(count[c]) : (j < D ? sum[c][j < D ? j : 0] : 0.0);
                const double total = block_sum_fixed(value, scratch);
                if (threadIdx.x == 0) block_partial[c * (d + 1) + j] = total;
            }
        }
    }
};

}  // namespace kms::cuda
