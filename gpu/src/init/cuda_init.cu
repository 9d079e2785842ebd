// k-means++ and maximin initialisation on the GPU, bit-identical to the CPU
// initialiser (core/src/init.cpp), which documents the order this follows:
// D[i] = min over chosen centres of squared_distance<double> (same arithmetic),
// blocks of 4096 points, each the sum (from 0.0, in order) of its 64-point
// sub-blocks' sums (each in increasing i from 0.0), block sums added in block
// order, D² sampling walked exactly as on the CPU, block, sub-block, point (one
// thread: it is sequential by definition, from shared memory), maximin = first index of the largest D (parallel
// reductions with that tie rule). One round = one pass over the points plus one
// 1024-thread selection block; a few scalars come back per round.
// With bounds (--init-bounds; Raff 2021, core/src/init/bounded_nearest.hpp has the
// exactness argument, followed here to the letter) every point remembers the slot of
// the centre that gave its D, and a point whose owner is farther than F·D (squared)
// from the new centre keeps D without reading its row: D is bitwise the plain pass's.
// A block none of whose D changed keeps its sum and its largest D (either way).
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <memory>
#include <vector>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kms/cuda_init.hpp"
#include "kms/error.hpp"
#include "kms/random.hpp"
#include "kernels/device_data.hpp"

