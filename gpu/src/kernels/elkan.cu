// Elkan's assignment kernel, cuda-global and cuda-shared: the same labels as
// CPU Lloyd (kms::squared_distance() arithmetic, ties to the lowest index, bounds
// in kms::BoundArithmetic).
#include "kernels/bounded_assign.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

// --- Elkan: one upper bound and k lower bounds per point (stored k × n so a warp
// reads one bound of 32 points in one transaction, compactly: half for float
// data, float for double data, rounded down), lazily like Hamerly's.
//
// Large k (Defer): a point that has computed more than a.defer_after distances is
// given up and appended to a.search_list; the tiled search then computes all k of
// its distances (every one a fresh lower bound). A thread walking the survivors of a
// step that prunes little took 227 ms at n = 10^6, d = 64, k = 1000 (uniform data,
// the first bounded step, H200), ten times the tiled search's cost per distance.
template <typename T, bool Shared, bool Defer = false>
__global__ void __launch_bounds__(1024) elkan_kernel(BoundedArgs<T> a, int tile_rows) {
    using Lower = typename ElkanLowerStorage<T>::type;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* tile = reinterpret_cast<T*>(smem_raw);
    __shared__ unsigned long long uscratch[32];
    const BoundArithmetic<T> bounds(a.d);
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool valid = i < a.n;
    const T* x = a.points + (valid ? i : 0) * a.d;
    Lower* lower = a.lower_k + (valid ? i : 0);  // bound of centroid c: lower[c * n]
    const long long n = a.n;
    const int columns = a.k + 1;
    unsigned long long evaluations = 0, skips = 0, changed = 0;
    bool active = false, tight = false;
    int label = 0, since = 0, current = 0, fresh = -1;
    T u = T(0), best = infinity_of<T>(), fresh_lower = T(0);
    if (valid) {
        label = a.labels[i];
        current = label;
        if (a.first) {
            active = true;
        } else {
            since = a.stamp[i];
            u = bounds.grow(a.upper[i], accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, label));
            if (bounds.separated(u, a.nearest_half[label])) {
                skips = 1;  // nothing read or written beyond the upper bound
                if (a.status) a.status[i] = 1;
            } else {
                active = true;
            }
        }
    }
    bool deferred = false;
    auto store = [&](int c, T value) { lower[static_cast<long long>(c) * n] = store_lower(value, a.lower_scale); };
    auto visit = [&](int c, const T* row) {
        if (Defer && deferred) return;  // the tiled search rewrites every bound of this point
        if (a.first) {
            const T dist = exact_squared_distance(x, row, a.d);
            store(c, bounds.lower(device_sqrt(dist)));
            if (dist < best) {
                best = dist;
                current = c;
            }
            return;
        }
        T lc = c == fresh ? fresh_lower
                          : bounds.shrink(static_cast<T>(load_lower(lower[static_cast<long long>(c) * n], a.lower_scale)),
                                          accumulated_shift<T>(a.cumulative_shift, columns, since, a.now, c));
        if (c == current) {
            if (c != fresh) store(c, lc);
            return;
        }
        auto pruned = [&]() {
            return bounds.separated(u, lc) ||
                   bounds.separated(u, a.cc_half[static_cast<long long>(current) * a.k + c]);
        };
        if (pruned()) {
            if (c != fresh) store(c, lc);
            return;
        }
        if (!tight) {
            best = exact_squared_distance(x, a.centroids + static_cast<long long>(current) * a.d, a.d);
            ++evaluations;
            u = bounds.upper(device_sqrt(best));
            tight = true;
            fresh = current;
            fresh_lower = bounds.lower(device_sqrt(best));
            store(current, fresh_lower);
            if (pruned()) {
                if (c != fresh) store(c, lc);
                return;
            }
        }
        const T dist = exact_squared_distance(x, row, a.d);
        ++evaluations;
        store(c, bounds.lower(device_sqrt(dist)));
        if (dist < best || (dist == best && c < current)) {
            best = dist;
            current = c;
            u = bounds.upper(device_sqrt(dist));
        }
        if (Defer && evaluations > static_cast<unsigned long long>(a.defer_after)) deferred = true;
    };
    for_each_centroid<Shared>(a.centroids, a.k, a.d, tile, tile_rows, active, visit);
    if constexpr (Defer) {
        list_for_tiled_search(a, i, deferred);
        if (deferred) active = false;  // upper bound, stamp and label: the tiled search's
    }
    if (active) {
        if (a.first) {
            evaluations = a.k;
            u = bounds.upper(device_sqrt(best));
        } else if (evaluations < static_cast<unsigned long long>(a.k)) {
            skips = 1;
        }
        a.upper[i] = u;
        a.stamp[i] = a.now;
        changed = record_label(a.labels, a.status, i, label, current, skips != 0);
    }
    add_block_counts(a.counters, evaluations, skips, changed, uscratch);
}

// Large k: the search that builds the bounds (first iteration, and after the shift
// table fills) and the search of the points elkan_kernel gave up (Defer) are the tiled
// search, recording every distance as a lower bound and the nearest as the upper one,
// as elkan_kernel's first pass does. A thread per point walking every centroid took
// 260 ms at n = 10^6, d = 64, k = 1000 (H200).
template <typename T>
struct ElkanBuildFinish {
    static constexpr bool kRecordsDistances = true;
    using Lower = typename ElkanLowerStorage<T>::type;
    std::int32_t* labels;
    std::uint8_t* status;
    T* upper;
    std::int32_t* stamp;
    Lower* lower_k;
    long long n;
    int now;
    int d;
    float lower_scale;
    __device__ __forceinline__ void record(long long i, int c, T dist) const {
        lower_k[static_cast<long long>(c) * n + i] = store_lower(BoundArithmetic<T>(d).lower(device_sqrt(dist)), lower_scale);
    }
    __device__ __forceinline__ int operator()(long long i, const Nearest<T>& nearest) const {
        upper[i] = BoundArithmetic<T>(d).upper(device_sqrt(nearest.best));
        stamp[i] = now;
        return record_label(labels, status, i, labels[i], nearest.best_c, false);
    }
};

}  // namespace

template <typename T>
void launch_elkan(const BoundedArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    if (!tiled_search_pays(args.k)) {
        launch_bounded<T>(elkan_kernel<T, true>, elkan_kernel<T, false>, "Elkan assignment kernel", args,
                          shared_variant, g, stream);
        return;
    }
    const ElkanBuildFinish<T> finish{args.labels, args.status, args.upper, args.stamp, args.lower_k,
                                     args.n,      args.now,    args.d,     args.lower_scale};
    TiledRows rows{args.n, nullptr, nullptr, false};
    if (!args.first) {  // bounded: the points that need many distances are listed for the tiled search
        KMS_CUDA_CHECK(cudaMemsetAsync(args.search_count, 0, sizeof(*args.search_count), stream));
        launch_bounded<T>(elkan_kernel<T, true, true>, elkan_kernel<T, false, true>, "Elkan assignment kernel", args,
                          shared_variant, g, stream);
        rows = TiledRows{args.n, args.search_list, args.search_count, false};
    }
    launch_tiled_search<T, false>(args.points, args.d, args.centroids, args.k, rows, shared_variant, g.sm_count, finish,
                                  &args.counters->labels_changed, &args.counters->point_centroid_distances, stream,
                                  "Elkan tiled search kernel");
}

template void launch_elkan<float>(const BoundedArgs<float>&, bool, const Geometry&, cudaStream_t);
template void launch_elkan<double>(const BoundedArgs<double>&, bool, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
