#pragma once
// What every back end checks and decides the same way, written once: the data
// and initial-centroid checks of a solver's set-up, and which points refill empty
// clusters. CPU (core/src/solvers/cpu) and CUDA (gpu/src/solvers) both call these.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kms/matrix.hpp"
#include "kms/solver.hpp"

namespace kms {

// Largest |coordinate| for which no squared distance between points of a box of
// that size can overflow `precision` in d dimensions.
double coordinate_limit(Precision precision, std::size_t d);

// Throws kms::Error for an empty data set, and for coordinates so large that a
// squared distance (or the conversion to float) would overflow: every distance
// would be infinite and the labels meaningless.
void check_solver_data(const Matrix<double>& points, Precision precision, int threads = 1);
void check_solver_data(const Matrix<float>& points, Precision precision, int threads = 1);

// Throws kms::Error unless `centroids` are 1 <= k <= n finite rows of d coordinates
// within coordinate_limit().
void check_initial_centroids(const Matrix<double>& centroids, std::size_t n, std::size_t d, Precision precision);

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

}  // namespace kms