namespace kms {
namespace {

constexpr int kInitBlock = 4096;  // core/src/init.cpp kBlockSize
constexpr int kSubBlock = 64;     // core/src/init.cpp kSubBlockSize
constexpr int kThreads = 256;
constexpr std::uint64_t kStreamFirstCentre = 0x1171;
constexpr std::uint64_t kStreamKMeansPlusPlus = 0x1172;
constexpr std::uint64_t kStreamFallback = 0x1174;

struct RoundResult {
    double total;
    long long next;  // the next centre (when sampled on the device), else -1
};

// (value, index) of the larger value, ties → the lower index: the CPU's "first
// index of the largest" in any reduction order.
__device__ __forceinline__ void keep_largest(double& value, long long& index, double other, long long other_index) {
    if (other_index < 0) return;
    if (index < 0 || other > value || (other == value && other_index < index)) {
        value = other;
        index = other_index;
    }
}

// Block-wide keep_largest; the result is valid in thread 0.
__device__ __forceinline__ void block_largest(double& value, long long& index, double* values, long long* indices) {
    for (int offset = 16; offset > 0; offset >>= 1)
        keep_largest(value, index, __shfl_down_sync(0xffffffffu, value, offset),
                     __shfl_down_sync(0xffffffffu, index, offset));
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();
    if (lane == 0) {
        values[warp] = value;
        indices[warp] = index;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) keep_largest(value, index, values[w], indices[w]);
}

// The bounds of a round (owner null: the plain pass).
struct RoundBounds {
    int* owner = nullptr;                     // n: the slot of the centre that gave D[i]
    const double* gap = nullptr;              // per earlier slot: its squared distance to the new centre
    int slot = 0;                             // the new centre's slot (0: the first centre)
    double factor = 0.0;                      // F = 4(1 + 8(d+2)·2⁻⁵³)
    unsigned long long* distances = nullptr;  // point–centre distances evaluated (all rounds)
};

// The D a skip test uses (bounded_nearest.cpp's `tested`): an upper bound of D where
// the relative error bound holds, +∞ (never skipped) outside.
__device__ __forceinline__ double tested(double nearest) {
    return nearest < 0x1p-900 ? 0x1p-900 : (nearest <= 0x1p900 ? nearest : __longlong_as_double(0x7ff0000000000000ll));
}

// D[i] = min(D[i], dist(i, centre)); the block's sum in the fixed two-level order (one
// thread, from shared memory: the order is sequential by definition) and the block's
// first largest D (a parallel reduction).
__global__ void __launch_bounds__(kThreads) add_centre_kernel(const double* points, long long n, int d,
                                                              const long long* centre, double* weights,
                                                              double* block_sums, long long* block_best,
                                                              RoundBounds bounds) {
    __shared__ double local[kInitBlock];
    __shared__ double warp_values[kThreads / 32];
    __shared__ long long warp_indices[kThreads / 32];
    const long long begin = static_cast<long long>(blockIdx.x) * kInitBlock;
    const int count = static_cast<int>(min(static_cast<long long>(kInitBlock), n - begin));
    const double* c = points + *centre * d;
    long long best = -1;
    double best_value = 0.0;
    unsigned computed = 0;
    int changed = 0;
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
        const long long i = begin + e;
        double w = weights[i];
        // (gap > F·tested(D) is false for a NaN gap: never skipped)
        if (!(bounds.owner && bounds.slot > 0 && bounds.gap[bounds.owner[i]] > bounds.factor * tested(w))) {
            const double s = cuda::exact_squared_distance(points + i * d, c, d);
            ++computed;
            if (bounds.owner && (s < w || bounds.slot == 0)) bounds.owner[i] = bounds.slot;
            if (s < w) {
                w = s;
                weights[i] = w;
                changed = 1;
            }
        }
        local[e] = w;
        keep_largest(best_value, best, w, i);  // e increases: ties keep the lower i
    }
    for (int offset = 16; offset > 0; offset >>= 1) computed += __shfl_down_sync(0xffffffffu, computed, offset);
    if ((threadIdx.x & 31) == 0 && computed) atomicAdd(bounds.distances, static_cast<unsigned long long>(computed));
    // No D of the block changed: its sum and largest D stand (the first round sets them).
    if (!__syncthreads_or(changed) && bounds.slot > 0) return;
    block_largest(best_value, best, warp_values, warp_indices);  // its barriers also publish local[]
    if (threadIdx.x != 0) return;
    double sum = 0.0;
    for (int sub = 0; sub < count; sub += kSubBlock) {
        double part = 0.0;
        for (int e = sub; e < min(count, sub + kSubBlock); ++e) part += local[e];
        sum += part;
    }
    block_sums[blockIdx.x] = sum;
    block_best[blockIdx.x] = best;
}

// One block: the total (block sums in block order, one thread, staged through
// shared memory), then the next centre (method 1: D² sampling with u, method 2:
// maximin, method 0: none) exactly as NearestDistances does on the CPU. The
// searches that need no order (first qualifying block, largest D, last positive D)
// are parallel; the walks that are sequential by definition run in one thread
// from shared memory.
constexpr int kSelectThreads = 1024;

__global__ void __launch_bounds__(kSelectThreads) select_kernel(const double* weights, long long n,
                                                                const double* block_sums, const long long* block_best,
                                                                double* block_prefix, long long blocks, int method,
                                                                double u, long long* centre, RoundResult* result) {
    __shared__ double stage[kInitBlock];
    __shared__ double warp_values[kSelectThreads / 32];
    __shared__ long long warp_indices[kSelectThreads / 32];
    __shared__ double shared_total;
    __shared__ long long shared_next;
    __shared__ long long shared_range[2];  // where the walk looks for the last positive D
    // Running sums before each block, in block order: block_prefix[b]; the total.
    double total = 0.0;
    for (long long b0 = 0; b0 < blocks; b0 += kInitBlock) {
        const int count = static_cast<int>(min(static_cast<long long>(kInitBlock), blocks - b0));
        __syncthreads();
        for (int e = threadIdx.x; e < count; e += blockDim.x) stage[e] = block_sums[b0 + e];
        __syncthreads();
        if (threadIdx.x == 0)
            for (int e = 0; e < count; ++e) {
                block_prefix[b0 + e] = total;
                total += stage[e];
            }
    }
    if (threadIdx.x == 0) shared_total = total;
    __syncthreads();  // block_prefix (global, written by thread 0) is visible to the block after this too
    total = shared_total;
    // "Last i in [begin, end) with D > 0, else end − 1": a parallel max of the index.
    // (Valid in thread 0; every thread must call it.)
    auto last_positive = [&](long long begin, long long end) {
        long long last = -1;
        for (long long i = begin + threadIdx.x; i < end; i += blockDim.x)
            if (weights[i] > 0.0) last = i;
        double key = static_cast<double>(last);  // exact below 2^53: the largest key is the largest index
        block_largest(key, last, warp_values, warp_indices);
        return last;
    };
    long long next = -1;
    if (total > 0.0 && method == 1) {
        const double target = u * total;
        // The CPU walk stops at the first block with running + sum > target.
        long long first = -1;
        for (long long b = threadIdx.x; b < blocks; b += blockDim.x)
            if (block_prefix[b] + block_sums[b] > target) {
                first = b;
                break;
            }
        double key = -static_cast<double>(first);  // the largest key is the smallest block
        block_largest(key, first, warp_values, warp_indices);
        if (threadIdx.x == 0) shared_next = first;
        __syncthreads();
        const long long b = shared_next;
        if (b >= 0) {
            const long long begin = b * kInitBlock, end = min(n, begin + kInitBlock);
            for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) stage[i - begin] = weights[i];
            __syncthreads();
            if (threadIdx.x == 0) {
                // Sub-block by sub-block; inside the first whose sum takes running past
                // the target, point by point. Rounding may leave no point: then the last
                // positive D of that sub-block, or of the block when no sub-block qualified.
                double running = block_prefix[b];
                shared_range[0] = begin;
                shared_range[1] = end;
                for (long long sub = begin; sub < end && next < 0; sub += kSubBlock) {
                    const long long stop = min(end, sub + kSubBlock);
                    double part = 0.0;
                    for (long long i = sub; i < stop; ++i) part += stage[i - begin];
                    if (running + part > target) {
                        shared_range[0] = sub;
                        shared_range[1] = stop;
                        for (long long i = sub; i < stop; ++i) {
                            running += stage[i - begin];
                            if (running > target) {
                                next = i;
                                break;
                            }
                        }
                        break;
                    }
                    running += part;
                }
                shared_next = next;
            }
            __syncthreads();
            next = shared_next;
            if (next < 0) {
                const long long from = shared_range[0], to = shared_range[1];
                const long long last = last_positive(from, to);
                next = last < 0 ? to - 1 : last;
            }
        } else {
            const long long last = last_positive(0, n);
            next = last < 0 ? n - 1 : last;
        }
    } else if (total > 0.0 && method == 2) {
        double value = 0.0;
        long long best = -1;
        for (long long b = threadIdx.x; b < blocks; b += blockDim.x) keep_largest(value, best, weights[block_best[b]], block_best[b]);
        block_largest(value, best, warp_values, warp_indices);
        next = best;
    }
    if (threadIdx.x != 0) return;
    if (next >= 0) *centre = next;
    result->total = total;
    result->next = next;
}

