// The centroid update of the CUDA back end, deterministic run to run:
//  - small k·d: per-thread register sums (fused into Lloyd's assignment, or the
//    stand-alone kernel below with the same point order), a fixed-order block
//    sum, then the block partials reduced in a fixed order by the last block of
//    the same kernel, which also makes the new centroids (kernels/small_update.hpp);
//  - any k, d: a stable radix sort of the labels gives each cluster its points
//    in index order; fixed-size pieces are summed, then the pieces in order.
// No floating-point atomics anywhere, and all sums are taken in double.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kernels/small_sums.hpp"
#include "kernels/small_update.hpp"
#include "kernels/update.hpp"

namespace kms::cuda {

int small_update_variant(int k, int d) {
    if (k <= 8 && d <= 2) return 0;
    if (k <= 4 && d <= 4) return 1;
    if (k <= 8 && d <= 4) return 2;
    return -1;
}

namespace {

constexpr int kPiece = 256;  // sorted positions summed by one block of the general path

int bits_for(int k) {
    int bits = 1;
    while ((1ll << bits) < k) ++bits;
    return bits;
}

long long max_pieces(long long n, int k) { return (n + kPiece - 1) / kPiece + k; }

// Elkan/Hamerly's small-path sums: the fused Lloyd kernel's point order (grid-stride,
// same grid), then the whole update by the last block.
template <typename T, int V, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads) small_sums_kernel(const T* points, long long n, int d,
                                                                const std::int32_t* labels, int k,
                                                                double* block_partials, const T* previous,
                                                                SmallUpdate<T> update) {
    __shared__ double scratch[32];
    VariantSums<V> sums;
    sums.zero();
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        sums.add(labels[i], points + i * d, d, k);
    sums.flush(block_partials + static_cast<long long>(blockIdx.x) * small_partial_width(k, d), k, d, scratch);
    finish_small_update(block_partials, previous, k, d, update);
}

__global__ void iota_kernel(std::int32_t* index, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) index[i] = static_cast<std::int32_t>(i);
}

// Cluster boundaries in the sorted labels: offsets[c] = first position of c.
__global__ void boundaries_kernel(const std::int32_t* sorted, long long n, int k, long long* offsets) {
    const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const int here = sorted[p];
    const int before = p == 0 ? -1 : sorted[p - 1];
    for (int c = before + 1; c <= here; ++c) offsets[c] = p;  // clusters in between are empty
    if (p == n - 1)
        for (int c = here + 1; c <= k; ++c) offsets[c] = n;
}

__global__ void counts_and_pieces_kernel(const long long* offsets, int k, long long* counts, long long* pieces) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= k) return;
    const long long count = offsets[c + 1] - offsets[c];
    counts[c] = count;
    pieces[c] = (count + kPiece - 1) / kPiece;
}

// Sorted positions [begin, end) of piece `piece`: the cluster whose pieces contain
// it (binary search over piece_offsets), then its kPiece-long slice of that cluster.
struct PieceRange {
    long long begin, end;
};
__device__ __forceinline__ PieceRange piece_range(const long long* offsets, const long long* piece_offsets, int k,
                                                  long long piece) {
    int lo = 0, hi = k - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (piece_offsets[mid] <= piece) lo = mid;
        else hi = mid - 1;
    }
    const long long begin = offsets[lo] + (piece - piece_offsets[lo]) * kPiece;
    return {begin, min(begin + kPiece, offsets[lo + 1])};
}

