// Lloyd assignment by filter (tensor-core arithmetic on rounded rows) and verify
// (exact form); see kernels/lloyd_gemm.hpp for the outline.
//
// Why a certified label is exact. x, c: T rows; m: the shift (T); x̃, c̃: the rows
// as the tensor cores read them (int8: s·q; tf32: x − m rounded to TF32); δ_x ≥
// ‖(x − m) − x̃‖, δ_c ≥ ‖(c − m) − c̃‖ in real arithmetic (computed with directed
// rounding, so they are upper bounds; a clamped int8 coordinate only makes δ larger).
// Then x − c = (x̃ − c̃) + r with ‖r‖ ≤ δ_x + δ_c, and by the triangle inequality,
// for D = ‖x − c‖² and Q̃ = ‖x̃ − c̃‖²:
//     (√Q̃ − δ_x − δ_c)₊² ≤ D ≤ (√Q̃ + δ_x + δ_c)².
// What the filter knows of Q̃:
//  * int8: Q̃ = s²·Q with Q = ‖q_x − q_c‖² computed exactly: int8 products, s32
//    accumulation in the MMA (|q_x·q_c| ≤ d·127², Q ≤ d·254² < 2³¹ for d ≤ 33000),
//    Q = ‖q_x‖² + ‖q_c‖² − 2·q_x·q_c in int32: nothing to round, whatever the order.
//  * tf32: Q̂ = fl(fl(p + c) − 2·a) (one FMA), p, c the float norms (rounded to
//    nearest from double: |p − P²| ≤ 2u·P², P = ‖x̃‖, C = ‖c̃‖, u = 2⁻²⁴) and a the MMA's
//    float dot product. TF32 × TF32 products are exact in float; the accumulation's
//    rounding (the hardware's order and rounding mode are not documented: it may
//    truncate) is bounded by γ·Σ|x̃_i·c̃_i| ≤ γ·P·C with γ = (padded d + 16)·2⁻²¹,
//    eight times the round-to-nearest bound, plus η = (padded d + 16)·2⁻¹²⁰ for
//    products flushed below float's normal range (x̃ itself holds no subnormals).
//    So |Q̂ − Q̃| ≤ E = 2γ·P·C_max + 8u·(P + C_max)² + η: Q̃ ∈ [(Q̂ − E)₊, Q̂ + E].
// R = kms::squared_distance(x, c) in T (sub, mul, add in order, no FMA) has
// |R − D| ≤ γ_{d+2}·D + η' (γ_m = m·u_T/(1 − m·u_T) ≤ 2m·u_T = g; η' = 2(d + 2)·(T's
// smallest subnormal) covers underflow). Every test below is evaluated in double
// with directed rounding (upper bounds rounded up, lower bounds down), so the
// evaluation itself cannot certify wrongly.
// For the point's best Q̂, Q1 (centroid b1), and Δ = δ_x + max_c δ_c: R_j ≥ (1 − g)·
// (√Q̃j,low − Δ)₊² − η' = L_j for every j, while R_b1 ≤ (1 + g)(√Q̃1,high + δ_x +
// δ_c,b1)² + η' = U (Q̃ low and high: the bounds above). Every j with L_j > U is
// strictly farther than b1, so the argmin of R (every tie of it included) is among
// {j : L_j ≤ U}, b1 too. L_j > U holds when √(Q̃_j,low) > ρ = Δ + √((U + η')/(1 − g)),
// i.e. (tf32) Q̂_j > ρ² + E, (int8) Q_j > (ρ/s)²: the point's limit, rounded up (int8:
// down to an integer, as Q is). The summary pass lists, tile by tile, every centroid
// under the limit of the point's best Q̂ so far (computed in float, rounded up, with
// δ_max for δ_c,b1: never below the final limit, which the best only lowers), then
// keeps those under the final limit:
//  * b1 alone (and U below T's largest finite value, so R_b1 is finite): b1 is the
//    strict argmin of R, the label whatever the tie rule (certified);
//  * up to kListCapacity: the exact R over the list, ties → lower index, gives the label;
//  * a list that overflowed: the list pass recomputes the point's Q̂ against all k (the
//    same tiles: the same bound) and lists every j under the final limit; over
//    kListCapacity again, or no finite limit: all k exact distances (the verification
//    kernel), as the exact kernels do.
// A NaN or ∞ anywhere (data, centroids) makes δ or E NaN or ∞, and every test fails
// (tf32: a row whose norm is above 2¹⁰⁰ too, so no Q̂ can overflow; NaN Q̂s need such
// rows and are dropped by the summary).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

#include <cooperative_groups.h>

#include "cuda_device.hpp"
#include "kernels/cp_async.cuh"
#include "kernels/lloyd_gemm.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

// Filter tile: 128 points × 128 centroids per block of 8 warps, each warp 32 points
// × 64 centroids (2 × 8 MMAs per k-step: m16n8k32 on int8, m16n8k8 on tf32); the
// rows stream through a 3-stage cp.async pipeline, kStepsPerStage k-steps (32 bytes
// of each row per k-step) a stage. Both MMAs read their A and B fragments as 32-bit
// words at the same byte offsets of a k-step (4t and 16 + 4t, t the lane's
// threadID_in_group), and write the same C layout, so the loads and the epilogue are
// shared (by ldmatrix: 6 instructions a warp and k-step for 16 MMAs, where 32-bit loads
// took 24). Shared rows are a stage's bytes + 16 apart (48 or 80), so the 8 rows of
// 16 bytes an ldmatrix phase reads hit 8 different 16-byte bank groups.
constexpr int kTilePoints = 128, kTileCentroids = 128, kFilterThreads = 256, kStages = 3;
// k ≤ kTileCentroids (one centroid tile): the summary pass may keep the whole tile
// resident in shared memory, loaded once a block, and walk point tiles with a pipeline of
// the points' rows only, kResidentMinStages to kResidentMaxStages deep (as many as fit),
// the next tile's first stages loading during a tile's epilogue. A block per tile reloaded
// the centroids from L2 for each 128 points (as many bytes as the points) and waited
// out its pipeline's fill and drain every tile.
constexpr int kResidentMinStages = 4, kResidentMaxStages = 8;

