// Points streamed from page-locked host memory (cuda_solver_base.hpp): whether they
// must be, and the chunks they go in; the loop over the chunks is cuda_chunks.hpp.
#include <algorithm>
#include <cstdio>
#include <string>

#include "kms/algorithms.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"
#include "kms/solver_support.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

namespace {
std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

// The solvers that stream on a CUDA device, by the registry: "lloyd, hamerly, ...".
std::string streaming_solvers() {
    std::string names;
    for (const AlgorithmInfo& info : registered_algorithms())
        if (solver_traits(info.algorithm, Backend::Cuda).streams_points)
            names += (names.empty() ? "" : ", ") + std::string(to_string(info.algorithm));
    return names;
}

// Device bytes a run keeps per point besides its coordinates, at most: the label,
// the point status, and the update's sort (sorted keys, index, sorted index,
// segment flags and their scan).
constexpr double kStatePerPoint = 4 + 1 + 20;
}  // namespace

template <typename T>
bool CudaSolverBase<T>::streams_points() const {
    return solver_traits(config_.algorithm, Backend::Cuda).streams_points;
}

// Whether the points fit on the device beside what a run keeps per point (at most);
// if not, or when asked (--stream-chunk), the solvers that stream (Lloyd and the
// bounded ones but Elkan) read them from host memory, the others refuse, naming the sizes.
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
                        gib(static_cast<double>(free_bytes)) + " free; the points stream from host memory "
                        "(--stream-chunk) with --solver " + streaming_solvers() + "; use one of those, "
                        "--precision f32, or spread the rows over several devices (--devices) or MPI ranks");
    }
    if (rows * streamed_state_per_point() > usable)
        throw Error("even streamed, the labels (and bounds) of " + std::to_string(n_) + " points need " +
                    gib(rows * streamed_state_per_point()) + " of device memory and " + device + " has " +
                    gib(static_cast<double>(free_bytes)) + " free: spread the rows over several devices (--devices) "
                    "or MPI ranks");
    streamed_ = true;
}

template <typename T>
void CudaSolverBase<T>::prepare_streams() {
    if (!copy_stream_) KMS_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    for (int b = 0; b < 2; ++b) {
        if (!uploaded_[b]) uploaded_[b] = std::make_unique<Event>(config_.cuda_device);
        if (!released_[b]) released_[b] = std::make_unique<Event>(config_.cuda_device);
    }
}

// Out of core: the solver streams from the file itself. The set-up passes (the values'
// check, the tolerance's two passes, the range) read blocks of the buffers' size; the
// steps read chunk by chunk into two page-locked buffers (cuda_chunks.hpp).
template <typename T>
void CudaSolverBase<T>::set_row_source(std::shared_ptr<const RowSource> source, std::size_t first_row,
                                       std::size_t rows, std::size_t buffer_bytes) {
    if (!source) throw Error("the data set is empty");
    if (!streams_points())
        throw UsageError("out of core (the points read from the file a block at a time) on a CUDA device runs --solver " +
                         streaming_solvers() + ", not " + std::string(to_string(config_.algorithm)));
    if (config_.empty_policy == EmptyClusterPolicy::Farthest)
        throw UsageError("out of core: --empty farthest reads every point's distance at once to relocate an "
                         "empty cluster; use --empty keep");
    if (partition_.comm)
        throw UsageError("out of core on a CUDA device runs in one process (the CPU back ends read the file over "
                         "MPI ranks)");
    if (first_row != 0 || rows != source->rows())
        throw Error("one process reads every row of " + source->name() + ", not " + std::to_string(rows));
    if (rows > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("the CUDA back end takes at most 2^31 - 1 points; " + source->name() + " has " +
                    std::to_string(rows));
    activate();
    forget_data();
    n_ = static_cast<long long>(rows);
    d_ = static_cast<int>(source->cols());
    first_row_ = 0;
    global_n_ = n_;
    const std::size_t row_bytes = std::max<std::size_t>(1, static_cast<std::size_t>(d_) * sizeof(double));
    const std::size_t scan_rows = std::max<std::size_t>(4096, buffer_bytes / 2 / row_bytes);
    if (n_ > 0) check_solver_data(*source, 0, rows, config_.precision, true, scan_rows);
    else if (d_ == 0) throw Error("the data set is empty");
    tol_absolute_ = absolute_tolerance(*source, 0, rows, config_.tol, nullptr, scan_rows);
    data_low_.assign(d_, std::numeric_limits<double>::infinity());
    data_high_.assign(d_, -std::numeric_limits<double>::infinity());
    data_sum_.assign(d_, 0.0);
    std::vector<double> block;
    for (std::size_t first = 0; first < rows; first += scan_rows) {
        const std::size_t count = std::min(scan_rows, rows - first);
        block.resize(count * static_cast<std::size_t>(d_));
        source->read(first, count, block.data());
        for (std::size_t i = 0; i < count; ++i)
            for (int j = 0; j < d_; ++j) {
                const double v = block[i * static_cast<std::size_t>(d_) + static_cast<std::size_t>(j)];
                data_low_[j] = std::min(data_low_[j], v);
                data_high_[j] = std::max(data_high_[j], v);
                data_sum_[j] += v;
            }
    }
    row_source_ = std::move(source);
    row_source_first_ = first_row;
    row_source_bytes_ = buffer_bytes;
    streamed_ = true;
    prepare_streams();
    points_.release();
    points_data_ = nullptr;
    set_grid();
    prepare_data();
    clear_run();
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
        if (row_source_) {  // out of core: both page-locked buffers within the memory the run was given
            const long long fit = static_cast<long long>(row_source_bytes_ / (2 * static_cast<std::size_t>(d_) * sizeof(T)));
            rows = std::min(rows, std::max<long long>(1, fit / package_size) * package_size);
        }
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
        g.packages = packages;
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
    if (row_source_ && chunk_rows_ > 0)
        for (PinnedHostMemory& buffer : staging_)
            buffer.allocate(static_cast<std::size_t>(chunk_rows_) * d_ * sizeof(T), "a chunk read from the file");
}

template <typename T>
void CudaSolverBase<T>::set_view(const Chunk& chunk, const T* chunk_points) const {
    view_points_ = chunk_points;
    view_rows_ = chunk.rows;
    view_first_ = chunk.first;
}


// This file's members of the two solvers (the class is instantiated in cuda_solver_base.cu).
template bool CudaSolverBase<float>::streams_points() const;
template void CudaSolverBase<float>::prepare_streams();
template void CudaSolverBase<float>::set_row_source(std::shared_ptr<const RowSource>, std::size_t, std::size_t, std::size_t);
template void CudaSolverBase<float>::decide_streaming();
template void CudaSolverBase<float>::plan_chunks(const PackageLayout&);
template void CudaSolverBase<float>::set_view(const Chunk&, const float*) const;
template bool CudaSolverBase<double>::streams_points() const;
template void CudaSolverBase<double>::prepare_streams();
template void CudaSolverBase<double>::set_row_source(std::shared_ptr<const RowSource>, std::size_t, std::size_t, std::size_t);
template void CudaSolverBase<double>::decide_streaming();
template void CudaSolverBase<double>::plan_chunks(const PackageLayout&);
template void CudaSolverBase<double>::set_view(const Chunk&, const double*) const;

}  // namespace kms::cuda
