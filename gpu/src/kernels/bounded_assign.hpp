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

// Hamerly's test, a thread per point, for the solvers that search the rest their own
// way (Yinyang's global bound, Exponion's lower bound: a.lower): a settled point
// costs what a Hamerly point costs and writes only what tightening changed; the
// others are listed in a.walk_list (their own distance counted once here).
template <typename T>
__global__ void __launch_bounds__(1024) hamerly_filter_kernel(BoundedArgs<T> a, int) {
    __shared__ unsigned long long uscratch[32];
    const BoundArithmetic<T> bounds(a.d);
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int columns = a.k + 1;
    unsigned long long evaluations = 0, skips = 0;
    bool walk = false;
    if (i < a.n) {
        const int label = a.labels[i];
        const int since = a.stamp[i];
        T u = bounds.grow(a.upper[i], accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, label));
        const T global = bounds.shrink(a.lower[i], accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, a.k));
        const T limit = global > a.nearest_half[label] ? global : a.nearest_half[label];
        if (bounds.separated(u, limit)) {
            skips = 1;  // nothing read or written beyond the two bounds
        } else {
            const T own = exact_squared_distance(a.points + i * a.d, a.centroids + static_cast<long long>(label) * a.d, a.d);
            evaluations = 1;
            u = bounds.upper(device_sqrt(own));
            if (bounds.separated(u, limit)) {
                skips = 1;
                a.upper[i] = u;
                a.lower[i] = global;
                a.stamp[i] = a.now;
            } else {
                walk = true;
            }
        }
        if (skips && a.status) a.status[i] = 1;
    }
    append_to_list(a.walk_list, a.walk_count, i, walk);
    block_count_add(evaluations, &a.counters->point_centroid_distances, uscratch);
    block_count_add(skips, &a.counters->bound_skips, uscratch);
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
