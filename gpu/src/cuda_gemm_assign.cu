// Lloyd assignment by filter (GEMM form) and verify (exact form); see
// cuda_gemm_assign.hpp for the outline.
//
// Why a certified label is exact. u = ε/2 (unit round-off of T), γ_m = m·u/(1 − m·u).
// x, c: T rows; m: the shift (T); x' = fl(x − m), c' = fl(c − m) (as the filter
// computes them); D = ‖x − c‖², D' = ‖x' − c'‖² (real arithmetic); R =
// kms::squared_distance(x, c) (sub, mul, add in order, no FMA); nx, nc: ‖x'‖², ‖c'‖²
// summed in double, rounded to T; A = fl(fl(nx + nc) − 2·fl(x'·c')) (last step one FMA).
//  * dot: |fl(x'·c') − x'·c'| ≤ γ_d Σ|x'_i c'_i| ≤ γ_d ‖x'‖‖c'‖, any order, with or
//    without FMA; so the 2·dot term errs by ≤ γ_d (‖x'‖² + ‖c'‖²).
//  * norms: relative error ≤ η = u + d·2⁻⁵³ (double sum, one rounding to T).
//  * fl(nx + nc), the final FMA: ≤ u·(nx + nc) and ≤ u·|A|.
//  * shift: ‖(x' − c') − (x − c)‖ ≤ u(‖x − m‖ + ‖c − m‖) ≈ u·√(2(‖x'‖² + ‖c'‖²)), so
//    |D' − D| ≤ 2√D·u√(2N) + O(u²N) ≤ u·D + 2u·N (2ab ≤ a² + b²).
//  With N = nx + max_c nc: |A − D| ≤ ((d + 4)·u + d·2⁻⁵³)·N + 2u·|A| (to first
//  order), and we use E = e_N·N + e_A·|A| with e_N = 2((d + 4)u + d·2⁻⁵³) and
//  e_A = 8u: a safety factor of 2 that also covers the rounding of the tests.
//  * R's own error: |R − D| ≤ γ_{d+2}·D ≤ g·D with g = 2(d + 2)u.
// a ↦ a − e_N·N − e_A·|a| increases, so for the A-sorted candidates b1, b2, b3, ...
// (A1 ≤ A2 ≤ A3 ≤ every other A): R_j ≥ (1 − g)(A_j − E(A_j)) ≥ rhs(A2) for every
// j ≠ b1, and ≥ rhs(A3) for every j ∉ {b1, b2}, while R_b1 ≤ (1 + g)(A1 + E(A1)) = lhs.
//  * lhs < rhs(A2): b1 is the strict argmin of R: the label, whatever the tie rule.
//  * else lhs < rhs(A3): the argmin of R is b1 or b2 and every other centroid is
//    strictly farther: the exact R of the two, ties → lower index, gives the label.
//  * else: all k exact distances (the verification kernel), as the exact kernels do.
// With N finite every A is finite (|2·dot| ≤ N); N not finite (overflow, NaN data)
// fails both tests.
#include <algorithm>
#include <climits>
#include <limits>

#include "cuda_device.hpp"
#include "cuda_gemm_assign.hpp"

namespace kms::cuda {
namespace {

// Filter tile: 128 points × 128 centroids per block of 256 threads, 8 × 8 per
// thread, coordinates in chunks of kChunk through double-buffered shared memory.
// Measured on the H100 at 500k×200 k=128 (f32 step): chunks of 8 with 2 blocks
// per SM (≤ 128 registers) 1.03 ms; 16 with 2 blocks (small spills) 1.09; 16 with
// 1 block (167 registers) 1.24; 8 with 1 block 1.41. Double: chunks of 16 would
// exceed 48 KB of static shared memory.
constexpr int kBlockPoints = 128, kBlockCentroids = 128, kChunk = 8, kThreads = 256;
constexpr int kQuadsPerRow = kChunk / 4, kQuadsPerThread = kBlockPoints * kQuadsPerRow / kThreads;
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

__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }

template <typename T>
__device__ __forceinline__ void load4_global(const T* p, T (&out)[4]) {
    if constexpr (sizeof(T) == 4) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
        const double2 v0 = *reinterpret_cast<const double2*>(p), v1 = *reinterpret_cast<const double2*>(p + 2);
        out[0] = v0.x, out[1] = v0.y, out[2] = v1.x, out[3] = v1.y;
    }
}

