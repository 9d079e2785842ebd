// Spectral clustering through k-means representatives (kms/spectral.hpp).
#include "kms/spectral.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "kms/backends.hpp"
#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/short_number.hpp"

namespace kms {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int thread_count(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

double squared_gap(const double* a, const double* b, std::size_t d) {
    double sum = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        const double diff = a[j] - b[j];
        sum += diff * diff;
    }
    return sum;
}

// The median of each representative's distance to its M-th nearest other one: the
// spacing of the representatives where they lie, robust to the few far outliers a
// mean would follow (docs/spectral.md).
double median_neighbour_distance(const Matrix<double>& points,
                                 const std::vector<std::vector<std::uint32_t>>& neighbours) {
    std::vector<double> distances;
    distances.reserve(points.rows());
    for (std::size_t i = 0; i < points.rows(); ++i)
        if (!neighbours[i].empty())
            distances.push_back(std::sqrt(squared_gap(points.row(i), points.row(neighbours[i].back()), points.cols())));
    if (distances.empty()) return 0.0;
    const auto middle = distances.begin() + static_cast<std::ptrdiff_t>(distances.size() / 2);
    std::nth_element(distances.begin(), middle, distances.end());
    return *middle;
}

// Which registered eigensolver runs for `config`: the back end's own, else (a device
// without one yet) the CPU's, with a note saying so.
EigenPairs smallest_eigenpairs(const SolverConfig& config, const Matrix<double>& laplacian, std::size_t count,
                               std::string& note) {
    const BackendEntry* entry = find_backend(config.backend);
    if (entry && entry->smallest_eigenpairs) return entry->smallest_eigenpairs(laplacian, count, config);
    if (config.backend != Backend::Sequential && config.backend != Backend::OpenMP) {
        note = "the GPU eigen-path (cuSOLVER) is not built yet: the eigenvectors were computed on the CPU; the "
               "representatives' k-means ran on " + config.backend_name();
        SolverConfig cpu = config;
        cpu.backend = Backend::OpenMP;
        return smallest_eigenpairs(cpu, laplacian, count, note);
    }
    throw Error(lapack_missing_message());
}

}  // namespace

std::string_view to_string(SpectralPhase phase) {
    switch (phase) {
        case SpectralPhase::Representatives: return "representatives";
        case SpectralPhase::Similarity: return "similarity";
        case SpectralPhase::Eigensolver: return "eigensolver";
        case SpectralPhase::FinalKMeans: return "final k-means";
        case SpectralPhase::Labelling: return "labelling";
    }
    return "?";
}

void SpectralOptions::validate() const {
    if (!(sigma >= 0.0) || !std::isfinite(sigma))
        throw UsageError("--sigma must be a positive finite number (or absent: the median heuristic)");
    if (final_n_init < 1 || final_n_init > FitOptions::kMaxRestarts)
        throw UsageError("--final-n-init must be between 1 and " + std::to_string(FitOptions::kMaxRestarts));
    kmeans.solver.validate();
}

std::vector<std::vector<std::uint32_t>> nearest_neighbours(const Matrix<double>& points, std::size_t count,
                                                           int threads) {
    const std::size_t n = points.rows(), d = points.cols();
    count = std::min(count, n > 0 ? n - 1 : 0);
    std::vector<std::vector<std::uint32_t>> result(n);
    RegionGuard guard;
#pragma omp parallel num_threads(thread_count(threads))
    {
        std::vector<std::pair<double, std::uint32_t>> candidates;
        guard.run([&] { candidates.resize(n > 0 ? n - 1 : 0); });
#pragma omp for schedule(dynamic, 16)
        for (std::size_t i = 0; i < n; ++i) {
            if (guard.failed()) continue;
            std::size_t m = 0;
            for (std::size_t j = 0; j < n; ++j)
                if (j != i) candidates[m++] = {squared_gap(points.row(i), points.row(j), d), static_cast<std::uint32_t>(j)};
            std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(count),
                              candidates.end());
            if (!guard.run([&] { result[i].reserve(count); })) continue;
            for (std::size_t c = 0; c < count; ++c) result[i].push_back(candidates[c].second);
        }
    }
    guard.rethrow();
    return result;
}

