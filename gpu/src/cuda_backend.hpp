#pragma once
// Entry points of the CUDA back end, implemented in the .cu files.
#include <memory>

#include "kms/backends.hpp"

namespace kms {
BackendAvailability cuda_availability();
std::unique_ptr<Solver> make_cuda_solver(const SolverConfig& config);
}  // namespace kms
