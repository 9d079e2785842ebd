#pragma once
// One CUDA solver per algorithm (solvers/cuda_<algorithm>.cu); make_cuda_solver()
// (cuda_backend.cu) picks one.
#include <memory>

#include "kms/solver.hpp"

namespace kms::cuda {

template <typename T>
std::unique_ptr<Solver> make_lloyd_solver(const SolverConfig& config);
template <typename T>
std::unique_ptr<Solver> make_elkan_solver(const SolverConfig& config);
template <typename T>
std::unique_ptr<Solver> make_hamerly_solver(const SolverConfig& config);
template <typename T>
std::unique_ptr<Solver> make_yinyang_solver(const SolverConfig& config);
template <typename T>
std::unique_ptr<Solver> make_exponion_solver(const SolverConfig& config);

}  // namespace kms::cuda
