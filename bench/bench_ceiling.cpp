// The CPU's measured ceilings, for the floors in scripts/bench.sh's reports:
// memory read and copy bandwidth with T threads, and the arithmetic rate of the
// solvers' own operation mix (subtract, multiply, add: no FMA, as the exact
// distance needs) and of FMA (what a BLAS-based peer can use), per precision, at
// the widest SIMD level this CPU has. One JSON line on stdout.
//
//   bench_ceiling [threads=0 (all)] [mebibytes=1024]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kms/simd.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KMS_AVX512 __attribute__((target("avx512f")))
#define KMS_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Best of `repeats` (a ceiling is what the machine can reach).
template <typename F>
double best_seconds(int repeats, F&& run) {
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        run();
        best = std::min(best, seconds_since(start));
    }
    return best;
}

volatile double sink;

// Eight independent chains of acc += (x - c)·(x - c) on W-lane vectors: 3 flops
// per lane and step. Named variables (not arrays) so they live in registers; the
// empty asm makes x opaque, so nothing is hoisted or folded.
template <typename T, int W>
[[gnu::always_inline]] inline double mix_loop(long steps) {
    typedef T V __attribute__((vector_size(W * sizeof(T))));
    const V c = V{} + T(0.999);
    V x0 = V{} + T(1.001), x1 = V{} + T(1.002), x2 = V{} + T(1.003), x3 = V{} + T(1.004);
    V x4 = V{} + T(1.005), x5 = V{} + T(1.006), x6 = V{} + T(1.007), x7 = V{} + T(1.008);
    V a0 = V{}, a1 = V{}, a2 = V{}, a3 = V{}, a4 = V{}, a5 = V{}, a6 = V{}, a7 = V{};
    for (long s = 0; s < steps; ++s) {
        asm volatile("" : "+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3), "+v"(x4), "+v"(x5), "+v"(x6), "+v"(x7));
#define KMS_CHAIN(acc, x)             \
    {                                 \
        const V diff = x - c;         \
        acc = acc + diff * diff;      \
    }
        KMS_CHAIN(a0, x0) KMS_CHAIN(a1, x1) KMS_CHAIN(a2, x2) KMS_CHAIN(a3, x3)
        KMS_CHAIN(a4, x4) KMS_CHAIN(a5, x5) KMS_CHAIN(a6, x6) KMS_CHAIN(a7, x7)
#undef KMS_CHAIN
    }
    const V total = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    double sum = 0;
    for (int l = 0; l < W; ++l) sum += static_cast<double>(total[l]);
    return sum;
}

#if defined(KMS_AVX512)
KMS_AVX512 double mix_f32() { return mix_loop<float, 16>(1L << 24); }
KMS_AVX512 double mix_f64() { return mix_loop<double, 8>(1L << 24); }
KMS_AVX512 double fma_f32() {
    __m512 acc[10];
    for (int c = 0; c < 10; ++c) acc[c] = _mm512_set1_ps(1.0f + c);
    const __m512 a = _mm512_set1_ps(0.9999f), b = _mm512_set1_ps(1e-4f);
    for (long s = 0; s < (1L << 24); ++s)
        for (int c = 0; c < 10; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    float out[16];
    double total = 0;
    for (int c = 0; c < 10; ++c) {
        _mm512_storeu_ps(out, acc[c]);
        total += out[0];
    }
    return total;
}
KMS_AVX512 double fma_f64() {
    __m512d acc[10];
    for (int c = 0; c < 10; ++c) acc[c] = _mm512_set1_pd(1.0 + c);
    const __m512d a = _mm512_set1_pd(0.9999), b = _mm512_set1_pd(1e-4);
    for (long s = 0; s < (1L << 24); ++s)
        for (int c = 0; c < 10; ++c) acc[c] = _mm512_fmadd_pd(acc[c], a, b);
    double out[8], total = 0;
    for (int c = 0; c < 10; ++c) {
        _mm512_storeu_pd(out, acc[c]);
        total += out[0];
    }
    return total;
}
KMS_AVX2 double mix_f32_avx2() { return mix_loop<float, 8>(1L << 24); }
KMS_AVX2 double mix_f64_avx2() { return mix_loop<double, 4>(1L << 24); }
#endif
double mix_f32_base() { return mix_loop<float, 4>(1L << 24); }
double mix_f64_base() { return mix_loop<double, 2>(1L << 24); }

// Flops per second of `run` (flops_per_call each) on all threads at once.
template <typename F>
double rate(int threads, double flops_per_call, F&& run) {
    const double s = best_seconds(3, [&] {
#pragma omp parallel num_threads(threads)
        sink = run();
    });
    return flops_per_call * threads / s;
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 && std::atoi(argv[1]) > 0 ? std::atoi(argv[1]) : omp_get_max_threads();
    const std::size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024;
    const std::size_t count = (mib << 20) / sizeof(double);
    std::vector<double> a(count), b(count);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < count; ++i) a[i] = b[i] = static_cast<double>(i & 1023);  // first touch per thread

    const double read_s = best_seconds(5, [&] {
        double total = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : total)
        for (std::size_t block = 0; block < count / 8; ++block) {
            const double* p = a.data() + block * 8;
            total += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
        }
        sink = total;
    });
    const double copy_s = best_seconds(5, [&] {
#pragma omp parallel num_threads(threads)
        {
            const std::size_t t = static_cast<std::size_t>(omp_get_thread_num()), all = static_cast<std::size_t>(threads);
            const std::size_t begin = count * t / all, end = count * (t + 1) / all;
            std::memcpy(b.data() + begin, a.data() + begin, (end - begin) * sizeof(double));
        }
    });
    const double bytes = static_cast<double>(count * sizeof(double));
    const kms::SimdLevel level = kms::detected_simd_level();
    const double steps = static_cast<double>(1L << 24);
    double mix32 = 0, mix64 = 0, fma32 = 0, fma64 = 0;
#if defined(KMS_AVX512)
    if (level == kms::SimdLevel::Avx512) {
        mix32 = rate(threads, 3.0 * 8 * 16 * steps, mix_f32);
        mix64 = rate(threads, 3.0 * 8 * 8 * steps, mix_f64);
        fma32 = rate(threads, 2.0 * 10 * 16 * steps, fma_f32);
        fma64 = rate(threads, 2.0 * 10 * 8 * steps, fma_f64);
    } else if (level == kms::SimdLevel::Avx2) {
        mix32 = rate(threads, 3.0 * 8 * 8 * steps, mix_f32_avx2);
        mix64 = rate(threads, 3.0 * 8 * 4 * steps, mix_f64_avx2);
    }
#endif
    if (mix32 == 0) {
        mix32 = rate(threads, 3.0 * 8 * 4 * steps, mix_f32_base);
        mix64 = rate(threads, 3.0 * 8 * 2 * steps, mix_f64_base);
    }
    std::printf("{\"threads\":%d,\"simd\":\"%s\",\"read_gbs\":%.2f,\"copy_gbs\":%.2f,\"mix_f32_gflops\":%.1f,"
                "\"mix_f64_gflops\":%.1f,\"fma_f32_gflops\":%.1f,\"fma_f64_gflops\":%.1f}\n",
                threads, kms::to_string(level), bytes / read_s / 1e9, 2.0 * bytes / copy_s / 1e9, mix32 / 1e9,
                mix64 / 1e9, fma32 / 1e9, fma64 / 1e9);
    return 0;
}
