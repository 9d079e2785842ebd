// The certified GEMM assignment (gemm_assign.hpp has the method and the bound).
// The micro-kernel is written once with GCC/Clang vector extensions and compiled
// per instruction set with a target attribute, as kernels.cpp does; this file is
// compiled with -ffp-contract=fast (core/CMakeLists.txt) so that acc + x·c becomes
// one FMA: the bound holds for any contraction and any order, and nothing here
// feeds an exact distance (those come from kernels.cpp, compiled without contraction).
#include "gemm_assign.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels.hpp"
#include "kms/simd.hpp"
#include "simd_kernels.hpp"  // KMS_FORCE_INLINE, simd::Pack

#if defined(__x86_64__) && defined(__GNUC__)
#define KMS_GEMM_X86 1
#define KMS_GEMM_AVX2 __attribute__((target("avx2,fma")))
#define KMS_GEMM_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))
#else
#define KMS_GEMM_X86 0
#endif

namespace kms::cpu {
namespace {

// Micro-kernel shape per level: W lanes a vector, NV vectors of centroids (a panel
// is NV·W centroids), R points at a time: R·NV accumulators, within the 16 (AVX2)
// or 32 (AVX-512) vector registers with room for the NV panel loads.
constexpr int kNv = 2;
constexpr int kRowsAvx512 = 12, kRowsAvx2 = 6;
// Points of a block: the panel loop runs over them while a panel stays in L1.
constexpr std::size_t kBlockGroups = 4;

enum class GemmLevel { None, Avx2, Avx512 };

GemmLevel gemm_level() {
#if KMS_GEMM_X86
    const SimdLevel level = active_simd_level();
    if (level == SimdLevel::Avx512) return GemmLevel::Avx512;
    if (level == SimdLevel::Avx2) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("fma")) return GemmLevel::Avx2;
    }
#endif
    return GemmLevel::None;
}

template <typename T>
std::size_t panel_lanes(GemmLevel level) {
    const std::size_t bytes = level == GemmLevel::Avx512 ? 64 : 32;
    return kNv * bytes / sizeof(T);
}

// For the m points first .. first + m − 1 (m ≤ R·kBlockGroups): A (best), its
// centroid (index) and B (second: the least v_j over j ≠ index), over all panels.
// The points are packed a group of R at a time coordinate-major (packed[g][t][r],
// R·kBlockGroups·d values), so the kernel reads one stream of broadcasts; rows
// past m repeat the last point (computed, never reported). In: the points' type;
// T: the GEMM's (float for double points when narrow: packing rounds them).
template <typename In, typename T>
struct BlockArgs {
    const In* points;
    std::size_t d;
    const T* panels;        // the packed centroids (GemmAssign::panel_)
    const T* panel_norm;    // their norms, +inf past k
    std::size_t panel_count;
    std::size_t first, m;   // the block's points
    T* best_out;            // m: A
    T* second_out;          // m: B
    std::int32_t* index_out;  // m: the centroid of A
    T* norm_out;            // m: fl(‖x‖²)
    T* lane_best;           // scratch: m·W running least per lane
    T* lane_second;         // m·W running second least
    std::int32_t* lane_index;  // m·W centroid of the running least
    T* packed;              // m rounded up to R, times d: the points coordinate-major per group
};

