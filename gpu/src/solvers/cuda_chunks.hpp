#pragma once
// The loop over a block's chunks (cuda_solver_base.hpp): for the files that run one.
// Streamed, each chunk's copy from host memory overlaps the previous chunk's kernels.
#include "kms/row_source.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

template <typename T>
template <typename Body>
void CudaSolverBase<T>::for_each_chunk(Body&& body) const {
    if (!streamed_) {
        for (const Chunk& chunk : chunks_) body(chunk, points_data_ + chunk.first * d_);
        return;
    }
    const T* host = static_cast<const T*>(host_points_.get());
    // Chunk c goes to buffer c % 2 once the kernels of chunk c − 2 (the buffer's last
    // reader) are done; the kernels of chunk c wait for its copy. Out of core, chunk c is
    // first read from the file into staging_[c % 2], once that buffer's last copy (chunk
    // c − 2's) is done: the host reads chunk c + 1 while the device works on chunk c.
    const auto upload = [&](std::size_t c) {
        const Chunk& chunk = chunks_[c];
        const std::size_t b = c % 2;
        const T* from = nullptr;
        if (!row_source_) {
            from = host + chunk.first * d_;
        } else if (chunk.rows > 0) {
            KMS_CUDA_CHECK(cudaEventSynchronize(uploaded_[b]->get()));
            T* staging = static_cast<T*>(staging_[b].get());
            row_source_->read(row_source_first_ + static_cast<std::size_t>(chunk.first),
                              static_cast<std::size_t>(chunk.rows), staging);
            from = staging;
        }
        KMS_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, released_[b]->get(), 0));
        if (chunk.rows > 0)
            KMS_CUDA_CHECK(cudaMemcpyAsync(chunk_buffers_[b].get(), from,
                                           static_cast<std::size_t>(chunk.rows) * d_ * sizeof(T),
                                           cudaMemcpyHostToDevice, copy_stream_));
        KMS_CUDA_CHECK(cudaEventRecord(uploaded_[b]->get(), copy_stream_));
    };
    upload(0);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
        if (c + 1 < chunks_.size()) upload(c + 1);
        const std::size_t b = c % 2;
        KMS_CUDA_CHECK(cudaStreamWaitEvent(stream_, uploaded_[b]->get(), 0));
        body(chunks_[c], static_cast<const T*>(chunk_buffers_[b].get()));
        KMS_CUDA_CHECK(cudaEventRecord(released_[b]->get(), stream_));
    }
}

}  // namespace kms::cuda