// Slot `slot` takes the new centre; gap[j] = its squared distance to slot j's centre
// (j < slot), computed as every point distance is.
__global__ void centre_gaps_kernel(const double* points, int d, const long long* centre, long long* slots, int slot,
                                   double* gap) {
    const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (j == 0) slots[slot] = *centre;
    if (j < slot) gap[j] = cuda::exact_squared_distance(points + slots[j] * d, points + *centre * d, d);
}

__global__ void fill_kernel(double* values, long long n, double value) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) values[i] = value;
}


// --init-bounds on the GPU. Auto: from k = kAutoBoundsK on, above d = kAutoBoundsD, and only
// while they skip (kBoundsWindow below). A skipped point saves its row's read, which is what a
// round costs here at larger d; at d = 2 the block sums cost more than the rows (H100, 10^6
// points, k = 1000: bounded 177 ms, plain 167; d = 16 blobs 211 against 297, d = 64 blobs 352
// against 746; docs/gpu-benchmark.md, "GPU seeding with Raff's bounds").
bool cuda_seeding_bounded(SeedingBounds bounds, std::size_t k, std::size_t d) {
    return bounds == SeedingBounds::On ||
           (bounds == SeedingBounds::Auto && k >= kAutoBoundsK && d > kAutoBoundsD);
}
// Auto drops the bounds when the last kBoundsWindow rounds computed more than 7/8 of their
// distances: the same D without the owners' upkeep (10^6 x 64 uniform, k = 1000: 99.95 %
// computed, bounded 859 ms against plain 746). Plain and bounded rounds give the same bits, so
// the switch changes no centre.
constexpr std::uint64_t kBoundsWindow = 32;

