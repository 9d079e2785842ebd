// Device-data helpers (kernels/device_data.hpp).
#include "kernels/device_data.hpp"

#include <cmath>
#include <limits>

#include "cuda_common.hpp"
#include "cuda_device.hpp"

namespace kms::cuda {

namespace {

constexpr int kRows = 256;  // rows per block of the column statistics (one per thread)

template <typename T, typename U>
__global__ void convert_kernel(const U* in, long long count, T* out) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = static_cast<T>(in[i]);
}

// Block b: rows [b·kRows, (b+1)·kRows), one per thread; per coordinate a fixed
// block sum (and min, max, non-finite count) into partials[j·blocks + b].
// mean == nullptr: sums of the values; else sums of (x − mean[j])².
template <typename U>
__global__ void __launch_bounds__(kRows) column_partials_kernel(const U* x, long long n, int d, const double* mean,
                                                                 double* sums, double* lows, double* highs,
                                                                 unsigned* bad) {
    __shared__ double scratch[32];
    __shared__ double low_scratch[kRows / 32], high_scratch[kRows / 32];
    __shared__ unsigned bad_scratch[kRows / 32];
    const long long row = static_cast<long long>(blockIdx.x) * kRows + threadIdx.x;
    const bool here = row < n;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long blocks = gridDim.x;
    for (int j = 0; j < d; ++j) {
        const double v = here ? static_cast<double>(x[row * d + j]) : 0.0;
        if (mean) {
            const double diff = here ? v - mean[j] : 0.0;
            const double total = block_sum_fixed(diff * diff, scratch);
            if (threadIdx.x == 0) sums[j * blocks + blockIdx.x] = total;
            continue;
        }
        const double total = block_sum_fixed(v, scratch);
        double low = here ? v : std::numeric_limits<double>::infinity();
        double high = here ? v : -std::numeric_limits<double>::infinity();
        unsigned non_finite = here && !isfinite(v) ? 1u : 0u;
        for (int offset = 16; offset > 0; offset >>= 1) {
            const double other_low = __shfl_down_sync(0xffffffffu, low, offset);
            const double other_high = __shfl_down_sync(0xffffffffu, high, offset);
            low = other_low < low ? other_low : low;
            high = other_high > high ? other_high : high;
            non_finite |= __shfl_down_sync(0xffffffffu, non_finite, offset);
        }
        if (lane == 0) {
            low_scratch[warp] = low;
            high_scratch[warp] = high;
            bad_scratch[warp] = non_finite;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < kRows / 32; ++w) {
                low = low_scratch[w] < low ? low_scratch[w] : low;
                high = high_scratch[w] > high ? high_scratch[w] : high;
                non_finite |= bad_scratch[w];
            }
            sums[j * blocks + blockIdx.x] = total;
            lows[j * blocks + blockIdx.x] = low;
            highs[j * blocks + blockIdx.x] = high;
            if (non_finite) atomicOr(bad, 1u);
        }
        __syncthreads();
    }
}

// Per coordinate: the blocks' partials in block order.
__global__ void column_totals_kernel(const double* sums, const double* lows, const double* highs, long long blocks,
                                     int d, double* out) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double sum = 0.0, low = std::numeric_limits<double>::infinity(), high = -std::numeric_limits<double>::infinity();
    for (long long b = 0; b < blocks; ++b) {
        sum += sums[j * blocks + b];
        if (lows) {
            low = lows[j * blocks + b] < low ? lows[j * blocks + b] : low;
            high = highs[j * blocks + b] > high ? highs[j * blocks + b] : high;
        }
    }
    out[j] = sum;
    if (lows) {
        out[d + j] = low;
        out[2 * d + j] = high;
    }
}

}  // namespace

