// Exponion's assignment (Newling & Fleuret, ICML 2016) on the device: the same
// labels as CPU Lloyd (kms::squared_distance() arithmetic, ties to the lowest index,
// bounds in kms::BoundArithmetic).
//
// Hamerly's bounds (an upper bound to the own centroid a, one lower bound to all the
// others); a point they do not settle searches only the ball of radius
// R = 2u + s(a) around a (u: the tightened upper bound, s(a): the distance from a to
// its nearest other centroid): a centroid j outside it is at least |a j| − u > u from
// x. The CPU partitions each centroid's row of the others into annuli; here each
// step sorts, per centroid, its kExponionNear nearest others (a block per centroid,
// bitonic in shared memory, over the few entries the last step's set leaves
// possible), and a point walks that list in order until the rest is provably
// farther than its best (normally just past the ball). A ball larger than
// the list sends the point to a full search: the register-tiled one for k > 32.
//
// Three kernels per step (after the rows, which also give each centroid's nearest
// separation): Hamerly's test for every point (bounds_test_kernel), the ball walk of
// the listed points (a thread a point below 8-D, else a few lanes a point, so a warp's
// lanes all walk), the tiled search of the points whose ball was too large.
//
// Shallot (Borgelt, IDA 2020; args.second set) walks the same rows: a listed point
// also takes its distance to its tracked second centroid b, and walks the row of z,
// the nearer of a and b, in the ball of radius m1 + min(m2, m1 + s(z)) (m1, m2: the
// distances to z and to the other of the pair), as the CPU's shallot.cpp. The walk
// stops, and bounds what it did not evaluate, by |x j| >= |z j| − |x z|, so neither
// the centre nor the radius changes a label. The tracked second then becomes the
// centroid the point left, else the other of the pair (the CPU's rule).
#include <algorithm>
#include <type_traits>

#include "kernels/bounded_assign.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

// A row entry: the high 32 bits are the float bits of half a certain lower bound of
// the distance between the two centroids (rounded down, non-negative: integer order
// is float order), the low 32 bits the other centroid's index (ties by index).
__device__ __forceinline__ float entry_half_bound(unsigned long long entry) {
    return __uint_as_float(static_cast<unsigned>(entry >> 32));
}
__device__ __forceinline__ int entry_centroid(unsigned long long entry) {
    return static_cast<int>(entry & 0xffffffffu);
}
__device__ __forceinline__ float round_down_to_float(float v) { return v; }
__device__ __forceinline__ float round_down_to_float(double v) { return __double2float_rd(v); }

// The least value of the block (every thread passes its own; all get the result).
template <typename V>
__device__ V block_min(V v, V* scratch) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        const V other = __shfl_xor_sync(0xffffffffu, v, offset);
        v = other < v ? other : v;
    }
    const int warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
    if ((threadIdx.x & 31) == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < warps; ++w) v = scratch[w] < v ? scratch[w] : v;
    __syncthreads();
    return v;
}

// Sorts entries[0, size) ascending (size a power of two), the whole block.
__device__ void bitonic_sort(unsigned long long* entries, int size_total) {
    for (int size = 2; size <= size_total; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int e = threadIdx.x; e < size_total / 2; e += blockDim.x) {
                const int lo = 2 * e - (e & (stride - 1)), hi = lo + stride;
                const bool ascending = (lo & size) == 0;
                const unsigned long long x = entries[lo], y = entries[hi];
                if ((x > y) == ascending) {
                    entries[lo] = y;
                    entries[hi] = x;
                }
            }
            __syncthreads();
        }
}

// The entry of centroid b in a's row; `nearest` keeps the least half bound in T, as
// separation_kernel (bounds.cu) computes it.
template <typename T>
__device__ __forceinline__ unsigned long long row_entry(const T* ca, const T* centroids, int b, int d,
                                                        const BoundArithmetic<T>& bounds, T& nearest) {
    const T dist = exact_squared_distance(ca, centroids + static_cast<long long>(b) * d, d);
    const T exact_half = bounds.lower(device_sqrt(dist)) / T(2);
    nearest = exact_half < nearest ? exact_half : nearest;
    const float half = round_down_to_float(exact_half);
    return (static_cast<unsigned long long>(__float_as_uint(half)) << 32) | static_cast<unsigned>(b);
}

