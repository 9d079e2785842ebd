#pragma once
// The vector kernels behind the CPU solvers' full searches, written once with
// GCC/Clang vector extensions and compiled per instruction set (kernels.cpp).
//
// Layout: a tile of W·P points is gathered and transposed (coordinate-major), so
// each vector lane holds one point and the centroids are read one scalar at a
// time (broadcast). Each lane then does exactly what the scalar reference does
// for its point: distance t = 0..d-1 accumulated in order (first term not added
// to zero — 0 + x² is x² bitwise because x² is never −0), then a scan over the
// centroids in index order with a strict "<", so the first minimum wins. Hence
// bitwise the same labels, distances and second-nearest values as the scalar
// path, with no lane merging at all.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__GNUC__)
#define KMS_FORCE_INLINE [[gnu::always_inline]] inline
#else
#define KMS_FORCE_INLINE inline
#endif

namespace kms::cpu::simd {

// Most points in one tile, over every instruction set and precision.
constexpr std::size_t kMaxTile = 64;

template <typename T, int W>
struct Pack {
    using Int = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    typedef T V __attribute__((vector_size(W * sizeof(T))));
    typedef Int I __attribute__((vector_size(W * sizeof(T))));

    // By reference: a vector return value would change the ABI between levels.
    KMS_FORCE_INLINE static void load(V& v, const T* p) { std::memcpy(&v, p, sizeof v); }
};

// Point rows of a batch: a contiguous range, or a list of indices.
struct RangeRows {
    std::size_t begin;
    std::size_t operator()(std::size_t i) const { return begin + i; }
};
struct ListRows {
    const std::size_t* rows;
    std::size_t operator()(std::size_t i) const { return rows[i]; }
};

// xt[t·tile + p] = coordinate t of the batch's point first + p; lanes past the
// batch's end repeat its last point (computed, never reported).
template <typename T, typename Rows>
KMS_FORCE_INLINE void gather_transposed(const T* points, std::size_t d, Rows rows, std::size_t first,
                                        std::size_t count, std::size_t tile, T* xt) {
    for (std::size_t p = 0; p < tile; ++p) {
        const T* x = points + rows(first + std::min(p, count - 1)) * d;
        for (std::size_t t = 0; t < d; ++t) xt[t * tile + p] = x[t];
    }
}

// Squared distances of the tile's W·P points to one centroid, each accumulated
// over coordinates in index order, as squared_distance() does. D > 0: d known
// at compile time (small d unrolled); D = 0: d at run time.
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE void tile_distances(const T* xt, std::size_t d_runtime, const T* centroid,
                                     typename Pack<T, W>::V (&acc)[P]) {
    using Vec = Pack<T, W>;
    constexpr std::size_t tile = static_cast<std::size_t>(W) * P;
    const std::size_t d = D > 0 ? static_cast<std::size_t>(D) : d_runtime;
    {
        const T c = centroid[0];
        for (int p = 0; p < P; ++p) {
            typename Vec::V x;
            Vec::load(x, xt + p * W);
            const typename Vec::V diff = x - c;
            acc[p] = diff * diff;
        }
    }
    for (std::size_t t = 1; t < d; ++t) {
        const T c = centroid[t];
        for (int p = 0; p < P; ++p) {
            typename Vec::V x;
            Vec::load(x, xt + t * tile + p * W);
            const typename Vec::V diff = x - c;
            acc[p] = acc[p] + diff * diff;
        }
    }
}

// Nearest centroid of each of the tile's points (first minimum in index order).
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE void tile_nearest(const T* xt, std::size_t d, const T* centroids, std::size_t k,
                                   std::int32_t* label) {
    using Vec = Pack<T, W>;
    using V = typename Vec::V;
    using I = typename Vec::I;
    V best[P];
    I index[P];
    tile_distances<T, W, P, D>(xt, d, centroids, best);
    for (int p = 0; p < P; ++p) index[p] = I{};
    for (std::size_t j = 1; j < k; ++j) {
        V acc[P];
        tile_distances<T, W, P, D>(xt, d, centroids + j * d, acc);
        const I jv = I{} + static_cast<typename Vec::Int>(j);
        for (int p = 0; p < P; ++p) {
            const I closer = acc[p] < best[p];
            best[p] = closer ? acc[p] : best[p];
            index[p] = closer ? jv : index[p];
        }
    }
    for (int p = 0; p < P; ++p)
        for (int l = 0; l < W; ++l) label[p * W + l] = static_cast<std::int32_t>(index[p][l]);
}

// Nearest (first minimum) and the two smallest squared distances of each of the
// tile's points, exactly as the sequential nearest_two() scan finds them.
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE void tile_nearest_two(const T* xt, std::size_t d, const T* centroids, std::size_t k,
                                       std::int32_t* label, T* best_out, T* second_out) {
    using Vec = Pack<T, W>;
    using V = typename Vec::V;
    using I = typename Vec::I;
    V best[P], second[P];
    I index[P];
    tile_distances<T, W, P, D>(xt, d, centroids, best);
    for (int p = 0; p < P; ++p) {
        second[p] = V{} + std::numeric_limits<T>::infinity();
        index[p] = I{};
    }
    for (std::size_t j = 1; j < k; ++j) {
        V acc[P];
        tile_distances<T, W, P, D>(xt, d, centroids + j * d, acc);
        const I jv = I{} + static_cast<typename Vec::Int>(j);
        for (int p = 0; p < P; ++p) {
            const I closer = acc[p] < best[p];
            const I below_second = acc[p] < second[p];
            second[p] = closer ? best[p] : (below_second ? acc[p] : second[p]);
            best[p] = closer ? acc[p] : best[p];
            index[p] = closer ? jv : index[p];
        }
    }
    for (int p = 0; p < P; ++p)
        for (int l = 0; l < W; ++l) {
            label[p * W + l] = static_cast<std::int32_t>(index[p][l]);
            best_out[p * W + l] = best[p][l];
            second_out[p * W + l] = second[p][l];
        }
}

// Labels the points [begin, end) (Lloyd's full search); returns how many changed.
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE std::uint64_t label_range(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                           std::size_t begin, std::size_t end, std::int32_t* labels, T* xt) {
    constexpr std::size_t tile = static_cast<std::size_t>(W) * P;
    std::int32_t fresh[tile];
    std::uint64_t changed = 0;
    for (std::size_t first = begin; first < end; first += tile) {
        const std::size_t count = std::min(tile, end - first);
        gather_transposed(points, d, RangeRows{first}, 0, count, tile, xt);
        tile_nearest<T, W, P, D>(xt, d, centroids, k, fresh);
        for (std::size_t p = 0; p < count; ++p) {
            changed += labels[first + p] != fresh[p];
            labels[first + p] = fresh[p];
        }
    }
    return changed;
}

// Nearest and two smallest squared distances of the listed points.
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE void nearest_two_list(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                       const std::size_t* rows, std::size_t m, std::int32_t* label, T* best,
                                       T* second, T* xt) {
    constexpr std::size_t tile = static_cast<std::size_t>(W) * P;
    std::int32_t tile_label[tile];
    T tile_best[tile], tile_second[tile];
    for (std::size_t first = 0; first < m; first += tile) {
        const std::size_t count = std::min(tile, m - first);
        gather_transposed(points, d, ListRows{rows}, first, count, tile, xt);
        tile_nearest_two<T, W, P, D>(xt, d, centroids, k, tile_label, tile_best, tile_second);
        std::copy_n(tile_label, count, label + first);
        std::copy_n(tile_best, count, best + first);
        std::copy_n(tile_second, count, second + first);
    }
}

}  // namespace kms::cpu::simd

