#pragma once
// The CPU distance kernels shared by every CPU solver and by kms::assign: the
// full search (Lloyd's labels, Hamerly's nearest and second nearest), each at
// the SIMD level in force (kms/simd.hpp). Every level computes each distance
// exactly as squared_distance() (kms/distance.hpp) does and keeps the first
// minimum in index order, so all levels give the same bits; SimdLevel::Scalar
// is the plain reference the tests hold the vector levels to.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace kms::cpu {

using Clock = std::chrono::steady_clock;

inline double elapsed_ms(Clock::time_point since) {
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Scratch a caller gives the kernels for one thread: enough for any level; 0 above
// d = 32768, where the kernels take the scalar path (the same bits) and need none.
std::size_t kernel_scratch_size(std::size_t d);

// Labels points [begin, end) of the n × d row-major `points` with their nearest
// of the k row-major `centroids` (lowest index on ties); returns how many of
// `labels` changed. `scratch` holds kernel_scratch_size(d) values.
std::uint64_t label_range(const float* points, std::size_t d, const float* centroids, std::size_t k,
                          std::size_t begin, std::size_t end, std::int32_t* labels, float* scratch);
std::uint64_t label_range(const double* points, std::size_t d, const double* centroids, std::size_t k,
                          std::size_t begin, std::size_t end, std::int32_t* labels, double* scratch);

// For the m points listed in `rows`: the nearest centroid (lowest index on ties),
// the smallest and the second smallest squared distance (as sequential scans
// find them: equal to the smallest when it occurs twice; +inf when k = 1).
void nearest_two(const float* points, std::size_t d, const float* centroids, std::size_t k,
                 const std::size_t* rows, std::size_t m, std::int32_t* label, float* best, float* second,
                 float* scratch);
void nearest_two(const double* points, std::size_t d, const double* centroids, std::size_t k,
                 const std::size_t* rows, std::size_t m, std::int32_t* label, double* best, double* second,
                 double* scratch);

// All k squared distances of points [begin, end), row-major into `out`
// ((end - begin) × k), bitwise squared_distance()'s. `scratch` as above.
void distances_range(const float* points, std::size_t d, const float* centroids, std::size_t k, std::size_t begin,
                     std::size_t end, float* out, float* scratch);
void distances_range(const double* points, std::size_t d, const double* centroids, std::size_t k,
                     std::size_t begin, std::size_t end, double* out, double* scratch);

// One point against a block of m centroids stored coordinate-major:
// block[t·stride + j] is coordinate t of centroid j, stride = block_stride(m, d),
// entries past m zero. out[j] (stride values) = the squared distance, exactly as
// squared_distance() computes it (Yinyang's groups, Exponion's balls). The stride is
// m rounded up to the vector kernels' lanes, except above d = 32768, where the
// scalar kernel (the same bits) runs and the stride is m: a block of 2 centroids
// padded to 32 lanes took 16 times their size (512 MB at d = 2 M; issue 39).
std::size_t block_stride(std::size_t m, std::size_t d);
void block_distances(const float* x, std::size_t d, const float* block, std::size_t stride, std::size_t m,
                     float* out);
void block_distances(const double* x, std::size_t d, const double* block, std::size_t stride, std::size_t m,
                     double* out);

// Elkan's per-point bound maintenance: lower[j] shrinks by shift[j] for every j
// (BoundArithmetic::shrink), and the first j ≠ own with reach ≥ lower[j] and
// reach ≥ cc_half_row[j] is returned (k if none): where the sequential loop
// over candidates starts.
std::size_t elkan_shrink_first(float* lower, const float* shift, const float* cc_half_row, std::size_t k,
                               std::size_t own, float reach);
std::size_t elkan_shrink_first(double* lower, const double* shift, const double* cc_half_row, std::size_t k,
                               std::size_t own, double reach);

// Hamerly's bound maintenance for m points (labels, upper and lower bounds from
// the first of them), as BoundArithmetic computes it: each upper bound grows by
// its centroid a's move (shift[a]), each lower bound shrinks by the largest move
// of another centroid (second_shift for the centroid `top`, top_shift for the
// rest). open[i] = 1 where the bounds no longer separate the point from every
// other centroid: the upper bound is not below max(lower bound, nearest_half[a])
// (BoundArithmetic::separated for d dimensions); else 0. Branch-free element-wise
// arithmetic compiled per level (scalar code: the gathers are not vectorised):
// the same bits everywhere.
void hamerly_bounds(const std::int32_t* labels, float* upper, float* lower, const float* shift,
                    const float* nearest_half, std::size_t top, float top_shift, float second_shift, std::size_t d,
                    std::size_t m, std::uint8_t* open);
void hamerly_bounds(const std::int32_t* labels, double* upper, double* lower, const double* shift,
                    const double* nearest_half, std::size_t top, double top_shift, double second_shift, std::size_t d,
                    std::size_t m, std::uint8_t* open);

// One sub-package of the centroid update (cpu_solver.hpp's sum_package_leaves): rows
// [begin, end) in order, Σ (x − old) in T per cluster into the k × d `sub` (weights
// non-null: Σ w·(x − old), and Σ w in double into weight_sum), ++count per row; then each
// touched cluster's row added, in double, to `package` (k × d) and zeroed in `sub`.
// `touched` (k, zero) and `touched_list` are scratch. Element-wise arithmetic (no FMA)
// compiled per level, so every level gives the same bits; it was baseline SSE2 code
// inside the solver (2 floats or 1 double an instruction at d = 64).
void sum_sub_package(const std::int32_t* labels, const float* points, const float* centroids, const float* weights,
                     std::size_t d, std::size_t begin, std::size_t end, float* sub, unsigned char* touched,
                     std::uint32_t* touched_list, std::int64_t* count, double* weight_sum, double* package);
void sum_sub_package(const std::int32_t* labels, const double* points, const double* centroids, const double* weights,
                     std::size_t d, std::size_t begin, std::size_t end, double* sub, unsigned char* touched,
                     std::uint32_t* touched_list, std::int64_t* count, double* weight_sum, double* package);

// dst[e] += src[e] for e < n, at the level in force (the package tree's addition).
void add_to(double* dst, const double* src, std::size_t n);

}  // namespace kms::cpu
