// The bound kernels Hamerly, Elkan and Yinyang share: half distances between
// centroids, and the cumulative tables of centroid (and group) shifts their bounds
// are kept against.
#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kernels/bounds.hpp"

namespace kms::cuda {
namespace {

// --- Half distances between centroids, as certain lower bounds: one block per centroid.
template <typename T>
__global__ void separation_kernel(const T* centroids, int k, int d, T* nearest_half, T* cc_half) {
    __shared__ T scratch[32];
    const BoundArithmetic<T> bounds(d);
    const int a = blockIdx.x;
    T nearest = infinity_of<T>();
    for (int b = threadIdx.x; b < k; b += blockDim.x) {
        if (b == a) {
            if (cc_half) cc_half[static_cast<long long>(a) * k + b] = T(0);
            continue;
        }
        const T dist = exact_squared_distance(centroids + static_cast<long long>(a) * d,
                                              centroids + static_cast<long long>(b) * d, d);
        const T half = bounds.lower(device_sqrt(dist)) / T(2);
        if (cc_half) cc_half[static_cast<long long>(a) * k + b] = half;
        nearest = half < nearest ? half : nearest;
    }
    // Minimum: the same whatever the order.
    for (int offset = 16; offset > 0; offset >>= 1) {
        const T other = __shfl_down_sync(0xffffffffu, nearest, offset);
        nearest = other < nearest ? other : nearest;
    }
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = nearest;
    __syncthreads();
    if (threadIdx.x == 0) {
        T m = infinity_of<T>();
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) m = scratch[w] < m ? scratch[w] : m;
        nearest_half[a] = m;
    }
}

template <typename T>
__global__ void cumulative_row_kernel(double* table, int row, int k, const T* shift_upper) {
    const int columns = k + 1;
    const double* previous = table + static_cast<long long>(row - 1) * columns;
    double* next = table + static_cast<long long>(row) * columns;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < k; c += gridDim.x * blockDim.x)
        next[c] = __dadd_ru(previous[c], static_cast<double>(shift_upper[c]));
    if (blockIdx.x == 0) {
        // Largest move: a max, the same in any order.
        __shared__ double scratch[32];
        double m = 0.0;
        for (int c = threadIdx.x; c < k; c += blockDim.x) {
            const double v = static_cast<double>(shift_upper[c]);
            m = v > m ? v : m;
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            const double other = __shfl_down_sync(0xffffffffu, m, offset);
            m = other > m ? other : m;
        }
        if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = m;
        __syncthreads();
        if (threadIdx.x == 0) {
            double top = 0.0;
            for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) top = scratch[w] > top ? scratch[w] : top;
            next[k] = __dadd_ru(previous[k], top);
        }
    }
}

// Yinyang's groups: row[g] = previous[g] + the largest move among group g's members
// (a max, the same in any order), one thread per group.
template <typename T>
__global__ void group_cumulative_row_kernel(double* table, int row, int groups, const T* shift_upper,
                                            const std::int32_t* members, const std::int32_t* group_begin) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    double largest = 0.0;
    for (int p = group_begin[g]; p < group_begin[g + 1]; ++p) {
        const double v = static_cast<double>(shift_upper[members[p]]);
        largest = v > largest ? v : largest;
    }
    table[static_cast<long long>(row) * groups + g] = __dadd_ru(table[static_cast<long long>(row - 1) * groups + g], largest);
}

}  // namespace

template <typename T>
void launch_group_cumulative_row(double* table, int row, int groups, const T* shift_upper, const std::int32_t* members,
                                 const std::int32_t* group_begin, cudaStream_t stream) {
    group_cumulative_row_kernel<T><<<blocks_for(groups, 128), 128, 0, stream>>>(table, row, groups, shift_upper, members,
                                                                              group_begin);
    KMS_CUDA_LAUNCH_CHECK("group shift kernel");
}

template <typename T>
void launch_centroid_separations(const T* centroids, int k, int d, T* nearest_half, T* cc_half, cudaStream_t stream) {
    separation_kernel<T><<<k, 256, 0, stream>>>(centroids, k, d, nearest_half, cc_half);
    KMS_CUDA_LAUNCH_CHECK("centroid separation kernel");
}

template <typename T>
void launch_cumulative_row(double* table, int row, int k, const T* shift_upper, cudaStream_t stream) {
    cumulative_row_kernel<T><<<blocks_for(k, 256), 256, 0, stream>>>(table, row, k, shift_upper);
    KMS_CUDA_LAUNCH_CHECK("cumulative shift kernel");
}

#define KMS_INSTANTIATE_BOUNDS(T)                                                                         \
    template void launch_centroid_separations<T>(const T*, int, int, T*, T*, cudaStream_t);             \
    template void launch_cumulative_row<T>(double*, int, int, const T*, cudaStream_t);                  \
    template void launch_group_cumulative_row<T>(double*, int, int, const T*, const std::int32_t*,       \
                                                 const std::int32_t*, cudaStream_t);
KMS_INSTANTIATE_BOUNDS(float)
KMS_INSTANTIATE_BOUNDS(double)

}  // namespace kms::cuda
