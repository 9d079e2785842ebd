// Hamerly's assignment kernel, cuda-global and cuda-shared: the same labels as
// CPU Lloyd (kms::squared_distance() arithmetic, ties to the lowest index, bounds
// in kms::BoundArithmetic).
#include "kernels/bounded_assign.hpp"
#include "kernels/tiled_search.cuh"

namespace kms::cuda {
namespace {

// --- Hamerly: one upper and one lower bound per point, kept lazily: the bounds
// are stored with the row of the cumulative shift table they were written at,
// and a point the bounds skip writes nothing.
//
// Large k: Hamerly's test runs as a kernel of its own (bounds_test_kernel), which
// lists the points the bounds leave for a full search, and the register-tiled
// search (tiled_search.cuh) finds their nearest and second nearest centroids in a
// second kernel: a thread per point walking every centroid row took 49–56 ms at
// d = 64, k = 1000 on the H100, 8–10x Lloyd. The list's order varies from run to
// run; what each point gets does not.
template <typename T, bool Shared>
__global__ void __launch_bounds__(1024) hamerly_kernel(BoundedArgs<T> a, int tile_rows) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* tile = reinterpret_cast<T*>(smem_raw);
    __shared__ unsigned long long uscratch[32];
    const BoundArithmetic<T> bounds(a.d);
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool valid = i < a.n;
    const T* x = a.points + (valid ? i : 0) * a.d;
    unsigned long long evaluations = 0, skips = 0, changed = 0;
    bool full = false;
    int label = 0, known = -1;
    T own = T(0);
    if (valid) {
        label = a.labels[i];
        if (a.first) {
            full = true;
            evaluations = a.k;
        } else {
            const HamerlyTest<T> test = hamerly_test(a, i, label, a.stamp[i], a.upper[i], a.lower[i]);
            skips = test.settled;
            evaluations = test.evaluated;
            if (test.evaluated) {
                own = test.own;
                known = label;
            }
            if (!test.settled) {
                full = true;
                evaluations += a.k - 1;
            }
            if (a.status) a.status[i] = skips ? 1 : 0;
        }
    }
    T best = infinity_of<T>(), second = infinity_of<T>();
    int best_c = 0;
    auto visit = [&](int c, const T* row) {
        const T dist = c == known ? own : exact_squared_distance(x, row, a.d);
        if (dist < best) {
            second = best;
            best = dist;
            best_c = c;
        } else if (dist < second) {
            second = dist;
        }
    };
    for_each_centroid<Shared>(a.centroids, a.k, a.d, tile, tile_rows, full, visit);
    if (full) {
        a.upper[i] = bounds.upper(device_sqrt(best));
        a.lower[i] = second == infinity_of<T>() ? second : bounds.lower(device_sqrt(second));
        a.stamp[i] = a.now;
        changed = record_label(a.labels, a.status, i, label, best_c, false);
    }
    add_block_counts(a.counters, evaluations, skips, changed, uscratch);
}

// The tiled search's result for a listed point: what the full search above writes.
template <typename T>
struct HamerlyFinish {
    static constexpr bool kRecordsDistances = false;
    std::int32_t* labels;
    std::uint8_t* status;
    T* upper;
    T* lower;
    std::int32_t* stamp;
    int now;
    int d;
    __device__ __forceinline__ int operator()(long long i, const Nearest<T>& nearest) const {
        const BoundArithmetic<T> bounds(d);
        upper[i] = bounds.upper(device_sqrt(nearest.best));
        lower[i] = nearest.second == infinity_of<T>() ? nearest.second : bounds.lower(device_sqrt(nearest.second));
        stamp[i] = now;
        return record_label(labels, status, i, labels[i], nearest.best_c, false);
    }
};

}  // namespace

template <typename T>
void launch_hamerly(const BoundedArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    if (!tiled_search_pays(args.k)) {
        launch_bounded<T>(hamerly_kernel<T, true>, hamerly_kernel<T, false>, "Hamerly assignment kernel", args,
                          shared_variant, g, stream);
        return;
    }
    // The bounds kernel reads no centroid rows of its own beyond the assigned one, so
    // it runs without a tile; the searches then run tiled.
    KMS_CUDA_CHECK(cudaMemsetAsync(args.search_count, 0, sizeof(*args.search_count), stream));
    launch_bounds_test<T>(args, args.search_list, args.search_count, args.k - 1, g, stream, "Hamerly bounds kernel");
    const HamerlyFinish<T> finish{args.labels, args.status, args.upper, args.lower, args.stamp, args.now, args.d};
    launch_tiled_search<T, true>(args.points, args.d, args.centroids, args.k,
                                 TiledRows{args.n, args.search_list, args.search_count, false}, shared_variant,
                                 g.sm_count, finish, &args.counters->labels_changed, nullptr, stream,
                                 "Hamerly tiled search kernel");
}

template <typename T>
void launch_hamerly_search(const BoundedArgs<T>& args, bool shared_variant, const Geometry& g, cudaStream_t stream) {
    const HamerlyFinish<T> finish{args.labels, args.status, args.upper, args.lower, args.stamp, args.now, args.d};
    launch_tiled_search<T, true>(args.points, args.d, args.centroids, args.k,
                                 TiledRows{args.n, args.search_list, args.search_count, false}, shared_variant,
                                 g.sm_count, finish, &args.counters->labels_changed,
                                 &args.counters->point_centroid_distances, stream, "Hamerly full search kernel");
}

template void launch_hamerly_search<float>(const BoundedArgs<float>&, bool, const Geometry&, cudaStream_t);
template void launch_hamerly_search<double>(const BoundedArgs<double>&, bool, const Geometry&, cudaStream_t);
template void launch_hamerly<float>(const BoundedArgs<float>&, bool, const Geometry&, cudaStream_t);
template void launch_hamerly<double>(const BoundedArgs<double>&, bool, const Geometry&, cudaStream_t);

}  // namespace kms::cuda
