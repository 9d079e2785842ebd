// Lloyd's assignment for k ≤ 32 at any d (issue 37, "small k at large d"): a thread
// per point, each point read from device memory once.
//
// The one-thread-per-point global kernel reads its row with 4-byte loads, 32 rows a
// warp instruction (a sector per lane), and once per centroid: at 10^6 × 64-D, k = 5
// that was ~1.2 ms of a 1.6 ms step against an 85 µs floor. Here a block of 256
// threads takes 256 consecutive points (a tile) and streams it through shared memory
// in chunks of 128 bytes a row: each chunk (the tile's rows, 16-byte cp.async where
// rows are 16-byte aligned, coalesced, and the k centroids' same columns) lands while
// the previous one is summed. Each thread keeps its point's k partial distances in
// registers across chunks, so every distance is still kms::squared_distance()'s sum
// (sub, mul, add in coordinate order, each rounded: sq_step) and the argmin takes the
// centroids in index order with strict < (ties to the lowest index): the labels of
// every other kernel and of the CPU, bit for bit. Needs ~80 KB of shared memory a
// block (two stages): where the device has less, the caller keeps the older kernels.
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kernels/cp_async.cuh"
#include "kernels/lloyd.hpp"

namespace kms::cuda {
namespace {

// 16 bytes of shared memory into registers (one LDS.128).
__device__ __forceinline__ void load16(const float* p, float (&v)[4]) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
__device__ __forceinline__ void load16(const double* p, double (&v)[2]) {
    const double2 q = *reinterpret_cast<const double2*>(p);
    v[0] = q.x, v[1] = q.y;
}

constexpr int kTileRows = 256;    // points a tile = threads a block
constexpr int kChunkBytes = 128;  // of each row a stage
constexpr int kStages = 2;        // chunk s + 1 lands while chunk s is summed

// Shared-memory layout of one stage in elements of T: the tile's rows (a row's chunk
// padded so that a quarter warp's 16-byte reads, or a warp's element reads, hit
// different banks), then the k centroids' chunk (read by every thread at once).
template <typename T, int K, bool Vector>
struct SmallKLayout {
    static constexpr int kCols = kChunkBytes / static_cast<int>(sizeof(T));  // coordinates a chunk
    static constexpr int kPer = 16 / static_cast<int>(sizeof(T));            // coordinates a 16-byte load
    static constexpr int kPitch = Vector ? kCols + kPer : kCols + 1;         // 144 B (vector) or odd words
    static constexpr int kStage = kTileRows * kPitch + K * kCols;
    static constexpr std::size_t kBytes = static_cast<std::size_t>(kStages) * kStage * sizeof(T);
};

template <typename T, int K, bool Vector>
__global__ void __launch_bounds__(kTileRows, 2) lloyd_small_k_kernel(LloydArgs<T> a) {
    using L = SmallKLayout<T, K, Vector>;
    constexpr int kCols = L::kCols, kPer = L::kPer, kPitch = L::kPitch;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* stages = reinterpret_cast<T*>(smem_raw);
    __shared__ unsigned long long uscratch[32];

    const int d = a.d, k = a.k;
    const long long n = a.n;
    const int chunks = (d + kCols - 1) / kCols;
    const long long tiles = (n + kTileRows - 1) / kTileRows;
    const long long my_tiles = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    const long long steps = my_tiles * chunks;  // (tile, chunk) pairs of this block, tile-major

    // Queue step s's copies into its stage (every thread commits a group, maybe empty).
    auto issue = [&](long long s) {
        const long long first = (blockIdx.x + (s / chunks) * gridDim.x) * kTileRows;
        const int j0 = static_cast<int>(s % chunks) * kCols;
        const int cols = min(kCols, d - j0);
        const int rows = static_cast<int>(min(static_cast<long long>(kTileRows), n - first));
        T* stage = stages + (s % kStages) * L::kStage;
        T* cstage = stage + kTileRows * kPitch;
        const T* source = a.points + first * d + j0;
        const T* centroid_source = a.centroids + j0;
        // e → (row, item) for items of `per_row` a row; a full chunk (the common case)
        // divides by a constant (the copies' index arithmetic rivals the sums at k = 5).
        auto copy_rows = [&](int count, int per_row, auto copy) {
            if (per_row == (Vector ? kCols / kPer : kCols)) {
                constexpr int kFull = Vector ? kCols / kPer : kCols;
                for (int e = threadIdx.x; e < count * kFull; e += kTileRows) copy(e / kFull, e % kFull);
            } else {
                for (int e = threadIdx.x; e < count * per_row; e += kTileRows) copy(e / per_row, e % per_row);
            }
        };
        if constexpr (Vector) {
            const int vectors = cols / kPer;  // d is a multiple of kPer here
            copy_rows(rows, vectors, [&](int r, int q) {
                cp_async16(stage + r * kPitch + q * kPer, source + static_cast<long long>(r) * d + q * kPer);
            });
            copy_rows(k, vectors, [&](int c, int q) {
                cp_async16(cstage + c * kCols + q * kPer, centroid_source + static_cast<long long>(c) * d + q * kPer);
            });
        } else {
            copy_rows(rows, cols, [&](int r, int j) {
                cp_async_element(stage + r * kPitch + j, source + static_cast<long long>(r) * d + j);
            });
            copy_rows(k, cols, [&](int c, int j) {
                cp_async_element(cstage + c * kCols + j, centroid_source + static_cast<long long>(c) * d + j);
            });
        }
        cp_async_commit();
    };

    T part[K];  // this thread's point: partial squared distances, in coordinate order
#pragma unroll
    for (int c = 0; c < K; ++c) part[c] = T(0);
    unsigned long long changed = 0;
    if (steps > 0) issue(0);
    for (long long s = 0; s < steps; ++s) {
        if (s + 1 < steps) {
            issue(s + 1);
            cp_async_wait<1>();  // step s's group has landed (this thread's copies) ...
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();  // ... and every thread's
        const long long first = (blockIdx.x + (s / chunks) * gridDim.x) * kTileRows;
        const int chunk = static_cast<int>(s % chunks);
        const int cols = min(kCols, d - chunk * kCols);
        const T* stage = stages + (s % kStages) * L::kStage;
        const T* cstage = stage + kTileRows * kPitch;
        const long long i = first + threadIdx.x;
        const bool last = chunk == chunks - 1;
        if (i < n) {
            const int old_label = last ? a.labels[i] : 0;  // in flight during the sums
            const T* x = stage + threadIdx.x * kPitch;
            if constexpr (Vector) {
                for (int j = 0; j < cols; j += kPer) {
                    T xv[kPer];
                    load16(x + j, xv);
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        if (c >= k) break;  // uniform
                        T cv[kPer];
                        load16(cstage + c * kCols + j, cv);
#pragma unroll
                        for (int t = 0; t < kPer; ++t) part[c] = sq_step(part[c], xv[t], cv[t]);
                    }
                }
            } else {
                for (int j = 0; j < cols; ++j) {
                    const T xj = x[j];
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        if (c >= k) break;  // uniform
                        part[c] = sq_step(part[c], xj, cstage[c * kCols + j]);
                    }
                }
            }
            if (last) {  // the point's distances are complete
                T best = infinity_of<T>();
                int best_c = 0;
#pragma unroll
                for (int c = 0; c < K; ++c) {
                    if (c >= k) break;
                    if (part[c] < best) {
                        best = part[c];
                        best_c = c;
                    }
                    part[c] = T(0);
                }
                if (old_label != best_c) {
                    a.labels[i] = best_c;
                    ++changed;
                }
                if (a.status) a.status[i] = 0;
            }
        }
        __syncthreads();  // the stage is free for step s + 2's copies
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
}

// Blocks a multiprocessor of this kernel on `device` (0: its shared memory is too small),
// its shared-memory limit raised there once: the queries stay out of every step.
template <typename T, int K, bool Vector>
int prepared_blocks_per_sm(int device) {
    static std::mutex mutex;
    static std::map<int, int> prepared;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto found = prepared.find(device); found != prepared.end()) return found->second;
    const auto kernel = lloyd_small_k_kernel<T, K, Vector>;
    constexpr std::size_t bytes = SmallKLayout<T, K, Vector>::kBytes;
    int optin = 0, blocks = 0;
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes <= static_cast<std::size_t>(optin)) {
        KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kTileRows, bytes));
    }
    return prepared[device] = blocks;
}

