// Points streamed from page-locked host memory (cuda_solver_base.hpp): whether they
// must be, and the chunks they go in; the loop over the chunks is cuda_chunks.hpp.
#include <algorithm>
#include <cstdio>
#include <string>

#include "kms/error.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

namespace {
std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

// Device bytes a run keeps per point besides its coordinates, at most: the label,
// the point status, and the update's sort (sorted keys, index, sorted index,
// segment flags and their scan).
constexpr double kStatePerPoint = 4 + 1 + 20;
// Streamed: what stays on the device per point (label, status).
constexpr double kStreamedStatePerPoint = 4 + 1;
}  // namespace

// Whether the points fit on the device beside what a run keeps per point (at most);
// if not, or when asked (--stream-chunk), Lloyd streams them from host memory and
// the other solvers refuse, naming the sizes.
template <typename T>
void CudaSolverBase<T>::decide_streaming() {
    streamed_ = false;
    std::size_t free_bytes = 0, total_bytes = 0;
    KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double rows = static_cast<double>(n_), usable = 0.9 * static_cast<double>(free_bytes);
    const double point_bytes = rows * d_ * sizeof(T), state_bytes = rows * kStatePerPoint;
    const std::string device = "CUDA device " + std::to_string(config_.cuda_device);
    if (config_.stream_chunk == 0) {
        if (point_bytes + state_bytes <= usable) return;
        if (!streams_points())
            throw Error("the " + std::to_string(n_) + " points need " + gib(point_bytes) + " of device memory (" +
                        gib(point_bytes + state_bytes) + " with the run's per-point state) and " + device + " has " +
                        gib(static_cast<double>(free_bytes)) + " free; only Lloyd streams its points from host "
                        "memory (--stream-chunk): use --solver lloyd, --precision f32, or spread the rows over "
                        "several devices (--devices) or MPI ranks");
    }
    if (rows * kStreamedStatePerPoint > usable)
        throw Error("even streamed, the labels of " + std::to_string(n_) + " points need " +
                    gib(rows * kStreamedStatePerPoint) + " of device memory and " + device + " has " +
                    gib(static_cast<double>(free_bytes)) + " free: spread the rows over several devices (--devices) "
                    "or MPI ranks");
    streamed_ = true;
}

// The block's chunks: one (the block) unless streamed; streamed, chunks of whole
// packages, --stream-chunk rows rounded up, or (automatic) as large as a quarter
// of the free device memory allows for two buffers and a chunk's update.
template <typename T>
void CudaSolverBase<T>::plan_chunks(const PackageLayout& layout) {
    chunk_buffers_[0].release();
    chunk_buffers_[1].release();
    const long long package_size = static_cast<long long>(layout.package_size);
    long long rows = std::max<long long>(n_, 1);
    if (streamed_) {
        long long asked = config_.stream_chunk;
        if (asked == 0) {
            std::size_t free_bytes = 0, total_bytes = 0;
            KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
            const double per_row = 2.0 * d_ * sizeof(T) + kStatePerPoint;
            asked = static_cast<long long>(0.25 * static_cast<double>(free_bytes) / per_row);
        }
        rows = std::min(rows, std::max<long long>(1, (asked + package_size - 1) / package_size) * package_size);
    }
    chunk_rows_ = std::min(rows, n_);
    chunks_.clear();
    cover_.clear();
    const long long packages = static_cast<long long>(layout.packages);
    for (long long first = 0; first == 0 || first < n_; first += rows) {
        Chunk chunk;
        chunk.first = first;
        chunk.rows = std::min(rows, n_ - first);
        PackageGeometry& g = chunk.geometry;
        g.first_row = first_row_ + first;
        g.package_size = package_size;
        g.package_begin = std::min(packages, g.first_row / package_size);
        g.package_end = std::min(packages, (g.first_row + chunk.rows + package_size - 1) / package_size);
        const auto begin = static_cast<std::size_t>(g.package_begin), end = static_cast<std::size_t>(g.package_end);
        const std::vector<PackageSpan> cover = package_tree_cover(layout.packages, begin, end);
        chunk.cover_begin = cover_.size();
        cover_.insert(cover_.end(), cover.begin(), cover.end());
        chunk.cover_end = cover_.size();
        chunk.levels = package_tree_local_levels(layout.packages, begin, end);
        chunks_.push_back(std::move(chunk));
    }
    if (streamed_ && chunk_rows_ > 0)
        for (DeviceBuffer<T>& buffer : chunk_buffers_)
            buffer.allocate(static_cast<std::size_t>(chunk_rows_) * d_, "a streamed chunk of the points");
}

template <typename T>
void CudaSolverBase<T>::set_view(const Chunk& chunk, const T* chunk_points) const {
    view_points_ = chunk_points;
    view_rows_ = chunk.rows;
    view_first_ = chunk.first;
}


// This file's members of the two solvers (the class is instantiated in cuda_solver_base.cu).
template void CudaSolverBase<float>::decide_streaming();
template void CudaSolverBase<float>::plan_chunks(const PackageLayout&);
template void CudaSolverBase<float>::set_view(const Chunk&, const float*) const;
template void CudaSolverBase<double>::decide_streaming();
template void CudaSolverBase<double>::plan_chunks(const PackageLayout&);
template void CudaSolverBase<double>::set_view(const Chunk&, const double*) const;

}  // namespace kms::cuda
