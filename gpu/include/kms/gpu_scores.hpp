#pragma once
// Exact silhouette on a CUDA device: the same values as kms::silhouette (CPU),
// O(n²·d) work, O(n + k) memory besides one cluster-ordered copy of the points on
// the device. Throws kms::Error with the reason when CUDA is unavailable (no CUDA
// build, no driver, no device) and "silhouette cancelled" after a stop request
// (checked between kernel launches of a few tens of milliseconds each).
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>

#include "kms/matrix.hpp"
#include "kms/scores.hpp"

namespace kms {

// Whether gpu_silhouette can run here; when not, `reason` says why.
bool gpu_silhouette_available(std::string* reason = nullptr);
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)", for benchmark records; the reason when unavailable.
std::string gpu_device_description(int device = 0);

// Distances in the data's precision (as the CPU version), sums in double.
SilhouetteResult gpu_silhouette(const Matrix<double>& points, std::span<const std::int32_t> labels,
                                std::stop_token stop = {}, int device = 0);
SilhouetteResult gpu_silhouette(const Matrix<float>& points, std::span<const std::int32_t> labels,
                                std::stop_token stop = {}, int device = 0);

}  // namespace kms
