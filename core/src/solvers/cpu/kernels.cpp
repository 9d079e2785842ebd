// The full-search kernels at each SIMD level, and the choice of level.
// The vector code (simd_kernels.hpp) is inlined into one entry function per
// instruction set, compiled for it with a target attribute, and chosen at run
// time, so one binary uses AVX-512 or AVX2 where the CPU has them.
#include "kernels.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/simd.hpp"
#include "simd_kernels.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define KMS_X86_SIMD 1
#define KMS_TARGET_AVX2 __attribute__((target("avx2")))
#define KMS_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))
#else
#define KMS_X86_SIMD 0
#endif

namespace kms {

const char* to_string(SimdLevel level) {
    switch (level) {
        case SimdLevel::Scalar: return "scalar";
        case SimdLevel::Baseline: return "baseline";
        case SimdLevel::Avx2: return "avx2";
        case SimdLevel::Avx512: return "avx512";
    }
    return "?";
}

std::optional<SimdLevel> parse_simd_level(std::string_view name) {
    for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512})
        if (name == to_string(level)) return level;
    return std::nullopt;
}

SimdLevel detected_simd_level() {
#if KMS_X86_SIMD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
        return SimdLevel::Avx512;
    if (__builtin_cpu_supports("avx2")) return SimdLevel::Avx2;
#endif
    return SimdLevel::Baseline;
}

std::vector<SimdLevel> supported_simd_levels() {
    std::vector<SimdLevel> levels;
    for (SimdLevel level : {SimdLevel::Scalar, SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512})
        if (level <= detected_simd_level()) levels.push_back(level);
    return levels;
}

namespace {
std::atomic<int> g_level{-1};  // -1: not chosen yet

SimdLevel level_from_environment() {
    const char* value = std::getenv("KMS_SIMD");
    if (!value || !*value) return detected_simd_level();
    const auto level = parse_simd_level(value);
    if (!level)
        throw Error("KMS_SIMD=" + std::string(value) + ": expected scalar, baseline, avx2 or avx512");
    return std::min(*level, detected_simd_level());
}
}  // namespace

SimdLevel active_simd_level() {
    int level = g_level.load(std::memory_order_relaxed);
    if (level < 0) {
        level = static_cast<int>(level_from_environment());
        g_level.store(level, std::memory_order_relaxed);
    }
    return static_cast<SimdLevel>(level);
}

SimdLevel force_simd_level(SimdLevel level) {
    level = std::min(level, detected_simd_level());
    g_level.store(static_cast<int>(level), std::memory_order_relaxed);
    return level;
}

}  // namespace kms

