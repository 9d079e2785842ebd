// Yinyang's assignment kernel (Ding et al., ICML 2015), cuda-global and cuda-shared:
// the same labels as CPU Lloyd (kms::squared_distance() arithmetic, ties to the
// lowest index, bounds in kms::BoundArithmetic).
//
// Two kernels. The global filter (the least group bound, with Hamerly's half
// distance to the own centroid's nearest other one), a thread per point, settles most
// points at the cost of a Hamerly step and lists the rest; the group walk, a thread
// per listed point, runs the group filter (a whole group ruled out), the local filter
// (the group's stored bound less the member's own move: a single member) and computes
// the rest. One kernel doing both ran at 4.6 active lanes a warp (ncu, d = 2,
// k = 1000, H200): the walking third of the lanes waited on each other. The centroids
// are read in group order (args.grouped_centroids), staged in shared memory by
// cuda-shared when all k rows fit.
//
// Lazy, as Hamerly and Elkan are: the upper and global bounds carry the row of the
// cumulative shift table they were written at (stamp), the group bounds their own
// (group_stamp), so a point the global filter settles reads and writes no group bound.
//
// Large k·d (defer): the first search, and a point whose open groups hold more than
// args.defer_after centroids, go to the register-tiled search (tiled_search.cuh),
// which computes all k distances and keeps each group's least as its bound.
#include "kernels/bounded_assign.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

constexpr int kLocalFilterMinD = 8;

// *slot = min(*slot, value) for non-negative values (as unsigned integers they order
// as the floating-point values do; all-ones bits, the starting value, above +inf).
__device__ __forceinline__ void atomic_min_nonnegative(float* slot, float value) {
    atomicMin(reinterpret_cast<unsigned int*>(slot), __float_as_uint(value));
}
__device__ __forceinline__ void atomic_min_nonnegative(double* slot, double value) {
    atomicMin(reinterpret_cast<unsigned long long*>(slot), static_cast<unsigned long long>(__double_as_longlong(value)));
}

