// Names, the stopping rule and the tolerance: shared by every back end.
#include <cmath>
#include <string>

#include "kms/error.hpp"
#include "kms/solver.hpp"

namespace kms {

namespace {
template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(std::string_view text, const std::pair<std::string_view, Enum> (&table)[N]) {
    for (const auto& [name, value] : table)
        if (name == text) return value;
    return std::nullopt;
}

constexpr std::pair<std::string_view, Algorithm> kAlgorithms[] = {
    {"lloyd", Algorithm::Lloyd}, {"elkan", Algorithm::Elkan}, {"hamerly", Algorithm::Hamerly}};
constexpr std::pair<std::string_view, Backend> kBackends[] = {{"seq", Backend::Sequential},
                                                              {"omp", Backend::OpenMP},
                                                              {"cuda-global", Backend::CudaGlobal},
                                                              {"cuda-shared", Backend::CudaShared}};
constexpr std::pair<std::string_view, Precision> kPrecisions[] = {{"f32", Precision::F32},
                                                                  {"f64", Precision::F64}};
constexpr std::pair<std::string_view, EmptyClusterPolicy> kEmptyPolicies[] = {
    {"keep", EmptyClusterPolicy::Keep}, {"farthest", EmptyClusterPolicy::Farthest}};
}  // namespace

std::string_view to_string(Algorithm value) {
    for (const auto& [name, v] : kAlgorithms)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(Backend value) {
    for (const auto& [name, v] : kBackends)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(Precision value) {
    for (const auto& [name, v] : kPrecisions)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(EmptyClusterPolicy value) {
    for (const auto& [name, v] : kEmptyPolicies)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(StopReason value) {
    switch (value) {
        case StopReason::NotStopped: return "not-stopped";
        case StopReason::NoLabelChange: return "no-label-change";
        case StopReason::Tolerance: return "tolerance";
        case StopReason::MaxIterations: return "max-iterations";
    }
    return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view text) { return parse_name(text, kAlgorithms); }
std::optional<Backend> parse_backend(std::string_view text) { return parse_name(text, kBackends); }
std::optional<Precision> parse_precision(std::string_view text) { return parse_name(text, kPrecisions); }
std::optional<EmptyClusterPolicy> parse_empty_policy(std::string_view text) {
    return parse_name(text, kEmptyPolicies);
}

std::string SolverConfig::describe() const {
    return std::string(to_string(algorithm)) + "/" + std::string(to_string(backend)) + "/" +
           std::string(to_string(precision));
}

StopReason evaluate_stop(const SolverConfig& config, const IterationStats& stats, double tol_absolute) {
    // Iteration 1 compares against "no labels yet", so every label changed.
    if (stats.iteration > 1 && stats.labels_changed == 0) return StopReason::NoLabelChange;
    if (stats.shift_sq_total <= tol_absolute) return StopReason::Tolerance;
    if (stats.iteration >= config.max_iterations) return StopReason::MaxIterations;
    return StopReason::NotStopped;
}

double absolute_tolerance(const Matrix<double>& points, double tol) {
    if (tol == 0.0 || points.rows() == 0) return 0.0;
    const std::size_t n = points.rows(), d = points.cols();
    // Two-pass variance per feature (numerically safe), averaged over features.
    double mean_variance = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        double mean = 0.0;
        for (std::size_t i = 0; i < n; ++i) mean += points(i, j);
        mean /= static_cast<double>(n);
        double variance = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double diff = points(i, j) - mean;
            variance += diff * diff;
        }
        mean_variance += variance / static_cast<double>(n);
    }
    return tol * (mean_variance / static_cast<double>(d));
}

}  // namespace kms