// Short rows (d ≤ 32). Per coordinate the order is fixed: residue w (0..7) sums the
// positions begin + w, begin + w + 8, ... in order, then the 8 residues are added in
// order, all in double. One thread per (piece, residue, coordinate), so no lane idles
// at small d (a block per piece with lanes over coordinates used 2 of 32 at d = 2 and
// took 0.49 ms at 10^7 points), and each thread issues its gathers kGather at a time
// before adding them in order.
template <typename T>
__global__ void __launch_bounds__(256) piece_sums_narrow_kernel(const long long* offsets,
                                                                const long long* piece_offsets, int k,
                                                                const std::int32_t* __restrict__ index_sorted, int d,
                                                                double* piece_sums, const T* __restrict__ points) {
    constexpr int kGather = 8;
    __shared__ double partial[256];
    const int per_piece = 8 * d;
    const int pieces_per_block = blockDim.x / per_piece;
    const int slot = threadIdx.x / per_piece, rem = threadIdx.x - slot * per_piece;
    const int w = rem / d, j = rem - w * d;
    const long long piece = static_cast<long long>(blockIdx.x) * pieces_per_block + slot;
    const bool active = slot < pieces_per_block && piece < piece_offsets[k];
    double sum = 0.0;
    if (active) {
        const PieceRange range = piece_range(offsets, piece_offsets, k, piece);
        for (long long p0 = range.begin + w; p0 < range.end; p0 += 8 * kGather) {
            T v[kGather];
#pragma unroll
            for (int g = 0; g < kGather; ++g) {
                const long long q = p0 + 8 * g;
                v[g] = q < range.end ? points[static_cast<long long>(index_sorted[q]) * d + j] : T(0);
            }
#pragma unroll
            for (int g = 0; g < kGather; ++g)
                if (p0 + 8 * g < range.end) sum += static_cast<double>(v[g]);
        }
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    if (active && w == 0) {
        double total = 0.0;
        for (int r = 0; r < 8; ++r) total += partial[slot * per_piece + r * d + j];
        piece_sums[piece * d + j] = total;
    }
}

// One block per piece (≤ kPiece sorted positions of one cluster). Warp w takes
// the positions begin + w, begin + w + 8, ... in order; lane l sums coordinates
// j0 + l + 32·g (g < G) of each row, so a row is read whole and coalesced and the
// loads of kRows rows × G coordinates are in flight together (the earlier kernel
// walked the piece once per 32 coordinates, one dependent load at a time). Per
// coordinate the order is unchanged: each warp's positions in order, then the 8
// warps in order, all in double, so the sums are bitwise those of before.
template <typename T, int G>
__global__ void __launch_bounds__(256) piece_sums_kernel(const long long* offsets, const long long* piece_offsets,
                                                         int k, const std::int32_t* index_sorted, int d,
                                                         double* piece_sums, const T* __restrict__ points) {
    constexpr int kRows = 4;
    __shared__ double partial[8][32 * G + 1];
    const long long piece = blockIdx.x;
    if (piece >= piece_offsets[k]) return;  // uniform per block
    const PieceRange range = piece_range(offsets, piece_offsets, k, piece);
    const long long begin = range.begin, end = range.end;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int j0 = 0; j0 < d; j0 += 32 * G) {
        double sum[G];
#pragma unroll
        for (int g = 0; g < G; ++g) sum[g] = 0.0;
        for (long long p = begin + warp; p < end; p += 8 * kRows) {
            T v[kRows][G];
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
                const long long q = p + 8 * r;
                const long long row = q < end ? static_cast<long long>(index_sorted[q]) : -1;
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    const int j = j0 + lane + 32 * g;
                    v[r][g] = row >= 0 && j < d ? points[row * d + j] : T(0);
                }
            }
#pragma unroll
            for (int r = 0; r < kRows; ++r)
                if (p + 8 * r < end)
#pragma unroll
                    for (int g = 0; g < G; ++g) sum[g] += static_cast<double>(v[r][g]);
        }
#pragma unroll
        for (int g = 0; g < G; ++g) partial[warp][lane + 32 * g] = sum[g];
        __syncthreads();
        const int cols = min(32 * G, d - j0);
        for (int t = threadIdx.x; t < cols; t += blockDim.x) {
            double total = 0.0;
            for (int w = 0; w < 8; ++w) total += partial[w][t];
            piece_sums[piece * d + j0 + t] = total;
        }
        __syncthreads();
    }
}

