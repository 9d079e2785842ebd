// Registry entries of the sequential and OpenMP back ends.
#include "cpu_backend.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <omp.h>

#include "kernels.hpp"
#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/solver_support.hpp"

namespace kms::cpu {

void register_cpu_solver(AlgorithmInfo info, const SolverFactory& make, SolverTraits traits) {
    const Algorithm algorithm = info.algorithm;
    register_algorithm(std::move(info));
    for (Backend backend : {Backend::Sequential, Backend::OpenMP}) register_solver(algorithm, backend, make, traits);
}

namespace {
template <typename T, typename Source>
std::vector<std::int32_t> assign_in(const Matrix<Source>& points, const Matrix<double>& centroids, int threads,
                                    double& inertia, const double* weights) {
    const std::size_t n = points.rows(), d = points.cols(), k = centroids.rows();
    Matrix<T> converted;
    const T* x;
    if constexpr (std::is_same_v<T, Source>) {
        x = points.data();
    } else {
        converted = points.template cast<T>();
        x = converted.data();
    }
    const Matrix<T> c = centroids.template cast<T>();
    std::vector<std::int32_t> labels(n, -1);
    // Fixed chunks, partial inertia per chunk summed in chunk order: the same bits for any thread count.
    constexpr std::size_t kChunk = 4096;
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<double> partial(chunks, 0.0);
    RegionGuard guard;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        std::vector<T> scratch;
        guard.run([&] { scratch.resize(kernel_scratch_size(d)); });
#pragma omp for schedule(static)
        for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
            if (guard.failed()) continue;
            const std::size_t begin = chunk * kChunk, end = std::min(n, begin + kChunk);
            label_range(x, d, c.data(), k, begin, end, labels.data(), scratch.data());
            double sum = 0.0;
            for (std::size_t i = begin; i < end; ++i) {
                const auto distance = static_cast<double>(
                    squared_distance(x + i * d, c.row(static_cast<std::size_t>(labels[i])), d));
                sum += weights ? weights[i] * distance : distance;
            }
            partial[chunk] = sum;
        }
    }
    guard.rethrow();
    inertia = 0.0;
    for (double p : partial) inertia += p;
    return labels;
}
}  // namespace