// --- The group walk, a thread per listed point (every point in the first search), so
// the lanes of a warp all walk: the group filter rules out a whole group, the local
// filter (the group's stored bound less the member's own move) a single member, and
// the rest are computed, from shared memory when cuda-shared staged all k rows.
// With Defer, a point whose open groups hold more than a.defer_after centroids goes
// to the tiled search instead (its group bounds start from +inf there).
template <typename T, bool Shared, bool Defer>
__global__ void __launch_bounds__(1024) yinyang_walk_kernel(BoundedArgs<T> a, int staged_rows) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ unsigned long long uscratch[32];
    const T* grouped = a.grouped_centroids;
    if constexpr (Shared) {
        if (staged_rows >= a.k) {  // every row fits: the block stages them all once
            T* tile = reinterpret_cast<T*>(smem_raw);
            for (int e = threadIdx.x; e < a.k * a.d; e += blockDim.x) tile[e] = a.grouped_centroids[e];
            __syncthreads();
            grouped = tile;
        }
    }
    const BoundArithmetic<T> bounds(a.d);
    const int columns = a.k + 1, t = a.groups;
    // Below kLocalFilterMinD coordinates every member of an open group is computed: a
    // distance there costs about what the local filter's two table reads do (reasoned,
    // not measured separately).
    const bool local_filter = a.d >= kLocalFilterMinD;
    const long long count = a.first ? a.n : static_cast<long long>(*a.walk_count);
    unsigned long long evaluations = 0, skips = 0, changed = 0, group_skips = 0;
    // Blocks stride over the list (its length is known only on the device); every
    // thread of a block runs the same number of rounds (the list append is block-wide).
    for (long long p0 = static_cast<long long>(blockIdx.x) * blockDim.x; p0 < count;
         p0 += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long p = p0 + threadIdx.x;
        const bool valid = p < count;
        const long long i = valid ? (a.first ? p : static_cast<long long>(a.walk_list[p])) : 0;
        const T* x = a.points + i * a.d;
        T* slots = a.group_lower + i * t;  // this point's group bounds
        const int label = valid ? a.labels[i] : 0;
        const int since = valid && !a.first ? a.group_stamp[i] : a.now;
        T own = T(0), u = infinity_of<T>();
        if (valid && !a.first) {
            own = exact_squared_distance(x, a.centroids + static_cast<long long>(label) * a.d, a.d);
            ++evaluations;
            u = bounds.upper(device_sqrt(own));
        }
        auto group_bound = [&](int g) {  // group g's bound now (a.first: none yet)
            if (a.first) return T(0);
            return bounds.shrink(slots[g], a.group_drift[since * t + g]);
        };
        bool walk = valid;
        if constexpr (Defer) {
            bool deferred = false;
            if (valid) {
                int open = 0;
                for (int g = 0; g < t && open <= a.defer_after; ++g)
                    if (!bounds.separated(u, group_bound(g))) open += a.group_begin[g + 1] - a.group_begin[g];
                deferred = open > a.defer_after;
                if (deferred) {
                    for (int g = 0; g < t; ++g) slots[g] = infinity_of<T>();
                    walk = false;
                }
            }
            append_to_list(a.search_list, a.search_count, i, deferred);
        }
        if (!walk) continue;
        unsigned long long point_evaluations = a.first ? 0 : 1;
        T best = a.first ? infinity_of<T>() : own;
        int current = label;
        auto take = [&](int j, T dist) {
            if (dist < best || (dist == best && j < current)) {
                best = dist;
                current = j;
                u = bounds.upper(device_sqrt(dist));
            }
        };
        const int own_group = a.first ? -1 : a.group_of[label];  // first: labels not yet set (-1)
        const T own_lower = bounds.lower(device_sqrt(own));
        bool own_group_examined = false;
        // The group whose nearest member is the label so far: its bound is then its
        // second least member bound, which leaves the label out.
        int pending_group = -1, pending_member = -1;
        T pending_second = T(0);
        // The least group bound written (and its group) and the second least: the
        // global bound, once the pending group's bound is known.
        T least = infinity_of<T>(), second_least = infinity_of<T>();
        int least_group = -1;
        auto written = [&](int g, T bound) {
            slots[g] = bound;
            if (bound < least) {
                second_least = least;
                least = bound;
                least_group = g;
            } else if (bound < second_least) {
                second_least = bound;
            }
        };
        // The groups in rounds of 32: first every group filter of the round (its ruled
        // out groups' bounds written), then the open groups one by one, so the lanes of
        // a warp walk members together instead of waiting on each other's groups.
        for (int g0 = 0; g0 < t; g0 += 32) {
          const int round = min(32, t - g0);
          unsigned open = 0;
          for (int r = 0; r < round; ++r) {
            const int g = g0 + r;
            const T bound = group_bound(g);
            if (a.first || !bounds.separated(u, bound)) {
                open |= 1u << r;
            } else {  // the group filter
                written(g, bound);
                ++group_skips;
            }
          }
          while (open) {
            const int g = g0 + __ffs(open) - 1;
            open &= open - 1;
            const T stored = a.first ? T(0) : slots[g];
            const T bound = group_bound(g);
            if (!a.first && bounds.separated(u, bound)) {  // u has tightened since
                written(g, bound);
                ++group_skips;
                continue;
            }
            own_group_examined = own_group_examined || g == own_group;
            // The group's two least member bounds, to leave the final label out of its
            // new bound: computed members kept as squared distances (one square root
            // per group, not per member), members the local filter ruled out as bounds.
            T computed_first = infinity_of<T>(), computed_second = infinity_of<T>();
            T ruled_first = infinity_of<T>(), ruled_second = infinity_of<T>();
            int computed_member = -1, ruled_member = -1;
            auto computed = [&](int j, T dist) {
                take(j, dist);
                if (dist < computed_first) {
                    computed_second = computed_first;
                    computed_first = dist;
                    computed_member = j;
                } else if (dist < computed_second) {
                    computed_second = dist;
                }
            };
            for (int q = a.group_begin[g]; q < a.group_begin[g + 1]; ++q) {
                const int j = a.members[q];
                if (!a.first && j == label) {
                    computed(j, own);
                    continue;
                }
                if (local_filter && !a.first) {
                    // The local filter: the group's stored bound less this member's own move.
                    const T local = bounds.shrink(
                        stored, accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, j));
                    if (bounds.separated(u, local)) {
                        if (local < ruled_first) {
                            ruled_second = ruled_first;
                            ruled_first = local;
                            ruled_member = j;
                        } else if (local < ruled_second) {
                            ruled_second = local;
                        }
                        continue;
                    }
                }
                ++point_evaluations;
                computed(j, exact_squared_distance(x, grouped + static_cast<long long>(q) * a.d, a.d));
            }
            // lower(sqrt(·)) is monotone: the least computed bound is that of the least distance.
            auto as_bound = [&](T dist) { return dist == infinity_of<T>() ? dist : bounds.lower(device_sqrt(dist)); };
            const T first_computed = as_bound(computed_first), second_computed = as_bound(computed_second);
            T first_bound, second_bound;
            int first_member;
            if (first_computed <= ruled_first) {
                first_bound = first_computed;
                first_member = computed_member;
                second_bound = second_computed < ruled_first ? second_computed : ruled_first;
            } else {
                first_bound = ruled_first;
                first_member = ruled_member;
                second_bound = ruled_second < first_computed ? ruled_second : first_computed;
            }
            written(g, first_bound);
            if (first_member == current) {
                pending_group = g;
                pending_member = first_member;
                pending_second = second_bound;
            }
          }
        }
        T global = least;
        if (pending_group >= 0 && pending_member == current) {
            slots[pending_group] = pending_second;
            if (pending_group == least_group) global = pending_second < second_least ? pending_second : second_least;
        }
        // The old label, left, counts in its group's bound if that group was not walked.
        if (!a.first && current != label && !own_group_examined && own_lower < slots[own_group]) {
            slots[own_group] = own_lower;
            global = own_lower < global ? own_lower : global;
        }
        a.lower[i] = global;
        a.upper[i] = bounds.upper(device_sqrt(best));
        a.stamp[i] = a.now;
        a.group_stamp[i] = a.now;
        const bool skipped = point_evaluations < static_cast<unsigned long long>(a.k);
        skips += skipped;
        changed += record_label(a.labels, a.status, i, label, current, skipped);
        evaluations += point_evaluations;
    }
    add_block_counts(a.counters, evaluations, skips, changed, uscratch);
    block_count_add(group_skips, &a.counters->group_skips, uscratch);
}

