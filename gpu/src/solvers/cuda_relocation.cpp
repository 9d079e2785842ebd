// Empty clusters (cuda_solver_base.hpp): scikit-learn's relocation, as the CPU solver
// does it, alone or from the package update's root over every rank's rows.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kms/error.hpp"
#include "kms/solver_support.hpp"
#include "solvers/cuda_chunks.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

// Both relocations' inputs: each point's squared distance to its (previous) centroid
// and its label, copies to the host queued on the stream (the returned buffer must
// live until the stream is synchronised).
template <typename T>
DeviceBuffer<T> CudaSolverBase<T>::queue_relocation_inputs(std::vector<T>& distance, std::vector<std::int32_t>& label) {
    const std::size_t n = static_cast<std::size_t>(n_);
    DeviceBuffer<T> distances;
    distance.resize(n);
    label.resize(n);
    if (streamed_) {  // chunk by chunk into the host vector (the copy to pageable memory waits)
        distances.allocate(static_cast<std::size_t>(chunk_rows_), "the relocation distances");
        for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
            launch_label_distances<T>(chunk_points, chunk.rows, d_, current(), labels_.get() + chunk.first,
                                      distances.get(), stream_);
            KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data() + chunk.first, distances.get(), chunk.rows * sizeof(T),
                                           cudaMemcpyDeviceToHost, stream_));
        });
    } else {
        distances.allocate(n, "the relocation distances");
        launch_label_distances<T>(points(), n_, d_, current(), labels_.get(), distances.get(), stream_);
        KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data(), distances.get(), n * sizeof(T), cudaMemcpyDeviceToHost,
                                       stream_));
    }
    KMS_CUDA_CHECK(cudaMemcpyAsync(label.data(), labels_.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_));
    return distances;
}

