#pragma once
// What the bounded kernels share: the centroid walk (tiled through shared memory for
// cuda-shared), the lists of points handed on, Hamerly's test as a kernel of its own,
// and the launch. Included by .cu files only.
#include <algorithm>
#include <cstddef>
#include <string>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kernels/bounds.hpp"

namespace kms::cuda {

// The end of every bounded assignment kernel: the block's distance evaluations,
// skipped points and changed labels added to the run's counters (one atomic each per
// block). Every thread of the block must call it (it has barriers).
__device__ __forceinline__ void add_block_counts(DeviceCounters* counters, unsigned long long evaluations,
                                                 unsigned long long skips, unsigned long long changed,
                                                 unsigned long long* scratch) {
    block_count_add(evaluations, &counters->point_centroid_distances, scratch);
    block_count_add(skips, &counters->bound_skips, scratch);
    block_count_add(changed, &counters->labels_changed, scratch);
}

// A point's outcome: its label, written when it moved, and its status for the bounds
// view (skipped: the bounds ruled some centroids out). 1 when the label changed.
__device__ __forceinline__ int record_label(std::int32_t* labels, std::uint8_t* status, long long i, int old_label,
                                            int new_label, bool skipped) {
    if (status) status[i] = skipped ? 1 : 0;
    if (new_label == old_label) return 0;
    labels[i] = new_label;
    return 1;
}

// Calls visit(c, row) for every centroid c of this thread's point when `wanted`:
// cuda-shared stages the centroids through `tile` (tile_rows rows at a time, the
// whole block loading each tile and leaving early once no thread wants more);
// cuda-global reads the rows from global memory. Every thread of the block must
// call it (it has barriers in the shared variant).
template <bool Shared, typename T, typename Visit>
__device__ __forceinline__ void for_each_centroid(const T* centroids, int k, int d, T* tile, int tile_rows,
                                                  bool wanted, Visit&& visit) {
    if (Shared && tile_rows > 0) {
        for (int c0 = 0; c0 < k; c0 += tile_rows) {
            if (!__syncthreads_or(wanted)) break;
            const int rows = min(tile_rows, k - c0);
            for (int e = threadIdx.x; e < rows * d; e += blockDim.x)
                tile[e] = centroids[static_cast<long long>(c0) * d + e];
            __syncthreads();
            if (wanted)
                for (int c = 0; c < rows; ++c) visit(c0 + c, tile + c * d);
        }
    } else if (wanted) {
        for (int c = 0; c < k; ++c) visit(c, centroids + static_cast<long long>(c) * d);
    }
}

// Appends row i to list (count: its length) when `listed`, one atomic per block. With
// one per warp, the shared counter was what the bounds kernels waited on: 10^7 x 2-D,
// k = 100, Hamerly, a late step appended from 215 592 warps, and the atomic's return and
// the barrier behind it held 44 % of the kernel's stall samples (ncu, H100). Every
// thread of the block must call it (it has barriers).
__device__ __forceinline__ void append_to_list(std::int32_t* list, unsigned long long* count, long long i, bool listed) {
    __shared__ unsigned warp_offset[32];
    __shared__ unsigned long long block_offset;
    const unsigned wanted = __ballot_sync(0xffffffffu, listed);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) warp_offset[warp] = __popc(wanted);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
            const unsigned warp_count = warp_offset[w];
            warp_offset[w] = total;
            total += warp_count;
        }
        block_offset = total ? atomicAdd(count, static_cast<unsigned long long>(total)) : 0;
    }
    __syncthreads();
    if (listed)
        list[block_offset + warp_offset[warp] + __popc(wanted & ((1u << lane) - 1u))] = static_cast<std::int32_t>(i);
    __syncthreads();  // the offsets are read before a next call rewrites them
}

// Appends point i to a.search_list when `listed` (the points left to the tiled
// search). Every thread of the block must call it.
template <typename T>
__device__ __forceinline__ void list_for_tiled_search(const BoundedArgs<T>& a, long long i, bool listed) {
    append_to_list(a.search_list, a.search_count, i, listed);
}

// Hamerly's test of point i, whose upper and lower bounds were stored at cumulative
// shift table row `since`: settled by the bounds alone, or by its own distance (the
// tightened bounds then written, so a later test starts from them), or left open.
template <typename T>
struct HamerlyTest {
    bool settled;
    bool evaluated;  // its own distance was taken
    T own;           // that distance (squared), when evaluated
};