Matrix<double> gaussian_similarity(const Matrix<double>& points, double sigma,
                                   const std::vector<std::vector<std::uint32_t>>* neighbours, int threads) {
    const std::size_t n = points.rows(), d = points.cols();
    const double scale = -1.0 / (2.0 * sigma * sigma);
    Matrix<double> w(n, n, 0.0);
    if (neighbours) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::uint32_t j : (*neighbours)[i]) {
                const double value = std::exp(scale * squared_gap(points.row(i), points.row(j), d));
                w(i, j) = value;
                w(j, i) = value;  // symmetrised: an edge where either is the other's neighbour
            }
        return w;
    }
#pragma omp parallel for schedule(dynamic, 16) num_threads(thread_count(threads))
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (j != i) w(i, j) = std::exp(scale * squared_gap(points.row(i), points.row(j), d));
    return w;
}

Matrix<double> normalized_laplacian(const Matrix<double>& w, int threads) {
    const std::size_t n = w.rows();
    std::vector<double> inverse_root(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double degree = std::accumulate(w.row(i), w.row(i) + n, 0.0);
        inverse_root[i] = degree > 0.0 ? 1.0 / std::sqrt(degree) : 0.0;
    }
    Matrix<double> l(n, n, 0.0);
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) l(i, j) = -inverse_root[i] * w(i, j) * inverse_root[j];
        if (inverse_root[i] > 0.0) l(i, i) += 1.0;  // an isolated vertex keeps a zero row: eigenvalue 0
    }
    return l;
}

namespace {
// A graph the eigenvectors can say something about (issue 39): every similarity finite
// (a σ² that underflows to 0 made 0/0 of coincident representatives, and LAPACK then
// refused a parameter) and no representative without an edge (a σ far below the
// distances: every exp(-d²/2σ²) is 0, all eigenvalues 0, the labels arbitrary). Refused
// with σ, its rule and the neighbour count, not repaired: a repaired σ would be a choice
// the user did not make.
void check_similarity_graph(const Matrix<double>& w, const SpectralResult& result, const std::string& source_name) {
    const std::size_t r = w.rows();
    const std::string edges = result.neighbours ? "its " + std::to_string(result.neighbours) + " nearest neighbours"
                                                : "every other representative (a full graph)";
    const std::string sigma = "sigma = " + short_number(result.sigma) + " (" + result.sigma_rule + ")";
    std::size_t isolated = 0, first_isolated = r;
    for (std::size_t i = 0; i < r; ++i) {
        double degree = 0.0;
        for (std::size_t j = 0; j < r; ++j) {
            if (!std::isfinite(w(i, j)))
                throw InputError::whole(source_name, "the similarity of representatives " + std::to_string(i) + " and " +
                                                         std::to_string(j) + " is not a finite number with " + sigma +
                                                         ", over " + edges + ": give a larger --sigma");
            degree += w(i, j);
        }
        if (!(degree > 0.0)) {
            if (isolated++ == 0) first_isolated = i;
        }
    }
    if (isolated > 0)
        throw InputError::whole(source_name, std::to_string(isolated) + " of " + std::to_string(r) +
                                                 " representatives (the first: " + std::to_string(first_isolated) +
                                                 ") have no edge in the similarity graph with " + sigma +
                                                 ": exp(-d^2 / 2 sigma^2) is 0 to " + edges +
                                                 "; give a larger --sigma (or leave it out: the median-distance rule) "
                                                 "or more --neighbours");
}
}  // namespace