template <typename T, int K, bool Vector>
bool launch_with(const LloydArgs<T>& a, const Geometry& g, cudaStream_t stream) {
    int device = 0;
    KMS_CUDA_CHECK(cudaGetDevice(&device));
    const int blocks_per_sm = prepared_blocks_per_sm<T, K, Vector>(device);
    if (blocks_per_sm == 0) return false;
    const long long tiles = (a.n + kTileRows - 1) / kTileRows;
    const long long grid = std::min<long long>(tiles, static_cast<long long>(g.sm_count) * blocks_per_sm);
    lloyd_small_k_kernel<T, K, Vector><<<static_cast<unsigned>(grid), kTileRows, SmallKLayout<T, K, Vector>::kBytes,
                                         stream>>>(a);
    KMS_CUDA_LAUNCH_CHECK("Lloyd small-k kernel");
    return true;
}

template <typename T, int K>
bool launch_for(const LloydArgs<T>& a, const Geometry& g, cudaStream_t stream) {
    // 16-byte copies need 16-byte aligned rows: d·sizeof(T) a multiple of 16 and aligned bases.
    const bool aligned = (static_cast<std::size_t>(a.d) * sizeof(T)) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(a.points) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(a.centroids) % 16 == 0;
    return aligned ? launch_with<T, K, true>(a, g, stream) : launch_with<T, K, false>(a, g, stream);
}

}  // namespace

template <typename T>
bool launch_lloyd_small_k(const LloydArgs<T>& a, const Geometry& g, cudaStream_t stream) {
    if (a.k > kSmallKMax || a.n <= 0) return false;
    if (a.k <= 8) return launch_for<T, 8>(a, g, stream);
    if (a.k <= 16) return launch_for<T, 16>(a, g, stream);
    return launch_for<T, 32>(a, g, stream);
}

template bool launch_lloyd_small_k<float>(const LloydArgs<float>&, const Geometry&, cudaStream_t);
template bool launch_lloyd_small_k<double>(const LloydArgs<double>&, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
