#pragma once
// The CUDA back end's eigensolver for spectral clustering (eigen_cusolver.cu).
#include <cstddef>

#include "kms/eigen.hpp"
#include "kms/matrix.hpp"

namespace kms {
// The `count` smallest eigenpairs of a dense symmetric matrix by cuSOLVER's syevd.
EigenPairs cuda_smallest_eigenpairs(const Matrix<double>& matrix, std::size_t count, int device);
}  // namespace kms
