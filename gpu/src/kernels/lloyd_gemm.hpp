#pragma once
// Lloyd assignment for large d and k by "filter and verify" (cuda-shared):
//  1. round: data and centroids, shifted by the data mean m, to a fast format (the
//     data once per data set, the centroids every step), with a rigorous bound
//     δ ≥ ‖(v − m) − ṽ‖ per row, ṽ the row as the tensor cores read it:
//       - tf32: ṽ = v − m rounded to TF32 (10-bit mantissa: |error| ≤ 2⁻¹¹·|v − m| per
//         coordinate); the MMA's float accumulation adds a bounded error;
//       - int8: ṽ = s·q, q = round((v − m)/s) in int8 with one common scale s (the
//         accumulation is exact integer arithmetic, but the grid is coarse: one
//         outlier widens s for every point);
//  2. filter: tensor-core MMA gives every point approximate squared distances
//     Q_j ≈ ‖x̃ − c̃_j‖² (tf32: with an error bound E; int8: exact), a 128-centroid
//     tile at a time, and lists every centroid under a limit that falls with the
//     point's best Q so far (up to kListCapacity);
//  3. certify: |‖x − c‖ − ‖x̃ − c̃‖| ≤ δ_x + δ_c (triangle inequality) gives each point
//     a limit above which no centroid can be its argmin (derivation in
//     kernels/lloyd_gemm.cu); of its list, the centroids under it remain: one proves
//     the Q-argmin the strict argmin of kms::squared_distance(), so the label is
//     exactly CPU Lloyd's; several go to the exact verification;
//  4. list: a second filter pass over the points whose list overflowed (clustered data,
//     or a best found late) collects every centroid under the final limit;
//  5. verify: the points with a list (the filter's or the second pass's) get their
//     label from the exact computation (squared_distance order, no FMA, ties → lowest
//     index) over the list, those whose list overflowed again over all k.
// Labels therefore equal those of the exact tiled kernel, bit for bit, in either format.
#include <cstdint>

#include "cuda_common.hpp"
#include "kernels/lloyd.hpp"

