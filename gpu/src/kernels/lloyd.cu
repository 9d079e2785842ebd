// Lloyd's assignment kernels: cuda-global (centroids read from global memory /
// L2), with the small-path update fused in for k ≤ 8, d ≤ 4; cuda-shared
// (centroids staged through shared memory in tiles; k ≤ 32 without fused sums:
// kernels/lloyd_small_k.cu); both register-tiled for large k.
//
// Every distance is kms::squared_distance() in the same arithmetic (sub, mul,
// add in index order, no FMA) and candidates are compared in index order with
// ties to the lowest index: the same labels as the CPU Lloyd solver of the same
// precision.
#include <algorithm>
#include <type_traits>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kernels/lloyd.hpp"
#include "kernels/small_sums.hpp"
#include "kernels/small_update.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

constexpr int kLloydTile = 32;  // centroids per shared tile (register partials)

// Point i's first D coordinates (zero beyond d) into registers: one 8- or 16-byte
// load when the row is exactly D wide (rows are then 8/16-byte aligned), else scalars.
template <int D>
__device__ __forceinline__ void load_point(const float* __restrict__ points, unsigned i, int d, float (&x)[D]) {
    if constexpr (D == 2) {
        if (d == 2) {
            const float2 v = reinterpret_cast<const float2*>(points)[i];
            x[0] = v.x;
            x[1] = v.y;
            return;
        }
    } else if constexpr (D == 4) {
        if (d == 4) {
            const float4 v = reinterpret_cast<const float4*>(points)[i];
            x[0] = v.x;
            x[1] = v.y;
            x[2] = v.z;
            x[3] = v.w;
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < D; ++j) x[j] = j < d ? points[static_cast<std::size_t>(i) * d + j] : 0.0f;
}
template <int D>
__device__ __forceinline__ void load_point(const double* __restrict__ points, unsigned i, int d, double (&x)[D]) {
    if constexpr (D % 2 == 0) {
        if (d == D) {
            const double2* row = reinterpret_cast<const double2*>(points + static_cast<std::size_t>(i) * D);
#pragma unroll
            for (int h = 0; h < D / 2; ++h) {
                const double2 v = row[h];
                x[2 * h] = v.x;
                x[2 * h + 1] = v.y;
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < D; ++j) x[j] = j < d ? points[static_cast<std::size_t>(i) * d + j] : 0.0;
}

// --- Lloyd, global, fused small shapes (k ≤ Sums::K, d ≤ Sums::D): centroids in
// registers, points in vector loads, and software pipelining: the next batch of
// kBatch points (coordinates + old labels) is loaded before the current batch is
// labelled, so each thread keeps loads in flight while it computes. The points are
// still visited, and summed, in plain grid-stride order (the order of
// small_sums_kernel, so Elkan/Hamerly centroids stay bitwise equal to Lloyd's).
// 32-bit indices (fewer registers): n < 2^31 (the solver's limit) and a grid of
// fewer than 2^28 threads keep base + (2·kBatch − 1)·stride below 2^32.
constexpr int kSmallBatch = 4;  // points per pipelined batch (8 measured no faster at 10M×2, and spills at d = 4)

template <typename T, class Sums>
__device__ __forceinline__ void lloyd_fused_small(const LloydArgs<T>& a, Sums& sums, unsigned long long& changed) {
    constexpr int K = Sums::K, D = Sums::D, kBatch = kSmallBatch;
    const T* __restrict__ points = a.points;
    const unsigned n = static_cast<unsigned>(a.n);
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
    T centroid[K][D];
#pragma unroll
    for (int c = 0; c < K; ++c)
#pragma unroll
        for (int j = 0; j < D; ++j) centroid[c][j] = c < a.k && j < a.d ? a.centroids[c * a.d + j] : T(0);

    T x[kBatch][D], x_next[kBatch][D];
    int old_label[kBatch], old_next[kBatch];
    auto load_batch = [&](unsigned base, T (&xs)[kBatch][D], int (&labels)[kBatch]) {
#pragma unroll
        for (int r = 0; r < kBatch; ++r) {
            const unsigned i = base + r * stride;
            if (i < n) {
                load_point<D>(points, i, a.d, xs[r]);
                labels[r] = a.labels[i];
            } else {
#pragma unroll
                for (int j = 0; j < D; ++j) xs[r][j] = T(0);
                labels[r] = 0;
            }
        }
    };
    // Double rows are twice the registers: pipelining would cost the second block per SM.
    constexpr bool kPipelined = sizeof(T) == 4;
    if constexpr (kPipelined) load_batch(first, x, old_label);
    for (unsigned base = first; base < n; base += kBatch * stride) {
        if constexpr (kPipelined) load_batch(base + kBatch * stride, x_next, old_next);  // in flight while this batch is labelled
        else load_batch(base, x, old_label);
#pragma unroll
        for (int r = 0; r < kBatch; ++r) {
            const unsigned i = base + r * stride;
            if (i >= n) break;
            T best = infinity_of<T>();
            int best_c = 0;
#pragma unroll
            for (int c = 0; c < K; ++c) {
                if (c >= a.k) break;  // uniform
                // squared_distance() from 0: the first step 0 + diff² is exactly diff²
                // (≥ +0 or NaN), so it starts there (one add fewer per centroid).
                const T diff0 = sq_diff(x[r][0], centroid[c][0]);
                T s = sq_mul(diff0, diff0);
#pragma unroll
                for (int j = 1; j < D; ++j)
                    if (j < a.d) s = sq_step(s, x[r][j], centroid[c][j]);
                if (s < best) {
                    best = s;
                    best_c = c;
                }
            }
            if (old_label[r] != best_c) {
                a.labels[i] = best_c;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
            sums.add(best_c, x[r], a.d, a.k);
        }
        if constexpr (kPipelined) {
#pragma unroll
            for (int r = 0; r < kBatch; ++r) {
                old_label[r] = old_next[r];
#pragma unroll
                for (int j = 0; j < D; ++j) x[r][j] = x_next[r][j];
            }
        }
    }
}

// Resident blocks of 256 threads per SM asked of the compiler: as many as the
// registers the shape needs allow (more warps in flight hide the memory latency;
// the kernel issues ~70 % of cycles, so more warps also fill issue gaps): 4 (≤ 64
// registers), 3 (≤ 80), else 2 (≤ 128), except the double shapes with register
// sums that would spill; 1024 threads cap registers at 64 anyway. The estimate
// counts the register sums (if any), the centroids, the batches of points and
// labels in flight (two when pipelined), and ~24 more (~40 for double, checked
// against ptxas: no spills).
template <typename T, class Sums>
constexpr int lloyd_registers_estimate() {
    constexpr int words = sizeof(T) / 4, batches = sizeof(T) == 4 ? 2 : 1;
    constexpr int sums = Sums::kInRegisters ? 2 * Sums::K * Sums::D + Sums::K : 0;
    return sums + words * Sums::K * Sums::D + batches * kSmallBatch * (words * Sums::D + 1) + (words == 1 ? 24 : 40);
}
template <typename T, class Sums, int MaxThreads>
constexpr int lloyd_min_blocks() {
    if (MaxThreads > 256) return 1;
    if (Sums::K > 0 && lloyd_registers_estimate<T, Sums>() <= 64) return 4;
    if (Sums::K > 0 && lloyd_registers_estimate<T, Sums>() <= 80) return 3;
    return sizeof(T) == 4 || Sums::D <= 2 || !Sums::kInRegisters ? 2 : 1;
}

// --- Lloyd, global: one thread per point (grid-stride), centroids from global memory.
// For d ≤ 4 four points are loaded before any is labelled (more bytes in flight);
// they are still visited in plain grid-stride order. k ≤ 8, d ≤ 4 with the update
// fused: lloyd_fused_small above.
template <typename T, class Sums, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads, (lloyd_min_blocks<T, Sums, MaxThreads>())) lloyd_global_kernel(LloydArgs<T> a) {
    __shared__ double dscratch[32];
    __shared__ unsigned long long uscratch[32];
    Sums sums;
    sums.zero();
    unsigned long long changed = 0;
    if constexpr (Sums::K > 0) {
        lloyd_fused_small<T, Sums>(a, sums, changed);
    } else {
        const T* __restrict__ points = a.points;
        const T* __restrict__ centroids = a.centroids;
        const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
        const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
        auto finish = [&](long long i, int best_c, int old_label) {
            if (old_label != best_c) {
                a.labels[i] = best_c;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        };
        if (a.d <= 4) {
            constexpr int kBatch = 4;
            for (long long base = first; base < a.n; base += kBatch * stride) {
                T xr[kBatch][4];
                int old_label[kBatch];
#pragma unroll
                for (int r = 0; r < kBatch; ++r) {
                    const long long i = base + r * stride;
                    const bool valid = i < a.n;
#pragma unroll
                    for (int j = 0; j < 4; ++j) xr[r][j] = valid && j < a.d ? points[i * a.d + j] : T(0);
                    old_label[r] = valid ? a.labels[i] : 0;
                }
#pragma unroll
                for (int r = 0; r < kBatch; ++r) {
                    const long long i = base + r * stride;
                    if (i >= a.n) break;
                    T best = infinity_of<T>();
                    int best_c = 0;
                    for (int c = 0; c < a.k; ++c) {
                        const T* row = centroids + static_cast<long long>(c) * a.d;
                        T s = T(0);
#pragma unroll
                        for (int j = 0; j < 4; ++j)
                            if (j < a.d) s = sq_step(s, xr[r][j], row[j]);
                        if (s < best) {
                            best = s;
                            best_c = c;
                        }
                    }
                    finish(i, best_c, old_label[r]);
                }
            }
        } else {
            for (long long i = first; i < a.n; i += stride) {
                const T* x = points + i * a.d;
                T best = infinity_of<T>();
                int best_c = 0;
                for (int c = 0; c < a.k; ++c) {
                    const T s = exact_squared_distance(x, centroids + static_cast<long long>(c) * a.d, a.d);
                    if (s < best) {
                        best = s;
                        best_c = c;
                    }
                }
                finish(i, best_c, a.labels[i]);
            }
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    if constexpr (Sums::K > 0) {
        if (a.block_partials) {
            sums.flush(a.block_partials + static_cast<long long>(blockIdx.x) * small_partial_width(a.k, a.d), a.k,
                       a.d, dscratch);
            if (a.update.next) finish_small_update(a.block_partials, a.centroids, a.k, a.d, a.update);
        }
    }
}

// --- Lloyd, shared: centroids in tiles of kLloydTile rows × tile_d columns in
// shared memory; each thread keeps the tile's partial distances in registers, so
// d is tiled too and each distance is still summed over coordinates in order.
template <typename T, class Sums, int MaxThreads>
__global__ void __launch_bounds__(MaxThreads) lloyd_shared_kernel(LloydArgs<T> a, int tile_d) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* tile = reinterpret_cast<T*>(smem_raw);
    __shared__ double dscratch[32];
    __shared__ unsigned long long uscratch[32];
    Sums sums;
    sums.zero();
    unsigned long long changed = 0;
    const bool resident = a.k <= kLloydTile && a.d <= tile_d;  // all centroids fit: load once
    if (resident) {
        for (int e = threadIdx.x; e < a.k * a.d; e += blockDim.x) {
            const int c = e / a.d, j = e - c * a.d;
            tile[c * tile_d + j] = a.centroids[e];
        }
        __syncthreads();
    }
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long base = static_cast<long long>(blockIdx.x) * blockDim.x; base < a.n; base += stride) {
        const long long i = base + threadIdx.x;
        const bool valid = i < a.n;
        const T* x = a.points + (valid ? i : 0) * a.d;
        T best = infinity_of<T>();
        int best_c = 0;
        for (int c0 = 0; c0 < a.k; c0 += kLloydTile) {
            const int rows = min(kLloydTile, a.k - c0);
            T part[kLloydTile];
#pragma unroll
            for (int c = 0; c < kLloydTile; ++c) part[c] = T(0);
            for (int j0 = 0; j0 < a.d; j0 += tile_d) {
                const int cols = min(tile_d, a.d - j0);
                if (!resident) {
                    __syncthreads();
                    for (int e = threadIdx.x; e < rows * cols; e += blockDim.x) {
                        const int c = e / cols, j = e - c * cols;
                        tile[c * tile_d + j] = a.centroids[static_cast<long long>(c0 + c) * a.d + j0 + j];
                    }
                    __syncthreads();
                }
                if (valid) {
                    for (int j = 0; j < cols; ++j) {
                        const T xj = x[j0 + j];
#pragma unroll
                        for (int c = 0; c < kLloydTile; ++c)
                            if (c < rows) part[c] = sq_step(part[c], xj, tile[c * tile_d + j]);
                    }
                }
            }
#pragma unroll
            for (int c = 0; c < kLloydTile; ++c)
                if (c < rows && part[c] < best) {
                    best = part[c];
                    best_c = c0 + c;
                }
        }
        if (valid) {
            if (a.labels[i] != best_c) {
                a.labels[i] = best_c;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
            sums.add(best_c, x, a.d, a.k);
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    if constexpr (Sums::K > 0) {
        if (a.block_partials) {
            sums.flush(a.block_partials + static_cast<long long>(blockIdx.x) * small_partial_width(a.k, a.d), a.k,
                       a.d, dscratch);
            if (a.update.next) finish_small_update(a.block_partials, a.centroids, a.k, a.d, a.update);
        }
    }
}

// --- Lloyd, large k (tiled_search_pays(), no fused update): the register-tiled search
// (kernels/tiled_search.cuh), staged through shared memory for cuda-shared and read
// straight from global memory for cuda-global. The one-thread-per-point global
// kernel read every centroid row once per point: 26 ms at d = 64, k = 100 and 260 ms
// at k = 1000 on the H100, 44x the staged search.
template <typename T>
struct LloydFinish {
    static constexpr bool kRecordsDistances = false;
    std::int32_t* labels;
    std::uint8_t* status;
    __device__ __forceinline__ int operator()(long long i, const Nearest<T>& nearest) const {
        const int changed = labels[i] != nearest.best_c;
        if (changed) labels[i] = nearest.best_c;
        if (status) status[i] = 0;
        return changed;
    }
};

// From d = 5 cuda-global reads the tiles straight from global memory. Below, both
// variants take the search's resident-centroid kernel (low_d_search_applies(): 0.88
// ms a step against 1.67 for the one-thread-per-point global kernel at 10^7 × 2-D,
// k = 100, H100) unless the centroids pass its shared memory; then cuda-global keeps
// the one-thread-per-point kernel, where every thread reads the same centroid at once.
constexpr int kGlobalTiledMinD = 5;

template <typename T>
bool tiled_search_applies(const LloydArgs<T>& args, bool shared_variant) {
    return tiled_search_pays(args.k) && !args.block_partials &&
           (shared_variant || args.d >= kGlobalTiledMinD || low_d_search_applies<T>(args.d, args.k));
}

template <typename T, class Sums>
void launch_lloyd_with(const LloydArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    if (tiled_search_applies(args, shared_variant)) {
        launch_tiled_search<T, false>(args.points, args.d, args.centroids, args.k,
                                      TiledRows{args.n, nullptr, nullptr, false}, shared_variant, g.sm_count,
                                      LloydFinish<T>{args.labels, args.status}, &args.counters->labels_changed, nullptr,
                                      stream, "Lloyd tiled search kernel");
        return;
    }
    // k ≤ 32 without fused sums: each row read once through shared memory (kernels/lloyd_small_k.cu).
    if (shared_variant && !args.block_partials && launch_lloyd_small_k(args, g, stream)) return;
    if (shared_variant) {
        const int tile_d = static_cast<int>(std::min<std::size_t>(args.d, kTileBytes / (kLloydTile * sizeof(T))));
        const std::size_t bytes = static_cast<std::size_t>(kLloydTile) * tile_d * sizeof(T);
        // Up to 256 threads the register sums fit without spilling; 1024 caps registers at 64.
        if (g.block <= 256) lloyd_shared_kernel<T, Sums, 256><<<g.grid, g.block, bytes, stream>>>(args, tile_d);
        else lloyd_shared_kernel<T, Sums, 1024><<<g.grid, g.block, bytes, stream>>>(args, tile_d);
    } else {
        if (g.block <= 256) lloyd_global_kernel<T, Sums, 256><<<g.grid, g.block, 0, stream>>>(args);
        else lloyd_global_kernel<T, Sums, 1024><<<g.grid, g.block, 0, stream>>>(args);
    }
    KMS_CUDA_LAUNCH_CHECK("Lloyd assignment kernel");
}

// The fused cuda-global kernel of block ≤ 256 holds exactly k clusters (k ≤ 8):
// the same sums in fewer registers, so the smallest shapes get a third block per SM.
// Sums in shared memory (SharedSums) where they fit the 48 KB of static shared
// memory beside the kernel's own ~1 KB, else in registers.
template <int K, int D>
using ExactSums = std::conditional_t<SharedSums<K, D, 256>::kBytes + 2048 <= 48 * 1024, SharedSums<K, D, 256>,
                                     SmallSums<K, D>>;
template <typename T, int K>
auto exact_fused_kernel_for(int d) {
    return d <= 2 ? lloyd_global_kernel<T, ExactSums<K, 2>, 256> : lloyd_global_kernel<T, ExactSums<K, 4>, 256>;
}
template <typename T>
auto exact_fused_kernel(int k, int d) {
    switch (k) {
        case 1: return exact_fused_kernel_for<T, 1>(d);
        case 2: return exact_fused_kernel_for<T, 2>(d);
        case 3: return exact_fused_kernel_for<T, 3>(d);
        case 4: return exact_fused_kernel_for<T, 4>(d);
        case 5: return exact_fused_kernel_for<T, 5>(d);
        case 6: return exact_fused_kernel_for<T, 6>(d);
        case 7: return exact_fused_kernel_for<T, 7>(d);
        default: return exact_fused_kernel_for<T, 8>(d);
    }
}

// The fused kernel that runs a small (k, d) shape at this block size (cuda-global).
template <typename T>
auto fused_kernel(int k, int d, int block) {
    using Kernel = void (*)(LloydArgs<T>);
    if (block <= 256) return static_cast<Kernel>(exact_fused_kernel<T>(k, d));
    switch (small_update_variant(k, d)) {
        case 0: return static_cast<Kernel>(lloyd_global_kernel<T, VariantSums<0>, 1024>);
        case 1: return static_cast<Kernel>(lloyd_global_kernel<T, VariantSums<1>, 1024>);
        default: return static_cast<Kernel>(lloyd_global_kernel<T, VariantSums<2>, 1024>);
    }
}

}  // namespace

template <typename T>
void launch_lloyd(const LloydArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    const int variant = args.block_partials ? small_update_variant(args.k, args.d) : -1;
    if (variant >= 0 && !shared_variant) {
        fused_kernel<T>(args.k, args.d, g.block)<<<g.grid, g.block, 0, stream>>>(args);
        KMS_CUDA_LAUNCH_CHECK("Lloyd assignment kernel");
        return;
    }
    switch (variant) {
        case 0: launch_lloyd_with<T, VariantSums<0>>(args, shared_variant, g, stream); break;
        case 1: launch_lloyd_with<T, VariantSums<1>>(args, shared_variant, g, stream); break;
        case 2: launch_lloyd_with<T, VariantSums<2>>(args, shared_variant, g, stream); break;
        default: {
            LloydArgs<T> plain = args;
            plain.block_partials = nullptr;
            plain.update = SmallUpdate<T>{};
            launch_lloyd_with<T, NoSums>(plain, shared_variant, g, stream);
        }
    }
}

int update_blocks_per_sm(int block) {
    // The fused Lloyd kernel of the commonest small shape (float, k ≤ 8, d ≤ 2); the
    // heavier variants then take two waves. A fixed choice, so every solver on a
    // device with the same block size sums in the same order.
    int blocks = 0;
    const cudaError_t status =
        block <= 256
            ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lloyd_global_kernel<float, VariantSums<0>, 256>, block, 0)
            : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lloyd_global_kernel<float, VariantSums<0>, 1024>, block, 0);
    check(status, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return blocks > 0 ? blocks : 1;
}

template <typename T>
int small_blocks_per_sm(int k, int d, int block) {
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fused_kernel<T>(k, d, block), block, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return blocks > 0 ? blocks : 1;
}

#define KMS_INSTANTIATE_LLOYD(T)                                                                          \
    template void launch_lloyd<T>(const LloydArgs<T>&, bool, const Geometry&, cudaStream_t);            \
    template int small_blocks_per_sm<T>(int, int, int);
KMS_INSTANTIATE_LLOYD(float)
KMS_INSTANTIATE_LLOYD(double)

}  // namespace kms::cuda
