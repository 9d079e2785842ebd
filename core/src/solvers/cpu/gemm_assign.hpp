#pragma once
// Lloyd's assignment at d >= 16 through a GEMM, certified (issue 37, item 3):
//  1. approximate: v_j = ‖c_j‖² − 2·x·c_j for a block of points × all k centroids,
//     the dot products by a register-tiled FMA micro-kernel (gemm_assign.cpp; the
//     centroids, times −2, packed in panels once a step, each accumulator starting
//     at ‖c_j‖²), ‖x‖² dropped (common to every j);
//  2. certify: with A = min_j v_j at j = a and B = min_{j≠a} v_j, a rigorous bound
//     (below) proves for most points that a is the STRICT arg-min of the computed
//     squared_distance() over all k, hence the label the exact kernel gives;
//  3. verify: every other point (near ties, duplicates, exact ties, cancellation
//     at huge offsets, NaN/inf, overflow) is labelled by the exact full search
//     (nearest_two: squared_distance order, no FMA, ties to the lowest index),
//     a thread's such points gathered over its chunks (one vector search per batch).
// Labels, and so centroids, are bitwise those of the exact kernel for every
// thread count: a certified label is the exact one, the rest are the exact kernel's.
//
// The bound, for ANY summation order and any FMA contraction of the GEMM (so a
// BLAS could replace the micro-kernel). u = eps/2 of T, γ_m = m·u/(1 − m·u), X = ‖x‖,
// R = max_j ‖c_j‖, s_j = x·c_j, e_j = ‖c_j‖² − 2s_j, D_j = ‖x − c_j‖² = X² + e_j:
//   |fl(s_j) − s_j| ≤ γ_d Σ_t |x_t c_jt| ≤ γ_d·X·R (Cauchy–Schwarz), |fl(‖c‖²) − ‖c‖²| ≤ γ_d R²,
//   v_j = fl(‖c_j‖²) + Σ_t x_t·(−2c_jt) (×2 exact; d roundings of partial sums, any order, whose
//   magnitudes are at most R²(1 + γ_d) + 2XR) ⇒ |v_j − e_j| ≤ γ_d R² + γ_d(R²(1 + γ_d) + 2XR) ≤ γ_{d+1}(2R² + 2XR);
//   x̂ = fl(‖x‖²), |x̂ − X²| ≤ γ_d X²  ⇒  with E = γ_{d+1}(X² + 2XR + 2R²) ≤ 3γ_{d+1}(X² + R²):
//   D_a ≤ x̂ + A + E and D_j ≥ x̂ + B − E for every j ≠ a.
// The exact kernel's computed distance obeys |fl(D) − D| ≤ γ_{d+2}·D, so a is its strict
// (unique) arg-min when (x̂ + B − E)(1 − γ_{d+2}) > max(x̂ + A + E, 0)(1 + γ_{d+2}).
// Evaluated (certified()) in double as E' = 2γ'(X² + R²), γ' = (d + 2)·eps = 2(d + 2)u, i.e.
// 4(d + 2)u(X² + R²) against E's ≤ 3.06(d + 1)u(X² + R²), and (d + 12)·eps for the distance's
// rounding: the margins cover the few roundings of the test itself, plus τ = 8(d + 2)·denorm_min
// for gradual underflow (each product may lose up to denorm_min/2 absolutely). Used only while
// d·eps ≤ 0.01, so γ_m ≤ 1.02·m·u. A non-finite x̂, A or B never certifies
// (comparisons with NaN are false); non-finite centroids turn the GEMM off for the step.
// No partial sum can overflow (so no v_j is NaN, which the arg-min would skip): the GEMM
// runs only while R² ≤ max/16 and a point certifies only while x̂ ≤ max/16.
//
// Double data through a float GEMM ("narrow", twice the FMA rate): the bound above holds
// for x̃ = fl32(x) and c̃ = fl32(c) with float's eps, and ‖x − c‖ differs from ‖x̃ − c̃‖ by
// at most δ = ‖x − x̃‖ + max_j ‖c_j − c̃_j‖ (triangle inequality), ‖x − x̃‖ ≤ (u‖x̃‖ + η√d)/(1 − u)
// (η = 2^-150: float's subnormal rounding): so √D_a ≤ √(x̂ + A + E) + δ and √D_j ≥ √(x̂ + B − E) − δ,
// and the exact kernel (in double) has its γ with double's eps. Used while it certifies:
// a step that leaves more than an eighth of the points to the exact search (data far from
// the origin for float's 24 bits) sends the solver's later steps to the double GEMM.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms::cpu {