namespace kms::cuda {

// Where the filter pays: its 128-wide centroid tiles waste work for k far below
// 128, and for small d the per-(point, centroid) epilogue costs more than the
// exact kernel's few instructions per candidate.
constexpr int kGemmMinD = 16, kGemmMinK = 64;
// int8: Q = ‖q_x‖² + ‖q_c‖² − 2·q_x·q_c ≤ d·254² must fit in int32 (with the
// padded centroids' INT_MAX sentinel above every real Q).
constexpr int kGemmMaxD = 33000;
inline bool gemm_filter_applies(int k, int d) { return d >= kGemmMinD && d <= kGemmMaxD && k >= kGemmMinK; }

// The rows' format on the tensor cores. tf32 certifies far more points where the
// data spread is uneven or the clusters close (uniform data: int8 left 60–69 % of
// the points to full searches at 10^6 × 64, k = 1000); int8 moves a quarter of the
// bytes and issues a quarter of the MMAs.
enum class FilterFormat { tf32, int8 };
inline int filter_element_bytes(FilterFormat format) { return format == FilterFormat::int8 ? 1 : 4; }
// An MMA k-step reads 32 bytes of a row (int8: m16n8k32; tf32: m16n8k8); the
// filter's pipeline moves one k-step a stage for int8 and two for tf32 (fewer
// barriers for the same bytes), and rows are padded with zeros to whole stages.
constexpr int kStepBytes = 32;
inline int filter_steps_per_stage(FilterFormat format) { return format == FilterFormat::int8 ? 1 : 2; }
// A candidate list: one lane of the verifying warp per candidate.
constexpr int kListCapacity = 32;
inline int filter_width(int d, FilterFormat format) {
    const int stage = kStepBytes * filter_steps_per_stage(format) / filter_element_bytes(format);
    return (d + stage - 1) / stage * stage;
}

// When the filter leaves exact-distance work (the list pass's k a point, the candidate
// lists, the searches over all k) above kGemmProbeShare of the exact kernel's n·k (its
// own lists, a few centroids a point, do not count for much), the run times the exact kernel on its next step and from
// then on uses whichever assigns faster, timing the other again after kGemmRetrySteps
// steps (the exact kernel only while within kGemmRetryWithin of the filter: blobs at
// 10^6 × 128, k = 1000, before the candidate lists, paid 24 ms every ninth step for a
// 11.5 ms filter); when it leaves above kGemmHopelessShare to searches over all k (the
// quantisation is too coarse for the data: one far outlier makes s huge) it uses the
// exact kernel for the rest of the run. The searches over
// all k run tiled, so a filter that leaves even two thirds of the points to them can
// still be the faster (1M × 64, k = 1000, uniform: 7.5 ms against 12.0 ms, H200).
constexpr double kGemmProbeShare = 0.25, kGemmHopelessShare = 0.9;
constexpr int kGemmRetrySteps = 8;
constexpr double kGemmRetryWithin = 2.0;

// The data side of the filter, made once per data set (launch_quantise_points).
struct QuantisedPoints {
    const void* rows;            // n × padded_d, zeros beyond d: int8 round((x − m)/s) clamped to ±127,
                                 // or float x − m rounded to TF32
    const void* norms;           // n: ‖q_x‖² (int32) or ‖x̃‖² (float, rounded to nearest)
    const float* slack;          // n: δ_x ≥ ‖(x − m) − x̃‖ (rounded up; ∞ or NaN: never certified)
    int padded_d;
    double scale;                // int8's s: at most 4 significant bits, so s·q is exact (tf32: 1)
    FilterFormat format;
};

template <typename T>
struct GemmLloydArgs {
    LloydArgs<T> lloyd;              // block_partials unused (k > 8)
    const T* shift;                  // d: m, the data mean in T
    QuantisedPoints points;
    void* centroid_rows;             // k × padded_d in the points' format, rewritten every step
    void* centroid_norms;            // k, as the points'
    float* centroid_slack;           // k + 2: δ_c per centroid, their maximum, the largest ‖c̃‖²
                                     // (both as bits, ∞ if any is not finite)
    // The uncertified points, n each (three lists: the list pass reads one while it fills the others):
    std::int32_t* listed;            // those with a candidate list (gemm_listed)
    std::int32_t* pending;           // those awaiting the list pass (gemm_pending)
    std::int32_t* full;              // those searched over all k (gemm_full_searches)
    std::int32_t* candidates;        // n × kListCapacity: the candidate lists, by slot in `listed`
    std::uint8_t* list_lengths;      // n: their lengths
    void* limits;                    // n, by slot in `pending`: the largest Q a candidate may have (V)
    int sm_count;
};

// The scale for data whose largest |x_j − m_j| is `largest`: ≥ largest/127, at
// most 4 significant bits, in float's normal range (any s is sound: δ is honest).
double quantisation_scale(double largest);

// x̃, ‖x̃‖², δ_x for every point (once per data set), in points.format;
// rows, norms and slack are the buffers behind `points`.
template <typename T>
void launch_quantise_points(const T* data, long long n, int d, const T* shift, const QuantisedPoints& points,
                            cudaStream_t stream);

// Centroid quantisation, filter + certification, the list pass, exact verification
// of the rest: the points with a candidate list eight lanes each, those needing all k
// by the register-tiled search (kernels/tiled_search.cuh). counters:
// point_centroid_distances += the list pass's k per pending point and the list's
// length or k per verified point (the filter's n·k are counted by the caller),
// labels_changed, gemm_certified, gemm_pending, gemm_listed and gemm_full_searches.
template <typename T>
void launch_gemm_lloyd(const GemmLloydArgs<T>& args, cudaStream_t stream);

}  // namespace kms::cuda