namespace kms::cpu {
namespace {

// ---- The scalar reference: one distance at a time, sequential scans. -------

template <typename T>
std::uint64_t label_range_scalar(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                 std::size_t begin, std::size_t end, std::int32_t* labels, T*) {
    std::uint64_t changed = 0;
    for (std::size_t i = begin; i < end; ++i) {
        const T* x = points + i * d;
        T best = squared_distance(x, centroids, d);
        std::int32_t label = 0;
        for (std::size_t j = 1; j < k; ++j) {
            const T v = squared_distance(x, centroids + j * d, d);
            if (v < best) {
                best = v;
                label = static_cast<std::int32_t>(j);
            }
        }
        changed += labels[i] != label;
        labels[i] = label;
    }
    return changed;
}

template <typename T>
void nearest_two_scalar(const T* points, std::size_t d, const T* centroids, std::size_t k, const std::size_t* rows,
                        std::size_t m, std::int32_t* label, T* best_out, T* second_out, T*) {
    for (std::size_t i = 0; i < m; ++i) {
        const T* x = points + rows[i] * d;
        T best = std::numeric_limits<T>::infinity(), second = best;
        std::int32_t index = 0;
        for (std::size_t j = 0; j < k; ++j) {
            const T v = squared_distance(x, centroids + j * d, d);
            if (v < best) {
                second = best;
                best = v;
                index = static_cast<std::int32_t>(j);
            } else if (v < second) {
                second = v;
            }
        }
        label[i] = index;
        best_out[i] = best;
        second_out[i] = second;
    }
}

template <typename T>
void distances_range_scalar(const T* points, std::size_t d, const T* centroids, std::size_t k, std::size_t begin,
                            std::size_t end, T* out, T*) {
    for (std::size_t i = begin; i < end; ++i)
        for (std::size_t j = 0; j < k; ++j)
            out[(i - begin) * k + j] = squared_distance(points + i * d, centroids + j * d, d);
}

template <typename T>
std::size_t elkan_shrink_first_scalar(T* lower, const T* shift, const T* cc_half_row, std::size_t k, std::size_t own,
                                      T reach) {
    const T factor = T(1) - T(4) * std::numeric_limits<T>::epsilon();
    std::size_t first = k;
    for (std::size_t j = 0; j < k; ++j) {
        const T shrunk = (lower[j] - shift[j]) * factor;
        lower[j] = shrunk > T(0) ? shrunk : T(0);
        if (first == k && j != own && !(reach < lower[j]) && !(reach < cc_half_row[j])) first = j;
    }
    return first;
}

// One loop for the vector levels, branch-free. GCC 12's generic tuning does not
// vectorise its gathers, so each level's copy is scalar code, but compiled for
// the level it is measurably faster than the baseline's (10^5 × 2-D, k = 100,
// Hamerly to convergence: 312 against 419 ms in one run). The scalar level below
// is the plain reference (the same operations, with branches).
template <typename T>
KMS_FORCE_INLINE void hamerly_bounds_loop(const std::int32_t* labels, T* upper, T* lower, const T* shift,
                                          const T* nearest_half, std::size_t top, T top_shift, T second_shift,
                                          std::size_t d, std::size_t m, std::uint8_t* open) {
    const BoundArithmetic<T> bounds(d);
    const std::int32_t top_label = static_cast<std::int32_t>(top);
    for (std::size_t i = 0; i < m; ++i) {
        const std::int32_t a = labels[i];
        const T grown = bounds.grow(upper[i], shift[a]);
        const T shrunk = bounds.shrink(lower[i], a == top_label ? second_shift : top_shift);
        const T half = nearest_half[a];
        const T limit = shrunk < half ? half : shrunk;  // std::max(shrunk, half)
        upper[i] = grown;
        lower[i] = shrunk;
        open[i] = !bounds.separated(grown, limit);
    }
}

template <typename T>
void hamerly_bounds_scalar(const std::int32_t* labels, T* upper, T* lower, const T* shift, const T* nearest_half,
                           std::size_t top, T top_shift, T second_shift, std::size_t d, std::size_t m,
                           std::uint8_t* open) {
    const BoundArithmetic<T> bounds(d);
    for (std::size_t i = 0; i < m; ++i) {
        const std::size_t a = static_cast<std::size_t>(labels[i]);
        upper[i] = bounds.grow(upper[i], shift[a]);
        lower[i] = bounds.shrink(lower[i], a == top ? second_shift : top_shift);
        open[i] = !bounds.separated(upper[i], std::max(lower[i], nearest_half[a]));
    }
}

template <typename T>
void block_distances_scalar(const T* x, std::size_t d, const T* block, std::size_t stride, std::size_t m, T* out) {
    for (std::size_t j = 0; j < m; ++j) {
        T sum = T(0);
        for (std::size_t t = 0; t < d; ++t) {
            const T diff = x[t] - block[t * stride + j];
            sum += diff * diff;
        }
        out[j] = sum;
    }
}

// ---- The vector levels: d = 1..4 unrolled, larger d in a loop. -------------

template <typename T, int W, int P>
KMS_FORCE_INLINE std::uint64_t label_range_vector(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                                  std::size_t begin, std::size_t end, std::int32_t* labels,
                                                  T* xt) {
    switch (d) {
        case 1: return simd::label_range<T, W, P, 1>(points, d, centroids, k, begin, end, labels, xt);
        case 2: return simd::label_range<T, W, P, 2>(points, d, centroids, k, begin, end, labels, xt);
        case 3: return simd::label_range<T, W, P, 3>(points, d, centroids, k, begin, end, labels, xt);
        case 4: return simd::label_range<T, W, P, 4>(points, d, centroids, k, begin, end, labels, xt);
        default: return simd::label_range<T, W, P, 0>(points, d, centroids, k, begin, end, labels, xt);
    }
}

template <typename T, int W, int P>
KMS_FORCE_INLINE void distances_range_vector(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                             std::size_t begin, std::size_t end, T* out, T* xt) {
    switch (d) {
        case 1: return simd::distances_range<T, W, P, 1>(points, d, centroids, k, begin, end, out, xt);
        case 2: return simd::distances_range<T, W, P, 2>(points, d, centroids, k, begin, end, out, xt);
        case 3: return simd::distances_range<T, W, P, 3>(points, d, centroids, k, begin, end, out, xt);
        case 4: return simd::distances_range<T, W, P, 4>(points, d, centroids, k, begin, end, out, xt);
        default: return simd::distances_range<T, W, P, 0>(points, d, centroids, k, begin, end, out, xt);
    }
}

template <typename T, int W, int P>
KMS_FORCE_INLINE void nearest_two_vector(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                         const std::size_t* rows, std::size_t m, std::int32_t* label, T* best,
                                         T* second, T* xt) {
    switch (d) {
        case 1: return simd::nearest_two_list<T, W, P, 1>(points, d, centroids, k, rows, m, label, best, second, xt);
        case 2: return simd::nearest_two_list<T, W, P, 2>(points, d, centroids, k, rows, m, label, best, second, xt);
        case 3: return simd::nearest_two_list<T, W, P, 3>(points, d, centroids, k, rows, m, label, best, second, xt);
        case 4: return simd::nearest_two_list<T, W, P, 4>(points, d, centroids, k, rows, m, label, best, second, xt);
        default: return simd::nearest_two_list<T, W, P, 0>(points, d, centroids, k, rows, m, label, best, second, xt);
    }
}

// Tiles: W lanes × P vectors of points. P is what the registers hold: the
// nearest search keeps 3 vectors per P (distance, best, index), the two-nearest
// search 4; x86-64 has 16 vector registers, 32 with AVX-512.
// The update's sub-package: rows in order into `sub` (Weighted: Σ w·(x − old), Σ w);
// returns how many clusters it touched, named in touched_list. D: the dimension when
// known at compile time (d = 1..4), 0 for d. Plain pointers: the stores through
// `touched` (a character type may alias anything) must not make the compiler reload
// the loop's state every row (7.6 ns a row at 10^5 × 2-D, k = 100, as a member loop).
template <typename T, bool Weighted, std::size_t D>
KMS_FORCE_INLINE std::size_t sum_rows(const std::int32_t* labels, const T* points, const T* centroids,
                                      const T* weights, std::size_t d_runtime, std::size_t begin, std::size_t end,
                                      T* sub, unsigned char* touched, std::uint32_t* touched_list,
                                      std::int64_t* count, double* weight_sum) {
    const std::size_t d = D > 0 ? D : d_runtime;
    std::size_t touched_count = 0;
    for (std::size_t i = begin; i < end; ++i) {
        const std::size_t c = static_cast<std::size_t>(labels[i]);
        T* row = sub + c * d;
        const T* x = points + i * d;
        const T* old = centroids + c * d;
        touched_list[touched_count] = static_cast<std::uint32_t>(c);  // kept if c is new (no branch)
        touched_count += !touched[c];
        touched[c] = 1;
        if constexpr (Weighted) {
            const T w = weights[i];
            for (std::size_t t = 0; t < d; ++t) row[t] += w * (x[t] - old[t]);
            weight_sum[c] += static_cast<double>(w);
        } else {
            for (std::size_t t = 0; t < d; ++t) row[t] += x[t] - old[t];
        }
        ++count[c];
    }
    return touched_count;
}

template <typename T>
KMS_FORCE_INLINE void sum_sub_package_loop(const std::int32_t* labels, const T* points, const T* centroids,
                                           const T* weights, std::size_t d, std::size_t begin, std::size_t end,
                                           T* sub, unsigned char* touched, std::uint32_t* touched_list,
                                           std::int64_t* count, double* weight_sum, double* package) {
    std::size_t touched_count;
    if (weights) {
        touched_count = sum_rows<T, true, 0>(labels, points, centroids, weights, d, begin, end, sub, touched,
                                             touched_list, count, weight_sum);
    } else if (d == 1) {
        touched_count = sum_rows<T, false, 1>(labels, points, centroids, nullptr, d, begin, end, sub, touched,
                                              touched_list, count, nullptr);
    } else if (d == 2) {
        touched_count = sum_rows<T, false, 2>(labels, points, centroids, nullptr, d, begin, end, sub, touched,
                                              touched_list, count, nullptr);
    } else if (d == 3) {
        touched_count = sum_rows<T, false, 3>(labels, points, centroids, nullptr, d, begin, end, sub, touched,
                                              touched_list, count, nullptr);
    } else if (d == 4) {
        touched_count = sum_rows<T, false, 4>(labels, points, centroids, nullptr, d, begin, end, sub, touched,
                                              touched_list, count, nullptr);
    } else {
        touched_count = sum_rows<T, false, 0>(labels, points, centroids, nullptr, d, begin, end, sub, touched,
                                              touched_list, count, nullptr);
    }
    // Each cluster's sum is its own: the flush order does not change the bits.
    for (std::size_t q = 0; q < touched_count; ++q) {
        const std::size_t c = touched_list[q];
        touched[c] = 0;
        double* dst = package + c * d;
        T* src = sub + c * d;
        for (std::size_t t = 0; t < d; ++t) {
            dst[t] += static_cast<double>(src[t]);
            src[t] = T(0);
        }
    }
}

KMS_FORCE_INLINE void add_to_loop(double* dst, const double* src, std::size_t n) {
    for (std::size_t e = 0; e < n; ++e) dst[e] += src[e];
}

#define KMS_UPDATE_ENTRIES(NAME, ATTR)                                                                           \
    ATTR void sum_sub_package_##NAME(const std::int32_t* l, const float* x, const float* c, const float* w,       \
                                     std::size_t d, std::size_t b, std::size_t e, float* sub, unsigned char* t,   \
                                     std::uint32_t* tl, std::int64_t* n, double* ws, double* p) {                 \
        sum_sub_package_loop<float>(l, x, c, w, d, b, e, sub, t, tl, n, ws, p);                                  \
    }                                                                                                            \
    ATTR void sum_sub_package_##NAME(const std::int32_t* l, const double* x, const double* c, const double* w,    \
                                     std::size_t d, std::size_t b, std::size_t e, double* sub, unsigned char* t,  \
                                     std::uint32_t* tl, std::int64_t* n, double* ws, double* p) {                 \
        sum_sub_package_loop<double>(l, x, c, w, d, b, e, sub, t, tl, n, ws, p);                                 \
    }                                                                                                            \
    ATTR void add_to_##NAME(double* dst, const double* src, std::size_t n) { add_to_loop(dst, src, n); }