// Weighted runs (any d): piece_sums_narrow_kernel's order with each row times
// its weight (the product in double), and the piece's Σ w in the same order
// (each warp's positions in order, then the 8 warps in order).
template <typename T>
__global__ void __launch_bounds__(256) weighted_piece_sums_kernel(const long long* offsets,
                                                                  const long long* piece_offsets, int k,
                                                                  const std::int32_t* index_sorted, int d,
                                                                  double* piece_sums, double* piece_weights,
                                                                  const T* __restrict__ points,
                                                                  const T* __restrict__ weights) {
    __shared__ double partial[8][33];
    __shared__ double weight_partial[8];
    const long long piece = blockIdx.x;
    if (piece >= piece_offsets[k]) return;  // uniform per block
    const PieceRange range = piece_range(offsets, piece_offsets, k, piece);
    const long long begin = range.begin, end = range.end;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    double weight_sum = 0.0;
    for (long long p = begin + warp; p < end; p += 8) weight_sum += static_cast<double>(weights[index_sorted[p]]);
    if (lane == 0) weight_partial[warp] = weight_sum;
    for (int j0 = 0; j0 < d; j0 += 32) {
        const int j = j0 + lane;
        double sum = 0.0;
        if (j < d)
            for (long long p = begin + warp; p < end; p += 8) {
                const long long i = index_sorted[p];
                sum += static_cast<double>(weights[i]) * static_cast<double>(points[i * d + j]);
            }
        partial[warp][lane] = sum;
        __syncthreads();
        if (warp == 0 && j < d) {
            double total = 0.0;
            for (int w = 0; w < 8; ++w) total += partial[w][lane];
            piece_sums[piece * d + j] = total;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double total = 0.0;
        for (int w = 0; w < 8; ++w) total += weight_partial[w];
        piece_weights[piece] = total;
    }
}

// Weighted runs: per cluster, its pieces' weights added in order; a cluster of
// no positive weight counts as empty (count 0), as in scikit-learn.
__global__ void cluster_weights_kernel(const long long* piece_offsets, const double* piece_weights, int k,
                                       double* weight_sums, long long* counts) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= k) return;
    double total = 0.0;
    for (long long q = piece_offsets[c]; q < piece_offsets[c + 1]; ++q) total += piece_weights[q];
    weight_sums[c] = total;
    if (!(total > 0.0)) counts[c] = 0;
}

// Per (cluster, coordinate): its pieces added in order.
__global__ void cluster_sums_kernel(const long long* piece_offsets, const double* piece_sums, int k, int d,
                                    double* sums) {
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= static_cast<long long>(k) * d) return;
    const int c = static_cast<int>(e / d), j = static_cast<int>(e - static_cast<long long>(c) * d);
    // In order; the loads issued kBatch at a time (one at a time, each waiting on the
    // last, this single block took 77 µs at 10^7 points, k = 100).
    constexpr int kBatch = 16;
    double total = 0.0;
    const long long end = piece_offsets[c + 1];
    for (long long q0 = piece_offsets[c]; q0 < end; q0 += kBatch) {
        double v[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) v[b] = q0 + b < end ? piece_sums[(q0 + b) * d + j] : 0.0;
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
            if (q0 + b < end) total += v[b];
    }
    sums[e] = total;
}