namespace kms::cpu::simd {

// Elkan's bound maintenance for one point: every lower bound shrinks by its
// centroid's move (BoundArithmetic::shrink, lane by lane: the same bits), and
// the first centroid j ≠ own that the bounds cannot rule out for the inflated
// upper bound `reach` (= u·(1 + 4·rel), as BoundArithmetic::separated forms it)
// is returned, or k when there is none.
template <typename T, int W>
KMS_FORCE_INLINE std::size_t elkan_shrink_first(T* lower, const T* shift, const T* cc_half_row, std::size_t k,
                                                std::size_t own, T reach) {
    using Vec = Pack<T, W>;
    using V = typename Vec::V;
    using I = typename Vec::I;
    const T factor = T(1) - T(4) * std::numeric_limits<T>::epsilon();
    std::size_t first = k;
    std::size_t j = 0;
    for (; j + W <= k; j += W) {
        V bound, move, half;
        Vec::load(bound, lower + j);
        Vec::load(move, shift + j);
        Vec::load(half, cc_half_row + j);
        V shrunk = (bound - move) * factor;
        shrunk = shrunk > T(0) ? shrunk : V{};
        std::memcpy(lower + j, &shrunk, sizeof shrunk);
        if (first == k) {
            const I open = ~(reach < shrunk) & ~(reach < half);
            for (int l = 0; l < W; ++l)
                if (open[l] && j + static_cast<std::size_t>(l) != own) {
                    first = j + static_cast<std::size_t>(l);
                    break;
                }
        }
    }
    for (; j < k; ++j) {
        const T shrunk = (lower[j] - shift[j]) * factor;
        lower[j] = shrunk > T(0) ? shrunk : T(0);
        if (first == k && j != own && !(reach < lower[j]) && !(reach < cc_half_row[j])) first = j;
    }
    return first;
}

}  // namespace kms::cpu::simd

