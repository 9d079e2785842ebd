#pragma once
// Interface between the silhouette shim (scores/scores_gpu.cpp, C++20) and its kernels
// (scores_silhouette.cu, compiled by nvcc in its default dialect): plain types only.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kms::detail {

// Empty when a device can run the kernels, else the reason.
std::string cuda_silhouette_unavailable_reason(int device);
std::string cuda_device_description(int device);

// Points ordered by cluster: cluster c's rows are [cluster_start[c], cluster_start[c+1]),
// row r's cluster is codes[r]. For every row: intra_sum = Σ distances to its own
// cluster, nearest_mean = min over other clusters of the mean distance.
// should_stop(context) is polled between launches; true aborts (returns false).
// Throws kms::Error on CUDA errors.
template <typename T>
bool cuda_silhouette_sums(const T* sorted_points, std::size_t n, std::size_t d, const std::int32_t* codes,
                          const std::uint64_t* cluster_start, std::size_t k, int device,
                          bool (*should_stop)(void*), void* context, double* intra_sum, double* nearest_mean);

}  // namespace kms::detail