KMS_UPDATE_ENTRIES(baseline, )
#if KMS_X86_SIMD
KMS_UPDATE_ENTRIES(avx2, KMS_TARGET_AVX2)
KMS_UPDATE_ENTRIES(avx512, KMS_TARGET_AVX512)
#endif
#undef KMS_UPDATE_ENTRIES

template <typename T>
void sum_sub_package_at(SimdLevel level, const std::int32_t* l, const T* x, const T* c, const T* w, std::size_t d,
                        std::size_t b, std::size_t e, T* sub, unsigned char* t, std::uint32_t* tl, std::int64_t* n,
                        double* ws, double* p) {
    switch (level) {
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return sum_sub_package_avx512(l, x, c, w, d, b, e, sub, t, tl, n, ws, p);
        case SimdLevel::Avx2: return sum_sub_package_avx2(l, x, c, w, d, b, e, sub, t, tl, n, ws, p);
#endif
        default: return sum_sub_package_baseline(l, x, c, w, d, b, e, sub, t, tl, n, ws, p);
    }
}

#define KMS_LEVEL_ENTRIES(NAME, ATTR, BYTES, P_NEAREST, P_TWO)                                                 \
    ATTR std::uint64_t label_range_##NAME(const float* x, std::size_t d, const float* c, std::size_t k,         \
                                          std::size_t b, std::size_t e, std::int32_t* l, float* s) {            \
        return label_range_vector<float, BYTES / 4, P_NEAREST>(x, d, c, k, b, e, l, s);                        \
    }                                                                                                         \
    ATTR std::uint64_t label_range_##NAME(const double* x, std::size_t d, const double* c, std::size_t k,       \
                                          std::size_t b, std::size_t e, std::int32_t* l, double* s) {           \
        return label_range_vector<double, BYTES / 8, P_NEAREST>(x, d, c, k, b, e, l, s);                       \
    }                                                                                                         \
    ATTR void nearest_two_##NAME(const float* x, std::size_t d, const float* c, std::size_t k,                  \
                                 const std::size_t* r, std::size_t m, std::int32_t* l, float* b, float* s2,     \
                                 float* s) {                                                                  \
        nearest_two_vector<float, BYTES / 4, P_TWO>(x, d, c, k, r, m, l, b, s2, s);                            \
    }                                                                                                         \
    ATTR void nearest_two_##NAME(const double* x, std::size_t d, const double* c, std::size_t k,                \
                                 const std::size_t* r, std::size_t m, std::int32_t* l, double* b, double* s2,   \
                                 double* s) {                                                                 \
        nearest_two_vector<double, BYTES / 8, P_TWO>(x, d, c, k, r, m, l, b, s2, s);                           \
    }                                                                                                         \
    ATTR void distances_range_##NAME(const float* x, std::size_t d, const float* c, std::size_t k,              \
                                     std::size_t b, std::size_t e, float* o, float* s) {                       \
        distances_range_vector<float, BYTES / 4, P_NEAREST>(x, d, c, k, b, e, o, s);                          \
    }                                                                                                         \
    ATTR void distances_range_##NAME(const double* x, std::size_t d, const double* c, std::size_t k,            \
                                     std::size_t b, std::size_t e, double* o, double* s) {                     \
        distances_range_vector<double, BYTES / 8, P_NEAREST>(x, d, c, k, b, e, o, s);                         \
    }                                                                                                         \
    ATTR void block_distances_##NAME(const float* x, std::size_t d, const float* b, std::size_t stride,        \
                                     std::size_t m, float* out) {                                             \
        simd::block_distances<float, BYTES / 4>(x, d, b, stride, m, out);                                      \
    }                                                                                                         \
    ATTR void block_distances_##NAME(const double* x, std::size_t d, const double* b, std::size_t stride,      \
                                     std::size_t m, double* out) {                                            \
        simd::block_distances<double, BYTES / 8>(x, d, b, stride, m, out);                                     \
    }                                                                                                         \
    ATTR std::size_t elkan_shrink_first_##NAME(float* lo, const float* sh, const float* cc, std::size_t k,      \
                                               std::size_t own, float reach) {                                \
        return simd::elkan_shrink_first<float, BYTES / 4>(lo, sh, cc, k, own, reach);                          \
    }                                                                                                         \
    ATTR std::size_t elkan_shrink_first_##NAME(double* lo, const double* sh, const double* cc, std::size_t k,   \
                                               std::size_t own, double reach) {                               \
        return simd::elkan_shrink_first<double, BYTES / 8>(lo, sh, cc, k, own, reach);                         \
    }                                                                                                         \
    ATTR void hamerly_bounds_##NAME(const std::int32_t* l, float* u, float* lo, const float* sh, const float* nh,    \
                                    std::size_t top, float ts, float ss, std::size_t d, std::size_t m,             \
                                    std::uint8_t* open) {                                                         \
        hamerly_bounds_loop<float>(l, u, lo, sh, nh, top, ts, ss, d, m, open);                                    \
    }                                                                                                             \
    ATTR void hamerly_bounds_##NAME(const std::int32_t* l, double* u, double* lo, const double* sh,                 \
                                    const double* nh, std::size_t top, double ts, double ss, std::size_t d,       \
                                    std::size_t m, std::uint8_t* open) {                                          \
        hamerly_bounds_loop<double>(l, u, lo, sh, nh, top, ts, ss, d, m, open);                                   \
    }

