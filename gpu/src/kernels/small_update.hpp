#pragma once
// The centroid update as device code run by one block: new centroids (Keep policy),
// per-centroid shifts and their fixed-order statistics; and, for the small (k, d)
// path, the fixed-order reduction of the block partials done by the LAST block of
// the kernel that wrote them (a ticket counter), so the update needs no launch of
// its own. Included by .cu files only.
#include "cuda_common.hpp"
#include "cuda_device.hpp"

namespace kms::cuda {

// A new coordinate from its cluster's sum: the mean (sums of x), or the old
// coordinate plus the mean deviation (sums of x − old: the package update, the CPU's formula).
template <typename T>
__device__ __forceinline__ T new_coordinate(T old, double sum, double divisor, bool deviations) {
    return deviations ? static_cast<T>(static_cast<double>(old) + sum / divisor) : static_cast<T>(sum / divisor);
}

// New centroid c (when recompute), Keep policy, its shift: exact squared in double
// and a certain upper bound in T.
// weight_sums (weighted runs): the divisor instead of the count.
template <typename T>
__device__ __forceinline__ void apply_centroid(int c, const T* previous, T* next, int d, const double* sums,
                                               const long long* counts, T* shift_upper, double* shift_exact,
                                               bool recompute, const double* weight_sums = nullptr,
                                               bool deviations = false) {
    const T* old_row = previous + static_cast<long long>(c) * d;
    T* row = next + static_cast<long long>(c) * d;
    const long long count = counts[c];
    const double divisor = weight_sums ? weight_sums[c] : static_cast<double>(count);
    if (recompute)
        for (int j = 0; j < d; ++j)
            row[j] = count > 0 ? new_coordinate(old_row[j], sums[static_cast<long long>(c) * d + j], divisor, deviations)
                               : old_row[j];
    double sq = 0.0;
    for (int j = 0; j < d; ++j) {
        const double diff = static_cast<double>(row[j]) - static_cast<double>(old_row[j]);
        sq += diff * diff;
    }
    shift_exact[c] = sq;
    const BoundArithmetic<T> bounds(d);
    shift_upper[c] = bounds.upper(device_sqrt(exact_squared_distance(row, old_row, d)));
}

// Fixed-order statistics over the k shifts, by one whole block. The sums are
// block_sum_fixed over "thread c holds centroids c, c + blockDim, ...": for
// k ≤ 32 every block size gives the same bits (only warp 0 holds non-zero values).
template <typename T>
__device__ __forceinline__ void shift_stats_block(const double* shift_sq, const long long* counts, int k,
                                                  DeviceShiftStats* out, const T* shift_upper) {
    __shared__ double scratch[32];
    __shared__ double max_scratch[32];
    __shared__ int arg_scratch[32];
    double sum = 0.0, sum_sq = 0.0, max_shift = 0.0, empty = 0.0, top_value = -1.0;
    int top = 0;
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        const double s = sqrt(shift_sq[c]);
        sum += s;
        sum_sq += shift_sq[c];
        max_shift = s > max_shift ? s : max_shift;
        empty += counts[c] == 0 ? 1.0 : 0.0;
        const double up = static_cast<double>(shift_upper[c]);
        if (up > top_value) {  // lowest index among equals: threads visit c in increasing order
            top_value = up;
            top = c;
        }
    }
    const double total = block_sum_fixed(sum, scratch);
    const double total_sq = block_sum_fixed(sum_sq, scratch);
    const double total_empty = block_sum_fixed(empty, scratch);
    // Max (order-free) and the arg-max with lowest index on ties.
    for (int offset = 16; offset > 0; offset >>= 1) {
        const double other = __shfl_down_sync(0xffffffffu, max_shift, offset);
        max_shift = other > max_shift ? other : max_shift;
        const double other_top = __shfl_down_sync(0xffffffffu, top_value, offset);
        const int other_arg = __shfl_down_sync(0xffffffffu, top, offset);
        if (other_top > top_value || (other_top == top_value && other_arg < top)) {
            top_value = other_top;
            top = other_arg;
        }
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0) {
        max_scratch[threadIdx.x >> 5] = max_shift;
        scratch[threadIdx.x >> 5] = top_value;
        arg_scratch[threadIdx.x >> 5] = top;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = 0.0, tv = -1.0;
        int ta = 0;
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
            m = max_scratch[w] > m ? max_scratch[w] : m;
            if (scratch[w] > tv || (scratch[w] == tv && arg_scratch[w] < ta)) {
                tv = scratch[w];
                ta = arg_scratch[w];
            }
        }
        out->max_shift = m;
        out->sum_shift = total;
        out->shift_sq_total = total_sq;
        out->empty_clusters = static_cast<int>(total_empty);
        out->top_mover = ta;
    }
}

