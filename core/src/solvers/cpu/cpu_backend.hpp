#pragma once
// The CPU back ends (sequential and OpenMP): their registry entries. Each algorithm's
// file registers its solver for both (register_cpu_solver).
#include <memory>

#include "kms/algorithms.hpp"
#include "kms/backends.hpp"

namespace kms::cpu {

// Registers `info`'s algorithm and `make` as its solver on Backend::Sequential and Backend::OpenMP.
void register_cpu_solver(AlgorithmInfo info, const SolverFactory& make, SolverTraits traits = {});

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
