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
// bitonic in shared memory), and a point walks that list in order until the rest is
// provably farther than its best (normally just past the ball). A ball larger than
// the list sends the point to a full search: the register-tiled one for k > 32.
//
// Three kernels per step: Hamerly's test for every point (hamerly_filter_kernel), the
// ball walk a thread per listed point (so a warp's lanes all walk), the tiled search
// of the points whose ball was too large.
#include <algorithm>

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

// One block per centroid a: its a.near_count nearest others in (bound, index) order,
// and the least half bound of the rest. The row goes through shared memory in
// rounds: the entries kept so far plus the next ones, sorted (bitonic), the first
// near_count kept; the first one dropped in a round is the least of what it drops.
template <typename T>
__global__ void exponion_rows_kernel(const T* centroids, int k, int d, int near_count, int buffer,
                                     unsigned long long* near, float* rest_half) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned long long* entries = reinterpret_cast<unsigned long long*>(smem_raw);
    __shared__ unsigned long long rest;
    constexpr unsigned long long kNone = ~0ull;  // after every real entry
    const BoundArithmetic<T> bounds(d);
    const int a = blockIdx.x;
    const T* ca = centroids + static_cast<long long>(a) * d;
    if (threadIdx.x == 0) rest = kNone;
    for (int e = threadIdx.x; e < near_count; e += blockDim.x) entries[e] = kNone;
    const int fresh = buffer - near_count;
    for (int b0 = 0; b0 < k; b0 += fresh) {
        for (int e = threadIdx.x; e < fresh; e += blockDim.x) {
            const int b = b0 + e;
            unsigned long long entry = kNone;
            if (b < k && b != a) {
                const T dist = exact_squared_distance(ca, centroids + static_cast<long long>(b) * d, d);
                const float half = round_down_to_float(bounds.lower(device_sqrt(dist)) / T(2));
                entry = (static_cast<unsigned long long>(__float_as_uint(half)) << 32) | static_cast<unsigned>(b);
            }
            entries[near_count + e] = entry;
        }
        __syncthreads();
        for (int size = 2; size <= buffer; size <<= 1)
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int e = threadIdx.x; e < buffer / 2; e += blockDim.x) {
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
        if (threadIdx.x == 0 && entries[near_count] < rest) rest = entries[near_count];
        __syncthreads();
    }
    for (int e = threadIdx.x; e < near_count; e += blockDim.x) near[static_cast<long long>(a) * near_count + e] = entries[e];
    if (threadIdx.x == 0)
        rest_half[a] = rest == kNone ? __int_as_float(0x7f800000) : entry_half_bound(rest);
}