template <typename T>
__device__ __forceinline__ HamerlyTest<T> hamerly_test(const BoundedArgs<T>& a, long long i, int label, int since,
                                                       T upper, T lower) {
    const BoundArithmetic<T> bounds(a.d);
    const int columns = a.k + 1;
    T u = bounds.grow(upper, accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, label));
    const T global = bounds.shrink(lower, accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, a.k));
    const T limit = global > a.nearest_half[label] ? global : a.nearest_half[label];
    if (bounds.separated(u, limit)) return {true, false, T(0)};
    const T own = exact_squared_distance(a.points + i * a.d, a.centroids + static_cast<long long>(label) * a.d, a.d);
    u = bounds.upper(device_sqrt(own));
    if (!bounds.separated(u, limit)) return {false, true, own};
    a.upper[i] = u;
    a.lower[i] = global;
    a.stamp[i] = a.now;
    return {true, true, own};
}

// The end of a bounds test kernel: appends the block's listed rows to `list`
// (count: its length) in row order (thread t holds rows first + p·blockDim + t:
// slab p of the block, warp by warp), so that the kernels reading the list next
// read neighbouring points together; and adds the block's evaluations and skips
// to their totals. One atomic each per block, two barriers in all. Every thread of
// the block must call it, once, at the kernel's end (a second call would rely on
// each warp's ballot to keep its lane 0 from rewriting offsets still being read).
template <int P>
__device__ __forceinline__ void append_and_count(std::int32_t* list, unsigned long long* count,
                                                 const long long (&row)[P], const bool (&listed)[P],
                                                 unsigned long long evaluations, unsigned long long skips,
                                                 unsigned long long* evaluations_total,
                                                 unsigned long long* skips_total) {
    __shared__ unsigned slab_offset[P][32];
    __shared__ unsigned long long warp_evaluations[32], warp_skips[32];
    __shared__ unsigned long long block_offset;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int warps = static_cast<int>(blockDim.x >> 5);
    unsigned wanted[P];
#pragma unroll
    for (int p = 0; p < P; ++p) wanted[p] = __ballot_sync(0xffffffffu, listed[p]);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        evaluations += __shfl_down_sync(0xffffffffu, evaluations, offset);
        skips += __shfl_down_sync(0xffffffffu, skips, offset);
    }
    if (lane == 0) {
#pragma unroll
        for (int p = 0; p < P; ++p) slab_offset[p][warp] = __popc(wanted[p]);
        warp_evaluations[warp] = evaluations;
        warp_skips[warp] = skips;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned listed_total = 0;
        for (int p = 0; p < P; ++p)
            for (int w = 0; w < warps; ++w) {
                const unsigned warp_count = slab_offset[p][w];
                slab_offset[p][w] = listed_total;
                listed_total += warp_count;
            }
        unsigned long long evaluations_sum = 0, skips_sum = 0;
        for (int w = 0; w < warps; ++w) {
            evaluations_sum += warp_evaluations[w];
            skips_sum += warp_skips[w];
        }
        block_offset = listed_total ? atomicAdd(count, static_cast<unsigned long long>(listed_total)) : 0;
        if (evaluations_sum) atomicAdd(evaluations_total, evaluations_sum);
        if (skips_sum) atomicAdd(skips_total, skips_sum);
    }
    __syncthreads();
    const unsigned below = (1u << lane) - 1u;
#pragma unroll
    for (int p = 0; p < P; ++p)
        if (listed[p])
            list[block_offset + slab_offset[p][warp] + __popc(wanted[p] & below)] = static_cast<std::int32_t>(row[p]);
}

// Points a thread of bounds_test_kernel takes, a block's width apart (each load
// coalesced). Hamerly's kernel of one point a thread, its counters and list each
// summed with their own barriers (nine a block), took 158 us at 10^7 x 2-D,
// k = 100, f32 (H100; DRAM 45 % busy; stall samples 39 % long scoreboard, 29 %
// barrier). With the sums in one pass, late steps (us): 1 point a thread 406-408,
// 2 399-403, 4 405-414, 8 426-435 (Hamerly's whole step; Yinyang's and Exponion's
// alike or level).
constexpr int kBoundsPoints = 2;

