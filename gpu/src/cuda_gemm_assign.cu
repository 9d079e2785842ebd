// Lloyd assignment by filter (GEMM form) and verify (exact form); see
// cuda_gemm_assign.hpp for the outline.
//
// Why a certified point's label is exact. Let u = ε/2 (unit round-off of T),
// γ_m = m·u / (1 − m·u), D_j = ‖x − c_j‖² in real arithmetic of the T inputs,
// R_j = kms::squared_distance(x, c_j) (sub, mul, add in order, no FMA) and
// A_j = fl(fl(nx + nc_j) − 2·fl(x·c_j)) (the last step one FMA).
//  * |fl(x·c) − x·c| ≤ γ_d Σ|x_i c_i| ≤ γ_d ‖x‖‖c‖ ≤ γ_d (‖x‖² + ‖c‖²)/2, for any
//    summation order, with or without FMA (each step rounds once or twice).
//  * nx, nc: summed in double, rounded to T: relative error ≤ (d + 1)·u (the
//    d covers T = double, whose sum is in T itself).
//  * fl(nx + nc) and the final FMA: one rounding each, ≤ u·(nx + nc) and ≤ u·|A|.
//  So |A_j − D_j| ≤ (2d + 6)·u·N + 2u·|A_j| with N = nx + max_c nc (a little
//  more for N's own rounding) ≤ ½ρ·(N + |A_j|) with ρ = 2·(d + 8)·ε: a safety
//  factor of 2 that also covers the rounding of the test below.
//  * R's own error: |R_j − D_j| ≤ γ_{d+2}·D_j ≤ ρ·D_j (all terms ≥ 0).
// Let b = argmin A, A1 = A_b, A2 = min_{j≠b} A_j. a ↦ a − ½ρ(N + |a|) increases,
// so for every j ≠ b: R_j ≥ (1 − ρ)(A2 − ρ(N + |A2|)) =: rhs, while
// R_b ≤ (1 + ρ)(A1 + ρ(N + |A1|)) =: lhs. lhs < rhs therefore proves R_b < R_j
// for all j ≠ b: b is the strict argmin of the exact distances, so the tie rule
// cannot matter and the label is CPU Lloyd's. Anything not finite (overflowed
// norms, NaN data) fails the test and goes to the exact verification.
#include <algorithm>
#include <climits>
#include <limits>

#include "cuda_device.hpp"
#include "cuda_gemm_assign.hpp"

namespace kms::cuda {
namespace {

// Filter tile: 128 points × 128 centroids per block of 256 threads, 8 × 8 per
// thread, coordinates in chunks of 8 through double-buffered shared memory.
constexpr int kBlockPoints = 128, kBlockCentroids = 128, kChunk = 8, kThreads = 256;
constexpr int kPad = 4;  // shared rows padded by 16 bytes: the transposing stores spread over the banks

__device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ float abs_of(float v) { return fabsf(v); }
__device__ __forceinline__ double abs_of(double v) { return fabs(v); }

template <typename T>
__device__ __forceinline__ T epsilon_of();
template <>
__device__ __forceinline__ float epsilon_of<float>() { return 1.1920928955078125e-07f; }
template <>
__device__ __forceinline__ double epsilon_of<double>() { return 2.220446049250313e-16; }

// Four coordinates j .. j+3 of row `row` (zero beyond the rows or beyond d).
// Vector: d % 4 == 0, so the group is wholly inside or outside and 16-byte aligned.
template <typename T, bool Vector>
__device__ __forceinline__ void load_quad(const T* __restrict__ rows, long long row, long long row_count, int d, int j,
                                          T (&out)[4]) {
    if (row < row_count && j < d) {
        const T* p = rows + row * d + j;
        if constexpr (Vector) {
            if constexpr (sizeof(T) == 4) {
                const float4 v = *reinterpret_cast<const float4*>(p);
                out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
            } else {
                const double2 v0 = *reinterpret_cast<const double2*>(p), v1 = *reinterpret_cast<const double2*>(p + 2);
                out[0] = v0.x, out[1] = v0.y, out[2] = v1.x, out[3] = v1.y;
            }
        } else {
#pragma unroll
            for (int q = 0; q < 4; ++q) out[q] = j + q < d ? p[q] : T(0);
        }
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) out[q] = T(0);
    }
}

template <typename T>
__device__ __forceinline__ void load4_shared(const T* p, T* out) {
    if constexpr (sizeof(T) == 4) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
        const double2 v0 = *reinterpret_cast<const double2*>(p), v1 = *reinterpret_cast<const double2*>(p + 2);
        out[0] = v0.x, out[1] = v0.y, out[2] = v1.x, out[3] = v1.y;
    }
}

