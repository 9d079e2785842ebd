#pragma once
// The CPU's centroid update on the device (cpu_solver.hpp, kms/communicator.hpp):
// rows in packages of the CPU's layout, each package the sum of its 256-row
// sub-packages, a sub-package's sum per cluster taken in T over its points in
// index order as deviations from the old centroid, widened and added to the
// package's double sum in sub-package order; packages added in the fixed pairwise
// tree; then c = T(old + Σ / count). The same bits as the CPU solvers, and the
// same whatever the split of the rows over devices or ranks (each holds whole
// packages). Four ways to the package sums (unsorted_package_sums() below): the
// direct, rounds and rows paths read the rows in order; the sorted path (weighted,
// or many clusters past the rounds path's d) sorts the labels stably
// (launch_sort_labels, update.hpp), so each cluster's rows in a package are a run
// of sorted positions, and one thread per (package, cluster, coordinate) walks
// them in order (few clusters: per sub-package, then the sub-packages folded).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_common.hpp"
#include "kernels/update.hpp"
#include "kms/communicator.hpp"

namespace kms::cuda {

// This block's rows within the whole data set's packages.
struct PackageGeometry {
    long long first_row = 0;       // the block's first row (global)
    long long package_size = 1;    // rows per package (a multiple of 256)
    long long package_begin = 0;   // the block's packages: [package_begin, package_end)
    long long package_end = 1;
    long long packages = 1;        // the data set's: the tree's
    __host__ __device__ long long local_packages() const { return package_end - package_begin; }
};

struct PackageWorkspace {
    DeviceBuffer<int> sub_counts;              // sub-packages × k: the direct path's, or the sub-package walks'
    DeviceBuffer<unsigned char> sub_sums;      // sub-packages × k × d: in T (direct path) or double (walks)
    DeviceBuffer<long long> bounds;            // sorted path: (units + 1) × k first sorted positions
    DeviceBuffer<double> package_sums;         // local packages × k × d
    DeviceBuffer<long long> package_counts;    // local packages × k
    DeviceBuffer<double> package_weights;      // local packages × k (weighted runs)
    DeviceBuffer<double> package_inertia;      // local packages
    long long tree_stride = 1;                 // the tree's levels of smaller stride were made with the sums
};

void prepare_package_workspace(PackageWorkspace& w, long long n, int k, int d, std::size_t element_size,
                               const PackageGeometry& g, bool weighted);

// Whether the package sums skip the label sort (unweighted): k ≤ 8 with k·d ≤ 64
// (the direct path: a thread per sub-package and coordinate, the k sums in
// registers), or d ≤ 4 (d ≤ 8 in float) with a package's sums in 96 KB of shared
// memory (the rounds path: a block per package reads its rows once, in order), or
// few clusters elsewhere (the rows path: a thread per sub-package and coordinate,
// the k sums in shared memory, neighbouring threads on neighbouring coordinates).
// Else the sorted path.
// (A thread per sub-package and coordinate with k ≤ 128 sums in shared memory was
// tried for k > 8: 0.30 ms at 10^7 × 2-D, k = 100, against the rounds path's 0.15,
// its rows read 2 KB apart by neighbouring threads.)
bool unsorted_package_sums(int k, int d, bool weighted, std::size_t element_size);
// Whether one device (no --devices, not streamed) takes the package update by default
// (so gives the CPU's bits): where the rounds path applies (docs/scale-out.md, "The promise").
bool one_device_package_update(int k, int d, std::size_t element_size);

// Every local package's Σ w·(x − previous) per cluster (package_sums), its counts
// and (weights non-null) Σ w; the sorted path sorts the labels into `sorted`.
template <typename T>
void launch_package_sums(const T* points, long long n, int d, const std::int32_t* labels, const T* previous, int k,
                         const T* weights, UpdateWorkspace& sorted, PackageWorkspace& w, const PackageGeometry& g,
                         cudaStream_t stream);

// The tree's additions inside this block (package_tree_local_levels, nodes as global
// package indices; the block's packages are [package_begin, package_end)): sums,
// counts, weights.
void launch_package_tree(PackageWorkspace& w, int k, int d, bool weighted, const std::vector<PackageTreeLevel>& levels,
                         long long package_begin, long long package_end, cudaStream_t stream);

// Σ w·||x − c(label)||² of each local package (double; a fixed order within the
// package) into w.package_inertia: summed over packages in order by the caller,
// the inertia is the same for any split of the rows.
template <typename T>
void launch_package_inertia(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                            const double* weights, PackageWorkspace& w, const PackageGeometry& g, cudaStream_t stream);

}  // namespace kms::cuda