// The CPU's relocation (solver_support.hpp) over every rank's rows, from the
// package update's root on the host.
template <typename T>
std::uint64_t CudaSolverBase<T>::relocate_empty_by_packages() {
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_),
                      d = static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    std::vector<T> distance, previous(k * d), next_rows(k * d);
    std::vector<std::int32_t> label;
    DeviceBuffer<T> distances = queue_relocation_inputs(distance, label);
    KMS_CUDA_CHECK(cudaMemcpyAsync(previous.data(), current(), previous.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(next_rows.data(), next(), next_rows.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<std::size_t> empty_ids =
        with_weights ? empty_clusters<double>(root_weights_) : empty_clusters<std::int64_t>(root_counts_);
    first_empty_count_ = static_cast<int>(empty_ids.size());
    // The weights as the update used them (in T).
    std::vector<T> weights;
    if (with_weights) weights.assign(weight_source_->begin(), weight_source_->end());
    const std::vector<RelocationMover<T>> movers = farthest_movers<T, double>(
        distance, label, source_->data(), d, with_weights ? weights.data() : nullptr, empty_ids.size(),
        static_cast<std::size_t>(first_row_), partition_.comm.get());
    relocate_to_movers<T>(empty_ids, movers, d, previous.data(), next_rows.data(), root_sums_, root_counts_,
                          with_weights ? root_weights_ : std::vector<double>());
    upload_relocated(next_rows);
    return static_cast<std::uint64_t>(n);
}

// scikit-learn's relocation, as the CPU solver does it: each empty cluster takes
// one of the points farthest from their previous centroid (largest first,
// lowest index on ties), which leaves its own cluster's sum. Weighted runs: the
// empty clusters are those of no positive weight (their count is 0 on the device)
// and the moved point takes its weight along. Rare: done on the host with a few
// copies. Returns the distance evaluations spent (n).
template <typename T>
std::uint64_t CudaSolverBase<T>::relocate_empty() {
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_),
                      d = static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    std::vector<T> distance;
    std::vector<std::int32_t> label;
    DeviceBuffer<T> distances = queue_relocation_inputs(distance, label);
    std::vector<double> sums(k * d);
    std::vector<long long> counts(k);
    std::vector<double> cluster_weight(with_weights ? k : 0);
    std::vector<T> next_rows(k * d);
    KMS_CUDA_CHECK(cudaMemcpyAsync(sums.data(), workspace_.sums.get(), sums.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(counts.data(), workspace_.counts.get(), k * sizeof(long long),
                                   cudaMemcpyDeviceToHost, stream_));
    if (with_weights)
        KMS_CUDA_CHECK(cudaMemcpyAsync(cluster_weight.data(), workspace_.weight_sums.get(), k * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(next_rows.data(), next(), next_rows.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<std::size_t> empty_ids = empty_clusters<long long>(counts);
    first_empty_count_ = static_cast<int>(empty_ids.size());
    const std::vector<std::size_t> order = farthest_points<T>(distance, empty_ids.size());
    const std::size_t take = order.size();
    std::vector<T> x(d);
    for (std::size_t e = 0; e < take; ++e) {
        const std::size_t far = order[e], target = empty_ids[e];
        const std::size_t from = static_cast<std::size_t>(label[far]);
        KMS_CUDA_CHECK(cudaMemcpy(x.data(), points() + far * d, d * sizeof(T), cudaMemcpyDeviceToHost));
        // The weight as the update used it (in T).
        const double w = with_weights ? static_cast<double>(static_cast<T>((*weight_source_)[far])) : 1.0;
        for (std::size_t t = 0; t < d; ++t) {
            if (with_weights) {
                sums[from * d + t] -= w * static_cast<double>(x[t]);
                sums[target * d + t] = w * static_cast<double>(x[t]);
            } else {
                sums[from * d + t] -= static_cast<double>(x[t]);
                sums[target * d + t] = static_cast<double>(x[t]);
            }
            next_rows[target * d + t] = x[t];
        }
        counts[target] = 1;
        bool from_left = --counts[from] > 0;
        if (with_weights) {
            cluster_weight[target] = w;
            cluster_weight[from] -= w;
            from_left = cluster_weight[from] > 0.0;
        }
        if (from_left) {
            const double divisor = with_weights ? cluster_weight[from] : static_cast<double>(counts[from]);
            for (std::size_t t = 0; t < d; ++t)
                next_rows[from * d + t] = static_cast<T>(sums[from * d + t] / divisor);
        }
    }
    upload_relocated(next_rows);
    return static_cast<std::uint64_t>(n);
}

// Both relocations' end: the new centroids to the device and the shifts of the
// relocated ones (the counts on the device still say which were empty).
template <typename T>
void CudaSolverBase<T>::upload_relocated(const std::vector<T>& next_rows) {
    KMS_CUDA_CHECK(cudaMemcpyAsync(next(), next_rows.data(), next_rows.size() * sizeof(T), cudaMemcpyHostToDevice,
                                   stream_));
    launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                           shift_exact_.get(), false, stream_);
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host vectors must outlive the copy
}

// This file's members of the two solvers (the class is instantiated in cuda_solver_base.cu).
template DeviceBuffer<float> CudaSolverBase<float>::queue_relocation_inputs(std::vector<float>&, std::vector<std::int32_t>&);
template std::uint64_t CudaSolverBase<float>::relocate_empty_by_packages();
template std::uint64_t CudaSolverBase<float>::relocate_empty();
template void CudaSolverBase<float>::upload_relocated(const std::vector<float>&);
template DeviceBuffer<double> CudaSolverBase<double>::queue_relocation_inputs(std::vector<double>&, std::vector<std::int32_t>&);
template std::uint64_t CudaSolverBase<double>::relocate_empty_by_packages();
template std::uint64_t CudaSolverBase<double>::relocate_empty();
template void CudaSolverBase<double>::upload_relocated(const std::vector<double>&);

}  // namespace kms::cuda