// The tiled search's result for a point it takes: every distance lowers its group's
// bound (atomically: the 16 threads of a point's row share its groups), and the
// label's group gets the second nearest distance overall, which leaves the label out.
// That store and the other threads' atomic minimums may land in either order: both
// values are certain bounds of the group's other members, so either is right.
template <typename T>
struct YinyangFinish {
    static constexpr bool kRecordsDistances = true;
    std::int32_t* labels;
    std::uint8_t* status;
    T* upper;
    T* lower;
    T* group_lower;
    std::int32_t* stamp;
    std::int32_t* group_stamp;
    const std::int32_t* group_of;
    int groups;
    int now;
    int d;
    __device__ __forceinline__ void record(long long i, int c, T dist) const {
        atomic_min_nonnegative(group_lower + i * groups + group_of[c],
                               BoundArithmetic<T>(d).lower(device_sqrt(dist)));
    }
    __device__ __forceinline__ int operator()(long long i, const Nearest<T>& nearest) const {
        const BoundArithmetic<T> bounds(d);
        const T second = nearest.second == infinity_of<T>() ? nearest.second : bounds.lower(device_sqrt(nearest.second));
        upper[i] = bounds.upper(device_sqrt(nearest.best));
        lower[i] = second;
        group_lower[i * groups + group_of[nearest.best_c]] = second;
        stamp[i] = now;
        group_stamp[i] = now;
        return record_label(labels, status, i, labels[i], nearest.best_c, false);
    }
};

// drift[r · groups + g]: group g's accumulated shift from row r to row `now` of the
// cumulative group table, rounded up once per step instead of once per point.
template <typename T>
__global__ void group_drift_kernel(const double* table, int groups, int now, T* drift) {
    const long long total = static_cast<long long>(now + 1) * groups;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int row = static_cast<int>(e / groups), g = static_cast<int>(e - static_cast<long long>(row) * groups);
        drift[e] = accumulated_shift<T>(table, groups, row, now, g);
    }
}

