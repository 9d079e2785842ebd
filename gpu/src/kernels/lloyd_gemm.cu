// Lloyd assignment by filter (exact integer tensor-core arithmetic on quantised
// rows) and verify (exact form); see kernels/lloyd_gemm.hpp for the outline.
//
// Why a certified label is exact. x, c: T rows; m: the shift (T); s: the scale;
// q_x, q_c: int8 rows (any integers: only the honesty of δ matters); δ_x ≥
// ‖(x − m) − s·q_x‖, δ_c ≥ ‖(c − m) − s·q_c‖ in real arithmetic (computed with
// directed rounding, so they are upper bounds; a clamped centroid coordinate only
// makes δ_c larger). Then x − c = s·(q_x − q_c) + r with ‖r‖ ≤ δ_x + δ_c, and by
// the triangle inequality, for D = ‖x − c‖² and Q = ‖q_x − q_c‖²:
//     (s√Q − δ_x − δ_c)₊² ≤ D ≤ (s√Q + δ_x + δ_c)².
// Q is computed exactly: int8 products, s32 accumulation in the MMA (integer
// arithmetic, no rounding, |q_x·q_c| ≤ d·127² and Q ≤ d·254² < 2³¹ for d ≤ 33000),
// Q = ‖q_x‖² + ‖q_c‖² − 2·q_x·q_c in int32. So the bound does not depend on the
// accumulation order or on how the hardware rounds: there is nothing to round.
// R = kms::squared_distance(x, c) in T (sub, mul, add in order, no FMA) has
// |R − D| ≤ γ_{d+2}·D + η (γ_m = m·u/(1 − m·u) ≤ 2mu = g; η = 2(d + 2)·(T's
// smallest subnormal) covers underflow). Every test below is evaluated in double
// with directed rounding (upper bounds rounded up, lower bounds down), so the
// evaluation itself cannot certify wrongly.
// For the Q-sorted candidates b1, b2, b3 (Q1 ≤ Q2 ≤ Q3 ≤ every other Q) and Δ =
// δ_x + max_c δ_c: R_j ≥ (1 − g)·(s√Q2 − Δ)₊² − η = L2 for every j ≠ b1, ≥ L3 (same
// with Q3) for every j ∉ {b1, b2}, while R_b1 ≤ (1 + g)(s√Q1 + δ_x + δ_c,b1)² + η = U.
//  * U < L2 (and U < T's largest finite value, so R_b1 is finite): b1 is the strict
//    argmin of R: the label, whatever the tie rule.
//  * else U < L3: the argmin of R is b1 or b2 and every other centroid is strictly
//    farther: the exact R of the two, ties → lower index, gives the label.
//  * else: all k exact distances (the verification kernel), as the exact kernels do.
// A NaN or ∞ anywhere (data, centroids) makes δ NaN or ∞, and every test fails.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "cuda_device.hpp"
#include "kernels/cp_async.cuh"
#include "kernels/lloyd_gemm.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

// Filter tile: 128 points × 128 centroids per block of 8 warps, each warp 32 points
// × 64 centroids (2 × 8 MMAs of m16n8k32 per k-step); the int8 rows stream through
// a 3-stage cp.async pipeline, one k-step (32 bytes per row) per stage. Shared rows
// are 48 bytes apart: the fragment loads (row g, bytes 4t..4t+3) then hit 32
// different banks.
constexpr int kTilePoints = 128, kTileCentroids = 128, kFilterThreads = 256, kStages = 3, kRowBytes = 48;
static_assert(kQuantStep == 32, "one k-step of m16n8k32 per pipeline stage");

