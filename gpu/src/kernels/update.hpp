#pragma once
// The centroid update (kernels/update.cu), the relocation distances and the
// inertia: the same for every algorithm.
#include <cstddef>
#include <cstdint>

#include "cuda_common.hpp"

namespace kms::cuda {

// The update. Sums and counts per cluster end in double (sums k × d, counts k).
struct UpdateWorkspace {
    DeviceBuffer<double> block_partials;   // small path: grid × k·(d+1)
    DeviceBuffer<unsigned> ticket;         // small path: blocks that wrote their partial (0 between launches)
    DeviceBuffer<double> sums;             // k × d
    DeviceBuffer<long long> counts;        // k
    // General path (label sort):
    DeviceBuffer<std::int32_t> keys_sorted, index, index_sorted;
    DeviceBuffer<long long> offsets;       // k + 1
    DeviceBuffer<long long> piece_offsets; // k + 1
    DeviceBuffer<double> piece_sums;       // max pieces × d
    DeviceBuffer<unsigned char> sort_temp;
    std::size_t sort_temp_bytes = 0;
    // Weighted runs (general path only): Σ w per piece and per cluster.
    DeviceBuffer<double> piece_weights;    // max pieces
    DeviceBuffer<double> weight_sums;      // k
};

// `weighted`: the run has sample weights, which always take the general path (so
// its buffers are allocated for small (k, d) too).
// `sorted`: the label sort's buffers even for small (k, d) (the package update).
void prepare_update_workspace(UpdateWorkspace& workspace, long long n, int k, int d, const Geometry& geometry,
                              bool weighted = false, bool sorted = false);

// The general path's first step: the labels stably sorted (keys_sorted,
// index_sorted: each cluster's points in index order) and the clusters' offsets.
void launch_sort_labels(const std::int32_t* labels, long long n, int k, UpdateWorkspace& workspace,
                        cudaStream_t stream);

// The small (k, d) path of Elkan/Hamerly: block partials from the labels, in the
// fused Lloyd kernel's point order, and the whole update by the last block (Lloyd
// does both inside its assignment kernel).
template <typename T>
void launch_small_sums_update(const T* points, long long n, int d, const std::int32_t* labels, int k,
                              const T* previous, const SmallUpdate<T>& update, UpdateWorkspace& workspace,
                              const Geometry& geometry, cudaStream_t stream);

// Sums and counts from the labels, general path (k > 8 or d > 4, or weighted).
// weights (n, in T; nullptr: unweighted): the sums are Σ w·x (each product in
// double, the same fixed piece order), workspace.weight_sums Σ w per cluster, and
// a cluster whose weight is not positive gets count 0 (scikit-learn's empty cluster).
template <typename T>
void launch_accumulate(const T* points, long long n, int d, const std::int32_t* labels, int k,
                       UpdateWorkspace& workspace, cudaStream_t stream, const T* weights = nullptr);

// New centroids (into `next`, unless !recompute: then `next` is already final) from
// the sums, the Keep policy for empty clusters, per-centroid shifts (exact squared
// in double, certain upper bounds in T), and the fixed-order shift statistics.
// weighted: the sums are divided by workspace.weight_sums instead of the counts.
// deviations: the sums are of x − previous (the package update): c = T(previous + Σ / count).
template <typename T>
void launch_apply_update(const T* previous, T* next, int k, int d, UpdateWorkspace& workspace,
                         T* shift_upper, DeviceShiftStats* shift_stats, double* shift_exact, bool recompute,
                         cudaStream_t stream, bool weighted = false, bool deviations = false);

// Squared distance of every point to its labelled centroid (T arithmetic), for
// the Farthest empty-cluster policy.
template <typename T>
void launch_label_distances(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                            T* out, cudaStream_t stream);

// Σ w·||x − c(label)||² in double (w = 1 when weights is nullptr), fixed-order
// reduction, into *result.
template <typename T>
void launch_inertia(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                    double* block_scratch, double* result, const Geometry& geometry, cudaStream_t stream,
                    const double* weights = nullptr);

}  // namespace kms::cuda