// Waits until at most `pending` (0 to kResidentMaxStages − 2) of this thread's groups are in flight.
__device__ __forceinline__ void cp_async_wait_upto(int pending) {
    switch (pending) {
        case 0: cp_async_wait<0>(); break;
        case 1: cp_async_wait<1>(); break;
        case 2: cp_async_wait<2>(); break;
        case 3: cp_async_wait<3>(); break;
        case 4: cp_async_wait<4>(); break;
        case 5: cp_async_wait<5>(); break;
        default: cp_async_wait<6>(); break;
    }
}
static_assert(kResidentMaxStages - 2 <= 6, "cp_async_wait_upto covers up to 6 groups in flight");

// D += A·B, A 16×32 (row), B 32×8 (col), int8 → int32 (exact).
__device__ __forceinline__ void mma_s8(int (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    (void)acc, (void)a, (void)b0, (void)b1;  // not launched below compute capability 8.0 (int8_filter_possible)
#endif
}

// D += A·B, A 16×8 (row), B 8×8 (col), tf32 → float.
__device__ __forceinline__ void mma_tf32(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    (void)acc, (void)a, (void)b0, (void)b1;
#endif
}

// Four 8×8 matrices of 16-bit elements from shared memory, lane l giving the address of
// row l % 8 of matrix l / 8 (16 bytes each); register j receives, in lane l, the 32-bit
// word l % 4 of row l / 4 of matrix j: an MMA fragment's register for tf32 and int8
// alike. One instruction for what took four 32-bit loads.
__device__ __forceinline__ void load_matrices(unsigned (&r)[4], const std::uint8_t* shared) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
#else
    (void)r, (void)shared;
#endif
}