KMS_LEVEL_ENTRIES(baseline, , 16, 4, 3)
#if KMS_X86_SIMD
KMS_LEVEL_ENTRIES(avx2, KMS_TARGET_AVX2, 32, 4, 3)
KMS_LEVEL_ENTRIES(avx512, KMS_TARGET_AVX512, 64, 4, 4)
#endif
static_assert(64 / 4 * 4 <= simd::kMaxTile, "the widest tile must fit the scratch");
// Above this dimension the vector kernels' transposed tile (kMaxTile points × d, a
// thread) is not gathered: the scalar kernels, whose results are the same bits, run
// without scratch. 64 × 32768 doubles are 16 MiB a thread; a row of 25 M columns asked
// 12.8 GB a thread (issue 39). The tile pays off only while it stays in cache anyway.
constexpr std::size_t kMaxTiledDimension = 32768;
static_assert(2 * 64 / 4 <= simd::kBlockLanes, "a block's stride must hold two of the widest vectors");

template <typename T>
std::uint64_t label_range_at(SimdLevel level, const T* x, std::size_t d, const T* c, std::size_t k, std::size_t b,
                             std::size_t e, std::int32_t* l, T* s) {
    if (d > kMaxTiledDimension) level = SimdLevel::Scalar;  // no scratch there (kernel_scratch_size)
    switch (level) {
        case SimdLevel::Scalar: return label_range_scalar(x, d, c, k, b, e, l, s);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return label_range_avx512(x, d, c, k, b, e, l, s);
        case SimdLevel::Avx2: return label_range_avx2(x, d, c, k, b, e, l, s);
#endif
        default: return label_range_baseline(x, d, c, k, b, e, l, s);
    }
}