// D += A·B, A 16×32 (row), B 32×8 (col), int8 → int32 (exact).
__device__ __forceinline__ void mma_s8(int (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    (void)acc, (void)a, (void)b0, (void)b1;  // not launched below compute capability 8.0 (gemm_int8_supported)
#endif
}

// The three smallest Q seen, sorted, with the indices of the first two. Branch-free
// (min/max and selects). Ties may go either way between threads: a certified
// label is a strict minimum, two candidates are compared exactly, and a tie with
// the third fails the pair test, so the labels do not depend on it; the fixed merge
// order keeps the summary deterministic anyway.
struct Top3 {
    int q1, q2, q3;
    int c1, c2;
    __device__ __forceinline__ void clear() {
        q1 = q2 = q3 = INT_MAX;
        c1 = c2 = INT_MAX;
    }
    __device__ __forceinline__ void insert(int v, int c) {
        const bool below1 = v < q1, below2 = v < q2;
        q3 = min(q3, max(q2, v));
        c2 = below1 ? c1 : (below2 ? c : c2);
        q2 = min(q2, max(q1, v));
        c1 = below1 ? c : c1;
        q1 = min(q1, v);
    }
    // Union with another sorted summary: the i-th smallest of two sorted lists is
    // min over splits of max(a_p, b_{i−p}).
    __device__ __forceinline__ void merge(const Top3& o) {
        const bool mine_first = q1 <= o.q1;
        const int runner_up = mine_first ? q2 : o.q2, other_best = mine_first ? o.q1 : q1;
        const int runner_up_c = mine_first ? c2 : o.c2, other_best_c = mine_first ? o.c1 : c1;
        const int third = min(min(q3, o.q3), min(max(q1, o.q2), max(q2, o.q1)));
        c1 = mine_first ? c1 : o.c1;
        q1 = min(q1, o.q1);
        c2 = runner_up <= other_best ? runner_up_c : other_best_c;
        q2 = min(runner_up, other_best);
        q3 = third;
    }
    __device__ __forceinline__ Top3 shuffled(int offset) const {
        Top3 o;
        o.q1 = __shfl_xor_sync(0xffffffffu, q1, offset);
        o.q2 = __shfl_xor_sync(0xffffffffu, q2, offset);
        o.q3 = __shfl_xor_sync(0xffffffffu, q3, offset);
        o.c1 = __shfl_xor_sync(0xffffffffu, c1, offset);
        o.c2 = __shfl_xor_sync(0xffffffffu, c2, offset);
        return o;
    }
};

template <typename T>
constexpr double unit_roundoff() { return sizeof(T) == 4 ? 5.9604644775390625e-08 : 1.1102230246251565e-16; }
template <typename T>
constexpr double smallest_subnormal() { return sizeof(T) == 4 ? 1.401298464324817e-45 : 4.9406564584124654e-324; }

template <typename T>
__global__ void __launch_bounds__(kFilterThreads, 2) int8_filter_kernel(GemmLloydArgs<T> g) {
    __shared__ __align__(16) std::int8_t xs[kStages][kTilePoints * kRowBytes];
    __shared__ __align__(16) std::int8_t cs[kStages][kTileCentroids * kRowBytes];
    __shared__ Top3 exchange[kTilePoints];
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_row = (warp & 3) * 32, warp_col = (warp >> 2) * 64;  // this warp's points and centroids in the tile
    const int group = lane >> 2, quad = lane & 3;                      // the MMA fragments' groupID, threadID_in_group
    const long long point0 = static_cast<long long>(blockIdx.x) * kTilePoints;
    const int padded_d = g.points.padded_d, steps = padded_d / kQuantStep;
    // After the quad's butterfly every lane holds the summaries of its group's 4
    // rows; lane `quad` keeps row (quad >> 1)·16 + (quad & 1)·8 + group of the warp's 32.
    const int own_row = warp_row + (quad >> 1) * 16 + (quad & 1) * 8 + group;
    Top3 own;
    own.clear();

    // Loads: 128 rows × 32 bytes per operand and stage = 256 16-byte pieces, one per
    // thread. Rows past n or k re-read the last row (finite, ignored in the epilogue).
    const int load_row = tid >> 1, load_half = tid & 1;
    const std::int8_t* point_source =
        g.points.rows + min(point0 + load_row, a.n - 1) * padded_d + load_half * 16;

    for (int c0 = 0; c0 < a.k; c0 += kTileCentroids) {
        const std::int8_t* centroid_source =
            g.centroid_rows + static_cast<long long>(min(c0 + load_row, a.k - 1)) * padded_d + load_half * 16;
        auto issue = [&](int step) {
            const int stage = step % kStages;
            cp_async16(&xs[stage][load_row * kRowBytes + load_half * 16], point_source + step * kQuantStep);
            cp_async16(&cs[stage][load_row * kRowBytes + load_half * 16], centroid_source + step * kQuantStep);
        };
        int acc[2][8][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0;
#pragma unroll
        for (int s = 0; s < kStages - 1; ++s) {
            if (s < steps) issue(s);
            cp_async_commit();
        }
        for (int step = 0; step < steps; ++step) {
            cp_async_wait<kStages - 2>();  // this step's group has landed (for this thread) ...
            __syncthreads();               // ... for all, and the stage refilled next was consumed by all
            if (step + kStages - 1 < steps) issue(step + kStages - 1);
            cp_async_commit();
            const std::int8_t* x_stage = xs[step % kStages];
            const std::int8_t* c_stage = cs[step % kStages];
            unsigned frag_a[2][4];
#pragma unroll
            for (int mt = 0; mt < 2; ++mt) {
                const std::int8_t* row = x_stage + (warp_row + mt * 16 + group) * kRowBytes + quad * 4;
                frag_a[mt][0] = *reinterpret_cast<const unsigned*>(row);
                frag_a[mt][1] = *reinterpret_cast<const unsigned*>(row + 8 * kRowBytes);
                frag_a[mt][2] = *reinterpret_cast<const unsigned*>(row + 16);
                frag_a[mt][3] = *reinterpret_cast<const unsigned*>(row + 8 * kRowBytes + 16);
            }
#pragma unroll
            for (int nt = 0; nt < 8; ++nt) {
                const std::int8_t* col = c_stage + (warp_col + nt * 8 + group) * kRowBytes + quad * 4;
                const unsigned b0 = *reinterpret_cast<const unsigned*>(col);
                const unsigned b1 = *reinterpret_cast<const unsigned*>(col + 16);
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) mma_s8(acc[mt][nt], frag_a[mt], b0, b1);
            }
        }
        cp_async_wait<0>();
        __syncthreads();  // the next tile's prologue overwrites stages still being read
        // Epilogue: acc[mt][nt][half·2 + e] = q_x·q_c for row mt·16 + half·8 + group,
        // centroid nt·8 + quad·2 + e of the warp's. Each thread's 16 candidates per
        // row in increasing index, then the quad's 64, then the owner adds them to the
        // earlier tiles'.
        int centroid_norm[8][2];
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int c = c0 + warp_col + nt * 8 + quad * 2 + e;
                centroid_norm[nt][e] = c < a.k ? g.centroid_norms[c] : 0;
            }
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const long long i = point0 + warp_row + mt * 16 + half * 8 + group;
                const int point_norm = i < a.n ? g.points.norms[i] : 0;
                Top3 top;
                top.clear();
#pragma unroll
                for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int c = c0 + warp_col + nt * 8 + quad * 2 + e;
                        const int q = point_norm + centroid_norm[nt][e] - 2 * acc[mt][nt][half * 2 + e];
                        top.insert(c < a.k ? q : INT_MAX, c);
                    }
                top.merge(top.shuffled(1));
                top.merge(top.shuffled(2));
                if (quad == mt * 2 + half) own.merge(top);
            }
    }
    // The two warps sharing the rows (centroids 0-63 and 64-127 of each tile) combine.
    if (warp >= 4) exchange[own_row] = own;
    __syncthreads();
    unsigned long long changed = 0;
    const long long i = point0 + own_row;
    if (warp < 4 && i < a.n) {
        own.merge(exchange[own_row]);
        // Certification (the bound above), in double with directed rounding.
        const double s = g.points.scale;
        const double g_factor = 2.0 * (a.d + 2) * unit_roundoff<T>();
        const double grow = __dadd_ru(1.0, g_factor), shrink = __dsub_rd(1.0, g_factor);
        const double underflow = 2.0 * (a.d + 2) * smallest_subnormal<T>();
        const double slack_x = g.points.slack[i];
        const double slack_max = __uint_as_float(reinterpret_cast<const unsigned*>(g.centroid_slack)[a.k]);
        const double slack_c1 = own.c1 < a.k ? g.centroid_slack[own.c1] : infinity_of<double>();
        const double reach1 = __dadd_ru(__dmul_ru(s, __dsqrt_ru(static_cast<double>(own.q1))), __dadd_ru(slack_x, slack_c1));
        const double upper = __dadd_ru(__dmul_ru(__dmul_ru(reach1, reach1), grow), underflow);
        const double slack_any = __dadd_ru(slack_x, slack_max);
        auto lower = [&](int q) {
            double reach = __dsub_rd(__dmul_rd(s, __dsqrt_rd(static_cast<double>(q))), slack_any);
            reach = reach > 0.0 ? reach : 0.0;  // NaN → 0: certifies nothing
            return __dsub_rd(__dmul_rd(__dmul_rd(reach, reach), shrink), underflow);
        };
        const bool finite = upper < static_cast<double>(std::numeric_limits<T>::max());
        if (finite && upper < lower(own.q2)) {
            if (a.labels[i] != own.c1) {
                a.labels[i] = own.c1;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        } else {
            if (finite && upper < lower(own.q3)) {
                const unsigned long long slot = atomicAdd(&a.counters->gemm_pairs, 1ull);
                g.unsettled[slot] = static_cast<std::int32_t>(i);
                g.candidates[slot] = make_int2(own.c1, own.c2);
            } else {
                const unsigned long long slot = atomicAdd(&a.counters->gemm_full_searches, 1ull);
                g.unsettled[a.n - 1 - static_cast<long long>(slot)] = static_cast<std::int32_t>(i);
            }
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
}

// Exact labels of the points left with two candidates, one warp per point: the
// warp stages the three rows in shared memory (coalesced; rows up to kVerifyCols),
// then lanes 0 and 1 compute the two kms::squared_distance()s, the smaller wins
// (ties → lower index). The points that need all k go to the tiled search.
template <typename T>
constexpr int verify_cols() { return 1024 / sizeof(T); }  // 3 rows × 8 warps: 24 KB of shared memory

template <typename T>
__global__ void __launch_bounds__(256) gemm_verify_kernel(GemmLloydArgs<T> g) {
    constexpr int kVerifyCols = verify_cols<T>();
    __shared__ T rows[8][3][kVerifyCols];
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const unsigned long long count = a.counters->gemm_pairs;
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    unsigned long long changed = 0, evaluations = 0;
    for (long long w = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
         w < static_cast<long long>(count); w += warps) {
        const long long i = g.unsettled[w];
        const int2 candidates = g.candidates[w];
        const T* x = a.points + i * a.d;
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
            const int label = second_wins ? candidates.y : candidates.x;
            evaluations += 2;
            if (a.labels[i] != label) {
                a.labels[i] = label;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    // Verified points cost 2 exact distances each, on top of the filter's n·k.
    block_count_add(evaluations, &a.counters->point_centroid_distances, uscratch);
}

// The label of a point the filter left to a search over all k.
struct FullSearchFinish {
    static constexpr bool kRecordsDistances = false;
    std::int32_t* labels;
    std::uint8_t* status;
    template <typename T>
    __device__ __forceinline__ int operator()(long long i, const Nearest<T>& nearest) const {
        if (status) status[i] = 0;
        if (labels[i] == nearest.best_c) return 0;
        labels[i] = nearest.best_c;
        return 1;
    }
};

// q = round((v − m)/s) clamped to ±127 (zeros up to padded_d), ‖q‖² and δ ≥
// ‖(v − m) − s·q‖ for each of `count` rows, one warp per row. δ: each coordinate's
// residual is bounded through an interval for v − m (rounded down and up), s·q
// exact (s has at most 4 significant bits); squares and sums rounded up; the
// butterfly is fixed, so δ is deterministic. slack_max (optional): the largest δ
// as float bits (δ ≥ 0, so the bit order is the value order; NaN stored as ∞).
template <typename T>
__global__ void __launch_bounds__(256) quantise_rows_kernel(const T* rows, long long count, int d, int padded_d,
                                                            const T* shift, double scale, std::int8_t* out,
                                                            std::int32_t* norms, float* slack,
                                                            unsigned* slack_max) {
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    const double inverse = 1.0 / scale;
    for (long long r = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5); r < count;
         r += warps) {
        int norm = 0;
        double error = 0.0;
        for (int j = lane; j < padded_d; j += 32) {
            int q = 0;
            if (j < d) {
                const double x = static_cast<double>(rows[r * d + j]), m = static_cast<double>(shift[j]);
                // fmax/fmin drop a NaN: q = −127, and δ below is NaN.
                q = static_cast<int>(fmin(fmax(rint((x - m) * inverse), -127.0), 127.0));
                const double scaled = scale * q;
                const double low = __dsub_rd(__dsub_rd(x, m), scaled), high = __dsub_ru(__dsub_ru(x, m), scaled);
                const double e = fmax(fabs(low), fabs(high));
                error = __dadd_ru(error, __dmul_ru(e, e));
                norm += q * q;
            }
            out[r * padded_d + j] = static_cast<std::int8_t>(q);
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            norm += __shfl_xor_sync(0xffffffffu, norm, offset);
            error = __dadd_ru(error, __shfl_xor_sync(0xffffffffu, error, offset));
        }
        if (lane == 0) {
            const float bound = __double2float_ru(__dsqrt_ru(error));
            norms[r] = norm;
            slack[r] = bound;
            if (slack_max) atomicMax(slack_max, bound <= 3.402823466e38f ? __float_as_uint(bound) : 0x7f800000u);
        }
    }
}

unsigned quantise_blocks(long long rows, int sm_count) {
    return static_cast<unsigned>(std::max<long long>(1, std::min<long long>((rows + 7) / 8, 32LL * sm_count)));
}

}  // namespace

double quantisation_scale(double largest) {
    if (!(largest > 0.0) || !std::isfinite(largest)) return 1.0;
    int exponent = 0;
    const double mantissa = std::frexp(largest / 127.0, &exponent);  // in [0.5, 1)
    double scale = std::ldexp(std::ceil(mantissa * 16.0) / 16.0, exponent);  // rounded up to 4 bits
    return std::clamp(scale, std::ldexp(1.0, -100), std::ldexp(1.0, 100));
}

template <typename T>
void launch_quantise_points(const T* points, long long n, int d, const T* shift, double scale, std::int8_t* rows,
                            std::int32_t* norms, float* slack, cudaStream_t stream) {
    int device = 0, sm_count = 1;
    KMS_CUDA_CHECK(cudaGetDevice(&device));
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    quantise_rows_kernel<T><<<quantise_blocks(n, sm_count), 256, 0, stream>>>(
        points, n, d, quantised_width(d), shift, scale, rows, norms, slack, nullptr);
    KMS_CUDA_LAUNCH_CHECK("point quantisation kernel");
}

template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& g, cudaStream_t stream) {
    const LloydArgs<T>& a = g.lloyd;
    KMS_CUDA_CHECK(cudaMemsetAsync(g.centroid_slack + a.k, 0, sizeof(float), stream));
    quantise_rows_kernel<T><<<quantise_blocks(a.k, g.sm_count), 256, 0, stream>>>(
        a.centroids, a.k, a.d, g.points.padded_d, g.shift, g.points.scale, g.centroid_rows, g.centroid_norms,
        g.centroid_slack, reinterpret_cast<unsigned*>(g.centroid_slack + a.k));
    KMS_CUDA_LAUNCH_CHECK("centroid quantisation kernel");
    const unsigned blocks = static_cast<unsigned>((a.n + kTilePoints - 1) / kTilePoints);
    int8_filter_kernel<T><<<blocks, kFilterThreads, 0, stream>>>(g);
    KMS_CUDA_LAUNCH_CHECK("int8 filter kernel");
    // The unsettled count is known on the device only: a fixed grid of warps walks the list.
    const long long verify_blocks = std::max<long long>(1, std::min<long long>(static_cast<long long>(g.sm_count) * 8,
                                                                                (a.n + 7) / 8));
    gemm_verify_kernel<T><<<static_cast<unsigned>(verify_blocks), 256, 0, stream>>>(g);
    KMS_CUDA_LAUNCH_CHECK("GEMM verification kernel");
    // The searches over all k: a thread or warp per point walking every centroid row
    // took 200 ms of a first iteration at n = 10^6, d = 64, k = 1000 (H200).
    launch_tiled_search<T, false>(a.points, a.d, a.centroids, a.k,
                                  TiledRows{a.n, g.unsettled, &a.counters->gemm_full_searches, true}, true, g.sm_count,
                                  FullSearchFinish{a.labels, a.status}, &a.counters->labels_changed,
                                  &a.counters->point_centroid_distances, stream, "GEMM full search kernel");
}

#define KMS_INSTANTIATE_GEMM(T)                                                                              \
    template void launch_quantise_points<T>(const T*, long long, int, const T*, double, std::int8_t*,      \
                                            std::int32_t*, float*, cudaStream_t);                          \
    template void launch_gemm_lloyd<T>(const GemmLloydArgs<T>&, cudaStream_t);
KMS_INSTANTIATE_GEMM(float)
KMS_INSTANTIATE_GEMM(double)

}  // namespace kms::cuda