namespace kms::cpu::simd {

// Every squared distance of the points [begin, end) to the k centroids, row by
// row into `out` ((end - begin) × k), each exactly as squared_distance() gives it.
template <typename T, int W, int P, int D>
KMS_FORCE_INLINE void distances_range(const T* points, std::size_t d, const T* centroids, std::size_t k,
                                      std::size_t begin, std::size_t end, T* out, T* xt) {
    using V = typename Pack<T, W>::V;
    constexpr std::size_t tile = static_cast<std::size_t>(W) * P;
    for (std::size_t first = begin; first < end; first += tile) {
        const std::size_t count = std::min(tile, end - first);
        gather_transposed(points, d, RangeRows{first}, 0, count, tile, xt);
        T* rows = out + (first - begin) * k;
        for (std::size_t j = 0; j < k; ++j) {
            V acc[P];
            tile_distances<T, W, P, D>(xt, d, centroids + j * d, acc);
            for (std::size_t p = 0; p < count; ++p) rows[p * k + j] = acc[p / W][p % W];
        }
    }
}

// Lanes a block's stride is rounded to: two vectors of the widest level.
constexpr std::size_t kBlockLanes = 32;

// Squared distances of one point to the m centroids of a coordinate-major block
// (block[t·stride + j]: coordinate t of centroid j, stride a multiple of
// kBlockLanes): one lane per centroid, each summed over t in index order from
// its first term, exactly as squared_distance() sums: the same bits. Two vectors
// at a time, so two dependency chains overlap.
template <typename T, int W>
KMS_FORCE_INLINE void block_distances(const T* x, std::size_t d, const T* block, std::size_t stride, std::size_t m,
                                      T* out) {
    using Vec = Pack<T, W>;
    using V = typename Vec::V;
    for (std::size_t j = 0; j < m; j += 2 * W) {
        V first, second;
        {
            V c0, c1;
            Vec::load(c0, block + j);
            Vec::load(c1, block + j + W);
            const V diff0 = x[0] - c0, diff1 = x[0] - c1;
            first = diff0 * diff0;
            second = diff1 * diff1;
        }
        for (std::size_t t = 1; t < d; ++t) {
            V c0, c1;
            Vec::load(c0, block + t * stride + j);
            Vec::load(c1, block + t * stride + j + W);
            const V diff0 = x[t] - c0, diff1 = x[t] - c1;
            first = first + diff0 * diff0;
            second = second + diff1 * diff1;
        }
        std::memcpy(out + j, &first, sizeof first);
        std::memcpy(out + j + W, &second, sizeof second);
    }
}

}  // namespace kms::cpu::simd