template <typename T>
void nearest_two_at(SimdLevel level, const T* x, std::size_t d, const T* c, std::size_t k, const std::size_t* r,
                    std::size_t m, std::int32_t* l, T* b, T* s2, T* s) {
    if (d > kMaxTiledDimension) level = SimdLevel::Scalar;  // no scratch there (kernel_scratch_size)
    switch (level) {
        case SimdLevel::Scalar: return nearest_two_scalar(x, d, c, k, r, m, l, b, s2, s);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return nearest_two_avx512(x, d, c, k, r, m, l, b, s2, s);
        case SimdLevel::Avx2: return nearest_two_avx2(x, d, c, k, r, m, l, b, s2, s);
#endif
        default: return nearest_two_baseline(x, d, c, k, r, m, l, b, s2, s);
    }
}

template <typename T>
void distances_range_at(SimdLevel level, const T* x, std::size_t d, const T* c, std::size_t k, std::size_t b,
                        std::size_t e, T* o, T* s) {
    if (d > kMaxTiledDimension) level = SimdLevel::Scalar;  // no scratch there (kernel_scratch_size)
    switch (level) {
        case SimdLevel::Scalar: return distances_range_scalar(x, d, c, k, b, e, o, s);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return distances_range_avx512(x, d, c, k, b, e, o, s);
        case SimdLevel::Avx2: return distances_range_avx2(x, d, c, k, b, e, o, s);
#endif
        default: return distances_range_baseline(x, d, c, k, b, e, o, s);
    }
}

