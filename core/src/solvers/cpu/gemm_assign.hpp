#pragma once
// Lloyd's assignment at d >= 16 through a GEMM, certified (issue 37, item 3):
//  1. approximate: v_j = ‖c_j‖² − 2·x·c_j for a block of points × all k centroids,
//     the dot products by a register-tiled FMA micro-kernel (gemm_assign.cpp; the
//     centroids packed in panels once a step), ‖x‖² dropped (common to every j);
//  2. certify: with A = min_j v_j at j = a and B = min_{j≠a} v_j, a rigorous bound
//     (below) proves for most points that a is the STRICT arg-min of the computed
//     squared_distance() over all k, hence the label the exact kernel gives;
//  3. verify: every other point (near ties, duplicates, exact ties, cancellation
//     at huge offsets, NaN/inf, overflow) is labelled by the exact full search
//     (nearest_two: squared_distance order, no FMA, ties to the lowest index).
// Labels, and so centroids, are bitwise those of the exact kernel for every
// thread count: a certified label is the exact one, the rest are the exact kernel's.
//
// The bound, for ANY summation order and any FMA contraction of the GEMM (so a
// BLAS could replace the micro-kernel). u = eps/2 of T, γ_m = m·u/(1 − m·u), X = ‖x‖,
// R = max_j ‖c_j‖, s_j = x·c_j, e_j = ‖c_j‖² − 2s_j, D_j = ‖x − c_j‖² = X² + e_j:
//   |fl(s_j) − s_j| ≤ γ_d Σ_t |x_t c_jt| ≤ γ_d·X·R (Cauchy–Schwarz), |fl(‖c‖²) − ‖c‖²| ≤ γ_d R²,
//   v_j = fl(fl(‖c_j‖²) − 2·fl(s_j)) (×2 exact, one rounding) ⇒ |v_j − e_j| ≤ γ_{d+1}(R² + 2XR);
//   x̂ = fl(‖x‖²), |x̂ − X²| ≤ γ_d X²  ⇒  with E = γ_{d+1}(X + R)² ≤ 2γ_{d+1}(X² + R²):
//   D_a ≤ x̂ + A + E and D_j ≥ x̂ + B − E for every j ≠ a.
// The exact kernel's computed distance obeys |fl(D) − D| ≤ γ_{d+2}·D, so a is its strict
// (unique) arg-min when (x̂ + B − E)(1 − γ_{d+2}) > max(x̂ + A + E, 0)(1 + γ_{d+2}).
// Evaluated (certified()) in double with every γ doubled — γ' = (d + 2)·eps for E and
// (d + 12)·eps for the distance's rounding, eps = 2u — which covers the few roundings of
// the test itself, plus τ = 8(d + 2)·denorm_min for gradual underflow (each product
// may lose up to denorm_min/2 absolutely). Used only while d·eps ≤ 0.01, so γ_m ≤
// 1.02·m·u and the doubling is a true factor ≈ 2. A non-finite x̂, A or B never certifies
// (comparisons with NaN are false); non-finite centroids turn the GEMM off for the step.
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

    // One thread's scratch (reused over its chunks).
    struct Scratch {
        std::vector<T> best, second, norm, lane_best, lane_second, packed, exact_best, exact_second, kernel;
        std::vector<std::int32_t> index, lane_index, exact_label;
        std::vector<std::size_t> pending;
    };
    // Labels points [begin, end) of the n × d row-major `points` against the
    // `centroids` prepare() was given (needed for the exact search), adding to `counts`.
    void label_range(const T* points, const T* centroids, std::size_t begin, std::size_t end,
                     std::int32_t* labels, Scratch& scratch, GemmAssignCounts& counts) const;

private:
    std::size_t k_ = 0, d_ = 0, panels_ = 0;
    int level_ = 0;              // the micro-kernel prepare() packed for (gemm_assign.cpp's GemmLevel)
    bool usable_ = false;
    std::vector<T> panel_;       // panels_ × d × lanes: coordinate t of centroid p·lanes + l at [p][t][l], zeros past k
    std::vector<T> panel_norm_;  // panels_ × lanes: fl(‖c‖²), +inf past k
    double radius_sq_ = 0.0;     // R² ≥ max ‖c_j‖² (rounded up)
};

}  // namespace kms::cpu