// Four shifted coordinates fl(row[j + q] − shift[j + q]) of row `row` (zero beyond
// the rows or beyond d). Vector: d % 4 == 0, so the group is wholly inside or
// outside and 16-byte aligned.
template <typename T, bool Vector>
__device__ __forceinline__ void load_quad(const T* __restrict__ rows, long long row, long long row_count, int d, int j,
                                          const T* __restrict__ shift, T (&out)[4]) {
    if (row < row_count && j < d) {
        const T* p = rows + row * d + j;
        if constexpr (Vector) {
            T m[4];
            load4_global(p, out);
            load4_global(shift + j, m);
#pragma unroll
            for (int q = 0; q < 4; ++q) out[q] = sub_rn(out[q], m[q]);
        } else {
#pragma unroll
            for (int q = 0; q < 4; ++q) out[q] = j + q < d ? sub_rn(p[q], shift[j + q]) : T(0);
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

__device__ __forceinline__ float min_of(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double min_of(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ float max_of(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double max_of(double a, double b) { return fmax(a, b); }

// The three smallest approximate distances seen, sorted, with the indices of the
// first two. Branch-free (min/max and selects: the first version's branches cost
// a third of the kernel). Ties may go either way: a certified label is a strict
// minimum and two candidates are compared exactly, so the labels do not depend on
// it, and the fixed merge order keeps the summary deterministic anyway. With N
// finite no value is NaN (see above); NaNs would be ignored, N not finite certifies nothing.
template <typename T>
struct Top3 {
    T a1, a2, a3;
    int c1, c2;
    __device__ __forceinline__ void clear() {
        a1 = a2 = a3 = infinity_of<T>();
        c1 = c2 = INT_MAX;
    }
    __device__ __forceinline__ void insert(T v, int c) {
        const bool below1 = v < a1, below2 = v < a2;
        a3 = min_of(a3, max_of(a2, v));
        c2 = below1 ? c1 : (below2 ? c : c2);
        a2 = min_of(a2, max_of(a1, v));
        c1 = below1 ? c : c1;
        a1 = min_of(a1, v);
    }
    // Union with another sorted summary: the i-th smallest of two sorted lists is
    // min over splits of max(a_p, b_{i−p}).
    __device__ __forceinline__ void merge(const Top3& o) {
        const bool mine_first = a1 <= o.a1;
        const T runner_up = mine_first ? a2 : o.a2, other_best = mine_first ? o.a1 : a1;
        const int runner_up_c = mine_first ? c2 : o.c2, other_best_c = mine_first ? o.c1 : c1;
        const T third = min_of(min_of(a3, o.a3), min_of(max_of(a1, o.a2), max_of(a2, o.a1)));
        c1 = mine_first ? c1 : o.c1;
        a1 = min_of(a1, o.a1);
        c2 = runner_up <= other_best ? runner_up_c : other_best_c;
        a2 = min_of(runner_up, other_best);
        a3 = third;
    }
    __device__ __forceinline__ Top3 shuffled(int offset) const {
        Top3 o;
        o.a1 = __shfl_xor_sync(0xffffffffu, a1, offset);
        o.a2 = __shfl_xor_sync(0xffffffffu, a2, offset);
        o.a3 = __shfl_xor_sync(0xffffffffu, a3, offset);
        o.c1 = __shfl_xor_sync(0xffffffffu, c1, offset);
        o.c2 = __shfl_xor_sync(0xffffffffu, c2, offset);
        return o;
    }
};

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
    // This thread's share of each chunk load: quads s of kQuadsPerThread, quad
    // tid + s·kThreads = row · kQuadsPerRow + column / 4.
    auto load_row = [&](int s) { return (tid + s * kThreads) / kQuadsPerRow; };
    auto load_col = [&](int s) { return (tid + s * kThreads) % kQuadsPerRow * 4; };

    // Each thread with tx < 8 owns point tx of its group (of 8) and keeps that
    // point's summary over all centroid tiles.
    auto point_of = [&](int r) { return point0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4); };
    Top3<T> own;
    own.clear();

    for (int c0 = 0; c0 < a.k; c0 += kBlockCentroids) {
        T acc[8][8];
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int q = 0; q < 8; ++q) acc[r][q] = T(0);
        T xq[kQuadsPerThread][4], cq[kQuadsPerThread][4];
        auto fetch = [&](int chunk) {
#pragma unroll
            for (int s = 0; s < kQuadsPerThread; ++s) {
                const int j = chunk * kChunk + load_col(s);
                load_quad<T, Vector>(a.points, point0 + load_row(s), a.n, a.d, j, g.shift, xq[s]);
                load_quad<T, Vector>(a.centroids, static_cast<long long>(c0) + load_row(s), a.k, a.d, j, g.shift, cq[s]);
            }
        };
        auto stash = [&](int buffer) {
#pragma unroll
            for (int s = 0; s < kQuadsPerThread; ++s)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    xs[buffer][load_col(s) + q][load_row(s)] = xq[s][q];
                    cs[buffer][load_col(s) + q][load_row(s)] = cq[s][q];
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
        // Approximate distances of this tile, point by point: each thread's 8
        // candidates, then the half warp's 128 (the 16 threads sharing the point),
        // then the owner adds them to the earlier tiles'.
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            const long long i = point_of(r);
            const T nx = i < a.n ? g.point_norms[i] : T(0);
            Top3<T> top;
            top.clear();
#pragma unroll
            for (int q = 0; q < 8; ++q) {
                const int c = c0 + (q < 4 ? tx * 4 + q : 64 + tx * 4 + q - 4);
                // ‖c'‖² re-read (L1) rather than held: registers are at the 128 limit.
                top.insert(c < a.k ? fma_rn(T(-2), acc[r][q], nx + g.centroid_norms[c]) : infinity_of<T>(), c);
            }
            for (int offset = 8; offset > 0; offset >>= 1) top.merge(top.shuffled(offset));
            if (r == tx) own.merge(top);
        }
    }
    // Certification of the owned point (the bound above).
    const T u = epsilon_of<T>() / T(2);
    const T e_n = T(2) * (static_cast<T>(a.d + 4) * u + static_cast<T>(a.d * 1.1102230246251565e-16));
    const T e_a = T(8) * u;
    const T grow = T(1) + T(2 * (a.d + 2)) * u, shrink = T(1) - T(2 * (a.d + 2)) * u;
    unsigned long long changed = 0;
    const long long i = tx < 8 ? point_of(tx) : a.n;
    if (i < a.n) {
        const T scale = g.point_norms[i] + g.centroid_norms[a.k];  // N = nx + max nc
        const T lhs = (own.a1 + e_n * scale + e_a * abs_of(own.a1)) * grow;
        const T rhs2 = (own.a2 - e_n * scale - e_a * abs_of(own.a2)) * shrink;
        const T rhs3 = (own.a3 - e_n * scale - e_a * abs_of(own.a3)) * shrink;
        if (lhs < rhs2) {
            if (a.labels[i] != own.c1) {
                a.labels[i] = own.c1;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        } else {
            const bool pair = lhs < rhs3;
            const unsigned long long slot = atomicAdd(&a.counters->gemm_unsettled, 1ull);
            if (!pair) atomicAdd(&a.counters->gemm_full_searches, 1ull);
            g.unsettled[slot] = static_cast<std::int32_t>(i);
            g.candidates[slot] = make_int2(own.c1, pair ? own.c2 : -1);
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
}

// Exact labels of the unsettled points, one warp per point. Two candidates: the
// warp stages the three rows in shared memory (coalesced; rows up to kVerifyCols),
// then lanes 0 and 1 compute the two kms::squared_distance()s, the smaller wins
// (ties → lower index). Otherwise lanes take centroids lane, lane + 32, ..., then the (distance,
// index) minimum across the warp: the lowest index among the smallest, as a
// sequential scan with strict < from +∞ gives (no finite candidate: label 0).
template <typename T>
constexpr int verify_cols() { return 1024 / sizeof(T); }  // 3 rows × 8 warps: 24 KB of shared memory

template <typename T>
__global__ void __launch_bounds__(256) gemm_verify_kernel(GemmLloydArgs<T> g) {
    constexpr int kVerifyCols = verify_cols<T>();
    __shared__ T rows[8][3][kVerifyCols];
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const unsigned long long count = a.counters->gemm_unsettled;
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    unsigned long long changed = 0, evaluations = 0;
    for (long long w = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
         w < static_cast<long long>(count); w += warps) {
        const long long i = g.unsettled[w];
        const int2 candidates = g.candidates[w];
        const T* x = a.points + i * a.d;
        T best = infinity_of<T>();
        int best_c = INT_MAX;
        if (candidates.y >= 0) {
            const int mine = lane == 0 ? candidates.x : candidates.y;
            T s = T(0);
            if (a.d <= kVerifyCols) {
                T(*staged)[kVerifyCols] = rows[threadIdx.x >> 5];
                const T* first = a.centroids + static_cast<long long>(candidates.x) * a.d;
                const T* second = a.centroids + static_cast<long long>(candidates.y) * a.d;
                __syncwarp();  // the previous point's rows are no longer read
                for (int j = lane; j < a.d; j += 32) {
                    staged[0][j] = x[j];
                    staged[1][j] = first[j];
                    staged[2][j] = second[j];
                }
                __syncwarp();
                if (lane < 2) s = exact_squared_distance(staged[0], staged[1 + lane], a.d);
            } else if (lane < 2) {
                s = exact_squared_distance(x, a.centroids + static_cast<long long>(mine) * a.d, a.d);
            }
            const T other = __shfl_down_sync(0xffffffffu, s, 1);
            if (lane == 0) {
                const bool second_wins = other < s || (other == s && candidates.y < candidates.x);
                best_c = second_wins ? candidates.y : candidates.x;
                evaluations += 2;
            }
        } else {
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
            if (lane == 0) evaluations += static_cast<unsigned long long>(a.k);
        }
        if (lane == 0) {
            const int label = best_c == INT_MAX ? 0 : best_c;
            if (a.labels[i] != label) {
                a.labels[i] = label;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    // Verified points cost 2 or k exact distances each, on top of the filter's n·k.
    block_count_add(evaluations, &a.counters->point_centroid_distances, uscratch);
}

// ‖c‖² per centroid (a warp per centroid, double, fixed butterfly), rounded to T,
// and their maximum in slot k (+∞ if any is not finite, NaN included: no point
// then certifies).
template <typename T>
__global__ void __launch_bounds__(1024) centroid_norms_kernel(const T* centroids, int k, int d, const T* shift,
                                                              T* norms) {
    __shared__ double warp_max[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    double largest = 0.0;
    for (int c = warp; c < k; c += warps) {
        double sum = 0.0;
        for (int j = lane; j < d; j += 32) {
            const double v = static_cast<double>(sub_rn(centroids[static_cast<long long>(c) * d + j], shift[j]));
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
__global__ void point_norms_kernel(const T* points, long long n, int d, const T* shift, T* norms) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        double sum = 0.0;
        for (int j = 0; j < d; ++j) {
            const double v = static_cast<double>(sub_rn(points[i * d + j], shift[j]));
            sum += v * v;
        }
        norms[i] = static_cast<T>(sum);
    }
}

}  // namespace

template <typename T>
void launch_point_norms(const T* points, long long n, int d, const T* shift, T* norms, cudaStream_t stream) {
    const long long blocks = std::min<long long>((n + 255) / 256, 65535);
    point_norms_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(points, n, d, shift, norms);
    KMS_CUDA_LAUNCH_CHECK("point norm kernel");
}

template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& g, cudaStream_t stream) {
    const LloydArgs<T>& a = g.lloyd;
    centroid_norms_kernel<T><<<1, 1024, 0, stream>>>(a.centroids, a.k, a.d, g.shift, g.centroid_norms);
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
    template void launch_point_norms<T>(const T*, long long, int, const T*, T*, cudaStream_t);   \
    template void launch_gemm_lloyd<T>(const GemmLloydArgs<T>&, cudaStream_t);
KMS_INSTANTIATE_GEMM(float)
KMS_INSTANTIATE_GEMM(double)

}  // namespace kms::cuda