// Hamerly's test for every point: Hamerly's own at large k (its full search then
// tiled), and for the solvers that search the rest their own way (Yinyang's global
// bound, Exponion's lower bound: a.lower). A settled point writes only what
// tightening changed; the others are appended to `list`, their own distance
// counted here and `listed_extra` more each (Hamerly counts its full search here:
// k − 1). On the first step every point is listed and counted at k.
template <typename T>
__global__ void __launch_bounds__(1024) bounds_test_kernel(BoundedArgs<T> a, std::int32_t* list,
                                                           unsigned long long* list_count, int listed_extra) {
    constexpr int P = kBoundsPoints;
    const long long first_row = static_cast<long long>(blockIdx.x) * blockDim.x * P + threadIdx.x;
    long long row[P];
    int label[P], since[P];
    T upper[P], lower[P];
    bool listed[P];
    // Every load first, so a thread has all its points' in flight at once.
#pragma unroll
    for (int p = 0; p < P; ++p) {
        row[p] = first_row + static_cast<long long>(p) * blockDim.x;
        listed[p] = false;
        label[p] = 0;
        since[p] = a.now;
        upper[p] = lower[p] = T(0);
        if (row[p] < a.n && !a.first) {
            label[p] = a.labels[row[p]];
            since[p] = a.stamp[row[p]];
            upper[p] = a.upper[row[p]];
            lower[p] = a.lower[row[p]];
        }
    }
    unsigned long long evaluations = 0, skips = 0;
#pragma unroll
    for (int p = 0; p < P; ++p) {
        if (row[p] >= a.n) continue;
        if (a.first) {
            listed[p] = true;
            evaluations += a.k;
            continue;
        }
        const HamerlyTest<T> test = hamerly_test(a, row[p], label[p], since[p], upper[p], lower[p]);
        evaluations += test.evaluated;
        if (test.settled) {
            ++skips;
            if (a.status) a.status[row[p]] = 1;
        } else {
            listed[p] = true;
            evaluations += listed_extra;
        }
    }
    append_and_count(list, list_count, row, listed, evaluations, skips, &a.counters->point_centroid_distances,
                     &a.counters->bound_skips);
}

// Runs bounds_test_kernel over every point (the caller zeroes *list_count).
template <typename T>
void launch_bounds_test(const BoundedArgs<T>& args, std::int32_t* list, unsigned long long* list_count,
                        int listed_extra, const Geometry& g, cudaStream_t stream, const char* what) {
    const long long per_block = static_cast<long long>(g.block) * kBoundsPoints;
    const long long blocks = std::max<long long>(1, (args.n + per_block - 1) / per_block);
    bounds_test_kernel<T><<<static_cast<unsigned>(blocks), g.block, 0, stream>>>(args, list, list_count, listed_extra);
    KMS_CUDA_LAUNCH_CHECK(what);
}

template <typename T>
int bounded_tile_rows(int k, int d, bool shared_variant) {
    if (!shared_variant) return 0;
    const std::size_t rows = kTileBytes / (static_cast<std::size_t>(d) * sizeof(T));
    return static_cast<int>(std::min<std::size_t>(rows, k));  // 0: rows too long, read from global memory
}

// Hamerly and Elkan launch alike: one thread per point, cuda-shared with the
// centroid tile in dynamic shared memory. A failed launch reports the kernel's
// resources (a tile or register limit is the usual cause).
template <typename T, class Kernel>
void launch_bounded(Kernel shared_kernel, Kernel global_kernel, const char* what, const BoundedArgs<T>& args,
                    bool shared_variant, const Geometry& g, cudaStream_t stream) {
    const int rows = bounded_tile_rows<T>(args.k, args.d, shared_variant);
    const std::size_t bytes = shared_variant ? static_cast<std::size_t>(rows) * args.d * sizeof(T) : 0;
    const long long blocks = (args.n + g.block - 1) / g.block;
    const Kernel kernel = shared_variant ? shared_kernel : global_kernel;
    kernel<<<static_cast<unsigned>(blocks), g.block, bytes, stream>>>(args, shared_variant ? rows : 0);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
        cudaFuncAttributes attributes{};
        (void)cudaFuncGetAttributes(&attributes, kernel);
        throw Error(std::string("CUDA: ") + what + " (" + std::to_string(blocks) + " blocks of " +
                    std::to_string(g.block) + " threads, " + std::to_string(bytes) + " B shared, " +
                    std::to_string(attributes.numRegs) + " registers, " + std::to_string(attributes.maxThreadsPerBlock) +
                    " max threads, " + std::to_string(attributes.localSizeBytes) + " B local): " +
                    cudaGetErrorString(status));
    }
}

}  // namespace kms::cuda
