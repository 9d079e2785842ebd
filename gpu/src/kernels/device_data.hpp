#pragma once
// Points handed over in device memory (kms/device_matrix.hpp): the conversion to
// the solver's precision and the per-coordinate statistics the host path takes
// from its copy (range, sum, variance), computed on the device.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace kms::cuda {

// out[i] = static_cast<T>(in[i]) for the n·d values (stream-ordered).
template <typename T, typename U>
void launch_convert(const U* in, long long count, T* out, cudaStream_t stream);

// Per coordinate j of n × d values `x` (float or double), reduced in a fixed order
// (blocks of 256 rows, each a fixed block sum, then the blocks in order: repeatable
// bit for bit, not the host's sequential order): min, max, sum, the sum of squared
// deviations from sum/n, and whether any value is NaN or ±Inf. Synchronous.
struct ColumnStats {
    std::vector<double> low, high, sum, squared_deviation;
    bool non_finite = false;
};
template <typename U>
ColumnStats column_stats(const U* x, long long n, int d, cudaStream_t stream);

}  // namespace kms::cuda