// One block per centroid a: its near_count nearest others in (bound, index) order,
// and the least half bound of the rest. Entries are a total order, so that set is
// unique. Sorting whole rows is bound by shared-memory traffic (a 2048-entry sort
// per centroid: 0.104 ms a step at k = 1000, H100), and centroids move little
// between steps, so with `reuse` the last step's set bounds the new one: only the
// entries up to its largest fresh entry are sorted (usually a few more than
// near_count; at most `buffer`). Otherwise (and on the first build) the whole row
// is sorted in shared memory when it fits (`buffer` >= k), else it goes through in
// rounds: the entries kept so far plus the next ones, sorted, the first near_count
// kept; the first one dropped in a round is the least of what it drops.
template <typename T>
__global__ void exponion_rows_kernel(const T* centroids, int k, int d, int near_count, int buffer, bool reuse,
                                     unsigned long long* near, float* rest_half, T* nearest_half) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned long long* entries = reinterpret_cast<unsigned long long*>(smem_raw);
    __shared__ unsigned long long rest, scratch[32];
    __shared__ T nearest_scratch[32];
    T nearest = infinity_of<T>();  // this thread's least half distance (a min: any order)
    __shared__ int candidates;
    constexpr unsigned long long kNone = ~0ull;  // after every real entry
    const BoundArithmetic<T> bounds(d);
    const int a = blockIdx.x;
    const T* ca = centroids + static_cast<long long>(a) * d;
    unsigned long long* row = near + static_cast<long long>(a) * near_count;
    if (reuse) {
        // The last set's fresh entries: their largest, t, bounds the near_count-th
        // least entry, so the entries <= t (the candidates, a few more than
        // near_count when the centroids moved little) hold the whole new set.
        unsigned long long largest = 0;
        for (int e = threadIdx.x; e < near_count; e += blockDim.x) {
            const unsigned long long entry = row_entry(ca, centroids, entry_centroid(row[e]), d, bounds, nearest);
            largest = entry > largest ? entry : largest;
        }
        const unsigned long long threshold = ~block_min(~largest, scratch);
        if (threadIdx.x == 0) candidates = 0;
        __syncthreads();
        unsigned long long least_above = kNone;
        for (int b = threadIdx.x; b < k; b += blockDim.x) {
            if (b == a) continue;
            const unsigned long long entry = row_entry(ca, centroids, b, d, bounds, nearest);
            if (entry <= threshold) {
                const int slot = atomicAdd(&candidates, 1);
                if (slot < buffer) entries[slot] = entry;
            } else if (entry < least_above) {
                least_above = entry;
            }
        }
        least_above = block_min(least_above, scratch);  // its barriers publish `candidates`
        // Every other centroid was visited: the nearest is known.
        nearest = block_min(nearest, nearest_scratch);
        if (threadIdx.x == 0) nearest_half[a] = nearest;
        const int found = candidates;
        if (found <= buffer) {  // block-uniform
            int sorted = 1;
            while (sorted < found) sorted <<= 1;
            for (int e = found + threadIdx.x; e < sorted; e += blockDim.x) entries[e] = kNone;
            __syncthreads();
            bitonic_sort(entries, sorted);
            for (int e = threadIdx.x; e < near_count; e += blockDim.x) row[e] = entries[e];
            if (threadIdx.x == 0) {
                const unsigned long long beyond = found > near_count ? entries[near_count] : least_above;
                rest_half[a] = beyond == kNone ? __int_as_float(0x7f800000) : entry_half_bound(beyond);
            }
            return;
        }
        __syncthreads();  // every thread has read `candidates` before the rebuild
    }
    if (buffer >= k) {  // the whole row at once
        for (int b = threadIdx.x; b < buffer; b += blockDim.x)
            entries[b] = b < k && b != a ? row_entry(ca, centroids, b, d, bounds, nearest) : kNone;
        __syncthreads();
        bitonic_sort(entries, buffer);
        if (threadIdx.x == 0) rest = entries[near_count];
    } else {
        if (threadIdx.x == 0) rest = kNone;
        for (int e = threadIdx.x; e < near_count; e += blockDim.x) entries[e] = kNone;
        const int fresh = buffer - near_count;
        for (int b0 = 0; b0 < k; b0 += fresh) {
            for (int e = threadIdx.x; e < fresh; e += blockDim.x) {
                const int b = b0 + e;
                entries[near_count + e] = b < k && b != a ? row_entry(ca, centroids, b, d, bounds, nearest) : kNone;
            }
            __syncthreads();
            bitonic_sort(entries, buffer);
            if (threadIdx.x == 0 && entries[near_count] < rest) rest = entries[near_count];
            __syncthreads();
        }
    }
    nearest = block_min(nearest, nearest_scratch);  // its barriers also order the sort's last writes
    for (int e = threadIdx.x; e < near_count; e += blockDim.x) row[e] = entries[e];
    if (threadIdx.x == 0) {
        rest_half[a] = rest == kNone ? __int_as_float(0x7f800000) : entry_half_bound(rest);
        nearest_half[a] = nearest;
    }
}