// One panel's NV vectors of centroids (NV < kNv: the last panel, whose other vectors
// are all padding) against the block's groups of R points: the accumulators, then each
// row's running least, its index and second least (gemm_block's lane arrays).
template <typename T, int W, int R, int NV>
KMS_FORCE_INLINE void panel_pass(const T* block, const typename simd::Pack<T, W>::V* norm,
                                 const typename simd::Pack<T, W>::I& lane_of, std::size_t panel, const T* packed,
                                 std::size_t d, std::size_t m, T* lane_best, T* lane_second,
                                 std::int32_t* lane_index) {
    using Vec = simd::Pack<T, W>;
    using V = typename Vec::V;
    using I = typename Vec::I;
    using Int = typename Vec::Int;
    constexpr std::size_t lanes = static_cast<std::size_t>(kNv) * W;  // the panels' stride
    for (std::size_t group = 0; group < m; group += R) {
        const T* x = packed + group * d;
        V acc[R][NV];  // v_j = fl(‖c_j‖²) + Σ_t x_t·(−2c_jt): no subtraction in the epilogue
        for (int r = 0; r < R; ++r)
            for (int v = 0; v < NV; ++v) acc[r][v] = norm[v];
        for (std::size_t t = 0; t < d; ++t) {
            V c[NV];
            for (int v = 0; v < NV; ++v) Vec::load(c[v], block + t * lanes + v * W);
            for (int r = 0; r < R; ++r) {
                const T xt = x[t * R + r];
                for (int v = 0; v < NV; ++v) acc[r][v] += xt * c[v];  // one FMA (-ffp-contract=fast)
            }
        }
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            T* best_row = lane_best + (group + r) * W;
            T* second_row = lane_second + (group + r) * W;
            std::int32_t* index_row = lane_index + (group + r) * W;
            V best, second;
            Vec::load(best, best_row);
            Vec::load(second, second_row);
            I index;
            if constexpr (sizeof(Int) == 4) {
                std::memcpy(&index, index_row, sizeof index);
            } else {
                for (int l = 0; l < W; ++l) index[l] = index_row[l];
            }
            for (int v = 0; v < NV; ++v) {
                const V value = acc[r][v];
                const I j = lane_of + static_cast<Int>(panel * lanes + static_cast<std::size_t>(v) * W);
                const I closer = value < best;
                const V above = closer ? best : value;  // max(best, value)
                second = above < second ? above : second;
                index = closer ? j : index;
                best = closer ? value : best;
            }
            std::memcpy(best_row, &best, sizeof best);
            std::memcpy(second_row, &second, sizeof second);
            if constexpr (sizeof(Int) == 4) {
                std::memcpy(index_row, &index, sizeof index);
            } else {
                for (int l = 0; l < W; ++l) index_row[l] = static_cast<std::int32_t>(index[l]);
            }
        }
    }
}

template <typename In, typename T, int W, int R>
KMS_FORCE_INLINE void gemm_block(const BlockArgs<In, T>& a) {
    const In* points = a.points;
    const std::size_t d = a.d, first = a.first, m = a.m;
    const T *panels = a.panels, *panel_norm = a.panel_norm;
    T *lane_best = a.lane_best, *lane_second = a.lane_second, *packed = a.packed;
    std::int32_t* lane_index = a.lane_index;
    using Vec = simd::Pack<T, W>;
    using V = typename Vec::V;
    using I = typename Vec::I;
    using Int = typename Vec::Int;
    constexpr std::size_t lanes = static_cast<std::size_t>(kNv) * W;
    const T inf = std::numeric_limits<T>::infinity();
    // Per point, lane-wise over the centroids seen so far: least v, its index, second least v
    // (for whole groups: the rows past m are updated too, never reported, so that the
    // epilogue's loop has R steps and the accumulators stay in registers).
    const std::size_t whole = (m + R - 1) / R * R;
    for (std::size_t p = 0; p < whole * W; ++p) {
        lane_best[p] = inf;
        lane_second[p] = inf;
    }
    for (std::size_t group = 0; group < m; group += R)
        for (int r = 0; r < R; ++r) {
            const In* x = points + (first + std::min(group + r, m - 1)) * d;
            T* to = packed + group * d + static_cast<std::size_t>(r);
            for (std::size_t t = 0; t < d; ++t) to[t * R] = static_cast<T>(x[t]);
        }
    // fl(‖x‖²) (of the rounded point when narrow) in eight interleaved partial sums
    // (vectorised; the bound takes any order).
    for (std::size_t p = 0; p < m; ++p) {
        const T* x = packed + (p / R * R) * d + p % R;
        T part[8] = {};
        std::size_t t = 0;
        for (; t + 8 <= d; t += 8)
            for (int l = 0; l < 8; ++l) part[l] += x[(t + l) * R] * x[(t + l) * R];
        for (; t < d; ++t) part[0] += x[t * R] * x[t * R];
        a.norm_out[p] = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
    }
    I lane_of{};
    for (int l = 0; l < W; ++l) lane_of[l] = static_cast<Int>(l);
    for (std::size_t panel = 0; panel < a.panel_count; ++panel) {
        const T* block = panels + panel * d * lanes;
        V norm[kNv];
        for (int v = 0; v < kNv; ++v) Vec::load(norm[v], panel_norm + panel * lanes + v * W);
        // Padding (+inf norms) fills the last panel from its end: a second vector of it
        // alone is skipped (k = 100 in f32 panels of 32: 4 panels of 128 lanes, now 112).
        if (std::isinf(panel_norm[panel * lanes + W]))
            panel_pass<T, W, R, 1>(block, norm, lane_of, panel, packed, d, m, lane_best, lane_second, lane_index);
        else
            panel_pass<T, W, R, kNv>(block, norm, lane_of, panel, packed, d, m, lane_best, lane_second, lane_index);
    }
    // Lanes to one value per point, as a tree over the lanes (log2 W shuffles): each
    // lane holds the least and second least of the centroids it saw; two such pairs
    // combine to (min(a1, b1), min(max(a1, b1), min(a2, b2))), so the root is A and
    // B = the second least v over all k (B = A when two centroids tie at A). The
    // centroid of A is the first lane whose least equals A (any of them would do: a
    // tie is never certified).
    for (std::size_t p = 0; p < m; ++p) {
        V best, second;
        Vec::load(best, lane_best + p * W);
        Vec::load(second, lane_second + p * W);
        const V own = best;
        for (int half = W / 2; half >= 1; half /= 2) {
#if defined(__clang__)
            // clang has no run-time-mask __builtin_shuffle (the TSan build uses clang-14):
            // the same lane swap, lane by lane (the same values, so the same bits).
            V other_best, other_second;
            for (int l = 0; l < W; ++l) {
                other_best[l] = best[l ^ half];
                other_second[l] = second[l ^ half];
            }
#else
            const I swap = lane_of ^ static_cast<Int>(half);
            const V other_best = __builtin_shuffle(best, swap), other_second = __builtin_shuffle(second, swap);
#endif
            const V low = best < other_best ? best : other_best, high = best < other_best ? other_best : best;
            const V seconds = second < other_second ? second : other_second;
            second = high < seconds ? high : seconds;
            best = low;
        }
        const I at = own == best;
        int top = 0;
        while (top < W - 1 && !at[top]) ++top;
        a.best_out[p] = best[0];
        a.second_out[p] = second[0];
        a.index_out[p] = lane_index[p * W + static_cast<std::size_t>(top)];
    }
}

