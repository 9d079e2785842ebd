// Set-up checks and the empty-cluster choice shared by every back end.
#include "kms/solver_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "kms/error.hpp"

namespace kms {

double coordinate_limit(Precision precision, std::size_t d) {
    const double largest = precision == Precision::F32 ? static_cast<double>(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
    return std::sqrt(largest) / (2.0 * std::sqrt(static_cast<double>(std::max<std::size_t>(d, 1))));
}

namespace {
template <typename T>
void check_range(std::span<const T> values, std::size_t d, Precision precision, int threads, const char* what) {
    double max_abs = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) reduction(max : max_abs)
    for (std::size_t i = 0; i < values.size(); ++i) max_abs = std::max(max_abs, std::abs(static_cast<double>(values[i])));
    const double limit = coordinate_limit(precision, d);
    if (max_abs > limit)
        throw Error(std::string(what) + " has coordinates up to " + std::to_string(max_abs) + ", too large for " +
                    std::string(to_string(precision)) + " distances (limit " + std::to_string(limit) +
                    "): rescale the data" + (precision == Precision::F32 ? " or use --precision f64" : ""));
}

template <typename T>
void check_data(const Matrix<T>& points, Precision precision, int threads) {
    if (points.rows() == 0 || points.cols() == 0) throw Error("the data set is empty");
    check_range(points.span(), points.cols(), precision, std::max(threads, 1), "the data");
}
}  // namespace

void check_solver_data(const Matrix<double>& points, Precision precision, int threads) {
    check_data(points, precision, threads);
}
void check_solver_data(const Matrix<float>& points, Precision precision, int threads) {
    check_data(points, precision, threads);
}

void check_initial_centroids(const Matrix<double>& centroids, std::size_t n, std::size_t d, Precision precision) {
    if (centroids.rows() < 1) throw Error("k must be at least 1");
    if (centroids.cols() != d)
        throw Error("initial centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                    std::to_string(d));
    if (centroids.rows() > n)
        throw Error("k = " + std::to_string(centroids.rows()) + " is larger than the number of points n = " +
                    std::to_string(n));
    for (double v : centroids.values())
        if (!std::isfinite(v)) throw Error("initial centroids contain NaN or Inf");
    check_range(std::span<const double>(centroids.values()), d, precision, 1, "the initial centroids");
}

template <typename T>
std::vector<std::size_t> farthest_points(std::span<const T> distance, std::size_t count) {
    const std::size_t take = std::min(count, distance.size());
    std::vector<std::size_t> order(distance.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          return distance[a] > distance[b] || (distance[a] == distance[b] && a < b);
                      });
    order.resize(take);
    return order;
}
template std::vector<std::size_t> farthest_points<float>(std::span<const float>, std::size_t);
template std::vector<std::size_t> farthest_points<double>(std::span<const double>, std::size_t);


}  // namespace kms