namespace {
template <typename Source>
std::vector<std::int32_t> assign_labels_of(const Matrix<Source>& points, const Matrix<double>& centroids,
                                           Precision precision, int threads, double& inertia, const double* weights) {
    check_solver_data(points, precision, threads);
    if (centroids.rows() < 1) throw Error("no centroids");
    if (centroids.cols() != points.cols())
        throw Error("the centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                    std::to_string(points.cols()));
    check_initial_centroids(centroids, centroids.rows(), points.cols(), precision, "the centroids");
    threads = threads > 0 ? threads : omp_get_max_threads();
    return precision == Precision::F32 ? assign_in<float>(points, centroids, threads, inertia, weights)
                                       : assign_in<double>(points, centroids, threads, inertia, weights);
}
}  // namespace

std::vector<std::int32_t> assign_labels(const Matrix<double>& points, const Matrix<double>& centroids,
                                        Precision precision, int threads, double& inertia, const double* weights) {
    return assign_labels_of(points, centroids, precision, threads, inertia, weights);
}
std::vector<std::int32_t> assign_labels(const Matrix<float>& points, const Matrix<double>& centroids,
                                        Precision precision, int threads, double& inertia, const double* weights) {
    return assign_labels_of(points, centroids, precision, threads, inertia, weights);
}

namespace {
// --solver auto on the CPU. Derived from runs to convergence on the development
// machine (docs/solvers.md has the tables): one thread, f64, blobs and uniform
// data, d ∈ {2, 4, 8, 16, 64}, k ∈ {5, 20, 50, 100, 300, 1000}. At d ≤ 4 the
// vector Lloyd kernel costs a fraction of a nanosecond per distance, so bounds
// pay only from a few dozen clusters; there Hamerly's branch-free test leads,
// and Exponion (its balls searched by the vector kernel) from several hundred
// clusters with enough points per cluster. Above d = 4, Hamerly leads up to a
// few hundred clusters and Exponion beyond. Yinyang was never the fastest.
constexpr std::size_t kLowDimension = 4;          // d ≤ 4: measured at 2 and 4 (8 behaves like 16)
constexpr std::size_t kLowDFewClusters = 32;      // k < 32 at d ≤ 4: Lloyd (2-D: k = 20 Lloyd, k = 50 Hamerly)
constexpr std::size_t kFewClusters = 16;          // k < 16 at d > 4: Lloyd (measured k = 5; k = 20 favours Hamerly)
constexpr std::size_t kManyClusters = 500;        // d ≤ 4, k ≥ 500: measured 300 (level at d = 2) and 1000
// d > 4, k ≥ 200: Exponion (bench/cpu_auto_grid.sh, to convergence at d = 8..64: blobs k = 200
// 0.81–1.01× Hamerly's time, k = 500 0.72–0.77×; uniform k = 200 0.95–1.08×; below 200 within ±10 %)
constexpr std::size_t kHighDManyClusters = 200;
constexpr std::size_t kPointsPerCluster = 100;    // low d, many clusters: Exponion from n/k = 100 (30: level)
// Exponion recomputes k² centroid distances per iteration (67 million at 8192):
// past this k, Hamerly instead (Ball k-means too: it takes the same rows).
constexpr std::size_t kExponionMaxClusters = 8192;
// Ball k-means from 4 to 8 dimensions with 5000 to 8192 clusters and at least 20 points a
// cluster (docs/solvers.md, 2026-11-28: one thread, f64, to convergence, the other solver's
// CPU time over Ball's, blobs of k centres and uniform data): d = 4, k = 5000, 10^5 points:
// Exponion 1.84x blobs, 1.83x uniform, Hamerly (the rule's pick there before) 1.63x, 1.57x;
// d = 8, k = 5000: Exponion 1.42x blobs, 1.16x uniform at 10^5 points, 2.09x blobs at 10^6.
// Not below 5000 clusters (d = 8, k = 2500: 1.39x blobs but 0.66x uniform; k = 1000 0.73x
// uniform), not above 8 dimensions (d = 16, k = 5000: 1.11x blobs, 0.44x uniform), not at
// d = 2 (k = 5000: 0.98-1.04x, level; d = 3 not measured).
constexpr std::size_t kBallMinDimension = 4, kBallMaxDimension = 8;
constexpr std::size_t kBallClusters = 5000;
constexpr std::size_t kBallPointsPerCluster = 20;

SolverChoice choose_cpu_algorithm(std::size_t n, std::size_t d, std::size_t k) {
    if (k < 2) return {Algorithm::Lloyd, "one cluster: nothing to bound"};
    if (d >= kBallMinDimension && d <= kBallMaxDimension && k >= kBallClusters && k <= kExponionMaxClusters &&
        n >= kBallPointsPerCluster * k)
        return {Algorithm("ball"), "4 to 8 dimensions, 5000 to 8192 clusters, at least 20 points per cluster"};
    if (d <= kLowDimension) {
        if (k < kLowDFewClusters)
            return {Algorithm::Lloyd, "low dimension and fewer than 32 clusters: the vector full search is cheapest"};
        if (k < kManyClusters) return {Algorithm::Hamerly, "low dimension, 32 to 499 clusters"};
        if (n >= kPointsPerCluster * k && k <= kExponionMaxClusters)
            return {Algorithm::Exponion, "low dimension, many clusters, at least 100 points per cluster"};
        return {Algorithm::Hamerly, "low dimension, many clusters, fewer than 100 points per cluster"};
    }
    if (k < kFewClusters) return {Algorithm::Lloyd, "fewer than 16 clusters: bounds save less than they cost"};
    if (k < kHighDManyClusters) return {Algorithm::Hamerly, "5 or more dimensions, 16 to 199 clusters"};
    if (k > kExponionMaxClusters)
        return {Algorithm::Hamerly, "more than 8192 clusters: Exponion's k x k centroid rows would not pay"};
    return {Algorithm::Exponion, "5 or more dimensions, 200 or more clusters"};
}

// The back end's assignment without a solver (BackendEntry::assign): Lloyd's search,
// on one thread for the sequential back end.
template <typename Source>
auto plain_assignment(Backend backend) {
    const bool sequential = backend == Backend::Sequential;
    return [sequential](const Matrix<Source>& points, const Matrix<double>& centroids, const SolverConfig& config,
                        const double* weights) {
        Assignment result;
        result.labels = assign_labels(points, centroids, config.precision, sequential ? 1 : config.threads,
                                      result.inertia, weights);
        return result;
    };
}
}  // namespace

BackendEntry backend_entry(Backend backend) {
    BackendEntry entry;
    entry.backend = backend;
    entry.label = backend == Backend::Sequential ? "sequential" : "OpenMP threads";
    entry.uses_threads = backend == Backend::OpenMP;
    entry.reads_host_float = true;
    entry.availability = [] { return BackendAvailability{true, {}}; };
    entry.choose_algorithm = choose_cpu_algorithm;
    entry.assign = plain_assignment<double>(backend);
    entry.assign_float = plain_assignment<float>(backend);
    if (lapack_built())
        entry.smallest_eigenpairs = [](const Matrix<double>& symmetric, std::size_t count, const SolverConfig&) {
            return lapack_smallest_eigenpairs(symmetric, count);
        };
    return entry;
}

}  // namespace kms::cpu
