// Exact and sampled silhouette on the CPU (OpenMP).
//
// For every point i: a(i) = mean distance to the other points of its cluster,
// b(i) = smallest mean distance to the points of another cluster,
// s(i) = (b - a) / max(a, b), and 0 for singletons and for a = b = 0 — exactly
// scikit-learn's silhouette_samples (including its order of divisions).
//
// Memory is O(n + k): an index of the points ordered by cluster, and per thread a
// block of rows and one tile of the cluster being visited (coordinates transposed
// so the distance loop vectorises). Each tile belongs to one cluster, so a row's
// distances to it are summed into one running total and no per-point×cluster
// table is ever needed. Distances are computed like kms::squared_distance (same
// order, no FMA) so the CUDA version sees the same values; sums are in double.
#include <omp.h>

#include <algorithm>
#include <new>
#include <atomic>
#include <cmath>
#include <limits>

#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/short_number.hpp"
#include "kms/random.hpp"
#include "kms/scores.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kms {

namespace {

constexpr std::size_t kRowsPerBlock = 32;      // rows sharing one transposed tile
constexpr std::uint64_t kSampleStream = 0x73696C686F756574ull;  // "silhouet": RNG stream of the sampling

// Σ sqrt(squared[0..len)) in double. The compiler keeps std::sqrt scalar
// (errno handling), so the vector square roots are spelled out for SSE2.
double sum_of_roots(const double* squared, std::size_t len) {
    std::size_t jj = 0;
    double total = 0.0;
#if defined(__SSE2__)
    __m128d acc0 = _mm_setzero_pd(), acc1 = _mm_setzero_pd();
    for (; jj + 4 <= len; jj += 4) {
        acc0 = _mm_add_pd(acc0, _mm_sqrt_pd(_mm_loadu_pd(squared + jj)));
        acc1 = _mm_add_pd(acc1, _mm_sqrt_pd(_mm_loadu_pd(squared + jj + 2)));
    }
    alignas(16) double lanes[2];
    _mm_store_pd(lanes, _mm_add_pd(acc0, acc1));
    total = lanes[0] + lanes[1];
#endif
    for (; jj < len; ++jj) total += std::sqrt(squared[jj]);
    return total;
}

double sum_of_roots(const float* squared, std::size_t len) {
    std::size_t jj = 0;
    double total = 0.0;
#if defined(__SSE2__)
    __m128d acc0 = _mm_setzero_pd(), acc1 = _mm_setzero_pd();
    for (; jj + 4 <= len; jj += 4) {
        const __m128 roots = _mm_sqrt_ps(_mm_loadu_ps(squared + jj));  // float distances, as on the GPU
        acc0 = _mm_add_pd(acc0, _mm_cvtps_pd(roots));
        acc1 = _mm_add_pd(acc1, _mm_cvtps_pd(_mm_movehl_ps(roots, roots)));
    }
    alignas(16) double lanes[2];
    _mm_store_pd(lanes, _mm_add_pd(acc0, acc1));
    total = lanes[0] + lanes[1];
#endif
    for (; jj < len; ++jj) total += double(std::sqrt(squared[jj]));
    return total;
}

// Points of each cluster contiguous: order[start[c] .. start[c+1]) are cluster c's rows.
struct ClusterOrder {
    std::vector<std::size_t> order;
    std::vector<std::size_t> start;
};

ClusterOrder order_by_cluster(const LabelEncoding& encoding) {
    ClusterOrder result;
    result.start.assign(encoding.k() + 1, 0);
    for (std::size_t c = 0; c < encoding.k(); ++c) result.start[c + 1] = result.start[c] + encoding.counts[c];
    std::vector<std::size_t> next(result.start.begin(), result.start.end() - 1);
    result.order.resize(encoding.codes.size());
    for (std::size_t i = 0; i < encoding.codes.size(); ++i) result.order[next[std::size_t(encoding.codes[i])]++] = i;
    return result;
}

}  // namespace