// Few clusters (k ≤ kFoldBlocksMaxK), each of many pieces (10^6 points, k = 5: ~780):
// the thread-per-(cluster, coordinate) fold above waits on its loads 16 at a time, and
// its k·d threads are too few to hide that (~0.13 ms of the update at 10^6 × 16-D,
// k = 5, H100, where k = 32 took ~0.02). Here a block per (cluster, 32 coordinates)
// loads kFoldPieces pieces at a time, every thread kFoldLoads of them in flight (the
// next batch loading while this one is added), and lane t of warp 0 adds coordinate
// j0 + t's pieces in order from 0.0: cluster_sums_kernel's order, so the same bits.
constexpr int kFoldBlocksMaxK = 64, kFoldThreads = 256, kFoldPieces = 128;
constexpr int kFoldLoads = kFoldPieces * 32 / kFoldThreads;
__global__ void __launch_bounds__(kFoldThreads) cluster_fold_kernel(const long long* piece_offsets,
                                                                    const double* __restrict__ piece_sums, int d,
                                                                    int groups, double* sums) {
    __shared__ double tile[kFoldPieces][33];
    const int c = blockIdx.x / groups, j0 = (blockIdx.x - c * groups) * 32;
    const int cols = min(32, d - j0);
    const long long begin = piece_offsets[c], end = piece_offsets[c + 1];
    const int t = threadIdx.x & 31, row = threadIdx.x >> 5;  // e = threadIdx.x + kFoldThreads·m: piece row + 8m, column t
    double v[kFoldLoads];
    auto load = [&](long long q0) {
#pragma unroll
        for (int m = 0; m < kFoldLoads; ++m) {
            const long long q = q0 + row + m * (kFoldThreads / 32);
            v[m] = q < end && t < cols ? piece_sums[q * d + j0 + t] : 0.0;
        }
    };
    double total = 0.0;
    if (begin < end) load(begin);
    for (long long q0 = begin; q0 < end; q0 += kFoldPieces) {
#pragma unroll
        for (int m = 0; m < kFoldLoads; ++m) tile[row + m * (kFoldThreads / 32)][t] = v[m];
        __syncthreads();
        if (q0 + kFoldPieces < end) load(q0 + kFoldPieces);  // in flight while warp 0 adds
        if (threadIdx.x < cols) {
            const int count = static_cast<int>(min(static_cast<long long>(kFoldPieces), end - q0));
            for (int q = 0; q < count; ++q) total += tile[q][threadIdx.x];
        }
        __syncthreads();
    }
    if (threadIdx.x < cols) sums[static_cast<long long>(c) * d + j0 + threadIdx.x] = total;
}

// One block per centroid: the threads divide the sums (the serial part was d
// double divisions per thread), then thread 0 computes the shifts exactly as
// apply_centroid does (same order, same values).
template <typename T>
__global__ void apply_block_kernel(const T* previous, T* next, int d, const double* sums, const long long* counts,
                                   T* shift_upper, double* shift_exact, bool recompute, const double* weight_sums,
                                   bool deviations) {
    const int c = blockIdx.x;
    if (recompute) {
        const long long count = counts[c];
        const double divisor = weight_sums ? weight_sums[c] : static_cast<double>(count);
        const T* old_row = previous + static_cast<long long>(c) * d;
        T* row = next + static_cast<long long>(c) * d;
        for (int j = threadIdx.x; j < d; j += blockDim.x)
            row[j] = count > 0 ? new_coordinate(old_row[j], sums[static_cast<long long>(c) * d + j], divisor, deviations)
                               : old_row[j];
    }
    __syncthreads();  // the block's global writes are visible to thread 0 after the barrier
    if (threadIdx.x == 0) apply_centroid(c, previous, next, d, sums, counts, shift_upper, shift_exact, false);
}

// One thread per centroid (short rows: d ≤ 32).
template <typename T>
__global__ void apply_kernel(const T* previous, T* next, int k, int d, const double* sums, const long long* counts,
                             T* shift_upper, double* shift_exact, bool recompute, const double* weight_sums,
                             bool deviations) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= k) return;
    apply_centroid(c, previous, next, d, sums, counts, shift_upper, shift_exact, recompute, weight_sums, deviations);
}

constexpr int kStatsThreads = 1024;  // the statistics block (its warp tree fixes the summation order)

template <typename T>
__global__ void __launch_bounds__(kStatsThreads) shift_stats_kernel(const double* shift_sq, const long long* counts,
                                                                    int k, DeviceShiftStats* out, const T* shift_upper) {
    shift_stats_block(shift_sq, counts, k, out, shift_upper);
}

// Short rows and k ≤ kStatsThreads: the new centroids and their statistics by one block,
// one launch instead of two (the statistics kernel took ~6 µs of a step on the H100;
// steps 1-3 % shorter at 10^6 points, 10^6 x 2-D, k = 100 Lloyd 82.3 -> 80.5 µs, 7 % at
// 10^5). The same arithmetic per centroid as apply_kernel, and shift_stats_block over
// the same block size: the same bits.
template <typename T>
__global__ void __launch_bounds__(kStatsThreads)
    apply_and_stats_kernel(const T* previous, T* next, int k, int d, const double* sums, const long long* counts,
                           T* shift_upper, double* shift_exact, bool recompute, const double* weight_sums,
                           bool deviations, DeviceShiftStats* stats) {
    for (int c = threadIdx.x; c < k; c += blockDim.x)
        apply_centroid(c, previous, next, d, sums, counts, shift_upper, shift_exact, recompute, weight_sums,
                       deviations);
    __syncthreads();  // the block's global writes are visible to the block after it
    shift_stats_block(shift_exact, counts, k, stats, shift_upper);
}

