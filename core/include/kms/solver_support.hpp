#pragma once
// What every back end checks and decides the same way, written once: the data
// and initial-centroid checks of a solver's set-up, and which points refill empty
// clusters. CPU (core/src/solvers/cpu) and CUDA (gpu/src/solvers) both call these.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/matrix.hpp"
#include "kms/solver.hpp"

namespace kms {

// Largest |coordinate| for which no squared distance between points of a box of
// that size can overflow `precision` in d dimensions.
double coordinate_limit(Precision precision, std::size_t d);

// Smallest largest-column-range (max - min) of a data set whose squared distances do
// not underflow `precision`: sqrt(smallest normal number), f64 1.5e-154, f32 1.1e-19.
double spread_limit(Precision precision);

// Throws kms::Error (`what` names the array) when `max_abs` exceeds coordinate_limit()
// (squared distances overflow) or a nonzero `spread` is under spread_limit() (they
// underflow to 0: points apart at distance 0, one cluster takes all; issue 39). Refused,
// not rescaled: the message says to rescale by a power of two, or use f64.
void check_coordinate_range(double max_abs, double spread, std::size_t d, Precision precision, const char* what);

// Throws kms::Error for an empty data set, and for coordinates so large that a
// squared distance (or the conversion to float) would overflow, or so close together
// that every squared distance underflows (check_coordinate_range): every distance
// would be infinite or 0 and the labels meaningless. `whole` = false: a block of a
// data set split over ranks, whose own spread says nothing (only the overflow is checked).
void check_solver_data(const Matrix<double>& points, Precision precision, int threads = 1, bool whole = true);
void check_solver_data(const Matrix<float>& points, Precision precision, int threads = 1, bool whole = true);
// The same of rows [first_row, first_row + rows) of a RowSource (out of core), read
// `block_rows` at a time: one pass.
void check_solver_data(const RowSource& source, std::size_t first_row, std::size_t rows, Precision precision,
                       bool whole, std::size_t block_rows);

// Throws kms::Error unless `centroids` are 1 <= k <= n finite rows of d coordinates
// within coordinate_limit().
// `what` names them in messages (predict's are "the centroids").
void check_initial_centroids(const Matrix<double>& centroids, std::size_t n, std::size_t d, Precision precision,
                             const char* what = "the initial centroids");

// The end of a CPU step after its update: the stopping rule (evaluate_stop), the
// step's total time since `start`, and, where the configuration asks for it, the
// inertia (`inertia()`, timed on its own, outside the total). Returns the stop reason.
template <typename Inertia>
StopReason finish_step(const SolverConfig& config, double tol_absolute, std::chrono::steady_clock::time_point start,
                       IterationStats& stats, Inertia inertia) {
    using Ms = std::chrono::duration<double, std::milli>;
    const StopReason reason = evaluate_stop(config, stats, tol_absolute);
    stats.time_total_ms = Ms(std::chrono::steady_clock::now() - start).count();
    if (config.compute_inertia) {
        const auto inertia_start = std::chrono::steady_clock::now();
        stats.inertia = inertia();
        stats.time_inertia_ms = Ms(std::chrono::steady_clock::now() - inertia_start).count();
    }
    return reason;
}

// scikit-learn's rule for EmptyClusterPolicy::Farthest: the `count` points
// farthest from their own centroid (`distance`, one per point), largest first,
// lowest index on ties; the i-th empty cluster (in cluster order) takes the i-th.
template <typename T>
std::vector<std::size_t> farthest_points(std::span<const T> distance, std::size_t count);

// The clusters with no point, in increasing order.
template <typename Count>
std::vector<std::size_t> empty_clusters(std::span<const Count> counts) {
    std::vector<std::size_t> empty;
    for (std::size_t c = 0; c < counts.size(); ++c)
        if (counts[c] == 0) empty.push_back(c);
    return empty;
}


// A point that leaves its cluster for an empty one: its old label, weight (1
// when unweighted) and coordinates.
template <typename T>
struct RelocationMover {
    std::size_t from = 0;
    T w = T(1);
    std::vector<T> x;
};

// The `count` movers of farthest_points() over a data set that may be split over
// ranks: `distance`, `labels`, `points` (rows × d) and `weights` (nullptr:
// unweighted) are this rank's rows, the first of them global row `first_row`.
// With `comm` each rank offers its own farthest and every rank picks the same
// from all offers (largest distance, lowest global row on ties); without, the
// single process's choice. A collective call when partitioned.
// `points` may be doubles for a float solver whose points are their values rounded
// to float (the CUDA solvers' host data): the movers' coordinates are rounded the same.
template <typename T, typename Point = T>
std::vector<RelocationMover<T>> farthest_movers(std::span<const T> distance, std::span<const std::int32_t> labels,
                                                const Point* points, std::size_t d, const T* weights,
                                                std::size_t count, std::size_t first_row, Communicator* comm);

// scikit-learn's relocation applied to the update's result, as every back end
// that sums in the CPU's package tree does it: `sums` are the clusters' Σ w·(x −
// previous) (k × d, double), `counts` and `weights` (empty: unweighted) theirs;
// centroids (k × d, already updated from those sums, empty clusters kept) get the
// i-th mover as the i-th empty cluster (`empty_ids`, increasing), and each
// mover's old cluster is recomputed without it.
template <typename T>
void relocate_to_movers(const std::vector<std::size_t>& empty_ids, const std::vector<RelocationMover<T>>& movers,
                        std::size_t d, const T* previous, T* centroids, std::vector<double> sums,
                        std::vector<std::int64_t> counts, std::vector<double> weights);

// Yinyang's centroid groups, formed alike on every back end: about one group per
// `centroids_per_group` centroids (ten: Ding et al.'s choice), at most 2^27 group bounds in all (so n·t stays
// within memory), formed by a few k-means iterations over the initial centroids
// seeded with evenly spaced ones (ties to the lowest group); empty groups are
// dropped. Members are listed group by group, each group in ascending centroid
// index. Only speed depends on the grouping, never the result.
struct CentroidGroups {
    std::vector<std::size_t> members;   // centroid indices, group by group
    std::vector<std::size_t> begin;     // group g is members[begin[g], begin[g + 1])
    std::vector<std::size_t> group_of;  // per centroid: its group
    std::size_t count() const { return begin.empty() ? 0 : begin.size() - 1; }
    std::size_t size(std::size_t g) const { return begin[g + 1] - begin[g]; }
    std::size_t largest() const;
};
CentroidGroups form_centroid_groups(const Matrix<double>& centroids, std::size_t points,
                                    std::size_t centroids_per_group = 10);

}  // namespace kms