template <typename T, typename U>
void launch_convert(const U* in, long long count, T* out, cudaStream_t stream) {
    const unsigned grid = static_cast<unsigned>(std::min<long long>(blocks_for(count, 256), 65535ll * 8));
    convert_kernel<T, U><<<grid > 0 ? grid : 1, 256, 0, stream>>>(in, count, out);
    KMS_CUDA_LAUNCH_CHECK("data conversion kernel");
}

template <typename U>
ColumnStats column_stats(const U* x, long long n, int d, cudaStream_t stream) {
    const long long blocks = (n + kRows - 1) / kRows;
    DeviceBuffer<double> sums, lows, highs, totals;
    DeviceBuffer<unsigned> bad;
    sums.allocate(static_cast<std::size_t>(blocks) * d, "the column statistics");
    lows.allocate(static_cast<std::size_t>(blocks) * d, "the column statistics");
    highs.allocate(static_cast<std::size_t>(blocks) * d, "the column statistics");
    totals.allocate(static_cast<std::size_t>(3) * d, "the column statistics");
    bad.allocate(1, "the column statistics");
    KMS_CUDA_CHECK(cudaMemsetAsync(bad.get(), 0, sizeof(unsigned), stream));
    column_partials_kernel<U><<<static_cast<unsigned>(blocks), kRows, 0, stream>>>(x, n, d, nullptr, sums.get(),
                                                                                    lows.get(), highs.get(), bad.get());
    KMS_CUDA_LAUNCH_CHECK("column statistics kernel");
    column_totals_kernel<<<blocks_for(d, 128), 128, 0, stream>>>(sums.get(), lows.get(), highs.get(), blocks, d,
                                                                 totals.get());
    KMS_CUDA_LAUNCH_CHECK("column totals kernel");
    ColumnStats stats;
    std::vector<double> host(static_cast<std::size_t>(3) * d);
    unsigned non_finite = 0;
    KMS_CUDA_CHECK(cudaMemcpyAsync(host.data(), totals.get(), host.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                   stream));
    KMS_CUDA_CHECK(cudaMemcpyAsync(&non_finite, bad.get(), sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
    stats.non_finite = non_finite != 0;
    stats.sum.assign(host.begin(), host.begin() + d);
    stats.low.assign(host.begin() + d, host.begin() + 2 * d);
    stats.high.assign(host.begin() + 2 * d, host.end());
    if (stats.non_finite) return stats;
    // Second pass: squared deviations from the mean.
    std::vector<double> mean(static_cast<std::size_t>(d));
    for (int j = 0; j < d; ++j) mean[j] = stats.sum[j] / static_cast<double>(n);
    DeviceBuffer<double> device_mean;
    device_mean.allocate(static_cast<std::size_t>(d), "the column means");
    KMS_CUDA_CHECK(cudaMemcpyAsync(device_mean.get(), mean.data(), mean.size() * sizeof(double),
                                   cudaMemcpyHostToDevice, stream));
    column_partials_kernel<U><<<static_cast<unsigned>(blocks), kRows, 0, stream>>>(
        x, n, d, device_mean.get(), sums.get(), nullptr, nullptr, nullptr);
    KMS_CUDA_LAUNCH_CHECK("column deviation kernel");
    column_totals_kernel<<<blocks_for(d, 128), 128, 0, stream>>>(sums.get(), nullptr, nullptr, blocks, d,
                                                                 totals.get());
    KMS_CUDA_LAUNCH_CHECK("column totals kernel");
    stats.squared_deviation.resize(static_cast<std::size_t>(d));
    KMS_CUDA_CHECK(cudaMemcpyAsync(stats.squared_deviation.data(), totals.get(), d * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return stats;
}

template void launch_convert<float, double>(const double*, long long, float*, cudaStream_t);
template void launch_convert<double, float>(const float*, long long, double*, cudaStream_t);
template ColumnStats column_stats<float>(const float*, long long, int, cudaStream_t);
template ColumnStats column_stats<double>(const double*, long long, int, cudaStream_t);

}  // namespace kms::cuda