#define KMS_GEMM_ENTRIES(NAME, ATTR, BYTES, ROWS)                                                              \
    ATTR void gemm_block_##NAME(const BlockArgs<float, float>& a) { gemm_block<float, float, BYTES / 4, ROWS>(a); } \
    ATTR void gemm_block_##NAME(const BlockArgs<double, float>& a) { gemm_block<double, float, BYTES / 4, ROWS>(a); } \
    ATTR void gemm_block_##NAME(const BlockArgs<double, double>& a) { gemm_block<double, double, BYTES / 8, ROWS>(a); }

#if KMS_GEMM_X86
KMS_GEMM_ENTRIES(avx2, KMS_GEMM_AVX2, 32, kRowsAvx2)
KMS_GEMM_ENTRIES(avx512, KMS_GEMM_AVX512, 64, kRowsAvx512)
#endif
#undef KMS_GEMM_ENTRIES

std::size_t rows_of(GemmLevel level) { return level == GemmLevel::Avx512 ? kRowsAvx512 : kRowsAvx2; }

// The test of gemm_assign.hpp's bound, in double: true when `a` (the centroid of
// A) is certainly the strict arg-min of the exact kernel's distances (in Exact).
// C: the GEMM's precision; offset: δ's centroid part when narrow (C = float, Exact
// = double), else 0. E uses (X + R)² ≤ 2(X² + R²) (no square root), X² ≤ x̂(1 + γ') + τ.
template <typename C, typename Exact>
bool certified(double norm, double best, double second, double radius_sq, std::size_t d, double offset) {
    constexpr double eps = std::numeric_limits<C>::epsilon();
    const double dd = static_cast<double>(d);
    const double gamma = (dd + 2.0) * eps, rounding = (dd + 12.0) * std::numeric_limits<Exact>::epsilon();
    const double tau = 8.0 * (dd + 2.0) * static_cast<double>(std::numeric_limits<C>::denorm_min());
    const double tau_exact = 8.0 * (dd + 2.0) * static_cast<double>(std::numeric_limits<Exact>::denorm_min());
    if (!std::isfinite(norm) || !std::isfinite(best) || !std::isfinite(second)) return false;
    if (norm > static_cast<double>(std::numeric_limits<C>::max()) / 16.0) return false;  // (no overflow: header)
    const double error = 2.0 * gamma * (norm * (1.0 + gamma) + tau + radius_sq) + tau;
    double far = norm + second - error, near = std::max(norm + best + error, 0.0);
    if constexpr (!std::is_same_v<C, Exact>) {
        // ‖x − c‖ within δ of ‖x̃ − c̃‖; the square roots and squares rounded outwards (8 eps).
        constexpr double up = 1.0 + 8.0 * std::numeric_limits<double>::epsilon(), down = 2.0 - up;
        const double x_norm = std::sqrt(norm * (1.0 + gamma) + tau) * up;
        const double delta = (0.5 * eps * x_norm + 0x1p-150 * std::sqrt(dd)) * (1.0 + eps) * up + offset;
        const double low = std::sqrt(std::max(far, 0.0)) * down - delta;
        if (!(low > 0.0)) return false;
        const double high = std::sqrt(near) * up + delta;
        far = low * low * down;
        near = high * high * up;
    }
    return far * (1.0 - rounding) > near * (1.0 + rounding) + tau_exact;
}

}  // namespace

