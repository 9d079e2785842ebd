#pragma once
// Device-side helpers of the CUDA back end (included by .cu files only).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kms/distance.hpp"

namespace kms::cuda {

// Dynamic shared memory of the tiled assignment kernels (Lloyd's and the bounded
// ones' centroid tiles); their static use stays below 8 KB.
constexpr std::size_t kTileBytes = 40 * 1024;

// Blocks of `block` threads that cover `items`.
inline unsigned blocks_for(long long items, int block) { return static_cast<unsigned>((items + block - 1) / block); }

// The exact arithmetic of kms::squared_distance(): sub, mul, add in index order,
// each rounded on its own (explicit _rn intrinsics: no FMA whatever the flags).
__device__ __forceinline__ float sq_step(float sum, float x, float c) {
    const float diff = __fsub_rn(x, c);
    return __fadd_rn(sum, __fmul_rn(diff, diff));
}
__device__ __forceinline__ double sq_step(double sum, double x, double c) {
    const double diff = __dsub_rn(x, c);
    return __dadd_rn(sum, __dmul_rn(diff, diff));
}

// The two halves of a step, for code that specialises the first one.
__device__ __forceinline__ float sq_diff(float x, float c) { return __fsub_rn(x, c); }
__device__ __forceinline__ double sq_diff(double x, double c) { return __dsub_rn(x, c); }
__device__ __forceinline__ float sq_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double sq_mul(double a, double b) { return __dmul_rn(a, b); }

template <typename T>
__device__ __forceinline__ T exact_squared_distance(const T* a, const T* b, int d) {
    T sum = T(0);
    for (int j = 0; j < d; ++j) sum = sq_step(sum, a[j], b[j]);
    return sum;
}

__device__ __forceinline__ float device_sqrt(float v) { return __fsqrt_rn(v); }
__device__ __forceinline__ double device_sqrt(double v) { return __dsqrt_rn(v); }

template <typename T>
__device__ __forceinline__ T infinity_of() {
    if constexpr (sizeof(T) == 4) return __int_as_float(0x7f800000);
    else return __longlong_as_double(0x7ff0000000000000ll);
}

// A double made into T, rounded up (a certain upper bound in T).
__device__ __forceinline__ float to_upper(double v, float) { return __double2float_ru(v); }
__device__ __forceinline__ double to_upper(double v, double) { return v; }

// Σ of shift upper bounds between two rows of the cumulative table, rounded up.
template <typename T>
__device__ __forceinline__ T accumulated_shift(const double* table, int columns, int from_row, int to_row,
                                               int column) {
    if (from_row == to_row) return T(0);
    const double now = table[static_cast<long long>(to_row) * columns + column];
    const double then = table[static_cast<long long>(from_row) * columns + column];
    return to_upper(__dsub_ru(now, then), T(0));
}

// Elkan lower bounds: half with a power-of-two scale (float data), float (double data),
// both rounded down so a stored bound is never larger than the true one.
__device__ __forceinline__ float load_lower(unsigned short raw, float scale) {
    return __half2float(__ushort_as_half(raw)) / scale;  // exact: scale is a power of two
}
__device__ __forceinline__ unsigned short store_lower(float value, float scale) {
    float scaled = value * scale;                   // exact unless it under/overflows, handled here
    if (!(scaled >= 6.2e-5f)) return 0;             // tiny, negative or NaN: 0 is always a lower bound
    if (!(scaled <= 65504.0f)) scaled = 65504.0f;   // beyond half's range: the largest half is still below
    return __half_as_ushort(__float2half_rd(scaled));
}
__device__ __forceinline__ double load_lower(float raw, float) { return static_cast<double>(raw); }
__device__ __forceinline__ float store_lower(double value, float) {
    if (!(value > 0.0)) return 0.0f;
    return __double2float_rd(value);
}

// Deterministic block sum of a double: fixed butterfly in each warp, then the
// warps' sums added in warp order by thread 0. `scratch` holds blockDim/32 doubles.
// The result is valid in thread 0 only. Every thread of the block must call it.
__device__ __forceinline__ double block_sum_fixed(double value, double* scratch) {
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();  // scratch may still be read by a previous call
    if (lane == 0) scratch[warp] = value;
    __syncthreads();
    double total = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += scratch[w];
    return total;
}

// Integer block sum pushed to a global counter with one atomic per block.
__device__ __forceinline__ void block_count_add(unsigned long long value, unsigned long long* target,
                                                unsigned long long* scratch) {
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();
    if (lane == 0) scratch[warp] = value;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += scratch[w];
        if (total) atomicAdd(target, total);
    }
}

}  // namespace kms::cuda