template <typename T>
__global__ void label_distances_kernel(const T* points, long long n, int d, const T* centroids,
                                       const std::int32_t* labels, T* out) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = exact_squared_distance(points + i * d, centroids + static_cast<long long>(labels[i]) * d, d);
}

template <typename T>
__global__ void __launch_bounds__(1024) inertia_kernel(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                               double* block_scratch, const double* weights) {
    __shared__ double scratch[32];
    double sum = 0.0;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (labels[i] < 0) continue;
        const double distance = static_cast<double>(
            exact_squared_distance(points + i * d, centroids + static_cast<long long>(labels[i]) * d, d));
        if (weights) sum += weights[i] * distance;
        else sum += distance;
    }
    const double total = block_sum_fixed(sum, scratch);
    if (threadIdx.x == 0) block_scratch[blockIdx.x] = total;
}

__global__ void ordered_sum_kernel(const double* values, int count, double* result) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double total = 0.0;
    for (int b = 0; b < count; ++b) total += values[b];
    *result = total;
}

}  // namespace

void prepare_update_workspace(UpdateWorkspace& w, long long n, int k, int d, const Geometry& g, bool weighted,
                              bool sorted) {
    w.sums.allocate(static_cast<std::size_t>(k) * d, "the cluster sums");
    w.counts.allocate(k, "the cluster counts");
    if (small_update_variant(k, d) >= 0) {
        w.block_partials.allocate(static_cast<std::size_t>(g.grid) * small_partial_width(k, d), "the block partial sums");
        w.ticket.allocate(1, "the update ticket");
        KMS_CUDA_CHECK(cudaMemset(w.ticket.get(), 0, sizeof(unsigned)));
        if (!weighted && !sorted) return;
    }
    if (weighted) {
        w.piece_weights.allocate(static_cast<std::size_t>(max_pieces(n, k)), "the piece weights");
        w.weight_sums.allocate(k, "the cluster weights");
    }
    w.keys_sorted.allocate(n, "the sorted labels");
    w.index.allocate(n, "the point index");
    w.index_sorted.allocate(n, "the sorted point index");
    w.offsets.allocate(k + 1, "the cluster offsets");
    w.piece_offsets.allocate(k + 1, "the piece offsets");
    w.piece_sums.allocate(static_cast<std::size_t>(max_pieces(n, k)) * d, "the piece sums");
    std::size_t sort_bytes = 0, scan_bytes = 0;
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<const std::int32_t*>(nullptr),
                                                   static_cast<std::int32_t*>(nullptr),
                                                   static_cast<const std::int32_t*>(nullptr),
                                                   static_cast<std::int32_t*>(nullptr), static_cast<int>(n), 0,
                                                   bits_for(k)));
    KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const long long*>(nullptr),
                                                 static_cast<long long*>(nullptr), k + 1));
    w.sort_temp_bytes = std::max(sort_bytes, scan_bytes);
    w.sort_temp.allocate(w.sort_temp_bytes, "the label sort");
    iota_kernel<<<blocks_for(n, 256), 256>>>(w.index.get(), n);
    KMS_CUDA_LAUNCH_CHECK("index kernel");
}

template <typename T>
void launch_small_sums_update(const T* points, long long n, int d, const std::int32_t* labels, int k,
                              const T* previous, const SmallUpdate<T>& update, UpdateWorkspace& w,
                              const Geometry& g, cudaStream_t stream) {
    auto run = [&](auto kernel) {
        kernel<<<g.grid, g.block, 0, stream>>>(points, n, d, labels, k, w.block_partials.get(), previous, update);
    };
    const bool wide = g.block > 256;  // register cap 64 (spills) only where 1024 threads need it
    switch (small_update_variant(k, d)) {
        case 0: wide ? run(small_sums_kernel<T, 0, 1024>) : run(small_sums_kernel<T, 0, 256>); break;
        case 1: wide ? run(small_sums_kernel<T, 1, 1024>) : run(small_sums_kernel<T, 1, 256>); break;
        case 2: wide ? run(small_sums_kernel<T, 2, 1024>) : run(small_sums_kernel<T, 2, 256>); break;
        default: throw Error("CUDA: the small-path update does not take k = " + std::to_string(k) + ", d = " +
                             std::to_string(d));
    }
    KMS_CUDA_LAUNCH_CHECK("small-path sum and update kernel");
}