// The ball walk, a thread per point listed by Hamerly's test (a.walk_list). Blocks
// stride over the list; every thread of a block runs the same rounds (the append of
// the points sent to the full search is warp-wide).
template <typename T, bool Staged>
__global__ void __launch_bounds__(1024) exponion_walk_kernel(BoundedArgs<T> a, int staged_rows) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ unsigned long long uscratch[32];
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
    const long long count = static_cast<long long>(*a.walk_count);
    const int listed = min(a.k - 1, a.near_count);  // real entries of a row
    unsigned long long evaluations = 0, skips = 0, changed = 0;
    for (long long p0 = static_cast<long long>(blockIdx.x) * blockDim.x; p0 < count;
         p0 += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long p = p0 + threadIdx.x;
        bool full = false;
        if (p < count) {
            const long long i = a.walk_list[p];
            const T* x = a.points + i * a.d;
            const int label = a.labels[i];
            const T own = exact_squared_distance(x, centroids + static_cast<long long>(label) * a.d, a.d);
            unsigned long long point_evaluations = 1;
            const T u = bounds.upper(device_sqrt(own));
            const T half_radius = u + a.nearest_half[label];
            T best = own, second = infinity_of<T>(), best_upper = u, outside = infinity_of<T>();
            int best_c = label;
            const unsigned long long* row = a.near + static_cast<long long>(label) * a.near_count;
            // The ball's entries (the row is sorted: a binary search). A ball past the row,
            // or holding more than a.defer_after centroids, goes to the full search: a
            // thread walking many rows costs more than the tiled search's whole row
            // (uniform 64-D data, k = 1000: 67 ms a step walking, H200).
            int inside = 0;
            for (int step = kExponionNear; step > 0; step >>= 1)
                if (inside + step <= listed &&
                    !(static_cast<T>(entry_half_bound(row[inside + step - 1])) > half_radius))
                    inside += step;
            full = inside > a.defer_after ||
                   (inside == listed && listed < a.k - 1 && !(static_cast<T>(a.rest_half[label]) > half_radius));
            int e = full ? listed : 0;
            for (; e < listed; ++e) {
                const unsigned long long entry = row[e];
                const T half = static_cast<T>(entry_half_bound(entry));
                if (half > half_radius) {  // past the ball: stop once the rest is provably farther
                    const T beyond = bounds.shrink(T(2) * half, u);
                    if (bounds.separated(best_upper, beyond)) {
                        outside = beyond;
                        break;
                    }
                }
                const int j = entry_centroid(entry);
                const T dist = exact_squared_distance(x, centroids + static_cast<long long>(j) * a.d, a.d);
                ++point_evaluations;
                if (dist < best || (dist == best && j < best_c)) {
                    second = best;
                    best = dist;
                    best_c = j;
                    best_upper = bounds.upper(device_sqrt(dist));
                } else if (dist < second) {
                    second = dist;
                }
            }
            if (!full && e == listed && listed < a.k - 1) {  // the list ran out: the rest, or a full search
                const T half = static_cast<T>(a.rest_half[label]);
                const T beyond = bounds.shrink(T(2) * half, u);
                if (half > half_radius && bounds.separated(best_upper, beyond)) outside = beyond;
                else full = true;
            }
            evaluations += point_evaluations;
            if (!full) {
                const T second_lower = second == infinity_of<T>() ? second : bounds.lower(device_sqrt(second));
                a.upper[i] = best_upper;
                a.lower[i] = outside < second_lower ? outside : second_lower;
                a.stamp[i] = a.now;
                if (best_c != label) {
                    a.labels[i] = best_c;
                    ++changed;
                }
                const bool skipped = point_evaluations < static_cast<unsigned long long>(a.k);
                skips += skipped;
                if (a.status) a.status[i] = skipped ? 1 : 0;
            }
        }
        append_to_list(a.search_list, a.search_count, p < count ? a.walk_list[p] : 0, full);
    }
    block_count_add(evaluations, &a.counters->point_centroid_distances, uscratch);
    block_count_add(skips, &a.counters->bound_skips, uscratch);
    block_count_add(changed, &a.counters->labels_changed, uscratch);
}

}  // namespace

template <typename T>
void launch_exponion_rows(const T* centroids, int k, int d, int near_count, unsigned long long* near, float* rest_half,
                          cudaStream_t stream) {
    int buffer = 64;
    while (buffer < std::min(k - 1 + near_count, 16 * kExponionNear)) buffer *= 2;  // at most 16 KiB
    if (buffer < 2 * near_count) buffer = 2 * near_count;
    exponion_rows_kernel<T><<<k, 256, static_cast<std::size_t>(buffer) * sizeof(unsigned long long), stream>>>(
        centroids, k, d, near_count, buffer, near, rest_half);
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
    launch_bounded<T>(hamerly_filter_kernel<T>, hamerly_filter_kernel<T>, "Exponion filter kernel", args, false, g,
                      stream);
    const bool staged = shared_variant && bounded_tile_rows<T>(args.k, args.d, true) >= args.k;
    const long long needed = (args.n + g.block - 1) / g.block;
    const long long blocks =
        std::max<long long>(1, std::min<long long>(needed, 8LL * g.sm_count * std::max(1, 1024 / g.block)));
    const std::size_t bytes = staged ? static_cast<std::size_t>(args.k) * args.d * sizeof(T) : 0;
    auto walk = staged ? exponion_walk_kernel<T, true> : exponion_walk_kernel<T, false>;
    walk<<<static_cast<unsigned>(blocks), g.block, bytes, stream>>>(args, staged ? args.k : 0);
    KMS_CUDA_LAUNCH_CHECK("Exponion ball walk kernel");
    // The balls larger than their list: Hamerly's full search of the listed points.
    launch_hamerly_search<T>(args, shared_variant, g, stream);
}

template void launch_exponion_rows<float>(const float*, int, int, int, unsigned long long*, float*, cudaStream_t);
template void launch_exponion_rows<double>(const double*, int, int, int, unsigned long long*, float*, cudaStream_t);
template void launch_exponion<float>(const BoundedArgs<float>&, bool, const Geometry&, cudaStream_t);
template void launch_exponion<double>(const BoundedArgs<double>&, bool, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
