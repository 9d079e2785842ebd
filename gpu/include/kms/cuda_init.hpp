#pragma once
// Initial centroids on the GPU, bit-identical to kms::initialize_centroids() for the
// same data, k and options (same counter-based random numbers, same blocked
// summation order, same tie rules; see core/src/init.cpp).
#include <cstddef>
#include <string>

#include "kms/device_matrix.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"

namespace kms {

// k-means++ and maximin run on the GPU (device `device`); random, greedy k-means++
// and file initialisation are delegated to the CPU initialiser. Throws what the CPU
// initialiser throws for bad k or data, and kms::Error when CUDA is unavailable.
Matrix<double> cuda_initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                         const std::string& source_name = "data", int device = 0);

// The same from points in device memory: k-means++ and maximin (unweighted) on
// the device from the data in place (float data widened to double on the
// device); centroids given (InitMethod::File) checked against the data's shape;
// random, greedy k-means++ and weighted seeding, which have no GPU kernels, on the
// CPU from a host copy of the points made for the seeding only.
Matrix<double> cuda_initialize_centroids(const DeviceMatrix& points, std::size_t k, const InitOptions& options,
                                         const std::string& source_name = "data", int device = 0);

}  // namespace kms
