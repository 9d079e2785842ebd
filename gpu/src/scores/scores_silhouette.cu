// Exact silhouette kernels. One thread per point (row); the block walks the
// points ordered by cluster in tiles staged through shared memory (coordinates
// transposed), summing the row's distances to the current cluster in a register.
// A tile never spans two clusters, so a row needs only its running sum, its own
// cluster's sum and the nearest other cluster's mean: O(1) state per row.
//
// The columns (points) are split into launches of ~2^34 distance evaluations so a
// stop request is seen within tens of milliseconds; a cluster that continues into
// the next launch leaves its partial sum in `carry`.
//
// Distances are computed as kms::squared_distance on the CPU: same order, no FMA
// (explicit _rn intrinsics), IEEE square root, so each distance equals the CPU's;
// float distances are summed in float over runs of 32, then in double.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "scores/scores_cuda.hpp"

namespace kms::detail {

namespace {

constexpr int kThreads = 256;
constexpr int kSharedBytes = 48 * 1024;
constexpr double kPairsPerLaunch = 17179869184.0;  // 2^34: ~20 ms in float on an H100

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw Error(std::string("CUDA silhouette: ") + what + ": " + cudaGetErrorString(status));
}

template <typename T>
struct Exact;
template <>
struct Exact<float> {
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float root(float a) { return __fsqrt_rn(a); }
};
template <>
struct Exact<double> {
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double root(double a) { return __dsqrt_rn(a); }
};

// D > 0: the dimension at compile time (the point lives in registers); D = 0: any d.
template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    silhouette_sums_kernel(const T* __restrict__ points, std::size_t n, int d_runtime,
                           const std::int32_t* __restrict__ codes, const std::uint64_t* __restrict__ start,
                           std::size_t k, std::uint64_t j0, std::uint64_t j1, std::size_t c0, int tile_width,
                           double* __restrict__ carry, double* __restrict__ intra, double* __restrict__ nearest) {
    extern __shared__ unsigned char shared_bytes[];
    T* tile = reinterpret_cast<T*>(shared_bytes);  // tile[dim * tile_width + jj]
    const int d = D > 0 ? D : d_runtime;
    const std::size_t row = std::size_t(blockIdx.x) * kThreads + threadIdx.x;
    const bool valid = row < n;
    const std::size_t me = valid ? row : n - 1;
    T x[D > 0 ? D : 1];
    if constexpr (D > 0) {
#pragma unroll
        for (int dim = 0; dim < D; ++dim) x[dim] = points[me * D + dim];
    }
    const std::size_t own = std::size_t(codes[me]);
    double running = carry[me];
    double own_sum = intra[me];
    double best = nearest[me];

    for (std::size_t c = c0; c < k && start[c] < j1; ++c) {
        const std::uint64_t begin = start[c] > j0 ? start[c] : j0;
        const std::uint64_t end = start[c + 1] < j1 ? start[c + 1] : j1;
        for (std::uint64_t t0 = begin; t0 < end; t0 += std::uint64_t(tile_width)) {
            const int len = int((end - t0) < std::uint64_t(tile_width) ? (end - t0) : std::uint64_t(tile_width));
            __syncthreads();  // the previous tile is consumed
            const T* source = points + t0 * std::uint64_t(d);
            for (int e = threadIdx.x; e < len * d; e += kThreads) {  // contiguous, coalesced reads
                const int jj = e / d, dim = e - jj * d;
                tile[dim * tile_width + jj] = source[e];
            }
            __syncthreads();
            if (valid) {
                for (int base = 0; base < len; base += 32) {
                    const int stop = base + 32 < len ? base + 32 : len;
                    T part = T(0);
#pragma unroll 4
                    for (int jj = base; jj < stop; ++jj) {
                        T squared = T(0);
                        if constexpr (D > 0) {
#pragma unroll
                            for (int dim = 0; dim < D; ++dim) {
                                const T diff = x[dim] - tile[dim * tile_width + jj];
                                squared = Exact<T>::add(squared, Exact<T>::mul(diff, diff));
                            }
                        } else {
                            for (int dim = 0; dim < d; ++dim) {
                                const T diff = points[me * std::size_t(d) + dim] - tile[dim * tile_width + jj];
                                squared = Exact<T>::add(squared, Exact<T>::mul(diff, diff));
                            }
                        }
                        part = Exact<T>::add(part, Exact<T>::root(squared));
                    }
                    running += double(part);
                }
            }
        }
        if (start[c + 1] <= j1) {  // cluster c complete
            if (c == own) own_sum = running;
            else best = fmin(best, running / double(start[c + 1] - start[c]));
            running = 0.0;
        }
    }
    if (valid) {
        carry[row] = running;
        intra[row] = own_sum;
        nearest[row] = best;
    }
}

template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(std::size_t count) { check(cudaMalloc(&ptr, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc"); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void upload(const T* host, std::size_t count) {
        check(cudaMemcpy(ptr, host, count * sizeof(T), cudaMemcpyHostToDevice), "copy to the device");
    }
    void download(T* host, std::size_t count) const {
        check(cudaMemcpy(host, ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "copy from the device");
    }
};

template <typename T, int D>
void launch(dim3 grid, std::size_t shared, const T* points, std::size_t n, int d, const std::int32_t* codes,
            const std::uint64_t* start, std::size_t k, std::uint64_t j0, std::uint64_t j1, std::size_t c0,
            int tile_width, double* carry, double* intra, double* nearest) {
    silhouette_sums_kernel<T, D><<<grid, kThreads, shared>>>(points, n, d, codes, start, k, j0, j1, c0, tile_width,
                                                              carry, intra, nearest);
}

}  // namespace

std::string cuda_silhouette_unavailable_reason(int device) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error for later calls
        return std::string("the CUDA runtime reports: ") + cudaGetErrorString(status);
    }
    if (count == 0) return "the CUDA driver reports no device";
    if (device < 0 || device >= count)
        return "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)";
    return {};
}