template <typename T>
__global__ void gather_rows_kernel(const T* source, const std::int32_t* rows, int count, int d, T* target) {
    const long long total = static_cast<long long>(count) * d;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long r = e / d;
        target[e] = source[static_cast<long long>(rows[r]) * d + (e - r * d)];
    }
}

}  // namespace

template <typename T>
void launch_gather_rows(const T* source, const std::int32_t* rows, int count, int d, T* target, cudaStream_t stream) {
    const long long total = static_cast<long long>(count) * d;
    gather_rows_kernel<T><<<blocks_for(std::min<long long>(total, 1LL << 20), 256), 256, 0, stream>>>(source, rows, count,
                                                                                                    d, target);
    KMS_CUDA_LAUNCH_CHECK("row gather kernel");
}

template <typename T>
void launch_yinyang(const BoundedArgs<T>& args, bool shared_variant, bool defer, const Geometry& g,
                    cudaStream_t stream) {
    const YinyangFinish<T> finish{args.labels, args.status,      args.upper,    args.lower,  args.group_lower,
                                  args.stamp,  args.group_stamp, args.group_of, args.groups, args.now,
                                  args.d};
    auto tiled_search = [&](const TiledRows& rows) {
        launch_tiled_search<T, true>(args.points, args.d, args.centroids, args.k, rows, shared_variant, g.sm_count, finish,
                                     &args.counters->labels_changed, &args.counters->point_centroid_distances, stream,
                                     "Yinyang tiled search kernel");
    };
    if (defer && args.first) {  // every distance: the tiled search alone
        const std::size_t bytes = static_cast<std::size_t>(args.groups) * static_cast<std::size_t>(args.n) * sizeof(T);
        KMS_CUDA_CHECK(cudaMemsetAsync(args.group_lower, 0xff, bytes, stream));
        tiled_search(TiledRows{args.n, nullptr, nullptr, false});
        return;
    }
    if (!args.first) {
        const long long drift_entries = static_cast<long long>(args.now + 1) * args.groups;
        group_drift_kernel<T><<<blocks_for(std::min<long long>(drift_entries, 1LL << 20), 256), 256, 0, stream>>>(
            args.group_shift, args.groups, args.now, args.group_drift);
        KMS_CUDA_LAUNCH_CHECK("group drift kernel");
        KMS_CUDA_CHECK(cudaMemsetAsync(args.walk_count, 0, sizeof(*args.walk_count), stream));
        launch_bounds_test<T>(args, args.walk_list, args.walk_count, 0, g, stream, "Yinyang filter kernel");
    }
    if (defer) KMS_CUDA_CHECK(cudaMemsetAsync(args.search_count, 0, sizeof(*args.search_count), stream));
    // The walk's blocks stride over a list whose length only the device knows: at most
    // eight waves' worth; cuda-shared stages the grouped centroids when all k rows fit.
    const bool staged = shared_variant && bounded_tile_rows<T>(args.k, args.d, true) >= args.k;
    const long long needed = (args.n + g.block - 1) / g.block;
    const long long blocks = std::max<long long>(1, std::min<long long>(needed, 8LL * g.sm_count * std::max(1, 1024 / g.block)));
    const std::size_t bytes = staged ? static_cast<std::size_t>(args.k) * args.d * sizeof(T) : 0;
    auto walk = defer ? (staged ? yinyang_walk_kernel<T, true, true> : yinyang_walk_kernel<T, false, true>)
                      : (staged ? yinyang_walk_kernel<T, true, false> : yinyang_walk_kernel<T, false, false>);
    walk<<<static_cast<unsigned>(blocks), g.block, bytes, stream>>>(args, staged ? args.k : 0);
    KMS_CUDA_LAUNCH_CHECK("Yinyang group walk kernel");
    if (defer) tiled_search(TiledRows{args.n, args.search_list, args.search_count, false});
}

template void launch_gather_rows<float>(const float*, const std::int32_t*, int, int, float*, cudaStream_t);
template void launch_gather_rows<double>(const double*, const std::int32_t*, int, int, double*, cudaStream_t);
template void launch_yinyang<float>(const BoundedArgs<float>&, bool, bool, const Geometry&, cudaStream_t);
template void launch_yinyang<double>(const BoundedArgs<double>&, bool, bool, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
