#pragma once
// The CPU back ends (sequential and OpenMP): one factory per algorithm, each in
// its algorithm's file, and the registry entries that list them.
#include <memory>

#include "kms/backends.hpp"

namespace kms::cpu {

std::unique_ptr<Solver> make_lloyd(const SolverConfig& config);    // lloyd.cpp
std::unique_ptr<Solver> make_elkan(const SolverConfig& config);    // elkan.cpp
std::unique_ptr<Solver> make_hamerly(const SolverConfig& config);  // hamerly.cpp
std::unique_ptr<Solver> make_yinyang(const SolverConfig& config);  // yinyang.cpp
std::unique_ptr<Solver> make_exponion(const SolverConfig& config); // exponion.cpp

// The registry entry of Backend::Sequential or Backend::OpenMP.
BackendEntry backend_entry(Backend backend);

}  // namespace kms::cpu

namespace kms::cpu {
// Each point's nearest centroid (Lloyd's full search, the solvers' kernel) and
// the inertia (Σ w·distance when `weights`, n of them, are given); any k, also
// k > n. Sequential when threads == 1.
std::vector<std::int32_t> assign_labels(const Matrix<double>& points, const Matrix<double>& centroids,
                                        Precision precision, int threads, double& inertia,
                                        const double* weights = nullptr);
std::vector<std::int32_t> assign_labels(const Matrix<float>& points, const Matrix<double>& centroids,
                                        Precision precision, int threads, double& inertia,
                                        const double* weights = nullptr);
}  // namespace kms::cpu
