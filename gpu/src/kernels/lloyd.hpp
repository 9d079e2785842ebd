#pragma once
// Lloyd's assignment (kernels/lloyd.cu): every point against every centroid, with
// the small-path update fused in for small (k, d). The int8 filter for large d and
// k is kernels/lloyd_gemm.hpp.
#include <cstdint>

#include "cuda_common.hpp"

namespace kms::cuda {

template <typename T>
struct LloydArgs : AssignArgs<T> {
    double* block_partials;      // non-null: fuse the small-path accumulation
    SmallUpdate<T> update;       // with block_partials: also the whole update (last block)
};

// Lloyd assignment (labels, changed count, distance count); with
// args.block_partials set it also writes the small-path block partial sums.
template <typename T>
void launch_lloyd(const LloydArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);

// Lloyd assignment for k ≤ kSmallKMax without the fused small-path sums
// (kernels/lloyd_small_k.cu): each point read once, through shared memory. Returns
// false, launching nothing, where the device's shared memory is too small for it.
constexpr int kSmallKMax = 32;
template <typename T>
bool launch_lloyd_small_k(const LloydArgs<T>& args, const Geometry& geometry, cudaStream_t stream);

}  // namespace kms::cuda