void launch_sort_labels(const std::int32_t* labels, long long n, int k, UpdateWorkspace& w, cudaStream_t stream) {
    // Stable sort of (label, index) pairs, so each cluster's points are in index order.
    std::size_t bytes = w.sort_temp_bytes;
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(w.sort_temp.get(), bytes, labels, w.keys_sorted.get(),
                                                   w.index.get(), w.index_sorted.get(), static_cast<int>(n), 0,
                                                   bits_for(k), stream));
    boundaries_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(w.keys_sorted.get(), n, k, w.offsets.get());
    KMS_CUDA_LAUNCH_CHECK("cluster boundary kernel");
}

template <typename T>
void launch_accumulate(const T* points, long long n, int d, const std::int32_t* labels, int k, UpdateWorkspace& w,
                       cudaStream_t stream, const T* weights) {
    launch_sort_labels(labels, n, k, w, stream);
    std::size_t bytes;
    counts_and_pieces_kernel<<<blocks_for(k, 256), 256, 0, stream>>>(w.offsets.get(), k, w.counts.get(),
                                                                     w.piece_offsets.get());
    KMS_CUDA_LAUNCH_CHECK("piece count kernel");
    bytes = w.sort_temp_bytes;
    // In-place exclusive scan of the k piece counts (+ a trailing slot for the total).
    KMS_CUDA_CHECK(cudaMemsetAsync(w.piece_offsets.get() + k, 0, sizeof(long long), stream));
    KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(w.sort_temp.get(), bytes, w.piece_offsets.get(),
                                                 w.piece_offsets.get(), k + 1, stream));
    auto piece_sums = [&](auto kernel) {
        kernel<<<static_cast<unsigned>(max_pieces(n, k)), 256, 0, stream>>>(
            w.offsets.get(), w.piece_offsets.get(), k, w.index_sorted.get(), d, w.piece_sums.get(), points);
    };
    if (weights) {
        weighted_piece_sums_kernel<T><<<static_cast<unsigned>(max_pieces(n, k)), 256, 0, stream>>>(
            w.offsets.get(), w.piece_offsets.get(), k, w.index_sorted.get(), d, w.piece_sums.get(),
            w.piece_weights.get(), points, weights);
        KMS_CUDA_LAUNCH_CHECK("weighted piece sum kernel");
        cluster_weights_kernel<<<blocks_for(k, 256), 256, 0, stream>>>(w.piece_offsets.get(), w.piece_weights.get(),
                                                                       k, w.weight_sums.get(), w.counts.get());
        KMS_CUDA_LAUNCH_CHECK("cluster weight kernel");
    }
    // Coordinates per lane and pass: as many as d needs, up to 8 (256 per pass).
    else if (d <= 32) {
        const int pieces_per_block = 256 / (8 * d);
        const long long blocks = (max_pieces(n, k) + pieces_per_block - 1) / pieces_per_block;
        piece_sums_narrow_kernel<T><<<static_cast<unsigned>(blocks), pieces_per_block * 8 * d, 0, stream>>>(
            w.offsets.get(), w.piece_offsets.get(), k, w.index_sorted.get(), d, w.piece_sums.get(), points);
    }
    else if (d <= 64) piece_sums(piece_sums_kernel<T, 2>);
    else if (d <= 128) piece_sums(piece_sums_kernel<T, 4>);
    else piece_sums(piece_sums_kernel<T, 8>);
    KMS_CUDA_LAUNCH_CHECK("piece sum kernel");
    if (k <= kFoldBlocksMaxK) {
        const int groups = (d + 31) / 32;
        cluster_fold_kernel<<<static_cast<unsigned>(k * groups), kFoldThreads, 0, stream>>>(
            w.piece_offsets.get(), w.piece_sums.get(), d, groups, w.sums.get());
    } else {
        cluster_sums_kernel<<<blocks_for(static_cast<long long>(k) * d, 256), 256, 0, stream>>>(
            w.piece_offsets.get(), w.piece_sums.get(), k, d, w.sums.get());
    }
    KMS_CUDA_LAUNCH_CHECK("cluster sum kernel");
}