// What differs between the formats: the MMA, the accumulator, the distance from it.
template <FilterFormat F>
struct Format;
template <>
struct Format<FilterFormat::int8> {
    using Value = int;
    static constexpr int kDimsPerStep = kStepBytes, kStepsPerStage = 1;
    // A centroid past k (its tile re-reads row k − 1) is masked pair by pair: no norm
    // could stand for "far" without overflowing int32.
    static constexpr bool kMaskPerPair = true;
    static __device__ __forceinline__ Value far() { return INT_MAX; }
    static __device__ __forceinline__ Value never() { return INT_MIN; }  // below every Q (≥ 0)
    static __device__ __forceinline__ void mma(Value (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
        mma_s8(acc, a, b0, b1);
    }
    static __device__ __forceinline__ Value distance(Value point_norm, Value centroid_norm, Value dot) {
        return point_norm + centroid_norm - 2 * dot;
    }
};
template <>
struct Format<FilterFormat::tf32> {
    using Value = float;
    static constexpr int kDimsPerStep = kStepBytes / 4, kStepsPerStage = 2;
    // A centroid past k gets the norm +∞: every distance to it is +∞ (the dot
    // products are finite: see `distance`), with no per-pair select.
    static constexpr bool kMaskPerPair = false;
    static __device__ __forceinline__ Value far() { return __int_as_float(0x7f800000); }
    static __device__ __forceinline__ Value never() { return __int_as_float(0xff800000); }  // −∞: below every Q̂
    static __device__ __forceinline__ void mma(Value (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
        mma_tf32(acc, a, b0, b1);
    }
    // One FMA (the bound counts one rounding). A NaN needs a row whose norm is not
    // finite or above 2¹⁰⁰ (below it |x̃·c̃| ≤ 2¹⁰⁰ cannot overflow), and such a row has
    // δ = ∞ (a point: never certified; a centroid: δ_max = ∞, no point certified), so
    // the epilogue may drop NaNs as min does.
    static __device__ __forceinline__ Value distance(Value point_norm, Value centroid_norm, Value dot) {
        return __fmaf_rn(-2.0f, dot, __fadd_rn(point_norm, centroid_norm));
    }
};

template <typename T>
constexpr double unit_roundoff() { return sizeof(T) == 4 ? 5.9604644775390625e-08 : 1.1102230246251565e-16; }
template <typename T>
constexpr double smallest_subnormal() { return sizeof(T) == 4 ? 1.401298464324817e-45 : 4.9406564584124654e-324; }

template <FilterFormat F>
constexpr int stage_bytes() { return kStepBytes * Format<F>::kStepsPerStage; }
template <FilterFormat F>
constexpr int row_stride() { return stage_bytes<F>() + 16; }
// The pipeline's dynamic shared memory: kStages × (points' and centroids' rows).
template <FilterFormat F>
constexpr int filter_shared_bytes() { return kStages * (kTilePoints + kTileCentroids) * row_stride<F>(); }
// Resident centroids: whole rows 16 bytes apart beyond their padded_d (a multiple of a
// stage: an odd number of 16-byte groups apart, so ldmatrix meets no bank conflict).
template <FilterFormat F>
long long resident_row_stride(int padded_d) {
    return static_cast<long long>(padded_d) * filter_element_bytes(F) + 16;
}
// ... and `stages` stages of the points' rows.
template <FilterFormat F>
long long resident_shared_bytes(int padded_d, int stages) {
    return static_cast<long long>(stages) * kTilePoints * row_stride<F>() + kTileCentroids * resident_row_stride<F>(padded_d);
}

// The certification's constants (the derivation above), shared by the filter's epilogue
// and its per-point decisions so that both evaluate the same bits.
template <typename T, FilterFormat F>
struct Certifier {
    using V = typename Format<F>::Value;
    double grow, shrink, underflow, slack_max, norm_max, scale;
    int padded_d;
    __device__ explicit Certifier(const GemmLloydArgs<T>& g) {
        const double g_factor = 2.0 * (g.lloyd.d + 2) * unit_roundoff<T>();
        grow = __dadd_ru(1.0, g_factor);
        shrink = __dsub_rd(1.0, g_factor);
        underflow = 2.0 * (g.lloyd.d + 2) * smallest_subnormal<T>();
        slack_max = __uint_as_float(reinterpret_cast<const unsigned*>(g.centroid_slack)[g.lloyd.k]);
        norm_max = __uint_as_float(reinterpret_cast<const unsigned*>(g.centroid_slack)[g.lloyd.k + 1]);
        scale = g.points.scale;
        padded_d = g.points.padded_d;
    }
    // E for a point of norm ‖x̃‖² = point_norm (tf32; int8: 0, its Q is exact).
    __device__ double root_error(V point_norm) const {
        if constexpr (F == FilterFormat::tf32) {
            const double u = 5.9604644775390625e-08, widen = 1.0 + 0x1p-22;
            const double gamma = (padded_d + 16) * 0x1p-21, eta = (padded_d + 16) * 0x1p-120;
            const double p = __dsqrt_ru(__dmul_ru(static_cast<double>(point_norm), widen));
            const double c = __dsqrt_ru(__dmul_ru(norm_max, widen));
            const double sum = __dadd_ru(p, c);
            return __dadd_ru(__dadd_ru(__dmul_ru(2.0 * gamma, __dmul_ru(p, c)), __dmul_ru(8.0 * u, __dmul_ru(sum, sum))),
                             eta);
        } else {
            (void)point_norm;
            return 0.0;
        }
    }
    // ≥ √Q̃ for an approximate distance q.
    __device__ double root_high(V q, double error) const {
        if constexpr (F == FilterFormat::tf32) return __dsqrt_ru(__dadd_ru(static_cast<double>(q), error));
        else return __dmul_ru(scale, __dsqrt_ru(static_cast<double>(q)));
    }
};

// The running list limit (the summary pass): an upper bound of the limit computed below
// from a best Q̂ of q, with δ_c1 replaced by δ_max (≥ it), √((r²·(1 + g) + 2η')/(1 − g))
// by r·√((1 + g)/(1 − g)) + √(2η'/(1 − g)) (√(a + b) ≤ √a + √b: one square root, no
// division), in float with every step rounded up: at least the limit of the point's
// final best Q̂ whatever its δ_c1, and monotone in q (every rounded-up step is), so a
// limit from a best so far is never below the final best's.
struct RunningLimit {
    float grow_root, underflow_root, scale, inverse_scale;  // rounded up (the first ∞ if 1 − g ≤ 0)
};
template <FilterFormat F>
__device__ __forceinline__ float running_limit(typename Format<F>::Value q, float root_error, float slack_any,
                                               const RunningLimit& k) {
    float root;
    if constexpr (F == FilterFormat::tf32) root = __fsqrt_ru(__fadd_ru(fmaxf(q, 0.0f), root_error));
    else root = __fmul_ru(k.scale, __fsqrt_ru(__int2float_ru(q)));
    const float reach = __fadd_ru(root, slack_any);
    const float rho = __fadd_ru(slack_any, __fadd_ru(__fmul_ru(reach, k.grow_root), k.underflow_root));
    if constexpr (F == FilterFormat::tf32) {
        return __fadd_ru(__fmul_ru(rho, rho), root_error);
    } else {
        const float scaled = __fmul_ru(rho, k.inverse_scale);
        return __fmul_ru(scaled, scaled);
    }
}
// A float not above q (compared with a float limit: a superset of q ≤ limit).
__device__ __forceinline__ float float_below(float q) { return q; }
__device__ __forceinline__ float float_below(int q) { return __int2float_rd(q); }

// A slot in a list shared by the whole grid: one atomic per group of converged lanes.
__device__ __forceinline__ unsigned long long take_slot(unsigned long long* count) {
    const auto lanes = cooperative_groups::coalesced_threads();
    unsigned long long base = 0;
    if (lanes.thread_rank() == 0) base = atomicAdd(count, static_cast<unsigned long long>(lanes.size()));
    return lanes.shfl(base, 0) + lanes.thread_rank();
}

// The filter's two passes over the same MMA tiles. `summary` over every point: after
// each centroid tile the rows' best Q̂ so far and their running limits, and every
// centroid under its row's running limit in the row's list (with its Q̂); after the last
// tile each point's final limit keeps of its list those under it: one (certified), more
// (verified over the list), or, where the list overflowed, the point awaits the `lists`
// pass, over the points in `pending` (a grid walking their tiles, as their count is
// known on the device only), which lists every centroid under the final limit.
enum class Pass { summary, lists };

// R (summary pass, k ≤ kTileCentroids): the centroid tile resident, `resident_stages`
// stages of points in flight, a grid of fewer blocks than tiles (see kResidentMinStages).
// Either way every Q̂ is the same MMAs' in the same order: the same bits.
template <typename T, FilterFormat F, Pass P, bool R = false>
__global__ void __launch_bounds__(kFilterThreads, 2) filter_kernel(GemmLloydArgs<T> g, int resident_stages) {
    static_assert(!R || P == Pass::summary, "resident centroids: the summary pass only");
    using Fmt = Format<F>;
    using V = typename Fmt::Value;
    constexpr bool kLists = P == Pass::lists;
    constexpr int kStageBytes = stage_bytes<F>(), kRowBytes = row_stride<F>();
    constexpr int kPiecesPerRow = kStageBytes / 16;  // 16-byte cp.async pieces
    const int pipeline_stages = R ? resident_stages : kStages;
    extern __shared__ __align__(16) std::uint8_t pipeline[];
    std::uint8_t* const xs = pipeline;                                            // [stages][kTilePoints × kRowBytes]
    std::uint8_t* const cs = pipeline + pipeline_stages * kTilePoints * kRowBytes;  // [kStages][kTileCentroids × kRowBytes]
    // (R: [kTileCentroids × centroid_stride], every row whole)
    // Each row's candidates so far (a length over kListCapacity: overflow; one word of
    // padding a row: a thread a row reads them without bank conflicts), and (summary)
    // their Q̂, the rows' smallest Q̂ of a centroid tile by each half of the warps, and
    // their best over all tiles.
    __shared__ std::int32_t lists[kTilePoints][kListCapacity + 1];
    __shared__ V list_q[kLists ? 1 : kTilePoints][kListCapacity + 1];
    __shared__ int list_length[kTilePoints];
    __shared__ V tile_best[kLists ? 1 : 2][kTilePoints];
    __shared__ V row_best[kLists ? 1 : kTilePoints];
    __shared__ float row_limit[kLists ? 1 : kTilePoints];  // the running limit of row_best
    // (summary) the rows' δ_x + δ_max and E as the running limit uses them (rounded up),
    // and its other constants (in shared memory: registers are the MMA tiles').
    __shared__ float row_slack_any[kLists ? 1 : kTilePoints], row_root_error[kLists ? 1 : kTilePoints];
    __shared__ double row_error[kLists ? 1 : kTilePoints];  // E of the row, as the final decision uses it
    __shared__ RunningLimit running_constants;
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_row = (warp & 3) * 32, warp_col = (warp >> 2) * 64;  // this warp's points and centroids in the tile
    const int group = lane >> 2, quad = lane & 3;                      // the MMA fragments' groupID, threadID_in_group
    // The fragments' matrices (load_matrices): A of row tile mt: rows mt·16 + 0-7 and 8-15,
    // bytes 0-15 and 16-31 of a k-step (a0-a3); B of centroid tiles 2p, 2p + 1: bytes 0-15
    // and 16-31 of each (b0, b1). The lane's row and byte in them:
    const int padded_d = g.points.padded_d, stages = padded_d / (Fmt::kDimsPerStep * Fmt::kStepsPerStage);
    const long long row_bytes = static_cast<long long>(padded_d) * (kStepBytes / Fmt::kDimsPerStep);
    const int centroid_stride = R ? static_cast<int>(row_bytes) + 16 : kRowBytes;  // between shared centroid rows
    const int a_offset = (warp_row + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowBytes + (lane >> 4) * 16;
    const int b_offset = (warp_col + (lane >> 4) * 8 + (lane & 7)) * centroid_stride + ((lane >> 3) & 1) * 16;
    const V* point_norms = static_cast<const V*>(g.points.norms);
    const V* centroid_norms = static_cast<const V*>(g.centroid_norms);
    const auto* point_bytes = static_cast<const std::uint8_t*>(g.points.rows);
    const auto* centroid_bytes = static_cast<const std::uint8_t*>(g.centroid_rows);
    // The tile's rows: points point0 + r, or (lists) the pending list's entries point0 + r.
    const long long rows = kLists ? static_cast<long long>(a.counters->gemm_pending) : a.n;
    auto point_of = [&](long long r) -> long long { return kLists ? g.pending[r] : r; };
    unsigned long long changed = 0, certified = 0;
    // The list pass's approximate distances: k per pending point.
    if (kLists && blockIdx.x == 0 && tid == 0 && rows > 0)
        atomicAdd(&a.counters->point_centroid_distances, static_cast<unsigned long long>(rows) * a.k);
    if (!kLists && tid == 0) {  // read after the first stage's barrier
        const Certifier<T, F> cert(g);
        const bool shrinks = cert.shrink > 0.0;
        running_constants.grow_root =
            shrinks ? __double2float_ru(__dsqrt_ru(__ddiv_ru(cert.grow, cert.shrink))) : __int_as_float(0x7f800000);
        running_constants.underflow_root = fmaxf(
            shrinks ? __double2float_ru(__dsqrt_ru(__ddiv_ru(2.0 * cert.underflow, cert.shrink))) : 0.0f,
            1.17549435e-38f);
        running_constants.scale = static_cast<float>(cert.scale);  // int8: 4 significant bits, exact
        running_constants.inverse_scale = __double2float_ru(__ddiv_ru(1.0, cert.scale));
    }
    if constexpr (R) {  // the centroid tile, once (its group completes before the first stage's)
        const int pieces = static_cast<int>(row_bytes / 16);
        for (int piece = tid; piece < kTileCentroids * pieces; piece += kFilterThreads) {
            const int row = piece / pieces, part = piece % pieces;
            cp_async16(cs + row * centroid_stride + part * 16,
                       centroid_bytes + static_cast<long long>(min(row, a.k - 1)) * row_bytes + part * 16);
        }
        cp_async_commit();
    }

    // One point tile a block (R: several, the resident centroids and the pipeline's next
    // stages living across them; the rows' state is reset at each tile's start).
    for (int tile = blockIdx.x; static_cast<long long>(tile) * kTilePoints < rows; tile += gridDim.x) {
        const long long point0 = static_cast<long long>(tile) * kTilePoints;
        // The thread's 4 rows (2 MMA row tiles × 2 halves): their norms and (the list
        // pass) limits (never: a row past the last).
        V point_norm[2][2], limit[2][2];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const long long r = point0 + warp_row + mt * 16 + half * 8 + group;
                point_norm[mt][half] = r < rows ? point_norms[point_of(r)] : V(0);
                limit[mt][half] = kLists && r < rows ? static_cast<const V*>(g.limits)[r] : Fmt::never();
            }
        if (tid < kTilePoints) {  // read after the first stage's barrier
            list_length[tid] = 0;
            if constexpr (!kLists) {
                const Certifier<T, F> cert(g);
                const long long r = point0 + tid;
                row_slack_any[tid] = r < rows ? __double2float_ru(__dadd_ru(g.points.slack[r], cert.slack_max)) : 0.0f;
                const double error = r < rows ? cert.root_error(point_norms[r]) : 0.0;
                row_error[tid] = error;
                row_root_error[tid] = __double2float_ru(error);
                row_best[tid] = r < rows ? Fmt::far() : Fmt::never();  // never: no tile improves on it
                row_limit[tid] = r < rows ? __int_as_float(0x7f800000) : __int_as_float(0xff800000);
            }
        }

        // Loads: 128 rows × kStageBytes per operand and stage, in 16-byte pieces:
        // kPiecesPerRow / 2 per thread and operand. Rows past the last or k re-read the
        // last (finite, ignored in the epilogue).
        constexpr int kLoads = kTilePoints * kPiecesPerRow / kFilterThreads;
        int load_offset[kLoads];  // in a stage's shared rows
        long long point_source[kLoads], centroid_row[kLoads];
#pragma unroll
        for (int l = 0; l < kLoads; ++l) {
            const int piece = tid + l * kFilterThreads, row = piece / kPiecesPerRow, part = piece % kPiecesPerRow;
            load_offset[l] = row * kRowBytes + part * 16;
            point_source[l] = point_of(min(point0 + row, rows - 1)) * row_bytes + part * 16;
            centroid_row[l] = row * row_bytes + part * 16;  // + the tile's first row below
        }

        for (int c0 = 0; c0 < a.k; c0 += kTileCentroids) {  // R: once (k ≤ kTileCentroids)
            auto issue = [&](int stage) {
                const int slot = stage % pipeline_stages;
#pragma unroll
                for (int l = 0; l < kLoads; ++l) {
                    cp_async16(xs + slot * kTilePoints * kRowBytes + load_offset[l],
                               point_bytes + point_source[l] + static_cast<long long>(stage) * kStageBytes);
                    if constexpr (!R) {
                        const int row = (tid + l * kFilterThreads) / kPiecesPerRow;
                        const long long centroid_source =
                            centroid_row[l] + static_cast<long long>(min(c0 + row, a.k - 1) - row) * row_bytes;
                        cp_async16(cs + slot * kTileCentroids * kRowBytes + load_offset[l],
                                   centroid_bytes + centroid_source + static_cast<long long>(stage) * kStageBytes);
                    }
                }
            };
            V acc[2][8][4];
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) acc[mt][nt][e] = V(0);
            // The first stages (R: of the block's first tile; later tiles' were issued
            // during the previous tile's epilogue).
            if (!R || tile == static_cast<int>(blockIdx.x)) {
                for (int s = 0; s < pipeline_stages - 1; ++s) {
                    if (s < stages) issue(s);
                    cp_async_commit();
                }
            }
            for (int stage = 0; stage < stages; ++stage) {
                // This stage's group has landed (for this thread) ...
                if constexpr (R) cp_async_wait_upto(pipeline_stages - 2);
                else cp_async_wait<kStages - 2>();
                __syncthreads();  // ... for all, and the slot refilled next was consumed by all
                if (stage + pipeline_stages - 1 < stages) issue(stage + pipeline_stages - 1);
                cp_async_commit();
                const std::uint8_t* x_stage = xs + (stage % pipeline_stages) * kTilePoints * kRowBytes;
                const std::uint8_t* c_stage =
                    R ? cs + stage * kStageBytes : cs + (stage % kStages) * kTileCentroids * kRowBytes;
#pragma unroll
                for (int step = 0; step < Fmt::kStepsPerStage; ++step) {
                    unsigned frag_a[2][4];
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt)
                        load_matrices(frag_a[mt], x_stage + a_offset + mt * 16 * kRowBytes + step * kStepBytes);
#pragma unroll
                    for (int pair = 0; pair < 4; ++pair) {
                        // Centroids past k only (their Q̂ is far whatever the product): no MMA.
                        if (c0 + warp_col + pair * 16 >= a.k) continue;
                        unsigned frag_b[4];  // b0, b1 of centroid tiles 2·pair and 2·pair + 1
                        load_matrices(frag_b, c_stage + b_offset + pair * 16 * centroid_stride + step * kStepBytes);
#pragma unroll
                        for (int mt = 0; mt < 2; ++mt) {
                            Fmt::mma(acc[mt][2 * pair], frag_a[mt], frag_b[0], frag_b[1]);
                            Fmt::mma(acc[mt][2 * pair + 1], frag_a[mt], frag_b[2], frag_b[3]);
                        }
                    }
                }
            }
            cp_async_wait<0>();
            __syncthreads();  // the next tile's prologue overwrites stages still being read
            if constexpr (R) {  // the block's next tile's first stages, landing during this epilogue
                const long long next0 = point0 + static_cast<long long>(gridDim.x) * kTilePoints;
                if (next0 < rows) {
#pragma unroll
                    for (int l = 0; l < kLoads; ++l) {
                        const int piece = tid + l * kFilterThreads, row = piece / kPiecesPerRow;
                        point_source[l] = point_of(min(next0 + row, rows - 1)) * row_bytes + piece % kPiecesPerRow * 16;
                    }
                    for (int s = 0; s < pipeline_stages - 1; ++s) {
                        if (s < stages) issue(s);
                        cp_async_commit();
                    }
                }
            }
            // Epilogue: acc[mt][nt][half·2 + e] = x̃·c̃ for row mt·16 + half·8 + group,
            // centroid nt·8 + quad·2 + e of the warp's; turned into Q̂ (far: a centroid
            // past k; a NaN is dropped by min and never under a limit, as `distance` allows).
            V centroid_norm[8][2];
#pragma unroll
            for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int c = c0 + warp_col + nt * 8 + quad * 2 + e;
                    centroid_norm[nt][e] = c < a.k ? centroid_norms[c] : (Fmt::kMaskPerPair ? V(0) : Fmt::far());
                }
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int half = 0; half < 2; ++half)
#pragma unroll
                    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const int c = c0 + warp_col + nt * 8 + quad * 2 + e;
                            V& q = acc[mt][nt][half * 2 + e];
                            q = Fmt::distance(point_norm[mt][half], centroid_norm[nt][e], q);
                            if (Fmt::kMaskPerPair && c >= a.k) q = Fmt::far();
                        }
            if constexpr (!kLists) {
                // The rows' best Q̂ of this tile: the quad's, then the two warps sharing
                // the rows (centroids 0-63 and 64-127 of the tile) through shared memory;
                // a better best lowers the row's running limit (computed where it changes).
#pragma unroll
                for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                    for (int half = 0; half < 2; ++half) {
                        V smallest = Fmt::far();
#pragma unroll
                        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                            for (int e = 0; e < 2; ++e) smallest = min(smallest, acc[mt][nt][half * 2 + e]);
                        smallest = min(smallest, __shfl_xor_sync(0xffffffffu, smallest, 1));
                        smallest = min(smallest, __shfl_xor_sync(0xffffffffu, smallest, 2));
                        if (quad == 0) tile_best[warp >> 2][warp_row + mt * 16 + half * 8 + group] = smallest;
                    }
                __syncthreads();  // read before the next tile's first barrier, written after it
                if (tid < kTilePoints) {  // a thread a row
                    const V smallest = min(tile_best[0][tid], tile_best[1][tid]);
                    if (smallest < row_best[tid]) {
                        row_best[tid] = smallest;
                        row_limit[tid] =
                            running_limit<F>(smallest, row_root_error[tid], row_slack_any[tid], running_constants);
                    }
                }
                __syncthreads();  // the limits, read below and written again after the next tile's barriers
            }
            float running[2][2];  // summary: the rows' running limits
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int half = 0; half < 2; ++half)
                    running[mt][half] = kLists ? 0.0f : row_limit[kLists ? 0 : warp_row + mt * 16 + half * 8 + group];
            // Into the row's list where not above its limit (few; a centroid past k has
            // Q̂ = far, which an infinite running limit would let through: not listed).
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int half = 0; half < 2; ++half)
#pragma unroll
                    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const int c = c0 + warp_col + nt * 8 + quad * 2 + e;
                            const V q = acc[mt][nt][half * 2 + e];
                            const bool under = kLists ? q <= limit[mt][half] : float_below(q) <= running[mt][half];
                            if (under && c < a.k) {
                                const int row = warp_row + mt * 16 + half * 8 + group;
                                const int at = atomicAdd(&list_length[row], 1);
                                if (at < kListCapacity) {
                                    lists[row][at] = c;
                                    if constexpr (!kLists) list_q[row][at] = q;
                                }
                            }
                        }
        }

        if constexpr (kLists) {
            __syncthreads();  // every row's list is complete
            const long long r = point0 + tid;
            if (tid < kTilePoints && r < rows) {
                const long long i = point_of(r);
                const int length = list_length[tid];
                if (length <= kListCapacity) {
                    const unsigned long long slot = take_slot(&a.counters->gemm_listed);
                    g.listed[slot] = static_cast<std::int32_t>(i);
                    g.list_lengths[slot] = static_cast<std::uint8_t>(length);
                    for (int m = 0; m < length; ++m) g.candidates[slot * kListCapacity + m] = lists[tid][m];
                } else {
                    g.full[take_slot(&a.counters->gemm_full_searches)] = static_cast<std::int32_t>(i);
                }
            }
            __syncthreads();  // the lists are read before the next tile clears them
        } else {
            __syncthreads();  // every row's list is complete
            const long long i = point0 + tid;
            if (tid < kTilePoints && i < a.n) {
                const Certifier<T, F> cert(g);
                // The best Q̂ (Q1) and, where the list holds it, its centroid b1 (the lowest
                // index of equal Q̂: deterministic); an overflowed list: δ_max for δ_c1.
                const int length = list_length[tid];
                const V q1 = row_best[tid];
                int c1 = INT_MAX;
                if (length <= kListCapacity) {
                    for (int m = 0; m < length; ++m) {
                        const int c = lists[tid][m];
                        if (list_q[tid][m] == q1 && c < c1) c1 = c;
                    }
                }
                // Certification (the bound above), in double with directed rounding.
                const double slack_x = g.points.slack[i];
                const double slack_c1 = c1 < a.k ? g.centroid_slack[c1]
                                                 : (length > kListCapacity ? cert.slack_max : infinity_of<double>());
                const double root_error_i = row_error[tid];
                const double reach1 = __dadd_ru(cert.root_high(q1, root_error_i), __dadd_ru(slack_x, slack_c1));
                const double upper = __dadd_ru(__dmul_ru(__dmul_ru(reach1, reach1), cert.grow), cert.underflow);
                const double slack_any_i = __dadd_ru(slack_x, cert.slack_max);
                const bool finite = upper < static_cast<double>(std::numeric_limits<T>::max());
                // The limit: Q̂_j above ρ² + E (tf32) or Q_j above (ρ/s)² (int8) means L_j > U,
                // so j is strictly farther than b1. Not finite (or no proof of R_b1's
                // finiteness): all k.
                const double rho = __dadd_ru(
                    slack_any_i, __dsqrt_ru(__ddiv_ru(__dadd_ru(upper, cert.underflow), cert.shrink)));
                double bound;
                if constexpr (F == FilterFormat::tf32) {
                    bound = __dadd_ru(__dmul_ru(rho, rho), root_error_i);
                } else {
                    const double scaled = __ddiv_ru(rho, cert.scale);
                    bound = floor(__dmul_ru(scaled, scaled));
                }
                const double largest = F == FilterFormat::tf32 ? 3.402823466e38 : static_cast<double>(INT_MAX - 1);
                if (finite && cert.shrink > 0.0 && bound <= largest) {  // NaN fails too
                    V stored;
                    if constexpr (F == FilterFormat::tf32) stored = __double2float_ru(bound);
                    else stored = static_cast<int>(bound);
                    if (length > kListCapacity) {
                        const unsigned long long slot = take_slot(&a.counters->gemm_pending);
                        g.pending[slot] = static_cast<std::int32_t>(i);
                        static_cast<V*>(g.limits)[slot] = stored;
                    } else {
                        // The list holds every centroid under the final running limit (every
                        // running limit was at least it): those under both limits may hold
                        // the argmin, b1 among them; b1 alone is the strict argmin.
                        const float final_running =
                            running_limit<F>(q1, row_root_error[tid], row_slack_any[tid], running_constants);
                        int kept = 0;
                        for (int m = 0; m < length; ++m) {
                            const V q = list_q[tid][m];
                            if (q <= stored && float_below(q) <= final_running) lists[tid][kept++] = lists[tid][m];
                        }
                        if (kept == 1 && c1 < a.k) {
                            ++certified;
                            if (a.labels[i] != c1) {
                                a.labels[i] = c1;
                                ++changed;
                            }
                            if (a.status) a.status[i] = 0;
                        } else if (kept >= 2) {
                            const unsigned long long slot = take_slot(&a.counters->gemm_listed);
                            g.listed[slot] = static_cast<std::int32_t>(i);
                            g.list_lengths[slot] = static_cast<std::uint8_t>(kept);
                            for (int m = 0; m < kept; ++m) g.candidates[slot * kListCapacity + m] = lists[tid][m];
                        } else {
                            g.full[take_slot(&a.counters->gemm_full_searches)] = static_cast<std::int32_t>(i);
                        }
                    }
                } else {
                    g.full[take_slot(&a.counters->gemm_full_searches)] = static_cast<std::int32_t>(i);
                }
            }
            __syncthreads();  // the lists are read before the next tile clears them
        }
    }
    if constexpr (!kLists) {
        block_count_add(changed, &a.counters->labels_changed, uscratch);
        block_count_add(certified, &a.counters->gemm_certified, uscratch);
    }
}