std::size_t eigengap_clusters(const std::vector<double>& values, std::size_t max_clusters) {
    const std::size_t last = std::min(max_clusters, values.size() > 0 ? values.size() - 1 : 0);
    if (last < 2) throw UsageError("--k auto needs at least 3 representatives");
    const auto log_gap = [&](std::size_t k) {
        return std::log(std::max(values[k], kEigenvalueFloor)) - std::log(std::max(values[k - 1], kEigenvalueFloor));
    };
    std::size_t best = 2;
    for (std::size_t k = 3; k <= last; ++k)
        if (log_gap(k) > log_gap(best)) best = k;
    return best;
}

SpectralResult spectral_cluster(std::shared_ptr<const Matrix<double>> points, const SpectralOptions& options,
                                const SpectralProgress& progress, std::stop_token stop,
                                const std::string& source_name) {
    options.validate();
    SpectralResult result;
    result.n = points->rows();
    result.d = points->cols();
    const std::size_t n = result.n;
    if (n < 2) throw InputError::whole(source_name, "spectral clustering needs at least 2 points, got " + std::to_string(n));
    const std::size_t r = options.representatives ? options.representatives
                                                  : std::min(n, SpectralOptions::kDefaultRepresentatives);
    if (r > n)
        throw UsageError("--representatives " + std::to_string(r) + " is more than the " + std::to_string(n) +
                         " points of " + source_name);
    if (r < 2) throw UsageError("--representatives must be at least 2");
    if (options.clusters > r)
        throw UsageError("--k " + std::to_string(options.clusters) + " is more than the " + std::to_string(r) +
                         " representatives (--representatives)");
    result.representatives = r;
    const auto report = [&](SpectralPhase phase) {
        if (progress) progress(phase, result);
    };

    // 1. The representatives: k-means of the points into R clusters.
    auto start = Clock::now();
    FitOptions kmeans = options.kmeans;
    kmeans.k = r;
    result.representative_fit = fit(points, kmeans, nullptr, stop, source_name);
    result.times.representatives_ms = ms_since(start);
    result.representative_sizes.assign(r, 0.0);
    for (std::int32_t label : result.representative_fit.labels)
        result.representative_sizes[static_cast<std::size_t>(label)] += 1.0;
    if (result.representative_fit.stop_reason == StopReason::Cancelled || stop.stop_requested()) {
        result.cancelled = true;
        return result;
    }
    report(SpectralPhase::Representatives);

    // 2. The similarity graph and its Laplacian.
    start = Clock::now();
    const Matrix<double>& centroids = result.representative_fit.centroids;
    result.neighbours = std::min(options.neighbours, r - 1);
    const std::size_t sigma_neighbour =
        std::min(result.neighbours ? result.neighbours : SpectralOptions::kSigmaNeighbourOfFullGraph, r - 1);
    // The graph's threads follow the representatives' back end (--backend seq: one; --threads).
    const int threads = options.kmeans.solver.backend == Backend::Sequential ? 1 : options.kmeans.solver.threads;
    const auto neighbours = nearest_neighbours(centroids, std::max(result.neighbours, sigma_neighbour), threads);
    std::vector<std::vector<std::uint32_t>> graph_neighbours;
    if (result.neighbours) {
        graph_neighbours = neighbours;
        for (auto& list : graph_neighbours) list.resize(std::min(list.size(), result.neighbours));
    }
    if (options.sigma > 0.0) {
        result.sigma = options.sigma;
        result.sigma_rule = "given (--sigma)";
    } else {
        std::vector<std::vector<std::uint32_t>> sigma_lists = neighbours;
        for (auto& list : sigma_lists) list.resize(std::min(list.size(), sigma_neighbour));
        result.sigma = median_neighbour_distance(centroids, sigma_lists);
        result.sigma_rule = "median distance of a representative to its " + std::to_string(sigma_neighbour) +
                            "th nearest representative";
        if (!(result.sigma > 0.0))
            throw InputError::whole(source_name, "the representatives coincide (median neighbour distance 0): too "
                                                 "few distinct points for " + std::to_string(r) +
                                                 " representatives; lower --representatives or give --sigma");
    }
    const Matrix<double> similarity =
        gaussian_similarity(centroids, result.sigma, result.neighbours ? &graph_neighbours : nullptr, threads);
    check_similarity_graph(similarity, result, source_name);
    const Matrix<double> laplacian = normalized_laplacian(similarity, threads);
    result.times.similarity_ms = ms_since(start);
    if (stop.stop_requested()) {
        result.cancelled = true;
        return result;
    }
    report(SpectralPhase::Similarity);

    // 3. The smallest eigenpairs: enough for k_c + 1 values (the eigengap), the
    // report's first 20, and --k auto's choice among the first 20 gaps.
    start = Clock::now();
    const std::size_t wanted = options.clusters ? std::max(options.clusters + 1, SpectralOptions::kReportedEigenvalues)
                                                : SpectralOptions::kMaxAutoClusters + 1;
    result.eigen = smallest_eigenpairs(options.kmeans.solver, laplacian, std::min(wanted, r), result.eigensolver_note);
    result.times.eigensolver_ms = ms_since(start);
    const std::vector<double>& values = result.eigen.values;
    result.clusters_chosen = options.clusters == 0;
    result.clusters = options.clusters ? options.clusters : eigengap_clusters(values, SpectralOptions::kMaxAutoClusters);
    if (result.clusters < values.size()) {
        result.eigengap = values[result.clusters] - values[result.clusters - 1];
        result.eigengap_ratio =
            std::max(values[result.clusters], kEigenvalueFloor) / std::max(values[result.clusters - 1], kEigenvalueFloor);
    } else {
        result.eigengap = result.eigengap_ratio = std::numeric_limits<double>::quiet_NaN();
    }
    if (stop.stop_requested()) {
        result.cancelled = true;
        return result;
    }
    report(SpectralPhase::Eigensolver);

    // 4. The embedding: the first k_c eigenvectors, each row scaled to unit length
    // (Ng-Jordan-Weiss); a zero row (an isolated representative) stays zero.
    start = Clock::now();
    const std::size_t kc = result.clusters;
    auto embedding = std::make_shared<Matrix<double>>(r, kc);
    for (std::size_t i = 0; i < r; ++i) {
        double norm = 0.0;
        for (std::size_t j = 0; j < kc; ++j) norm += result.eigen.vectors(i, j) * result.eigen.vectors(i, j);
        norm = std::sqrt(norm);
        for (std::size_t j = 0; j < kc; ++j)
            (*embedding)(i, j) = norm > 0.0 ? result.eigen.vectors(i, j) / norm : 0.0;
    }
    // The embedding's k-means, weighted by the points behind each representative: the
    // same objective as a k-means of all n points' embedded rows (docs/spectral.md).
    FitOptions final_options;
    final_options.k = kc;
    final_options.n_init = options.final_n_init;
    final_options.init.seed = options.kmeans.init.seed;
    // R x k_c values: too small for threads to pay, and OpenBLAS's threads may still be
    // spinning after the eigensolver (measured: 10 restarts took 1-3 s with OpenMP, ms alone).
    final_options.solver.backend = Backend::Sequential;
    if (options.weight_by_size)
        final_options.sample_weight = std::make_shared<const std::vector<double>>(result.representative_sizes);
    result.final_fit = fit(embedding, final_options, nullptr, stop, source_name + " (spectral embedding)");
    result.embedding = std::move(*embedding);
    result.representative_labels = result.final_fit.labels;
    result.times.final_kmeans_ms = ms_since(start);
    if (result.final_fit.stop_reason == StopReason::Cancelled || stop.stop_requested()) {
        result.cancelled = true;
        return result;
    }
    report(SpectralPhase::FinalKMeans);

    // 5. Each point takes its representative's label.
    start = Clock::now();
    const std::vector<std::int32_t>& of = result.representative_fit.labels;
    result.labels.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        result.labels[i] = result.representative_labels[static_cast<std::size_t>(of[i])];
    result.times.labelling_ms = ms_since(start);
    report(SpectralPhase::Labelling);
    return result;
}

}  // namespace kms