std::string cuda_device_description(int device) {
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
           std::to_string(properties.minor) + ", " + std::to_string(properties.multiProcessorCount) + " SMs)";
}

template <typename T>
bool cuda_silhouette_sums(const T* sorted_points, std::size_t n, std::size_t d, const std::int32_t* codes,
                          const std::uint64_t* cluster_start, std::size_t k, int device, bool (*should_stop)(void*),
                          void* context, double* intra_sum, double* nearest_mean) {
    check(cudaSetDevice(device), "cudaSetDevice");
    // Tile width: as many points as fit in 48 KiB of shared memory, at most one per thread.
    const std::size_t row_bytes = d * sizeof(T);
    if (row_bytes > std::size_t(kSharedBytes))
        throw Error("CUDA silhouette: " + std::to_string(d) + " dimensions do not fit a shared-memory tile (at most " +
                    std::to_string(kSharedBytes / sizeof(T)) + ")");
    const int tile_width =
        row_bytes == 0 ? kThreads : int(std::min<std::size_t>(kThreads, std::size_t(kSharedBytes) / row_bytes));
    const std::size_t shared = std::size_t(tile_width) * row_bytes;

    DeviceBuffer<T> points(n * d);
    DeviceBuffer<std::int32_t> device_codes(n);
    DeviceBuffer<std::uint64_t> start(k + 1);
    DeviceBuffer<double> carry(n), intra(n), nearest(n);
    points.upload(sorted_points, n * d);
    device_codes.upload(codes, n);
    start.upload(cluster_start, k + 1);
    {
        std::vector<double> zeros(n, 0.0), infinities(n, std::numeric_limits<double>::infinity());
        carry.upload(zeros.data(), n);
        intra.upload(zeros.data(), n);
        nearest.upload(infinities.data(), n);
    }

    const dim3 grid(unsigned((n + kThreads - 1) / kThreads));
    std::uint64_t columns = std::uint64_t(kPairsPerLaunch / double(n));
    columns = std::max<std::uint64_t>(columns, kThreads);
    for (std::uint64_t j0 = 0; j0 < n; j0 += columns) {
        if (should_stop(context)) return false;
        const std::uint64_t j1 = std::min<std::uint64_t>(n, j0 + columns);
        const std::size_t c0 =
            std::size_t(std::upper_bound(cluster_start, cluster_start + k + 1, j0) - cluster_start) - 1;
        const int dim = int(d);
        switch (d) {
            case 1: launch<T, 1>(grid, shared, points.ptr, n, dim, device_codes.ptr, start.ptr, k, j0, j1, c0, tile_width, carry.ptr, intra.ptr, nearest.ptr); break;
            case 2: launch<T, 2>(grid, shared, points.ptr, n, dim, device_codes.ptr, start.ptr, k, j0, j1, c0, tile_width, carry.ptr, intra.ptr, nearest.ptr); break;
            case 3: launch<T, 3>(grid, shared, points.ptr, n, dim, device_codes.ptr, start.ptr, k, j0, j1, c0, tile_width, carry.ptr, intra.ptr, nearest.ptr); break;
            case 4: launch<T, 4>(grid, shared, points.ptr, n, dim, device_codes.ptr, start.ptr, k, j0, j1, c0, tile_width, carry.ptr, intra.ptr, nearest.ptr); break;
            default: launch<T, 0>(grid, shared, points.ptr, n, dim, device_codes.ptr, start.ptr, k, j0, j1, c0, tile_width, carry.ptr, intra.ptr, nearest.ptr); break;
        }
        check(cudaGetLastError(), "kernel launch");
        check(cudaDeviceSynchronize(), "kernel");
    }
    intra.download(intra_sum, n);
    nearest.download(nearest_mean, n);
    return true;
}

template bool cuda_silhouette_sums<float>(const float*, std::size_t, std::size_t, const std::int32_t*,
                                          const std::uint64_t*, std::size_t, int, bool (*)(void*), void*, double*,
                                          double*);
template bool cuda_silhouette_sums<double>(const double*, std::size_t, std::size_t, const std::int32_t*,
                                           const std::uint64_t*, std::size_t, int, bool (*)(void*), void*, double*,
                                           double*);

}  // namespace kms::detail