// Merge two (smallest, its index, second smallest) summaries of disjoint candidate sets.
template <typename T>
__device__ __forceinline__ void merge_top2(T& best, int& best_c, T& second, T other_best, int other_c, T other_second) {
    if (other_best < best || (other_best == best && other_c < best_c)) {
        second = best < other_second ? best : other_second;
        best = other_best;
        best_c = other_c;
    } else {
        second = other_best < second ? other_best : second;
    }
}

template <typename T>
constexpr int filter_min_blocks() { return sizeof(T) == 4 ? 2 : 1; }  // float: ≤ 128 registers, 16 warps per SM

template <typename T, bool Vector>
__global__ void __launch_bounds__(kThreads, (filter_min_blocks<T>())) gemm_filter_kernel(GemmLloydArgs<T> g) {
    __shared__ __align__(16) T xs[2][kChunk][kBlockPoints + kPad];
    __shared__ __align__(16) T cs[2][kChunk][kBlockCentroids + kPad];
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const int tid = threadIdx.x;
    const int tx = tid & 15, ty = tid >> 4;  // centroid group, point group (a half warp shares ty)
    const long long point0 = static_cast<long long>(blockIdx.x) * kBlockPoints;
    const int chunks = (a.d + kChunk - 1) / kChunk;
    // This thread's share of each chunk load: row tid/2, coordinates (tid%2)·4 .. +3.
    const int load_row = tid >> 1, load_col = (tid & 1) * 4;

    // Each thread with tx < 8 owns point tx of its group (of 8) and keeps that
    // point's summary over all centroid tiles: three registers, not 24.
    auto point_of = [&](int r) { return point0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4); };
    T own_best = infinity_of<T>(), own_second = infinity_of<T>();
    int own_c = INT_MAX;

    for (int c0 = 0; c0 < a.k; c0 += kBlockCentroids) {
        T acc[8][8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int q = 0; q < 8; ++q) acc[r][q] = T(0);
        T xq[4], cq[4];
        auto fetch = [&](int chunk) {
            const int j = chunk * kChunk + load_col;
            load_quad<T, Vector>(a.points, point0 + load_row, a.n, a.d, j, xq);
            load_quad<T, Vector>(a.centroids, static_cast<long long>(c0) + load_row, a.k, a.d, j, cq);
        };
        auto stash = [&](int buffer) {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                xs[buffer][load_col + q][load_row] = xq[q];
                cs[buffer][load_col + q][load_row] = cq[q];
            }
        };
        fetch(0);
        stash(0);
        __syncthreads();
        for (int chunk = 0; chunk < chunks; ++chunk) {
            const int buffer = chunk & 1;
            if (chunk + 1 < chunks) fetch(chunk + 1);  // global loads in flight during the FMAs
#pragma unroll
            for (int kk = 0; kk < kChunk; ++kk) {
                T xv[8], cv[8];
                load4_shared(&xs[buffer][kk][ty * 4], xv);
                load4_shared(&xs[buffer][kk][64 + ty * 4], xv + 4);
                load4_shared(&cs[buffer][kk][tx * 4], cv);
                load4_shared(&cs[buffer][kk][64 + tx * 4], cv + 4);
#pragma unroll
                for (int r = 0; r < 8; ++r)
#pragma unroll
                    for (int q = 0; q < 8; ++q) acc[r][q] = fma_rn(xv[r], cv[q], acc[r][q]);
            }
            if (chunk + 1 < chunks) stash(buffer ^ 1);
            __syncthreads();
        }
        // Approximate distances of this tile; candidates in increasing index per thread.
        T nx[8], best[8], second[8];
        int best_c[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            const long long i = point_of(r);
            nx[r] = i < a.n ? g.point_norms[i] : T(0);
            best[r] = second[r] = infinity_of<T>();
            best_c[r] = INT_MAX;
        }
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int c = c0 + (q < 4 ? tx * 4 + q : 64 + tx * 4 + q - 4);
            if (c >= a.k) continue;
            const T nc = g.centroid_norms[c];
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const T approx = fma_rn(T(-2), acc[r][q], nx[r] + nc);
                if (approx < best[r]) {
                    second[r] = best[r];
                    best[r] = approx;
                    best_c[r] = c;
                } else if (approx < second[r]) {
                    second[r] = approx;
                }
            }
        }
        // The 16 threads of a half warp share their 8 points: merge their summaries,
        // then each owner merges its point's into what the earlier tiles gave.
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            for (int offset = 8; offset > 0; offset >>= 1) {
                const T other_best = __shfl_xor_sync(0xffffffffu, best[r], offset);
                const int other_c = __shfl_xor_sync(0xffffffffu, best_c[r], offset);
                const T other_second = __shfl_xor_sync(0xffffffffu, second[r], offset);
                merge_top2(best[r], best_c[r], second[r], other_best, other_c, other_second);
            }
            if (r == tx) merge_top2(own_best, own_c, own_second, best[r], best_c[r], second[r]);
        }
    }
    // Certification of the owned point.
    const T rho = T(2) * static_cast<T>(a.d + 8) * epsilon_of<T>();
    unsigned long long changed = 0;
    const long long i = tx < 8 ? point_of(tx) : a.n;
    if (i < a.n) {
        const T scale = g.point_norms[i] + g.centroid_norms[a.k];  // N = nx + max nc
        const T lhs = (own_best + rho * (scale + abs_of(own_best))) * (T(1) + rho);
        const T rhs = (own_second - rho * (scale + abs_of(own_second))) * (T(1) - rho);
        if (lhs < rhs) {
            if (a.labels[i] != own_c) {
                a.labels[i] = own_c;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        } else {
            const unsigned long long slot = atomicAdd(&a.counters->gemm_unsettled, 1ull);
            g.unsettled[slot] = static_cast<std::int32_t>(i);
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
}

// Exact labels of the unsettled points: one warp per point, lanes take centroids
// lane, lane + 32, ... with kms::squared_distance()'s arithmetic, then the (distance,
// index) minimum across the warp: the lowest index among the smallest, as a
// sequential scan with strict < from +∞ gives (no finite candidate: label 0).
template <typename T>
__global__ void __launch_bounds__(256) gemm_verify_kernel(GemmLloydArgs<T> g) {
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const unsigned long long count = a.counters->gemm_unsettled;
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    unsigned long long changed = 0, evaluations = 0;
    for (long long w = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
         w < static_cast<long long>(count); w += warps) {
        const long long i = g.unsettled[w];
        const T* x = a.points + i * a.d;
        T best = infinity_of<T>();
        int best_c = INT_MAX;
        for (int c = lane; c < a.k; c += 32) {
            const T s = exact_squared_distance(x, a.centroids + static_cast<long long>(c) * a.d, a.d);
            if (s < best) {
                best = s;
                best_c = c;
            }
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            const T other = __shfl_xor_sync(0xffffffffu, best, offset);
            const int other_c = __shfl_xor_sync(0xffffffffu, best_c, offset);
            if (other < best || (other == best && other_c < best_c)) {
                best = other;
                best_c = other_c;
            }
        }
        if (lane == 0) {
            const int label = best_c == INT_MAX ? 0 : best_c;
            if (a.labels[i] != label) {
                a.labels[i] = label;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
            evaluations += static_cast<unsigned long long>(a.k);
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    // Verified points cost k exact distances each, on top of the filter's n·k.
    block_count_add(evaluations, &a.counters->point_centroid_distances, uscratch);
}

// ‖c‖² per centroid (a warp per centroid, double, fixed butterfly), rounded to T,
// and their maximum in slot k (+∞ if any is not finite, NaN included: no point
// then certifies).
template <typename T>
__global__ void __launch_bounds__(1024) centroid_norms_kernel(const T* centroids, int k, int d, T* norms) {
    __shared__ double warp_max[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    double largest = 0.0;
    for (int c = warp; c < k; c += warps) {
        double sum = 0.0;
        for (int j = lane; j < d; j += 32) {
            const double v = static_cast<double>(centroids[static_cast<long long>(c) * d + j]);
            sum += v * v;
        }
        for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        const T rounded = static_cast<T>(sum);
        if (lane == 0) norms[c] = rounded;
        double as_double = static_cast<double>(rounded);
        if (!(as_double <= static_cast<double>(std::numeric_limits<T>::max()))) as_double = infinity_of<double>();
        largest = as_double > largest ? as_double : largest;
    }
    if (lane == 0) warp_max[warp] = largest;
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = 0.0;
        for (int w = 0; w < warps; ++w) m = warp_max[w] > m ? warp_max[w] : m;
        norms[k] = static_cast<T>(m);  // +∞ stays +∞
    }
}

template <typename T>
__global__ void point_norms_kernel(const T* points, long long n, int d, T* norms) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        double sum = 0.0;
        for (int j = 0; j < d; ++j) {
            const double v = static_cast<double>(points[i * d + j]);
            sum += v * v;
        }
        norms[i] = static_cast<T>(sum);
    }
}

}  // namespace

template <typename T>
void launch_point_norms(const T* points, long long n, int d, T* norms, cudaStream_t stream) {
    const long long blocks = std::min<long long>((n + 255) / 256, 65535);
    point_norms_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(points, n, d, norms);
    KMS_CUDA_LAUNCH_CHECK("point norm kernel");
}

template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& g, cudaStream_t stream) {
    const LloydArgs<T>& a = g.lloyd;
    centroid_norms_kernel<T><<<1, 1024, 0, stream>>>(a.centroids, a.k, a.d, g.centroid_norms);
    KMS_CUDA_LAUNCH_CHECK("centroid norm kernel");
    const unsigned blocks = static_cast<unsigned>((a.n + kBlockPoints - 1) / kBlockPoints);
    if (a.d % 4 == 0) gemm_filter_kernel<T, true><<<blocks, kThreads, 0, stream>>>(g);
    else gemm_filter_kernel<T, false><<<blocks, kThreads, 0, stream>>>(g);
    KMS_CUDA_LAUNCH_CHECK("GEMM filter kernel");
    // The unsettled count is known on the device only: a fixed grid of warps walks the list.
    const long long verify_blocks = std::max<long long>(1, std::min<long long>(static_cast<long long>(g.sm_count) * 8,
                                                                                (a.n + 7) / 8));
    gemm_verify_kernel<T><<<static_cast<unsigned>(verify_blocks), 256, 0, stream>>>(g);
    KMS_CUDA_LAUNCH_CHECK("GEMM verification kernel");
}

#define KMS_INSTANTIATE_GEMM(T)                                                                    \
    template void launch_point_norms<T>(const T*, long long, int, T*, cudaStream_t);             \
    template void launch_gemm_lloyd<T>(const GemmLloydArgs<T>&, cudaStream_t);
KMS_INSTANTIATE_GEMM(float)
KMS_INSTANTIATE_GEMM(double)

}  // namespace kms::cuda
