#pragma once
// Lloyd assignment for large d and k by "filter and verify" (cuda-shared):
//  1. quantise: data and centroids, shifted by the data mean m and divided by one
//     common scale s, rounded to int8 (the data once per data set, the centroids
//     every step), with a rigorous bound δ ≥ ‖(v − m) − s·q_v‖ per row;
//  2. filter: int8 tensor-core MMA (s32 accumulation: exact) gives every point the
//     exact integer squared distances Q_j = ‖q_x − q_cj‖² of the quantised rows and
//     keeps the three smallest;
//  3. certify: |‖x − c‖ − s·√Q| ≤ δ_x + δ_c (triangle inequality) proves for most
//     points that the Q-argmin is the strict argmin of kms::squared_distance(), so
//     the label is exactly CPU Lloyd's; for most others, that the argmin is one of
//     the two Q-smallest (derivation in kernels/lloyd_gemm.cu);
//  4. verify: those get their label from the exact computation (squared_distance
//     order, no FMA, ties → lowest index) over the two candidates, the rest over all k.
// Labels therefore equal those of the exact tiled kernel, bit for bit.
#include <cstdint>

#include "cuda_common.hpp"
#include "kernels/lloyd.hpp"

namespace kms::cuda {

// Where the filter pays: its 128-wide centroid tiles waste work for k far below
// 128, and for small d the per-(point, centroid) epilogue costs more than the
// exact kernel's few instructions per candidate.
constexpr int kGemmMinD = 16, kGemmMinK = 64;
// Q = ‖q_x‖² + ‖q_c‖² − 2·q_x·q_c ≤ d·254² must fit in int32 (with the padded
// centroids' INT_MAX sentinel above every real Q).
constexpr int kGemmMaxD = 33000;
// Quantised rows are padded with zeros to whole MMA k-steps (32 int8).
constexpr int kQuantStep = 32;
inline int quantised_width(int d) { return (d + kQuantStep - 1) / kQuantStep * kQuantStep; }
inline bool gemm_filter_applies(int k, int d) { return d >= kGemmMinD && d <= kGemmMaxD && k >= kGemmMinK; }

// When the filter leaves more than kGemmProbeShare of the points to exact searches
// over all k, the run times the exact kernel on its next step and from then on uses
// whichever assigns faster, timing the other again after kGemmRetrySteps steps; above
// kGemmHopelessShare (the quantisation is too coarse for the data: one far outlier
// makes s huge) it uses the exact kernel for the rest of the run. The searches over
// all k run tiled, so a filter that leaves even two thirds of the points to them can
// still be the faster (1M × 64, k = 1000, uniform: 7.5 ms against 12.0 ms, H200).
constexpr double kGemmProbeShare = 0.25, kGemmHopelessShare = 0.9;
constexpr int kGemmRetrySteps = 8;

// The data side of the filter, made once per data set (launch_quantise_points).
struct QuantisedPoints {
    const std::int8_t* rows;     // n × padded_d: round((x − m)/s) clamped to ±127, zeros beyond d
    const std::int32_t* norms;   // n: ‖q_x‖²
    const float* slack;          // n: δ_x ≥ ‖(x − m) − s·q_x‖ (rounded up; NaN/∞ for non-finite rows)
    int padded_d;
    double scale;                // s: at most 4 significant bits, so s·q is exact
};

template <typename T>
struct GemmLloydArgs {
    LloydArgs<T> lloyd;              // block_partials unused (k > 8)
    const T* shift;                  // d: m, the data mean in T
    QuantisedPoints points;
    std::int8_t* centroid_rows;      // k × padded_d, rewritten every step
    std::int32_t* centroid_norms;    // k
    float* centroid_slack;           // k + 1: δ_c per centroid, then their maximum (as bits, ∞ if any is not finite)
    std::int32_t* unsettled;         // n: the points with two candidates from the front, those
                                     // needing all k from the back (unsettled[n − 1], ...)
    int2* candidates;                // n: the two candidate labels of the front list
    int sm_count;
};

// The scale for data whose largest |x_j − m_j| is `largest`: ≥ largest/127, at
// most 4 significant bits, in float's normal range (any s is sound: δ is honest).
double quantisation_scale(double largest);

// q_x, ‖q_x‖², δ_x for every point (once per data set).
template <typename T>
void launch_quantise_points(const T* points, long long n, int d, const T* shift, double scale, std::int8_t* rows,
                            std::int32_t* norms, float* slack, cudaStream_t stream);

// Centroid quantisation, filter + certification, exact verification of the rest:
// the points with two candidates one warp each, those needing all k by the
// register-tiled search (kernels/tiled_search.cuh). counters:
// point_centroid_distances += 2 or k per verified point (the filter's n·k are
// counted by the caller), labels_changed, gemm_pairs and gemm_full_searches.
template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& args, cudaStream_t stream);

}  // namespace kms::cuda
