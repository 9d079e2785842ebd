#pragma once
// Entry points of the CUDA back end, implemented in the .cu files.
#include <memory>

#include "kms/backends.hpp"

namespace kms {
BackendAvailability cuda_availability();
std::unique_ptr<Solver> make_cuda_solver(const SolverConfig& config);
// Devices the driver shows (0 without a driver).
int cuda_device_count();
// The `count` smallest eigenpairs of a dense symmetric matrix by cuSOLVER's syevd (eigen_cusolver.cu).
EigenPairs cuda_smallest_eigenpairs(const Matrix<double>& matrix, std::size_t count, int device);
}  // namespace kms
