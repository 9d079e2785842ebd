#pragma once
// The bounded assignments, Hamerly (kernels/hamerly.cu), Elkan (kernels/elkan.cu),
// Yinyang (kernels/yinyang.cu), Exponion and Shallot (kernels/exponion.cu), and the
// bound kernels they share (kernels/bounds.cu).
#include <cstdint>

#include "cuda_common.hpp"

namespace kms::cuda {

// Lower-bound storage of Elkan's n × k bounds: half (scaled by a power of two) for
// float data, float for double data; always rounded down, so still certain.
template <typename T>
struct ElkanLowerStorage;
template <>
struct ElkanLowerStorage<float> {
    using type = unsigned short;  // raw half bits
};
template <>
struct ElkanLowerStorage<double> {
    using type = float;
};

template <typename T>
struct BoundedArgs : AssignArgs<T> {
    T* upper;                          // n
    T* lower;                          // n (Hamerly)
    typename ElkanLowerStorage<T>::type* lower_k;  // n × k (Elkan)
    std::int32_t* stamp;               // n: cumulative-shift row the bounds were last written at
    const double* cumulative_shift;    // rows × (k + 1): Σ shift upper bounds per centroid, [k] = Σ max
    int now;                           // the row of the current centroids
    bool first;                        // full search that builds the bounds
    const T* nearest_half;             // k
    const T* cc_half;                  // k × k (Elkan)
    float lower_scale;                 // Elkan float: stored = value · scale (power of two)
    // Where tiled_search_pays(k): the points left to the tiled search (n) and how many
    // (Hamerly: those its bounds do not settle; Elkan: those past defer_after distances).
    std::int32_t* search_list;
    unsigned long long* search_count;
    int defer_after;
    // Yinyang: `lower` is the global bound (to every centroid but the own one); per
    // group, a bound to its members other than the own centroid (stored n × groups: a
    // thread walks its point's row), kept lazily against the cumulative group-shift
    // table (rows × groups) from the row in group_stamp, which the global filter's
    // settled points leave alone. The filter lists the points it cannot settle in
    // walk_list (walk_count of them) for the group walk.
    int groups;
    T* group_lower;
    std::int32_t* group_stamp;
    const double* group_shift;
    T* group_drift;                   // rows × groups: each row's accumulated group shift to `now`
    const std::int32_t* members;      // k centroid indices, group by group, ascending in each
    const std::int32_t* group_begin;  // groups + 1
    const std::int32_t* group_of;     // k
    const T* grouped_centroids;       // k × d, the centroids in `members` order
    std::int32_t* walk_list;          // n
    unsigned long long* walk_count;
    // Exponion: per centroid its near_count nearest others as sorted entries
    // (exponion.cu), and half a lower bound of the distance to the rest.
    const unsigned long long* near;
    const float* rest_half;
    int near_count;
    // Shallot: per point its tracked second centroid (kNoSecond: none yet); null for Exponion.
    std::uint32_t* second;
};

// Shallot: a point with no tracked second centroid yet.
constexpr std::uint32_t kNoSecond = 0xffffffffu;

// Exponion: the nearest others each centroid keeps sorted (a ball larger than that
// is searched in full). Chosen, not tuned: no other length was timed.
constexpr int kExponionNear = 128;

template <typename T>
void launch_hamerly(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);
template <typename T>
void launch_elkan(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);
// Hamerly's full search (nearest and second nearest, the bounds written) of the
// points in args.search_list.
template <typename T>
void launch_hamerly_search(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry,
                           cudaStream_t stream);
// Exponion: the sorted rows of near centroids (before each bounded assignment;
// `reuse`: `near` holds an earlier build's rows for this k, tried first) and
// nearest_half as launch_centroid_separations() gives it; and the assignment.
template <typename T>
void launch_exponion_rows(const T* centroids, int k, int d, int near_count, bool reuse, unsigned long long* near,
                          float* rest_half, T* nearest_half, cudaStream_t stream);
// Exponion's assignment, or Shallot's where args.second is set (the same ball walk,
// its ball around the nearer of the own centroid and the tracked second).
template <typename T>
void launch_exponion(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);
// Yinyang: `defer` hands the points that need many distances to the tiled search.
template <typename T>
void launch_yinyang(const BoundedArgs<T>& args, bool shared_variant, bool defer, const Geometry& geometry,
                    cudaStream_t stream);

// Half distances between centroids as certain lower bounds (nearest_half, and the
// full matrix when cc_half is non-null).
template <typename T>
void launch_centroid_separations(const T* centroids, int k, int d, T* nearest_half, T* cc_half, cudaStream_t stream);

// Append a row to the cumulative shift table: row[c] = prev[c] + shift_upper[c]
// (rounded up), row[k] = prev[k] + max shift (rounded up).
template <typename T>
void launch_cumulative_row(double* table, int row, int k, const T* shift_upper, cudaStream_t stream);
// target row r = source row rows[r], for r < count (Yinyang's centroids in group order).
template <typename T>
void launch_gather_rows(const T* source, const std::int32_t* rows, int count, int d, T* target, cudaStream_t stream);

// Yinyang: row[g] = prev[g] + the largest shift among group g's members (rounded up).
template <typename T>
void launch_group_cumulative_row(double* table, int row, int groups, const T* shift_upper, const std::int32_t* members,
                                 const std::int32_t* group_begin, cudaStream_t stream);

}  // namespace kms::cuda