// The ball walk of the points Hamerly's test listed (a.walk_list), kWalkLanes threads
// a point. One lane walks the point's row in order, stopping at the first entry past
// the ball that the best distance so far separates from the point: that entry and
// all after it (the row is sorted) are provably farther. At higher d the balls hold
// more centroids and a lone thread's walk is long (a warp waits for its longest), so
// the lanes take the row kWalkLanes entries a round, entry e on lane e mod kWalkLanes:
// a round finds its first entry past the ball that the best of the earlier rounds
// separates, the lanes before it compute their distances, and the walk stops there.
// A round may compute up to kWalkLanes − 1 distances one lane would have skipped: the
// nearest centroid is the same, the second nearest (a lower bound) at most tighter.
// Blocks stride over the list; every thread of a block runs the same rounds (the
// append of the points sent to the full search is block-wide).
template <typename T, bool Staged, int kWalkLanes, bool Shallot>
__global__ void __launch_bounds__(1024) exponion_walk_kernel(BoundedArgs<T> a, int staged_rows) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ unsigned long long uscratch[32];
    const long long count = static_cast<long long>(*a.walk_count);
    const int points_per_block = blockDim.x / kWalkLanes;
    // A block past the list leaves before staging (a late step lists few points).
    if (static_cast<long long>(blockIdx.x) * points_per_block >= count) return;
    const T* centroids = a.centroids;
    if constexpr (Staged) {
        if (staged_rows >= a.k) {  // every row fits: the block stages them all once
            T* tile = reinterpret_cast<T*>(smem_raw);
            for (int e = threadIdx.x; e < a.k * a.d; e += blockDim.x) tile[e] = a.centroids[e];
            __syncthreads();
            centroids = tile;
        }
    }
    const BoundArithmetic<T> bounds(a.d);
    const int listed = min(a.k - 1, a.near_count);  // real entries of a row
    const int sub = threadIdx.x % kWalkLanes, lane = threadIdx.x & 31;
    const int group_base = lane - sub;  // the point's first lane in the warp
    const unsigned group_mask = ((1u << kWalkLanes) - 1u) << group_base;
    unsigned long long evaluations = 0, skips = 0, changed = 0, second_centred = 0;
    for (long long p0 = static_cast<long long>(blockIdx.x) * points_per_block; p0 < count;
         p0 += static_cast<long long>(gridDim.x) * points_per_block) {
        const long long p = p0 + threadIdx.x / kWalkLanes;
        bool full = false;
        long long i = 0;
        if (p < count) {  // the same for the point's lanes: what follows runs per lane group
            i = a.walk_list[p];
            const T* x = a.points + i * a.d;
            const int label = a.labels[i];
            const T own = exact_squared_distance(x, centroids + static_cast<long long>(label) * a.d, a.d);
            const T u = bounds.upper(device_sqrt(own));
            T half_radius = u + a.nearest_half[label];
            // The ball's centre z and an upper bound of |x z| (Exponion: the own centroid).
            int centre = label;
            T centre_upper = u;
            const unsigned long long* row = a.near + static_cast<long long>(label) * a.near_count;
            // A ball holding more than a.defer_after centroids, or past the row, goes to the
            // full search: walking many rows costs more than the tiled search's whole row
            // (uniform 64-D data, k = 1000: 67 ms a step walking, H200). The row is sorted,
            // so two entries tell (one load each, not a binary search's chain of seven).
            auto too_large = [&] {
                const bool crowded = a.defer_after < listed &&
                                     !(static_cast<T>(entry_half_bound(row[a.defer_after])) > half_radius);
                const bool past_row = listed < a.k - 1 &&
                                      !(static_cast<T>(entry_half_bound(row[listed - 1])) > half_radius) &&
                                      !(static_cast<T>(a.rest_half[centre]) > half_radius);
                return crowded || past_row;
            };
            full = too_large();
            // This lane's candidates (lane 0 starts with the own centroid), and the
            // group's best so far (its upper bound decides where the walk stops).
            T best = sub == 0 ? own : infinity_of<T>(), second = infinity_of<T>();
            int best_c = sub == 0 ? label : a.k;  // a.k: after every real index
            unsigned long long lane_evaluations = sub == 0 ? 1 : 0;
            auto consider = [&](int j, T dist) {
                ++lane_evaluations;
                if (dist < best || (dist == best && j < best_c)) {
                    second = best;
                    best = dist;
                    best_c = j;
                } else if (dist < second) {
                    second = dist;
                }
            };
            // Shallot: the other of the pair (evaluated here, skipped in the walk), and the
            // tracked second b. Where Exponion's ball goes to the full search, b's distance
            // is not taken (the point costs no more than in Exponion), as on the CPU.
            int skip_c = -1, tracked = -1;
            T group_best = own;
            if constexpr (Shallot) {
                if (!full && listed > 0) {
                    const std::uint32_t kept = a.second[i];
                    tracked = kept < static_cast<std::uint32_t>(a.k) && kept != static_cast<std::uint32_t>(label)
                                  ? static_cast<int>(kept)
                                  : entry_centroid(row[0]);  // a's nearest other: the best guess
                    const T to_b = exact_squared_distance(x, centroids + static_cast<long long>(tracked) * a.d, a.d);
                    if (sub == 0) consider(tracked, to_b);
                    const T ub = bounds.upper(device_sqrt(to_b));
                    const bool b_nearer = ub < u;
                    second_centred += b_nearer && sub == 0;
                    centre = b_nearer ? tracked : label;
                    skip_c = b_nearer ? label : tracked;
                    const T near = b_nearer ? ub : u, far = b_nearer ? u : ub;
                    const T reach = near + T(2) * a.nearest_half[centre];
                    centre_upper = near;
                    half_radius = T(0.5) * (near + (far < reach ? far : reach));
                    group_best = to_b < own ? to_b : own;
                    row = a.near + static_cast<long long>(centre) * a.near_count;
                    full = too_large();
                }
            }
            T group_best_upper = bounds.upper(device_sqrt(group_best)), outside = infinity_of<T>();
            bool stopped = full;
            if constexpr (kWalkLanes == 1) {
                // One lane: stop at the first entry past the ball that the best so far separates.
                for (int e = 0; !stopped && e < listed; ++e) {
                    const unsigned long long entry = row[e];
                    const T half = static_cast<T>(entry_half_bound(entry));
                    if (half > half_radius) {
                        const T beyond = bounds.shrink(T(2) * half, centre_upper);
                        if (bounds.separated(group_best_upper, beyond)) {
                            outside = beyond;
                            stopped = true;
                            break;
                        }
                    }
                    const int j = entry_centroid(entry);
                    if (j == skip_c) continue;
                    const T before = best;
                    consider(j, exact_squared_distance(x, centroids + static_cast<long long>(j) * a.d, a.d));
                    if (best < before) group_best_upper = bounds.upper(device_sqrt(best));
                }
            } else {
                for (int e0 = 0; !stopped && e0 < listed; e0 += kWalkLanes) {
                    const int e = e0 + sub;
                    unsigned long long entry = 0;
                    T beyond = infinity_of<T>();
                    bool past = false;
                    if (e < listed) {
                        entry = row[e];
                        const T half = static_cast<T>(entry_half_bound(entry));
                        if (half > half_radius) {
                            beyond = bounds.shrink(T(2) * half, centre_upper);
                            past = bounds.separated(group_best_upper, beyond);
                        }
                    }
                    const unsigned past_lanes = (__ballot_sync(group_mask, past) & group_mask) >> group_base;
                    const int first_past = past_lanes ? __ffs(past_lanes) - 1 : kWalkLanes;
                    if (e < listed && sub < first_past && entry_centroid(entry) != skip_c) {
                        const int j = entry_centroid(entry);
                        consider(j, exact_squared_distance(x, centroids + static_cast<long long>(j) * a.d, a.d));
                    }
                    if (past_lanes) {
                        outside = __shfl_sync(group_mask, beyond, group_base + first_past);
                        stopped = true;
                    }
                    T round_best = best;
                    for (int offset = kWalkLanes / 2; offset > 0; offset >>= 1) {
                        const T other = __shfl_xor_sync(group_mask, round_best, offset);
                        round_best = other < round_best ? other : round_best;
                    }
                    if (round_best < group_best) {
                        group_best = round_best;
                        group_best_upper = bounds.upper(device_sqrt(group_best));
                    }
                }
            }
            // The group's nearest and second nearest: a merge by (distance, index).
            for (int offset = kWalkLanes / 2; offset > 0; offset >>= 1)
                merge_with_lane<T, true>(best, best_c, second, offset, group_mask);
            unsigned long long point_evaluations = lane_evaluations;
            for (int offset = kWalkLanes / 2; offset > 0; offset >>= 1)
                point_evaluations += __shfl_xor_sync(group_mask, point_evaluations, offset);
            if (!full && !stopped && listed < a.k - 1) {  // the list ran out: the rest, or a full search
                const T half = static_cast<T>(a.rest_half[centre]);
                const T beyond = bounds.shrink(T(2) * half, centre_upper);
                if (half > half_radius && bounds.separated(group_best_upper, beyond)) outside = beyond;
                else full = true;
            }
            evaluations += lane_evaluations;
            if (!full && sub == 0) {
                const T best_upper = bounds.upper(device_sqrt(best));
                const T second_lower = second == infinity_of<T>() ? second : bounds.lower(device_sqrt(second));
                a.upper[i] = best_upper;
                a.lower[i] = outside < second_lower ? outside : second_lower;
                a.stamp[i] = a.now;
                const bool skipped = point_evaluations < static_cast<unsigned long long>(a.k);
                skips += skipped;
                changed += record_label(a.labels, a.status, i, label, best_c, skipped);
            }
            if constexpr (Shallot) {
                // The new tracked second: the centroid the point left, else the other of the
                // pair (a point sent to the full search keeps b).
                if (tracked >= 0 && sub == 0)
                    a.second[i] = static_cast<std::uint32_t>(full ? tracked
                                                             : best_c != centre ? centre
                                                             : centre != label  ? label
                                                                                : tracked);
            }
        }
        append_to_list(a.search_list, a.search_count, i, full && sub == 0);
    }
    add_block_counts(a.counters, evaluations, skips, changed, uscratch);
    if constexpr (Shallot) block_count_add(second_centred, &a.counters->second_centred, uscratch);
}

}  // namespace

