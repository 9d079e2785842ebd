#pragma once
// Lloyd assignment for large d and k by "filter and verify" (cuda-shared):
//  1. filter: a register-tiled GEMM (FMA, SIMT, no tensor cores) gives every
//     point approximate squared distances A_j = ‖x'‖² + ‖c'_j‖² − 2·x'·c'_j on data
//     and centroids shifted by the data mean (smaller norms, tighter bound) and
//     keeps the smallest three;
//  2. certify: a rigorous rounding bound (derivation in cuda_gemm_assign.cu)
//     proves for most points that the A-argmin is the strict argmin of
//     kms::squared_distance(), so the label is exactly CPU Lloyd's; for most
//     others, that the argmin is one of the two A-smallest;
//  3. verify: those get their label from the exact computation (squared_distance
//     order, no FMA, ties → lowest index) over the two candidates, the rest over all k.
// Labels therefore equal those of the exact tiled kernel, bit for bit.
#include <cstdint>

#include "cuda_common.hpp"

namespace kms::cuda {

// Where the GEMM form pays: the filter spends 1 FMA per (point, centroid,
// coordinate) against the exact kernel's 3 (sub, mul, add) plus a fixed
// per-(point, centroid) epilogue, and its 128-wide centroid tiles waste work for
// k far below 128.
constexpr int kGemmMinD = 16, kGemmMinK = 64;
inline bool gemm_filter_applies(int k, int d) { return d >= kGemmMinD && k >= kGemmMinK; }

// A run stops using the filter after an iteration in which more than this share
// of the points needed an exact search over all k (data far from the origin: ‖x‖² dwarfs the
// distances, so the bound certifies nothing) and goes back to the exact kernel.
constexpr double kGemmMaxUnsettledShare = 0.25;

template <typename T>
struct GemmLloydArgs {
    LloydArgs<T> lloyd;              // block_partials unused (k > 8)
    const T* shift;                  // d: the data mean in T; the filter works on fl(x − shift), fl(c − shift)
    const T* point_norms;            // n: ‖fl(x − shift)‖² summed in double, rounded to T
    T* centroid_norms;               // k + 1: ‖fl(c − shift)‖² per centroid, then the largest (∞ if any is not finite)
    std::int32_t* unsettled;         // n: indices of the points the filter could not certify
    int2* candidates;                // n: their two candidate labels, or (best, −1): search all k
    int sm_count;
};

// ‖fl(x − shift)‖² per point (double sum, rounded to T), once per data set.
template <typename T>
void launch_point_norms(const T* points, long long n, int d, const T* shift, T* norms, cudaStream_t stream);

// Centroid norms, filter + certification, exact verification of the rest.
// counters: point_centroid_distances += 2 or k per verified point (the filter's
// n·k are counted by the caller), labels_changed, gemm_unsettled = verified
// points, gemm_full_searches = those searched over all k.
template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& args, cudaStream_t stream);

}  // namespace kms::cuda
