#pragma once
// One statistics record per iteration, the same for every algorithm and back end.
#include <cstdint>
#include <limits>

namespace kms {

struct IterationStats {
    int iteration = 0;                 // 1-based: the iteration this record describes

    // Wall time per phase, milliseconds (CUDA back ends: CUDA events).
    double time_assign_ms = 0.0;       // point–centroid distances and labels
    double time_bounds_ms = 0.0;       // bound maintenance and centroid–centroid distances
    double time_update_ms = 0.0;       // centroid recomputation, shifts
    double time_total_ms = 0.0;        // the whole step (≥ the sum of phases), as the CLI measures it
    // The inertia asked for with SolverConfig::compute_inertia (the studio's chart),
    // timed apart: it is a diagnostic, not part of the algorithm's step.
    double time_inertia_ms = 0.0;

    std::uint64_t point_centroid_distances = 0;     // distance evaluations of points to centroids
    std::uint64_t centroid_centroid_distances = 0;  // distance evaluations between centroids
    std::uint64_t bound_skips = 0;     // points whose full search the bounds avoided
    std::uint64_t group_skips = 0;     // Yinyang: (point, group) pairs the group filter ruled out whole
    std::uint32_t groups = 0;          // Yinyang: t, its number of centroid groups (0: a solver without groups)
    std::uint64_t second_centred = 0;  // Shallot: searched points whose ball was centred on their tracked second centroid (nearer than the own)
    std::uint64_t stable_points = 0;   // Ball k-means: points in stable balls (no centroid in their reach moved): not a distance taken
    std::uint64_t neighbour_clusters = 0;  // Ball k-means: Σ over the points it examined of the neighbour clusters each compared with
    std::uint64_t labels_changed = 0;  // points whose label differs from the previous iteration
    std::uint64_t verified_points = 0; // Lloyd's GEMM filter (CUDA, CPU): points it could not certify, labelled by exact distances
    std::uint64_t gemm_certified = 0;  // CPU Lloyd's GEMM filter: points whose label its error bound proved (+ verified = n)
    std::uint64_t gemm_listed = 0;     // CUDA Lloyd's GEMM filter: of verified_points, those labelled over a list of candidates (the rest: over all k)
    std::uint64_t streamed_bytes = 0;  // CUDA, streamed points: bytes copied from host memory in this step
    double max_shift = 0.0;            // largest centroid move (Euclidean) in this update
    double mean_shift = 0.0;           // mean centroid move
    double shift_sq_total = 0.0;       // Σ squared moves: scikit-learn's convergence quantity
    int empty_clusters = 0;            // clusters that received no point in this assignment

    // Σ ||x - c(label(x))||² of this iteration's labels and updated centroids; NaN
    // unless the solver was asked for it (its distances are not counted above).
    double inertia = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace kms