template <typename T>
void block_distances_at(SimdLevel level, const T* x, std::size_t d, const T* b, std::size_t stride, std::size_t m,
                        T* out) {
    if (d > kMaxTiledDimension) level = SimdLevel::Scalar;  // the stride is m there (block_stride)
    switch (level) {
        case SimdLevel::Scalar: return block_distances_scalar(x, d, b, stride, m, out);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return block_distances_avx512(x, d, b, stride, m, out);
        case SimdLevel::Avx2: return block_distances_avx2(x, d, b, stride, m, out);
#endif
        default: return block_distances_baseline(x, d, b, stride, m, out);
    }
}

template <typename T>
void hamerly_bounds_at(SimdLevel level, const std::int32_t* l, T* u, T* lo, const T* sh, const T* nh, std::size_t top,
                       T ts, T ss, std::size_t d, std::size_t m, std::uint8_t* open) {
    switch (level) {
        case SimdLevel::Scalar: return hamerly_bounds_scalar(l, u, lo, sh, nh, top, ts, ss, d, m, open);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return hamerly_bounds_avx512(l, u, lo, sh, nh, top, ts, ss, d, m, open);
        case SimdLevel::Avx2: return hamerly_bounds_avx2(l, u, lo, sh, nh, top, ts, ss, d, m, open);
#endif
        default: return hamerly_bounds_baseline(l, u, lo, sh, nh, top, ts, ss, d, m, open);
    }
}