// k-means++ / maximin over n × d double points already on the device; returns
// the chosen rows (copied from the device).
Matrix<double> initialize_on_device(const double* device_points, std::size_t n, std::size_t d, std::size_t k,
                                    const InitOptions& options, const std::string& source_name, int device) {
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " +
                                                 std::to_string(n));
    if (d == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    using cuda::DeviceBuffer;
    KMS_CUDA_CHECK(cudaSetDevice(device));
    const long long blocks = static_cast<long long>((n + kInitBlock - 1) / kInitBlock);
    DeviceBuffer<double> weights, block_sums, block_prefix;
    DeviceBuffer<long long> block_best, centre;
    DeviceBuffer<RoundResult> result;
    weights.allocate(n, "the nearest-centre weights");
    block_sums.allocate(static_cast<std::size_t>(blocks), "the block sums");
    block_prefix.allocate(static_cast<std::size_t>(blocks), "the block prefix sums");
    block_best.allocate(static_cast<std::size_t>(blocks), "the block maxima");
    centre.allocate(1, "the centre index");
    result.allocate(1, "the round result");
    fill_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(weights.get(), static_cast<long long>(n),
                                                                   std::numeric_limits<double>::infinity());
    KMS_CUDA_LAUNCH_CHECK("initialisation fill kernel");
    DeviceBuffer<unsigned long long> distances;
    distances.allocate(1, "the distance counter");
    KMS_CUDA_CHECK(cudaMemset(distances.get(), 0, sizeof(unsigned long long)));
    const bool bounded = cuda_seeding_bounded(options.bounds, k, d);
    DeviceBuffer<int> owner;
    DeviceBuffer<double> gap;
    DeviceBuffer<long long> slots;
    RoundBounds bounds;
    bounds.distances = distances.get();
    if (bounded) {
        owner.allocate(n, "the points' centre slots (bounded seeding)");
        gap.allocate(k, "the centre gaps (bounded seeding)");
        slots.allocate(k, "the centres' rows (bounded seeding)");
        bounds.owner = owner.get();
        bounds.gap = gap.get();
        bounds.factor = 4.0 * (1.0 + 8.0 * static_cast<double>(d + 2) * 0x1p-53);
    }
    std::uint64_t centre_distances = 0;
    unsigned long long window_start = 0;  // the distance counter when the current window began

    const std::uint64_t seed = options.seed;
    std::vector<char> chosen(n, 0);
    std::vector<std::size_t> order;
    order.reserve(k);
    auto record = [&](std::size_t index) {
        chosen[index] = 1;
        order.push_back(index);
    };
    long long first = static_cast<long long>(random_below(seed, kStreamFirstCentre, 0, n));
    KMS_CUDA_CHECK(cudaMemcpy(centre.get(), &first, sizeof(first), cudaMemcpyHostToDevice));
    record(static_cast<std::size_t>(first));
    const int method = options.method == InitMethod::KMeansPlusPlus ? 1 : 2;
    for (std::uint64_t round = 1;; ++round) {
        // Add the centre chosen last; then (if another is needed) pick the next one.
        bounds.slot = static_cast<int>(round - 1);
        if (bounds.owner && options.bounds == SeedingBounds::Auto && round % kBoundsWindow == 0) {
            unsigned long long counted = 0;
            KMS_CUDA_CHECK(cudaMemcpy(&counted, distances.get(), sizeof(counted), cudaMemcpyDeviceToHost));
            if (counted - window_start > n / 8 * 7 * kBoundsWindow) bounds.owner = nullptr;
            window_start = counted;
        }
        if (bounds.owner) {
            centre_gaps_kernel<<<static_cast<unsigned>(round + 255) / 256, 256>>>(
                device_points, static_cast<int>(d), centre.get(), slots.get(), bounds.slot, gap.get());
            KMS_CUDA_LAUNCH_CHECK("initialisation centre gaps kernel");
            centre_distances += round - 1;
        }
        add_centre_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(device_points, static_cast<long long>(n),
                                                                      static_cast<int>(d), centre.get(), weights.get(),
                                                                      block_sums.get(), block_best.get(), bounds);
        KMS_CUDA_LAUNCH_CHECK("initialisation distance kernel");
        const bool more = round < k;
        const double u = more && method == 1 ? random_uniform(seed, kStreamKMeansPlusPlus, round) : 0.0;
        select_kernel<<<1, kSelectThreads>>>(weights.get(), static_cast<long long>(n), block_sums.get(),
                                             block_best.get(), block_prefix.get(), blocks, more ? method : 0, u,
                                             centre.get(), result.get());
        KMS_CUDA_LAUNCH_CHECK("initialisation selection kernel");
        RoundResult host{};
        KMS_CUDA_CHECK(cudaMemcpy(&host, result.get(), sizeof(host), cudaMemcpyDeviceToHost));
        if (!std::isfinite(host.total))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
        if (!more) break;
        if (options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
        long long next = host.next;
        if (!(host.total > 0.0)) {  // every point coincides with a centre: the m-th unchosen point
            std::uint64_t m = random_below(seed, kStreamFallback, round, n - order.size());
            next = static_cast<long long>(n) - 1;
            for (std::size_t i = 0; i < n; ++i)
                if (!chosen[i] && m-- == 0) {
                    next = static_cast<long long>(i);
                    break;
                }
            KMS_CUDA_CHECK(cudaMemcpy(centre.get(), &next, sizeof(next), cudaMemcpyHostToDevice));
        }
        record(static_cast<std::size_t>(next));
    }
    Matrix<double> out(k, d);
    for (std::size_t c = 0; c < k; ++c)
        KMS_CUDA_CHECK(cudaMemcpy(out.row(c), device_points + order[c] * d, d * sizeof(double),
                                  cudaMemcpyDeviceToHost));
    if (options.stats) {
        unsigned long long computed = 0;
        KMS_CUDA_CHECK(cudaMemcpy(&computed, distances.get(), sizeof(computed), cudaMemcpyDeviceToHost));
        options.stats->point_centroid_distances += computed;
        options.stats->centroid_centroid_distances += centre_distances;
        options.stats->bounded = bounded;
    }
    return out;
}

__global__ void widen_kernel(const float* in, long long count, double* out) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) out[i] = static_cast<double>(in[i]);
}