// Double data goes through the float GEMM while float's γ keeps the bound meaningful.
bool narrow_applies(std::size_t d) {
    return static_cast<double>(d) * std::numeric_limits<float>::epsilon() <= 0.01;
}

bool gemm_assign_applies(std::size_t d, std::size_t k, bool precision_is_float) {
    const double eps = precision_is_float ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    return d >= kGemmAssignMinD && k >= kGemmAssignMinK && d * k >= kGemmAssignMinWork &&
           static_cast<double>(d) * eps <= 0.01 &&
           gemm_level() != GemmLevel::None;
}

// Packs the k × d centroids c (rounded to C) times −2 into panels of `lanes`, with
// their norms fl(‖c‖²) in C; returns R² ≥ max ‖c‖² (rounded up), or +inf when a
// norm is not finite or above max/16 (the GEMM is then not used).
template <typename C, typename T>
double pack_panels(const T* centroids, std::size_t k, std::size_t d, std::size_t lanes, std::vector<C>& panel,
                   std::vector<C>& panel_norm) {
    const std::size_t panels = (k + lanes - 1) / lanes;
    panel.assign(panels * d * lanes, C(0));
    panel_norm.assign(panels * lanes, std::numeric_limits<C>::infinity());
    double largest = 0.0;
    for (std::size_t j = 0; j < k; ++j) {
        const T* c = centroids + j * d;
        C norm = C(0);
        const std::size_t p = j / lanes, l = j % lanes;
        for (std::size_t t = 0; t < d; ++t) {
            const C value = static_cast<C>(c[t]);
            norm += value * value;
            panel[(p * d + t) * lanes + l] = C(-2) * value;  // exact: |2c| ≤ 2√(max/16)
        }
        panel_norm[p * lanes + l] = norm;
        if (!std::isfinite(norm) || static_cast<double>(norm) > static_cast<double>(std::numeric_limits<C>::max()) / 16.0)
            return std::numeric_limits<double>::infinity();
        largest = std::max(largest, static_cast<double>(norm));
    }
    // R² ≥ max ‖c‖²: the computed norm is within γ_d of it, and gradual underflow.
    const double dd = static_cast<double>(d);
    return largest * (1.0 + (dd + 2.0) * std::numeric_limits<C>::epsilon()) +
           8.0 * (dd + 2.0) * static_cast<double>(std::numeric_limits<C>::denorm_min());
}

template <typename T>
void GemmAssign<T>::prepare(const T* centroids, std::size_t k, std::size_t d) {
    const GemmLevel level = gemm_level();
    level_ = static_cast<int>(level);
    k_ = k;
    d_ = d;
    usable_ = level != GemmLevel::None && k >= 2;
    narrow_ = false;
    if (!usable_) return;
    if constexpr (std::is_same_v<T, double>) {
        if (!narrow_declined_ && narrow_applies(d)) {
            const std::size_t lanes = panel_lanes<float>(level);
            radius_sq_ = pack_panels(centroids, k, d, lanes, narrow_panel_, narrow_norm_);
            if (std::isfinite(radius_sq_)) {
                // δ's centroid part: max ‖c − c̃‖ ≤ max Σ_t |c_t − c̃_t| (each difference exact in
                // double, no square to underflow), rounded up generously.
                double largest = 0.0;
                for (std::size_t j = 0; j < k; ++j) {
                    double sum = 0.0;
                    for (std::size_t t = 0; t < d; ++t)
                        sum += std::fabs(centroids[j * d + t] - static_cast<double>(static_cast<float>(centroids[j * d + t])));
                    largest = std::max(largest, sum);
                }
                offset_ = largest * 1.001 + 0x1p-1000;
                panels_ = (k + lanes - 1) / lanes;
                narrow_ = true;
                return;
            }
        }
    }
    const std::size_t lanes = panel_lanes<T>(level);
    panels_ = (k + lanes - 1) / lanes;
    radius_sq_ = pack_panels(centroids, k, d, lanes, panel_, panel_norm_);
    offset_ = 0.0;
    usable_ = std::isfinite(radius_sq_);
}