template <typename T>
std::size_t elkan_shrink_first_at(SimdLevel level, T* lo, const T* sh, const T* cc, std::size_t k, std::size_t own,
                                  T reach) {
    switch (level) {
        case SimdLevel::Scalar: return elkan_shrink_first_scalar(lo, sh, cc, k, own, reach);
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return elkan_shrink_first_avx512(lo, sh, cc, k, own, reach);
        case SimdLevel::Avx2: return elkan_shrink_first_avx2(lo, sh, cc, k, own, reach);
#endif
        default: return elkan_shrink_first_baseline(lo, sh, cc, k, own, reach);
    }
}

}  // namespace

void distances_range(const float* x, std::size_t d, const float* c, std::size_t k, std::size_t b, std::size_t e,
                     float* o, float* s) {
    distances_range_at(active_simd_level(), x, d, c, k, b, e, o, s);
}
void distances_range(const double* x, std::size_t d, const double* c, std::size_t k, std::size_t b, std::size_t e,
                     double* o, double* s) {
    distances_range_at(active_simd_level(), x, d, c, k, b, e, o, s);
}

std::size_t elkan_shrink_first(float* lo, const float* sh, const float* cc, std::size_t k, std::size_t own,
                               float reach) {
    return elkan_shrink_first_at(active_simd_level(), lo, sh, cc, k, own, reach);
}
std::size_t elkan_shrink_first(double* lo, const double* sh, const double* cc, std::size_t k, std::size_t own,
                               double reach) {
    return elkan_shrink_first_at(active_simd_level(), lo, sh, cc, k, own, reach);
}

std::size_t kernel_scratch_size(std::size_t d) { return d > kMaxTiledDimension ? 0 : d * simd::kMaxTile; }