template <typename T>
SilhouetteResult silhouette(const Matrix<T>& points, std::span<const std::int32_t> labels, const ScoreOptions& options) {
    if (points.rows() != labels.size())
        throw Error("labels do not match the points: " + std::to_string(labels.size()) + " labels for " +
                    std::to_string(points.rows()) + " points");
    const LabelEncoding encoding = encode_labels(labels);
    const std::size_t n = points.rows(), d = points.cols(), k = encoding.k();
    check_number_of_labels(k, n);
    const ClusterOrder clusters = order_by_cluster(encoding);

    // Tile width: the transposed tile (d × width values) stays within ~64 KiB.
    const std::size_t width = std::clamp<std::size_t>(8192 / std::max<std::size_t>(d, 1), 16, 256);
    const std::size_t row_blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
    SilhouetteResult result;
    result.values.assign(n, 0.0);
    std::atomic<bool> cancelled{false};
    const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();

    RegionGuard guard;
#pragma omp parallel num_threads(threads)
    {
        std::vector<T> tile;  // tile[dim * width + jj]
        std::vector<T> squared;
        guard.run([&] {
            tile.resize(d * width);
            squared.resize(width);
        });
        double running[kRowsPerBlock], intra[kRowsPerBlock], nearest[kRowsPerBlock];

#pragma omp for schedule(dynamic, 1)
        for (std::size_t block = 0; block < row_blocks; ++block) {
            if (guard.failed() || cancelled.load(std::memory_order_relaxed)) continue;
            const std::size_t row0 = block * kRowsPerBlock;
            const std::size_t rows = std::min(kRowsPerBlock, n - row0);
            for (std::size_t r = 0; r < rows; ++r) {
                intra[r] = 0.0;
                nearest[r] = std::numeric_limits<double>::infinity();
            }
            for (std::size_t c = 0; c < k && !cancelled.load(std::memory_order_relaxed); ++c) {
                for (std::size_t r = 0; r < rows; ++r) running[r] = 0.0;
                for (std::size_t t0 = clusters.start[c]; t0 < clusters.start[c + 1]; t0 += width) {
                    if (options.stop.stop_requested()) {
                        cancelled.store(true, std::memory_order_relaxed);
                        break;
                    }
                    const std::size_t len = std::min(width, clusters.start[c + 1] - t0);
                    for (std::size_t jj = 0; jj < len; ++jj) {
                        const T* p = points.row(clusters.order[t0 + jj]);
                        for (std::size_t dim = 0; dim < d; ++dim) tile[dim * width + jj] = p[dim];
                    }
                    for (std::size_t r = 0; r < rows; ++r) {
                        const T* x = points.row(row0 + r);
                        std::fill_n(squared.begin(), len, T(0));
                        for (std::size_t dim = 0; dim < d; ++dim) {
                            const T xv = x[dim];
                            const T* column = tile.data() + dim * width;
                            T* out = squared.data();
                            for (std::size_t jj = 0; jj < len; ++jj) {
                                const T diff = xv - column[jj];
                                out[jj] += diff * diff;
                            }
                        }
                        running[r] += sum_of_roots(squared.data(), len);
                    }
                }
                for (std::size_t r = 0; r < rows; ++r) {
                    if (std::size_t(encoding.codes[row0 + r]) == c) intra[r] = running[r];
                    else nearest[r] = std::min(nearest[r], running[r] / double(encoding.counts[c]));
                }
            }
            if (cancelled.load(std::memory_order_relaxed)) continue;
            for (std::size_t r = 0; r < rows; ++r) {
                const std::uint64_t own = encoding.counts[std::size_t(encoding.codes[row0 + r])];
                // scikit-learn: 0/0 (singletons, a = b = 0) becomes 0 through nan_to_num.
                if (own <= 1) continue;
                const double a = intra[r] / double(own - 1);
                const double b = nearest[r];
                const double denominator = std::max(a, b);
                result.values[row0 + r] = denominator == 0.0 ? 0.0 : (b - a) / denominator;
            }
        }
    }
    try {
        guard.rethrow();
    } catch (const std::bad_alloc&) {
        throw Error("silhouette: not enough memory for " + std::to_string(threads) + " threads' tiles of " +
                    std::to_string(width) + " points × d = " + std::to_string(d) + " coordinates (" +
                    short_number(double(d * width * sizeof(T)) / 1048576.0) + " MiB a thread); fewer threads need less");
    }
    if (cancelled.load()) throw Error("silhouette cancelled");
    double sum = 0.0;
    for (double v : result.values) sum += v;
    result.score = sum / double(n);
    return result;
}

std::vector<std::uint64_t> silhouette_sample_indices(std::size_t n, std::size_t sample_size, std::uint64_t seed) {
    const std::size_t m = std::min(n, sample_size);
    // Partial Fisher–Yates shuffle: a uniform sample without replacement, in random order.
    std::vector<std::uint64_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    for (std::size_t i = 0; i < m; ++i) {
        const std::size_t j = i + std::size_t(random_below(seed, kSampleStream, i, n - i));
        std::swap(all[i], all[j]);
    }
    all.resize(m);
    return all;
}

template <typename T>
SilhouetteResult silhouette_sampled(const Matrix<T>& points, std::span<const std::int32_t> labels,
                                    std::size_t sample_size, std::uint64_t seed, const ScoreOptions& options) {
    if (points.rows() != labels.size())
        throw Error("labels do not match the points: " + std::to_string(labels.size()) + " labels for " +
                    std::to_string(points.rows()) + " points");
    if (sample_size == 0) throw Error("silhouette sample size must be at least 1");
    std::vector<std::uint64_t> indices = silhouette_sample_indices(points.rows(), sample_size, seed);
    const Matrix<T> subset = select_rows(points, indices);
    const std::vector<std::int32_t> subset_labels = select_labels(labels, indices);
    SilhouetteResult result = silhouette(subset, std::span<const std::int32_t>(subset_labels), options);
    double sum_sq = 0.0;
    for (double v : result.values) sum_sq += (v - result.score) * (v - result.score);
    const double m = double(result.values.size());  // >= 3: the label check needs 2 <= k <= m - 1
    result.standard_error = std::sqrt(sum_sq / (m - 1.0)) / std::sqrt(m);
    result.indices = std::move(indices);
    result.sampled = true;
    return result;
}

template SilhouetteResult silhouette<float>(const Matrix<float>&, std::span<const std::int32_t>, const ScoreOptions&);
template SilhouetteResult silhouette<double>(const Matrix<double>&, std::span<const std::int32_t>, const ScoreOptions&);
template SilhouetteResult silhouette_sampled<float>(const Matrix<float>&, std::span<const std::int32_t>, std::size_t,
                                                    std::uint64_t, const ScoreOptions&);
template SilhouetteResult silhouette_sampled<double>(const Matrix<double>&, std::span<const std::int32_t>, std::size_t,
                                                     std::uint64_t, const ScoreOptions&);

}  // namespace kms