bool on_gpu(const InitOptions& options) {
    return (options.method == InitMethod::KMeansPlusPlus || options.method == InitMethod::Maximin) &&
           options.sample_weight.empty();
}

}  // namespace

Matrix<double> cuda_initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                         const std::string& source_name, int device) {
    // Weighted seeding runs on the CPU (the same result by definition; the GPU
    // kernels here know only unit weights).
    if (!on_gpu(options)) return initialize_centroids(points, k, options, source_name);
    const std::size_t n = points.rows(), d = points.cols();
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " +
                                                 std::to_string(n));
    if (d == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    return timed_seeding(options, [&] {
        KMS_CUDA_CHECK(cudaSetDevice(device));
        cuda::DeviceBuffer<double> device_points;
        device_points.allocate(n * d, "the points (initialisation)");
        KMS_CUDA_CHECK(cudaMemcpy(device_points.get(), points.data(), n * d * sizeof(double), cudaMemcpyHostToDevice));
        return initialize_on_device(device_points.get(), n, d, k, options, source_name, device);
    });
}

Matrix<double> cuda_initialize_centroids(const DeviceMatrix& points, std::size_t k, const InitOptions& options,
                                         const std::string& source_name, int device) {
    const std::size_t n = points.rows, d = points.cols;
    if (points.device >= 0 && points.device != device)
        throw Error("the data are on CUDA device " + std::to_string(points.device) + ", the run is on device " +
                    std::to_string(device));
    KMS_CUDA_CHECK(cudaSetDevice(device));
    KMS_CUDA_CHECK(cudaDeviceSynchronize());  // the data's producer has finished writing them
    if (options.method == InitMethod::File) {
        // Centroids given: only the data's shape is checked (a shape-only matrix; no values are read).
        return initialize_centroids(Matrix<double>::view(n, d, nullptr, nullptr), k, options, source_name);
    }
    // From here the seeding reads the values: NaN or ±Inf is refused as such first, not found
    // later as squared distances that are not numbers (one pass, as the solver's own check).
    const bool has_non_finite =
        points.element == Precision::F64
            ? cuda::column_stats(static_cast<const double*>(points.data), static_cast<long long>(n), static_cast<int>(d), nullptr).non_finite
            : cuda::column_stats(static_cast<const float*>(points.data), static_cast<long long>(n), static_cast<int>(d), nullptr).non_finite;
    if (has_non_finite) throw InputError::whole(source_name, "contains NaN or infinite values");
    if (!on_gpu(options)) {
        // Random, greedy k-means++ and weighted seeding have no GPU kernels: they read
        // a host copy of the points, made for the seeding only (the solver still reads
        // the device data in place).
        auto host = std::make_shared<Matrix<double>>(n, d);
        if (points.element == Precision::F64) {
            KMS_CUDA_CHECK(cudaMemcpy(host->data(), points.data, n * d * sizeof(double), cudaMemcpyDeviceToHost));
        } else {
            std::vector<float> values(n * d);
            KMS_CUDA_CHECK(cudaMemcpy(values.data(), points.data, n * d * sizeof(float), cudaMemcpyDeviceToHost));
            std::copy(values.begin(), values.end(), host->data());
        }
        return initialize_centroids(*host, k, options, source_name);
    }
    return timed_seeding(options, [&] {
        if (points.element == Precision::F64)
            return initialize_on_device(static_cast<const double*>(points.data), n, d, k, options, source_name, device);
        // float data: the initialiser's arithmetic is double (the same values the host path converts).
        cuda::DeviceBuffer<double> widened;
        widened.allocate(n * d, "the points in double (initialisation)");
        const long long count = static_cast<long long>(n * d);
        widen_kernel<<<static_cast<unsigned>((count + 255) / 256), 256>>>(static_cast<const float*>(points.data),
                                                                          count, widened.get());
        KMS_CUDA_LAUNCH_CHECK("initialisation widening kernel");
        return initialize_on_device(widened.get(), n, d, k, options, source_name, device);
    });
}


}  // namespace kms