// kms::squared_distance() of two rows, read 16 bytes at a time where both allow it
// (the same steps in the same order: the same bits).
template <typename T>
__device__ __forceinline__ T list_distance(const T* x, const T* c, int d) {
    if (d % 4 != 0 || (reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(c)) % (4 * sizeof(T)) != 0)
        return exact_squared_distance(x, c, d);
    T sum = T(0);
    for (int j = 0; j < d; j += 4) {
        T xv[4], cv[4];
        load4(x + j, xv);
        load4(c + j, cv);
#pragma unroll
        for (int e = 0; e < 4; ++e) sum = sq_step(sum, xv[e], cv[e]);
    }
    return sum;
}

// Exact labels of the points with a candidate list, eight lanes a point (lists are
// mostly 2-8 long): each lane computes kms::squared_distance() to every eighth
// candidate, the group's smallest wins (ties → lower index). The points that need all
// k go to the tiled search.
constexpr int kVerifyLanes = 8;

template <typename T>
__global__ void __launch_bounds__(256) gemm_verify_kernel(GemmLloydArgs<T> g) {
    __shared__ unsigned long long uscratch[32];
    const LloydArgs<T>& a = g.lloyd;
    const unsigned long long count = a.counters->gemm_listed;
    const int lane = threadIdx.x & 31, sub = lane % kVerifyLanes;
    const unsigned group_mask = ((1u << kVerifyLanes) - 1) << (lane - sub);
    const long long groups = static_cast<long long>(gridDim.x) * (blockDim.x / kVerifyLanes);
    unsigned long long changed = 0, evaluations = 0;
    for (long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kVerifyLanes;
         w < static_cast<long long>(count); w += groups) {
        const long long i = g.listed[w];
        const int length = g.list_lengths[w];
        const T* x = a.points + i * a.d;
        int best = INT_MAX;
        T smallest = infinity_of<T>();
        for (int m = sub; m < length; m += kVerifyLanes) {
            const int c = g.candidates[w * kListCapacity + m];
            const T s = list_distance(x, a.centroids + static_cast<long long>(c) * a.d, a.d);
            if (s < smallest || (s == smallest && c < best)) {
                smallest = s;
                best = c;
            }
        }
        for (int offset = kVerifyLanes / 2; offset > 0; offset >>= 1) {
            const T other = __shfl_xor_sync(group_mask, smallest, offset);
            const int other_c = __shfl_xor_sync(group_mask, best, offset);
            if (other < smallest || (other == smallest && other_c < best)) {
                smallest = other;
                best = other_c;
            }
        }
        if (sub == 0) {
            evaluations += length;
            if (a.labels[i] != best) {
                a.labels[i] = best;
                ++changed;
            }
            if (a.status) a.status[i] = 0;
        }
    }
    block_count_add(changed, &a.counters->labels_changed, uscratch);
    // Verified points cost their list's exact distances, on top of the filter's n·k.
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

// x − m rounded to TF32 (to nearest, ties away from zero, as cvt.rna.tf32.f32;
// below float's normal range: 0, so the MMA never meets a subnormal operand).
__device__ __forceinline__ float round_to_tf32(double shifted) {
    const float v = static_cast<float>(shifted);
    const float rounded = __uint_as_float((__float_as_uint(v) + 0x1000u) & ~0x1fffu);
    return fabsf(v) < 1.17549435e-38f ? 0.0f : (fabsf(v) <= 3.402823466e38f ? rounded : v);
}

// The filter's rows for `count` rows of data, one warp per row: x̃ (zeros up to
// padded_d), its squared norm and δ ≥ ‖(v − m) − x̃‖.
//  int8: q = round((v − m)/s) clamped to ±127, x̃ = s·q (exact: s has at most 4
//    significant bits), the norm ‖q‖² exact in int32;
//  tf32: x̃ = round_to_tf32(v − m), the norm ‖x̃‖² summed in double (exact but for
//    the last bits) and rounded to the nearest float.
// δ: each coordinate's residual is bounded through an interval for v − m (rounded
// down and up); squares and sums rounded up; the butterfly is fixed, so δ is
// deterministic. A row whose norm is not finite or above 2¹⁰⁰ (its dot products
// could overflow float) gets δ = ∞: never certified. slack_max, norm_max
// (optional): the largest δ and norm as float bits (both ≥ 0, so the bit order is
// the value order; NaN stored as ∞).
template <typename T, FilterFormat F>
__global__ void __launch_bounds__(256) quantise_rows_kernel(const T* rows, long long count, int d, int padded_d,
                                                            const T* shift, double scale, void* out_rows,
                                                            void* out_norms, float* slack, unsigned* slack_max,
                                                            unsigned* norm_max) {
    using V = typename Format<F>::Value;
    using Element = std::conditional_t<F == FilterFormat::int8, std::int8_t, float>;
    Element* out = static_cast<Element*>(out_rows);
    V* norms = static_cast<V*>(out_norms);
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    const double inverse = 1.0 / scale;
    for (long long r = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5); r < count;
         r += warps) {
        std::conditional_t<F == FilterFormat::int8, int, double> norm = 0;
        double error = 0.0;
        for (int j = lane; j < padded_d; j += 32) {
            Element stored = 0;
            if (j < d) {
                const double x = static_cast<double>(rows[r * d + j]), m = static_cast<double>(shift[j]);
                double rounded;
                if constexpr (F == FilterFormat::int8) {
                    // fmax/fmin drop a NaN: q = −127, and δ below is NaN.
                    const int q = static_cast<int>(fmin(fmax(rint((x - m) * inverse), -127.0), 127.0));
                    stored = static_cast<std::int8_t>(q);
                    rounded = scale * q;
                    norm += q * q;
                } else {
                    stored = round_to_tf32(x - m);
                    rounded = stored;
                    norm += rounded * rounded;
                }
                const double low = __dsub_rd(__dsub_rd(x, m), rounded), high = __dsub_ru(__dsub_ru(x, m), rounded);
                const double e = fmax(fabs(low), fabs(high));
                error = __dadd_ru(error, __dmul_ru(e, e));
            }
            out[r * padded_d + j] = stored;
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            norm += __shfl_xor_sync(0xffffffffu, norm, offset);
            error = __dadd_ru(error, __shfl_xor_sync(0xffffffffu, error, offset));
        }
        if (lane == 0) {
            float bound = __double2float_ru(__dsqrt_ru(error));
            V stored_norm;
            if constexpr (F == FilterFormat::int8) {
                stored_norm = norm;
            } else {
                stored_norm = __double2float_rn(norm);
                if (!(norm <= 0x1p100)) bound = __int_as_float(0x7f800000);
            }
            norms[r] = stored_norm;
            slack[r] = bound;
            if (slack_max) atomicMax(slack_max, bound <= 3.402823466e38f ? __float_as_uint(bound) : 0x7f800000u);
            if constexpr (F == FilterFormat::tf32) {
                if (norm_max)
                    atomicMax(norm_max, stored_norm <= 3.402823466e38f ? __float_as_uint(stored_norm) : 0x7f800000u);
            }
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

template <typename T, FilterFormat F>
void launch_quantise(const T* rows, long long count, int d, const T* shift, const QuantisedPoints& format,
                     void* out_rows, void* out_norms, float* slack, unsigned* maxima, int sm_count,
                     cudaStream_t stream) {
    quantise_rows_kernel<T, F><<<quantise_blocks(count, sm_count), 256, 0, stream>>>(
        rows, count, d, format.padded_d, shift, format.scale, out_rows, out_norms, slack, maxima,
        maxima ? maxima + 1 : nullptr);
    KMS_CUDA_LAUNCH_CHECK("filter rounding kernel");
}

template <typename T>
void launch_quantise_points(const T* data, long long n, int d, const T* shift, const QuantisedPoints& points,
                            cudaStream_t stream) {
    int device = 0, sm_count = 1;
    KMS_CUDA_CHECK(cudaGetDevice(&device));
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    auto* rows = const_cast<void*>(points.rows);
    auto* norms = const_cast<void*>(points.norms);
    auto* slack = const_cast<float*>(points.slack);
    if (points.format == FilterFormat::int8)
        launch_quantise<T, FilterFormat::int8>(data, n, d, shift, points, rows, norms, slack, nullptr, sm_count, stream);
    else
        launch_quantise<T, FilterFormat::tf32>(data, n, d, shift, points, rows, norms, slack, nullptr, sm_count, stream);
}

template <typename T, FilterFormat F, Pass P, bool R = false>
void launch_filter_pass(const GemmLloydArgs<T>& g, unsigned blocks, cudaStream_t stream, int shared = filter_shared_bytes<F>(),
                        int resident_stages = 0) {
    // Above the 48 KiB default (tf32: 60 KiB, and 36 KiB of lists); set on every launch:
    // it is per device. Two blocks a multiprocessor need nearly all of its shared memory.
    KMS_CUDA_CHECK(cudaFuncSetAttribute(filter_kernel<T, F, P, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    KMS_CUDA_CHECK(cudaFuncSetAttribute(filter_kernel<T, F, P, R>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared));
    filter_kernel<T, F, P, R><<<blocks, kFilterThreads, shared, stream>>>(g, resident_stages);
    KMS_CUDA_LAUNCH_CHECK(P == Pass::summary ? "GEMM filter kernel" : "GEMM list kernel");
}

// The resident summary pass's shape for k ≤ kTileCentroids: the most blocks a
// multiprocessor (two let one block's epilogue overlap the other's MMAs), then the deepest
// pipeline at that count; {0, 0} where the centroid tile does not fit (large d).
struct ResidentShape {
    int stages, blocks_per_sm;
};
template <typename T, FilterFormat F>
ResidentShape resident_shape(int padded_d) {
    int device = 0, per_block = 0, per_sm = 0, reserved = 0;
    KMS_CUDA_CHECK(cudaGetDevice(&device));
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    KMS_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    cudaFuncAttributes attributes{};
    KMS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, filter_kernel<T, F, Pass::summary, true>));
    for (int blocks = 2; blocks >= 1; --blocks)
        for (int stages = kResidentMaxStages; stages >= kResidentMinStages; --stages) {
            const long long block = resident_shared_bytes<F>(padded_d, stages) + static_cast<long long>(attributes.sharedSizeBytes);
            if (block <= per_block && blocks * (block + reserved) <= per_sm) return {stages, blocks};
        }
    return {0, 0};
}

template <typename T, FilterFormat F>
void launch_filter(const GemmLloydArgs<T>& g, cudaStream_t stream) {
    const LloydArgs<T>& a = g.lloyd;
    auto* maxima = reinterpret_cast<unsigned*>(g.centroid_slack + a.k);
    KMS_CUDA_CHECK(cudaMemsetAsync(maxima, 0, 2 * sizeof(float), stream));
    launch_quantise<T, F>(a.centroids, a.k, a.d, g.shift, g.points, g.centroid_rows, g.centroid_norms,
                          g.centroid_slack, maxima, g.sm_count, stream);
    const long long tiles = (a.n + kTilePoints - 1) / kTilePoints;
    const ResidentShape resident = a.k <= kTileCentroids ? resident_shape<T, F>(g.points.padded_d) : ResidentShape{0, 0};
    if (resident.stages > 0) {
        const auto shared = static_cast<int>(resident_shared_bytes<F>(g.points.padded_d, resident.stages));
        const long long blocks = std::min<long long>(tiles, static_cast<long long>(resident.blocks_per_sm) * g.sm_count);
        launch_filter_pass<T, F, Pass::summary, true>(g, static_cast<unsigned>(blocks), stream, shared, resident.stages);
    } else {
        launch_filter_pass<T, F, Pass::summary>(g, static_cast<unsigned>(tiles), stream);
    }
    // The pending points' count is known on the device only: two blocks a multiprocessor
    // (the launch bounds) walk their tiles.
    launch_filter_pass<T, F, Pass::lists>(g, static_cast<unsigned>(std::min<long long>(tiles, 2LL * g.sm_count)),
                                          stream);
}

template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& g, cudaStream_t stream) {
    const LloydArgs<T>& a = g.lloyd;
    if (g.points.format == FilterFormat::int8)
        launch_filter<T, FilterFormat::int8>(g, stream);
    else
        launch_filter<T, FilterFormat::tf32>(g, stream);
    // The listed count is known on the device only: a fixed grid of warps walks the list.
    const long long verify_blocks = std::max<long long>(1, std::min<long long>(static_cast<long long>(g.sm_count) * 8,
                                                                                (a.n + 7) / 8));
    gemm_verify_kernel<T><<<static_cast<unsigned>(verify_blocks), 256, 0, stream>>>(g);
    KMS_CUDA_LAUNCH_CHECK("GEMM verification kernel");
    // The searches over all k: a thread or warp per point walking every centroid row
    // took 200 ms of a first iteration at n = 10^6, d = 64, k = 1000 (H200).
    launch_tiled_search<T, false>(a.points, a.d, a.centroids, a.k,
                                  TiledRows{a.n, g.full, &a.counters->gemm_full_searches, false}, true, g.sm_count,
                                  FullSearchFinish{a.labels, a.status}, &a.counters->labels_changed,
                                  &a.counters->point_centroid_distances, stream, "GEMM full search kernel");
}

#define KMS_INSTANTIATE_GEMM(T)                                                                              \
    template void launch_quantise_points<T>(const T*, long long, int, const T*, const QuantisedPoints&,    \
                                            cudaStream_t);                                                 \
    template void launch_gemm_lloyd<T>(const GemmLloydArgs<T>&, cudaStream_t);
KMS_INSTANTIATE_GEMM(float)
KMS_INSTANTIATE_GEMM(double)

}  // namespace kms::cuda