// Where the GEMM path pays: its epilogue (a running least and second least per
// point and centroid vector, the lane tree, the certificate) costs about as much
// as d = 16 coordinates, so it needs enough work per point. Assignment times, one
// thread, uniform data, f32/f64, exact kernel against GEMM (docs/cpu-benchmark.md):
// d·k = 1600 (16 × 100) 0.78/0.83x, 2048 (32 × 64, 64 × 32) 1.0-1.14x, 3200 (32 × 100)
// 1.1x, 4096 (64 × 64, 128 × 32) 1.04-1.47x, 4800 (16 × 300) 1.1/1.5x, 64000 (64 × 1000) 2.3/2.4x.
constexpr std::size_t kGemmAssignMinD = 16, kGemmAssignMinK = 32, kGemmAssignMinWork = 4096;

// True when this CPU's vector level (kms/simd.hpp) has a GEMM micro-kernel
// (AVX2 with FMA, or AVX-512), the shape is in range and the path is asked for.
bool gemm_assign_applies(std::size_t d, std::size_t k, bool precision_is_float);

// Counts of one assignment by the GEMM path (summed over the caller's chunks).
struct GemmAssignCounts {
    std::uint64_t changed = 0;    // labels that differ from before
    std::uint64_t certified = 0;  // points whose label the GEMM's bound proved
    std::uint64_t verified = 0;   // points labelled by the exact full search
};

// The centroids packed for the micro-kernel, rebuilt every step (prepare()); one
// per solver, read-only while its threads label their chunks.
template <typename T>
class GemmAssign {
public:
    // Packs the k × d row-major centroids (O(k·d), one thread). usable() is false
    // when a centroid is not finite (every point then takes the exact search).
    void prepare(const T* centroids, std::size_t k, std::size_t d);
    bool usable() const { return usable_; }

    // A block's scratch in the GEMM's precision C.
    template <typename C>
    struct BlockScratch {
        std::vector<C> best, second, norm, lane_best, lane_second, packed;
        std::vector<std::int32_t> index, lane_index;
    };
    // One thread's scratch (reused over its chunks); `pending` holds the points
    // left to the exact search until finish() (or a full batch) labels them.
    struct Scratch {
        BlockScratch<T> wide;
        BlockScratch<float> narrow;
        std::vector<T> exact_best, exact_second, kernel;
        std::vector<std::int32_t> exact_label;
        std::vector<std::size_t> pending;
    };
    // Labels points [begin, end) of the n × d row-major `points` against the
    // `centroids` prepare() was given (needed for the exact search), adding to
    // `counts`; the points it cannot certify wait in `scratch` for finish(),
    // which the thread must call after its last range.
    void label_range(const T* points, const T* centroids, std::size_t begin, std::size_t end,
                     std::int32_t* labels, Scratch& scratch, GemmAssignCounts& counts) const;
    void finish(const T* points, const T* centroids, std::int32_t* labels, Scratch& scratch,
                GemmAssignCounts& counts) const;
    // One whole assignment's counts (summed over the threads): a narrow step that
    // certified too few points sends the later steps to the double GEMM.
    void record(const GemmAssignCounts& counts);
    // True while double data goes through the float GEMM (for the tests).
    bool narrow() const { return narrow_; }

private:
    template <typename C>
    void block_range(const T* points, std::size_t begin, std::size_t end, std::int32_t* labels,
                     BlockScratch<C>& block, Scratch& scratch, GemmAssignCounts& counts) const;
    void exact(const T* points, const T* centroids, std::int32_t* labels, Scratch& scratch,
               GemmAssignCounts& counts) const;

    std::size_t k_ = 0, d_ = 0, panels_ = 0;
    int level_ = 0;              // the micro-kernel prepare() packed for (gemm_assign.cpp's GemmLevel)
    bool usable_ = false;
    bool narrow_ = false;        // T = double through the float GEMM (narrow_panel_)
    bool narrow_declined_ = false;  // a narrow step certified too few: double GEMM from then on
    // panels_ × d × lanes: coordinate t of centroid p·lanes + l, times −2, at [p][t][l], zeros past k;
    // in T, or (narrow) in float.
    std::vector<T> panel_;
    std::vector<float> narrow_panel_;
    std::vector<T> panel_norm_;  // panels_ × lanes: fl(‖c‖²), +inf past k (narrow: in float, below)
    std::vector<float> narrow_norm_;
    double radius_sq_ = 0.0;     // R² ≥ max ‖c_j‖² (rounded up), of the GEMM's centroids (c̃ when narrow)
    double offset_ = 0.0;        // narrow: ≥ max_j ‖c_j − c̃_j‖
};

}  // namespace kms::cpu