std::size_t block_stride(std::size_t m, std::size_t d) {
    if (d > kMaxTiledDimension) return m;  // block_distances_at takes the scalar kernel there
    return (m + simd::kBlockLanes - 1) / simd::kBlockLanes * simd::kBlockLanes;
}
void block_distances(const float* x, std::size_t d, const float* block, std::size_t stride, std::size_t m,
                     float* out) {
    block_distances_at(active_simd_level(), x, d, block, stride, m, out);
}
void block_distances(const double* x, std::size_t d, const double* block, std::size_t stride, std::size_t m,
                     double* out) {
    block_distances_at(active_simd_level(), x, d, block, stride, m, out);
}

std::uint64_t label_range(const float* x, std::size_t d, const float* c, std::size_t k, std::size_t b,
                          std::size_t e, std::int32_t* l, float* s) {
    return label_range_at(active_simd_level(), x, d, c, k, b, e, l, s);
}
std::uint64_t label_range(const double* x, std::size_t d, const double* c, std::size_t k, std::size_t b,
                          std::size_t e, std::int32_t* l, double* s) {
    return label_range_at(active_simd_level(), x, d, c, k, b, e, l, s);
}
void nearest_two(const float* x, std::size_t d, const float* c, std::size_t k, const std::size_t* r, std::size_t m,
                 std::int32_t* l, float* b, float* s2, float* s) {
    nearest_two_at(active_simd_level(), x, d, c, k, r, m, l, b, s2, s);
}
void nearest_two(const double* x, std::size_t d, const double* c, std::size_t k, const std::size_t* r,
                 std::size_t m, std::int32_t* l, double* b, double* s2, double* s) {
    nearest_two_at(active_simd_level(), x, d, c, k, r, m, l, b, s2, s);
}

namespace {
// Below 8 coordinates the wide levels' code of the row loop was slower (10^6 × 2-D, k = 100,
// f64, 1 thread: the update 19 % of the run at AVX-512 against 16 % in baseline code).
SimdLevel update_level(std::size_t d) { return d < 8 ? std::min(SimdLevel::Baseline, active_simd_level()) : active_simd_level(); }
}  // namespace

void sum_sub_package(const std::int32_t* l, const float* x, const float* c, const float* w, std::size_t d,
                     std::size_t b, std::size_t e, float* sub, unsigned char* t, std::uint32_t* tl, std::int64_t* n,
                     double* ws, double* p) {
    sum_sub_package_at(update_level(d), l, x, c, w, d, b, e, sub, t, tl, n, ws, p);
}
void sum_sub_package(const std::int32_t* l, const double* x, const double* c, const double* w, std::size_t d,
                     std::size_t b, std::size_t e, double* sub, unsigned char* t, std::uint32_t* tl, std::int64_t* n,
                     double* ws, double* p) {
    sum_sub_package_at(update_level(d), l, x, c, w, d, b, e, sub, t, tl, n, ws, p);
}

void add_to(double* dst, const double* src, std::size_t n) {
    switch (active_simd_level()) {
#if KMS_X86_SIMD
        case SimdLevel::Avx512: return add_to_avx512(dst, src, n);
        case SimdLevel::Avx2: return add_to_avx2(dst, src, n);
#endif
        default: return add_to_baseline(dst, src, n);
    }
}

void hamerly_bounds(const std::int32_t* l, float* u, float* lo, const float* sh, const float* nh, std::size_t top,
                    float ts, float ss, std::size_t d, std::size_t m, std::uint8_t* open) {
    hamerly_bounds_at(active_simd_level(), l, u, lo, sh, nh, top, ts, ss, d, m, open);
}
void hamerly_bounds(const std::int32_t* l, double* u, double* lo, const double* sh, const double* nh, std::size_t top,
                    double ts, double ss, std::size_t d, std::size_t m, std::uint8_t* open) {
    hamerly_bounds_at(active_simd_level(), l, u, lo, sh, nh, top, ts, ss, d, m, open);
}

}  // namespace kms::cpu