template <typename T>
void launch_apply_update(const T* previous, T* next, int k, int d, UpdateWorkspace& w, T* shift_upper,
                         DeviceShiftStats* shift_stats, double* shift_exact, bool recompute, cudaStream_t stream,
                         bool weighted, bool deviations) {
    const double* weight_sums = weighted ? w.weight_sums.get() : nullptr;
    if (d <= 32 && k <= kStatsThreads) {
        apply_and_stats_kernel<T><<<1, kStatsThreads, 0, stream>>>(previous, next, k, d, w.sums.get(),
                                                                   w.counts.get(), shift_upper, shift_exact,
                                                                   recompute, weight_sums, deviations, shift_stats);
        KMS_CUDA_LAUNCH_CHECK("centroid update kernel");
        return;
    }
    if (d <= 32)
        apply_kernel<T><<<blocks_for(k, 128), 128, 0, stream>>>(previous, next, k, d, w.sums.get(), w.counts.get(),
                                                                shift_upper, shift_exact, recompute, weight_sums,
                                                                deviations);
    else
        apply_block_kernel<T><<<k, std::min(256, (d + 31) / 32 * 32), 0, stream>>>(
            previous, next, d, w.sums.get(), w.counts.get(), shift_upper, shift_exact, recompute, weight_sums,
            deviations);
    KMS_CUDA_LAUNCH_CHECK("centroid update kernel");
    shift_stats_kernel<T><<<1, kStatsThreads, 0, stream>>>(shift_exact, w.counts.get(), k, shift_stats, shift_upper);
    KMS_CUDA_LAUNCH_CHECK("shift statistics kernel");
}

template <typename T>
void launch_label_distances(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                            T* out, cudaStream_t stream) {
    label_distances_kernel<T><<<blocks_for(n, 256), 256, 0, stream>>>(points, n, d, centroids, labels, out);
    KMS_CUDA_LAUNCH_CHECK("label distance kernel");
}

template <typename T>
void launch_inertia(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                    double* block_scratch, double* result, const Geometry& g, cudaStream_t stream,
                    const double* weights) {
    inertia_kernel<T><<<g.grid, g.block, 0, stream>>>(points, n, d, centroids, labels, block_scratch, weights);
    KMS_CUDA_LAUNCH_CHECK("inertia kernel");
    ordered_sum_kernel<<<1, 32, 0, stream>>>(block_scratch, g.grid, result);
    KMS_CUDA_LAUNCH_CHECK("inertia sum kernel");
}

#define KMS_INSTANTIATE_UPDATE(T)                                                                                  \
    template void launch_small_sums_update<T>(const T*, long long, int, const std::int32_t*, int, const T*,      \
                                              const SmallUpdate<T>&, UpdateWorkspace&, const Geometry&,          \
                                              cudaStream_t);                                                     \
    template void launch_accumulate<T>(const T*, long long, int, const std::int32_t*, int, UpdateWorkspace&,     \
                                       cudaStream_t, const T*);                                                  \
    template void launch_apply_update<T>(const T*, T*, int, int, UpdateWorkspace&, T*, DeviceShiftStats*,        \
                                         double*, bool, cudaStream_t, bool, bool);                               \
    template void launch_label_distances<T>(const T*, long long, int, const T*, const std::int32_t*, T*,         \
                                            cudaStream_t);                                                       \
    template void launch_inertia<T>(const T*, long long, int, const T*, const std::int32_t*, double*, double*,   \
                                    const Geometry&, cudaStream_t, const double*);
KMS_INSTANTIATE_UPDATE(float)
KMS_INSTANTIATE_UPDATE(double)

}  // namespace kms::cuda
