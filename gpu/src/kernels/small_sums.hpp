#pragma once
// Per-thread sums for small k·d (the update fused into Lloyd's assignment), in
// registers or in the thread's column of shared memory, reduced per block in a
// fixed order. Included by .cu files only.
#include <cstddef>

#include "cuda_device.hpp"

namespace kms::cuda {

// Variants, smallest first: (K, D) = (8, 2), (4, 4), (8, 4). A variant fixes the
// partial layout and the point order; the kernels may hold exactly k clusters
// (SmallSums<k, D>): the same arithmetic in fewer registers.
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
    static constexpr bool kInRegisters = true;
    __device__ __forceinline__ void zero() {}
    template <typename T>
    __device__ __forceinline__ void add(int, const T*, int, int) {}
    __device__ __forceinline__ void flush(double*, int, int, double*) {}
};

// Block partial of a small-path sums holder: k·(d+1) doubles (d sums then the
// count per cluster), each a fixed-order block sum of value(c, j) over the block's
// threads. Every thread of the block must call this.
template <int K, int D, class Value>
__device__ __forceinline__ void flush_block_partial(double* block_partial, int k, int d, double* scratch,
                                                    Value value) {
#pragma unroll
    for (int c = 0; c < K; ++c) {
        if (c >= k) break;
#pragma unroll
        for (int j = 0; j <= D; ++j) {
            if (j > d) break;
            const double total = block_sum_fixed(value(c, j), scratch);
            if (threadIdx.x == 0) block_partial[c * (d + 1) + j] = total;
        }
    }
}

template <int KMax, int DMax>
struct SmallSums {
    static constexpr int K = KMax, D = DMax;
    static constexpr bool kInRegisters = true;
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
    __device__ __forceinline__ void flush(double* block_partial, int k, int d, double* scratch) {
        flush_block_partial<K, D>(block_partial, k, d, scratch, [&](int c, int j) {
            return j == d ? static_cast<double>(count[c]) : (j < D ? sum[c][j < D ? j : 0] : 0.0);
        });
    }
};

// SmallSums' arithmetic with each thread's sums and counts in its own column of
// shared memory ([value][thread]: a warp's accesses are conflict-free), indexed
// by the label: one read-add-write per coordinate instead of a compare, select
// and add per cluster and coordinate, and no registers for the sums. Same order,
// same bits. For blocks of at most Threads threads.
template <int KMax, int DMax, int Threads>
struct SharedSums {
    static constexpr int K = KMax, D = DMax;
    static constexpr bool kInRegisters = false;
    static constexpr std::size_t kBytes = static_cast<std::size_t>(K) * (D * sizeof(double) + sizeof(unsigned)) * Threads;

    __device__ __forceinline__ static double* sums() {
        __shared__ double storage[K * D * Threads];
        return storage;
    }
    __device__ __forceinline__ static unsigned* counts() {
        __shared__ unsigned storage[K * Threads];
        return storage;
    }
    __device__ __forceinline__ void zero() {
#pragma unroll
        for (int c = 0; c < K; ++c) {
            counts()[c * Threads + threadIdx.x] = 0;
#pragma unroll
            for (int j = 0; j < D; ++j) sums()[(c * D + j) * Threads + threadIdx.x] = 0.0;
        }
    }
    template <typename T>
    __device__ __forceinline__ void add(int label, const T* x, int d, int) {
        double* column = sums() + label * D * Threads + threadIdx.x;
#pragma unroll
        for (int j = 0; j < D; ++j)
            if (j < d) column[j * Threads] += static_cast<double>(x[j]);
        ++counts()[label * Threads + threadIdx.x];
    }
    __device__ __forceinline__ void flush(double* block_partial, int k, int d, double* scratch) {
        flush_block_partial<K, D>(block_partial, k, d, scratch, [&](int c, int j) {
            return j == d ? static_cast<double>(counts()[c * Threads + threadIdx.x])
                          : sums()[(c * D + (j < D ? j : 0)) * Threads + threadIdx.x];
        });
    }
};

template <int V>
using VariantSums = SmallSums<SmallShape<V>::K, SmallShape<V>::D>;

}  // namespace kms::cuda