template <typename T>
void GemmAssign<T>::record(const GemmAssignCounts& counts) {
    if (narrow_ && counts.verified * 8 > counts.certified + counts.verified) narrow_declined_ = true;
}

// The points [begin, end) through the GEMM in C: certified labels written, the rest pending.
template <typename T>
template <typename C>
void GemmAssign<T>::block_range(const T* points, std::size_t begin, std::size_t end, std::int32_t* labels,
                                BlockScratch<C>& b, Scratch& s, GemmAssignCounts& counts) const {
    const auto level = static_cast<GemmLevel>(level_);  // the panels' layout is prepare()'s level's
    const std::size_t block = rows_of(level) * kBlockGroups, lanes = panel_lanes<C>(level);
    const std::size_t w = lanes / kNv;
    b.best.resize(block);
    b.second.resize(block);
    b.index.resize(block);
    b.lane_best.resize(block * w);
    b.lane_second.resize(block * w);
    b.lane_index.resize(block * w);
    b.packed.resize(block * d_);
    b.norm.resize(block);
    const C* panels;
    const C* norms;
    if constexpr (std::is_same_v<C, T>) {
        panels = panel_.data();
        norms = panel_norm_.data();
    } else {
        panels = narrow_panel_.data();
        norms = narrow_norm_.data();
    }
    for (std::size_t first = begin; first < end; first += block) {
        const std::size_t m = std::min(block, end - first);
        const BlockArgs<T, C> args{points, d_, panels, norms, panels_, first, m,
                                   b.best.data(), b.second.data(), b.index.data(), b.norm.data(),
                                   b.lane_best.data(), b.lane_second.data(), b.lane_index.data(), b.packed.data()};
#if KMS_GEMM_X86
        if (level == GemmLevel::Avx512) gemm_block_avx512(args);
        else gemm_block_avx2(args);
#endif
        for (std::size_t p = 0; p < m; ++p) {
            if (certified<C, T>(static_cast<double>(b.norm[p]), static_cast<double>(b.best[p]),
                                static_cast<double>(b.second[p]), radius_sq_, d_, offset_)) {
                const std::int32_t label = b.index[p];
                counts.changed += labels[first + p] != label;
                labels[first + p] = label;
                ++counts.certified;
            } else {
                s.pending.push_back(first + p);
            }
        }
    }
}

// Points waiting for the exact search, at most this many per thread: enough that
// a vector tile is rarely run part-empty, few enough to keep the list small.
constexpr std::size_t kPendingBatch = 2048;

template <typename T>
void GemmAssign<T>::label_range(const T* points, const T* centroids, std::size_t begin, std::size_t end,
                                std::int32_t* labels, Scratch& s, GemmAssignCounts& counts) const {
    if (!usable_) {
        for (std::size_t i = begin; i < end; ++i) s.pending.push_back(i);
    } else if constexpr (std::is_same_v<T, double>) {
        if (narrow_) block_range(points, begin, end, labels, s.narrow, s, counts);
        else block_range(points, begin, end, labels, s.wide, s, counts);
    } else {
        block_range(points, begin, end, labels, s.wide, s, counts);
    }
    if (s.pending.size() >= kPendingBatch) exact(points, centroids, labels, s, counts);
}

template <typename T>
void GemmAssign<T>::finish(const T* points, const T* centroids, std::int32_t* labels, Scratch& s,
                           GemmAssignCounts& counts) const {
    exact(points, centroids, labels, s, counts);
}

// The pending points: the exact full search over all k (the kernel Lloyd uses without the GEMM).
template <typename T>
void GemmAssign<T>::exact(const T* points, const T* centroids, std::int32_t* labels, Scratch& s,
                          GemmAssignCounts& counts) const {
    const std::size_t open = s.pending.size();
    if (open == 0) return;
    s.exact_label.resize(open);
    s.exact_best.resize(open);
    s.exact_second.resize(open);
    s.kernel.resize(kernel_scratch_size(d_));
    nearest_two(points, d_, centroids, k_, s.pending.data(), open, s.exact_label.data(), s.exact_best.data(),
                s.exact_second.data(), s.kernel.data());
    for (std::size_t q = 0; q < open; ++q) {
        const std::size_t i = s.pending[q];
        counts.changed += labels[i] != s.exact_label[q];
        labels[i] = s.exact_label[q];
    }
    counts.verified += open;
    s.pending.clear();
}

template class GemmAssign<float>;
template class GemmAssign<double>;

}  // namespace kms::cpu