// The small path's update by one block (k ≤ 8, d ≤ 4; any block size):
//  1. value e of the k·(d+1) partial columns (d sums then the count per cluster):
//     warp e mod warps, lane l adds partials l, l + 32, ... in order from 0.0,
//     then the shfl_down butterfly; sums and counts go to shared memory (and to
//     global memory, where the Farthest policy reads them);
//  2. lanes c < k of warp 0: new centroid c, its shifts (apply_centroid's arithmetic);
//  3. warp 0: the shift statistics by butterflies, the same bits as
//     shift_stats_block (for k ≤ 32 only warp 0 holds non-zero values there).
// Only warp 0 works after one barrier: the phase is latency-bound, so no block-wide
// steps.
constexpr int kSmallMaxWidth = 8 * 5;  // k ≤ 8, d ≤ 4

template <typename T>
__device__ __forceinline__ void small_update_block(const double* block_partials, int blocks, const T* previous,
                                                   int k, int d, const SmallUpdate<T>& u) {
    __shared__ double totals[kSmallMaxWidth];
    const int width = k * (d + 1);
    const int warps = static_cast<int>(blockDim.x >> 5), warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int e = warp; e < width; e += warps) {
        double total = 0.0;
#pragma unroll 4
        for (int b = lane; b < blocks; b += 32) total += __ldcg(block_partials + static_cast<long long>(b) * width + e);
        for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
        if (lane == 0) totals[e] = total;
    }
    __syncthreads();
    if (warp != 0) return;
    const int c = lane;
    double shift_sq = 0.0, shift_upper = 0.0;
    long long count = 0;
    if (c < k) {
        count = static_cast<long long>(totals[c * (d + 1) + d]);
        u.counts[c] = count;
        const T* old_row = previous + static_cast<long long>(c) * d;
        T* row = u.next + static_cast<long long>(c) * d;
        // Constant indices only (j < 4 unrolled, d tested): a run-time index would put
        // these arrays in local memory, and the compiler then shares that stack slot
        // with the calling kernel's per-point arrays (seen: local stores per point).
        T fresh[4] = {}, old[4] = {};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if (j >= d) break;
            const double sum = totals[c * (d + 1) + j];
            u.sums[static_cast<long long>(c) * d + j] = sum;
            old[j] = old_row[j];
            fresh[j] = count > 0 ? static_cast<T>(sum / static_cast<double>(count)) : old[j];
            row[j] = fresh[j];
        }
        T moved = T(0);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if (j >= d) break;
            const double diff = static_cast<double>(fresh[j]) - static_cast<double>(old[j]);
            shift_sq += diff * diff;
            moved = sq_step(moved, fresh[j], old[j]);
        }
        const T upper = BoundArithmetic<T>(d).upper(device_sqrt(moved));
        u.shift_exact[c] = shift_sq;
        u.shift_upper[c] = upper;
        shift_upper = static_cast<double>(upper);
    }
    // Statistics (shift_stats_block's values for this k).
    double sum = 0.0, sum_sq = 0.0, max_shift = 0.0, empty = 0.0, top_value = -1.0;
    int top = 0;
    if (c < k) {
        const double s = sqrt(shift_sq);
        sum += s;
        sum_sq += shift_sq;
        max_shift = s > max_shift ? s : max_shift;
        empty += count == 0 ? 1.0 : 0.0;
        if (shift_upper > top_value) {
            top_value = shift_upper;
            top = c;
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
        sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, offset);
        empty += __shfl_down_sync(0xffffffffu, empty, offset);
        const double other = __shfl_down_sync(0xffffffffu, max_shift, offset);
        max_shift = other > max_shift ? other : max_shift;
        const double other_top = __shfl_down_sync(0xffffffffu, top_value, offset);
        const int other_arg = __shfl_down_sync(0xffffffffu, top, offset);
        if (other_top > top_value || (other_top == top_value && other_arg < top)) {
            top_value = other_top;
            top = other_arg;
        }
    }
    if (lane == 0) {
        u.stats->max_shift = max_shift;
        u.stats->sum_shift = 0.0 + sum;  // block_sum_fixed adds the warp totals to 0.0
        u.stats->shift_sq_total = 0.0 + sum_sq;
        u.stats->empty_clusters = static_cast<int>(0.0 + empty);
        u.stats->top_mover = top;
    }
}

// Called by every thread of every block after the block wrote its partial (thread 0
// wrote it): the last block to arrive runs the update. Classic fence + ticket:
// each block's partial is made visible device-wide before its ticket is taken, and
// the last block resets the ticket for the next launch (stream order).
template <typename T>
__device__ __forceinline__ void finish_small_update(const double* block_partials, const T* previous, int k, int d,
                                                    const SmallUpdate<T>& u) {
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        __threadfence();
        is_last = atomicAdd(u.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    small_update_block(block_partials, static_cast<int>(gridDim.x), previous, k, d, u);
    if (threadIdx.x == 0) *u.ticket = 0u;
}

}  // namespace kms::cuda