template <typename T>
void launch_exponion_rows(const T* centroids, int k, int d, int near_count, bool reuse, unsigned long long* near,
                          float* rest_half, T* nearest_half, cudaStream_t stream) {
    // The whole row when it fits in 32 KiB (k <= 4096), else rounds through 16 KiB.
    int whole = 64;
    while (whole < k) whole *= 2;
    int buffer = 64;
    while (buffer < std::min(k - 1 + near_count, 16 * kExponionNear)) buffer *= 2;
    if (buffer < 2 * near_count) buffer = 2 * near_count;
    if (whole <= 4096) buffer = whole;
    reuse = reuse && near_count <= k - 1;  // k = 1: the row holds no centroid
    const std::size_t bytes = static_cast<std::size_t>(buffer) * sizeof(unsigned long long);
    exponion_rows_kernel<T><<<k, 256, bytes, stream>>>(centroids, k, d, near_count, buffer, reuse, near, rest_half,
                                                                 nearest_half);
    KMS_CUDA_LAUNCH_CHECK("Exponion row kernel");
}

template <typename T>
void launch_exponion(const BoundedArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    if (args.first) {  // no bounds yet: Hamerly's full search builds them
        launch_hamerly<T>(args, shared_variant, g, stream);
        return;
    }
    KMS_CUDA_CHECK(cudaMemsetAsync(args.walk_count, 0, sizeof(*args.walk_count), stream));
    KMS_CUDA_CHECK(cudaMemsetAsync(args.search_count, 0, sizeof(*args.search_count), stream));
    launch_bounds_test<T>(args, args.walk_list, args.walk_count, 0, g, stream, "Exponion filter kernel");
    const bool staged = shared_variant && bounded_tile_rows<T>(args.k, args.d, true) >= args.k;
    // Lanes a point, measured at k = 1000 (H100, steps 2–12): one below 8-D (6-D: 0.39 ms
    // a step against 0.43 with four), four from 8-D (8-D: 0.46 against 0.48; 16-D: 0.69
    // against 0.82), eight from 32-D (64-D: 4.0 against 4.3 with four).
    const int lanes = args.d < 8 ? 1 : args.d < 32 ? 4 : 8;
    const long long points_per_block = g.block / lanes;
    const long long needed = (args.n + points_per_block - 1) / points_per_block;
    const long long blocks =
        std::max<long long>(1, std::min<long long>(needed, 8LL * g.sm_count * std::max(1, 1024 / g.block)));
    const std::size_t bytes = staged ? static_cast<std::size_t>(args.k) * args.d * sizeof(T) : 0;
    auto launch = [&](auto staged_walk, auto direct_walk) {
        (staged ? staged_walk : direct_walk)<<<static_cast<unsigned>(blocks), g.block, bytes, stream>>>(
            args, staged ? args.k : 0);
    };
    auto walk = [&](auto shallot) {
        constexpr bool S = decltype(shallot)::value;
        switch (lanes) {
            case 8: launch(exponion_walk_kernel<T, true, 8, S>, exponion_walk_kernel<T, false, 8, S>); break;
            case 4: launch(exponion_walk_kernel<T, true, 4, S>, exponion_walk_kernel<T, false, 4, S>); break;
            default: launch(exponion_walk_kernel<T, true, 1, S>, exponion_walk_kernel<T, false, 1, S>); break;
        }
    };
    if (args.second) walk(std::true_type{});
    else walk(std::false_type{});
    KMS_CUDA_LAUNCH_CHECK(args.second ? "Shallot ball walk kernel" : "Exponion ball walk kernel");
    // The balls larger than their list: Hamerly's full search of the listed points.
    launch_hamerly_search<T>(args, shared_variant, g, stream);
}

template void launch_exponion_rows<float>(const float*, int, int, int, bool, unsigned long long*, float*, float*,
                                          cudaStream_t);
template void launch_exponion_rows<double>(const double*, int, int, int, bool, unsigned long long*, float*, double*,
                                           cudaStream_t);
template void launch_exponion<float>(const BoundedArgs<float>&, bool, const Geometry&, cudaStream_t);
template void launch_exponion<double>(const BoundedArgs<double>&, bool, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
