// Hardware ceilings measured in the same run as the solver timings: device-to-
// device copy bandwidth and the FP32 FMA rate.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_floor.hpp"

namespace {

void ok(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

__device__ inline float fma_rn(float x, float a, float b) { return __fmaf_rn(x, a, b); }
__device__ inline double fma_rn(double x, double a, double b) { return __fma_rn(x, a, b); }

// Independent FMA chains per thread; the result is stored so nothing is optimised away.
template <typename T>
__global__ void fma_loop_kernel(T* out, int iterations, T a, T b) {
    T x0 = threadIdx.x * T(1e-7), x1 = x0 + T(1), x2 = x0 + T(2), x3 = x0 + T(3);
    T x4 = x0 + T(4), x5 = x0 + T(5), x6 = x0 + T(6), x7 = x0 + T(7);
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int r = 0; r < 16; ++r) {
            x0 = fma_rn(x0, a, b); x1 = fma_rn(x1, a, b); x2 = fma_rn(x2, a, b); x3 = fma_rn(x3, a, b);
            x4 = fma_rn(x4, a, b); x5 = fma_rn(x5, a, b); x6 = fma_rn(x6, a, b); x7 = fma_rn(x7, a, b);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

template <typename F>
double median_ms(int repeats, F&& run) {
    cudaEvent_t start, stop;
    ok(cudaEventCreate(&start), "event");
    ok(cudaEventCreate(&stop), "event");
    std::vector<float> times;
    run();  // warm-up
    for (int r = 0; r < repeats; ++r) {
        ok(cudaEventRecord(start), "record");
        run();
        ok(cudaEventRecord(stop), "record");
        ok(cudaEventSynchronize(stop), "sync");
        float ms = 0;
        ok(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

namespace bench {

Ceilings measure_ceilings() {
    Ceilings c;
    const std::size_t bytes = std::size_t{2} << 30;  // 2 GiB, far beyond L2
    void *src = nullptr, *dst = nullptr;
    ok(cudaMalloc(&src, bytes), "cudaMalloc");
    ok(cudaMalloc(&dst, bytes), "cudaMalloc");
    ok(cudaMemset(src, 1, bytes), "memset");
    const double copy_ms = median_ms(10, [&] { ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy"); });
    c.copy_bandwidth_gbs = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3) / 1e9;  // read + write
    cudaFree(src);
    cudaFree(dst);

    int device = 0, sms = 0;
    ok(cudaGetDevice(&device), "device");
    ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "attribute");
    const int blocks = sms * 8, threads = 256, iterations = 4096;
    double* out = nullptr;
    ok(cudaMalloc(&out, sizeof(double) * blocks * threads), "cudaMalloc");
    const double fma_ms = median_ms(5, [&] {
        fma_loop_kernel<float><<<blocks, threads>>>(reinterpret_cast<float*>(out), iterations, 0.999f, 1e-3f);
        ok(cudaGetLastError(), "fma kernel");
    });
    const double flops = 2.0 * 8.0 * 16.0 * iterations * static_cast<double>(blocks) * threads;
    c.fp32_tflops = flops / (fma_ms * 1e-3) / 1e12;
    const int iterations64 = iterations / 8;  // FP64 runs far slower on most parts: keep the run short
    const double fma64_ms = median_ms(5, [&] {
        fma_loop_kernel<double><<<blocks, threads>>>(out, iterations64, 0.999, 1e-3);
        ok(cudaGetLastError(), "fma kernel (double)");
    });
    c.fp64_tflops = 2.0 * 8.0 * 16.0 * iterations64 * static_cast<double>(blocks) * threads / (fma64_ms * 1e-3) / 1e12;
    cudaFree(out);
    return c;
}

double host_to_device_gbs(std::size_t bytes, bool pinned, double* ms_out) {
    void* host = nullptr;
    if (pinned) ok(cudaMallocHost(&host, bytes), "cudaMallocHost");
    else host = ::operator new(bytes);
    std::fill_n(static_cast<unsigned char*>(host), bytes, static_cast<unsigned char>(3));
    void* device = nullptr;
    ok(cudaMalloc(&device, bytes), "cudaMalloc");
    const double ms = median_ms(5, [&] { ok(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "H2D"); });
    cudaFree(device);
    if (pinned) cudaFreeHost(host);
    else ::operator delete(host);
    if (ms_out) *ms_out = ms;
    return static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

}  // namespace bench
