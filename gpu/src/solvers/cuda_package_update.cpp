// The CPU's update on the device (cuda_solver_base.hpp, kernels/package_update.hpp):
// package sums, their tree's cover across chunks and ranks, and the packages' inertia.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kms/error.hpp"
#include "solvers/cuda_chunks.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

// The CPU's update (kernels/package_update.hpp): each chunk's packages summed and
// combined as far as they go alone, their tree's cover to the host; every rank's
// covers combined in the tree's order (finish_package_tree), the root back to the
// device, then c = T(old + Σ / count).
template <typename T>
void CudaSolverBase<T>::begin_package_update() {
    if (root_on_device()) return;  // no covers go to the host
    const std::size_t k = static_cast<std::size_t>(k_), width = k * d_ + (weighted() ? k : 0);
    const std::size_t bytes = std::max<std::size_t>(1, cover_.size() * width) * sizeof(double);
    if (bytes > cover_capacity_) {
        cover_values_.allocate(bytes, "the package covers' sums");
        cover_counts_.allocate(bytes, "the package covers' counts");  // k ≤ width values of 8 bytes
        cover_capacity_ = bytes;
    }
}

template <typename T>
void CudaSolverBase<T>::queue_chunk_sums(const Chunk& chunk, const T* chunk_points) {
    const PackageGeometry& g = chunk.geometry;
    const std::size_t k = static_cast<std::size_t>(k_), kd = k * static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    launch_package_sums<T>(chunk_points, chunk.rows, d_, labels_.get() + chunk.first, current(), k_,
                           with_weights ? update_weights() + chunk.first : nullptr, workspace_, package_workspace_, g,
                           stream_);
    launch_package_tree(package_workspace_, k_, d_, with_weights, chunk.levels, g.package_begin, g.package_end,
                        stream_);
    const std::size_t width = kd + (with_weights ? k : 0);  // doubles per cover node
    static_assert(sizeof(long long) == sizeof(std::int64_t));
    if (root_on_device()) return;
    double* values = static_cast<double*>(cover_values_.get());
    std::int64_t* counts = static_cast<std::int64_t*>(cover_counts_.get());
    for (std::size_t i = chunk.cover_begin; i < chunk.cover_end; ++i) {
        const std::size_t local = cover_[i].first - static_cast<std::size_t>(g.package_begin);
        KMS_CUDA_CHECK(cudaMemcpyAsync(values + i * width,
                                       package_workspace_.package_sums.get() + local * kd, kd * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
        if (with_weights)
            KMS_CUDA_CHECK(cudaMemcpyAsync(values + i * width + kd,
                                           package_workspace_.package_weights.get() + local * k, k * sizeof(double),
                                           cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(counts + i * k, package_workspace_.package_counts.get() + local * k,
                                       k * sizeof(long long), cudaMemcpyDeviceToHost, stream_));
    }
}

template <typename T>
void CudaSolverBase<T>::finish_package_update() {
    const std::size_t k = static_cast<std::size_t>(k_), kd = k * static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    const std::size_t width = kd + (with_weights ? k : 0);
    if (root_on_device()) {
        // One chunk of every package: its tree levels left the root in package 0.
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.sums.get(), package_workspace_.package_sums.get(),
                                       kd * sizeof(double), cudaMemcpyDeviceToDevice, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.counts.get(), package_workspace_.package_counts.get(),
                                       k * sizeof(long long), cudaMemcpyDeviceToDevice, stream_));
        launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                               shift_exact_.get(), true, stream_, false, true);
        return;
    }
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::span<const double> values(static_cast<const double*>(cover_values_.get()), cover_.size() * width);
    const std::span<const std::int64_t> counts(static_cast<const std::int64_t*>(cover_counts_.get()), cover_.size() * k);
    std::vector<double> all_values;
    std::vector<std::int64_t> all_counts;
    if (partition_.comm) {
        all_values = partition_.comm->allgather(values);
        all_counts = partition_.comm->allgather(counts);
    } else {
        all_values.assign(values.begin(), values.end());
        all_counts.assign(counts.begin(), counts.end());
    }
    if (all_values.size() != all_covers_.size() * width || all_counts.size() != all_covers_.size() * k)
        throw Error("the ranks' package sums do not match their covers");
    finish_package_tree(packages_, all_covers_, [&](std::size_t dst, std::size_t src) {
        for (std::size_t e = 0; e < width; ++e) all_values[dst * width + e] += all_values[src * width + e];
        for (std::size_t c = 0; c < k; ++c) all_counts[dst * k + c] += all_counts[src * k + c];
    });
    root_sums_.assign(all_values.begin(), all_values.begin() + static_cast<std::ptrdiff_t>(kd));
    root_weights_.assign(all_values.begin() + static_cast<std::ptrdiff_t>(kd),
                         all_values.begin() + static_cast<std::ptrdiff_t>(width));
    root_counts_.assign(all_counts.begin(), all_counts.begin() + static_cast<std::ptrdiff_t>(k));
    // The update's counts: a cluster of no positive weight is empty (scikit-learn's rule).
    upload_counts_.resize(k);
    for (std::size_t c = 0; c < k; ++c)
        upload_counts_[c] = with_weights && !(root_weights_[c] > 0.0) ? 0 : root_counts_[c];
    KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.sums.get(), root_sums_.data(), kd * sizeof(double),
                                   cudaMemcpyHostToDevice, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.counts.get(), upload_counts_.data(), k * sizeof(long long),
                                   cudaMemcpyHostToDevice, stream_));
    if (with_weights)
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.weight_sums.get(), root_weights_.data(), k * sizeof(double),
                                       cudaMemcpyHostToDevice, stream_));
    launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                           shift_exact_.get(), true, stream_, with_weights, true);
}

// Each package's inertia on the device (chunk by chunk), then every rank's packages
// in order on the host.
template <typename T>
double CudaSolverBase<T>::package_inertia() const {
    std::vector<double> mine(static_cast<std::size_t>(package_geometry_.local_packages()));
    for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
        launch_package_inertia<T>(chunk_points, chunk.rows, d_, current(), labels_.get() + chunk.first,
                                  weights_ ? weights_.get() + chunk.first : nullptr, package_workspace_,
                                  chunk.geometry, stream_);
        KMS_CUDA_CHECK(cudaMemcpyAsync(mine.data() + (chunk.geometry.package_begin - package_geometry_.package_begin),
                                       package_workspace_.package_inertia.get(),
                                       chunk.geometry.local_packages() * sizeof(double), cudaMemcpyDeviceToHost,
                                       stream_));
    });
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<double> all =
        partition_.comm ? partition_.comm->allgather(std::span<const double>(mine)) : mine;
    double total = 0.0;
    for (double value : all) total += value;
    return total;
}

// This file's members of the two solvers (the class is instantiated in cuda_solver_base.cu).
template void CudaSolverBase<float>::begin_package_update();
template void CudaSolverBase<float>::queue_chunk_sums(const Chunk&, const float*);
template void CudaSolverBase<float>::finish_package_update();
template double CudaSolverBase<float>::package_inertia() const;
template void CudaSolverBase<double>::begin_package_update();
template void CudaSolverBase<double>::queue_chunk_sums(const Chunk&, const double*);
template void CudaSolverBase<double>::finish_package_update();
template double CudaSolverBase<double>::package_inertia() const;

}  // namespace kms::cuda
