// Set-up checks and the empty-cluster choice shared by every back end.
#include "kms/solver_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"
#include "kms/short_number.hpp"

namespace kms {

double coordinate_limit(Precision precision, std::size_t d) {
    const double largest = precision == Precision::F32 ? static_cast<double>(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
    return std::sqrt(largest) / (2.0 * std::sqrt(static_cast<double>(std::max<std::size_t>(d, 1))));
}

void check_coordinate_range(double max_abs, double spread, std::size_t d, Precision precision, const char* what) {
    const std::string f64_helps = precision == Precision::F32 ? " or use --precision f64" : "";
    const double limit = coordinate_limit(precision, d);
    if (max_abs > limit)
        throw InputError::whole(what, "coordinates up to " + short_number(max_abs) + ", too large for " +
                    std::string(to_string(precision)) + " distances at d = " + std::to_string(d) + " (limit " +
                    short_number(limit) + "): rescale the data (divide it by a power of two)" + f64_helps);
    const double needed = spread_limit(precision);
    if (spread > 0.0 && spread < needed)
        throw InputError::whole(what, "coordinates spread over only " + short_number(spread) +
                    " (the largest max - min of a column), too little for " + std::string(to_string(precision)) +
                    " distances (limit " + short_number(needed) +
                    "): squared distances underflow to 0; rescale the data (multiply it by a power of two)" + f64_helps);
}

double spread_limit(Precision precision) {
    return std::sqrt(precision == Precision::F32 ? static_cast<double>(std::numeric_limits<float>::min())
                                                 : std::numeric_limits<double>::min());
}

namespace {
// The largest |x| and the largest column range (max - min) of rows × d values.
template <typename T>
void value_range(const T* values, std::size_t rows, std::size_t d, int threads, bool with_spread, double& max_abs,
                 double& spread) {
    max_abs = 0.0;
    spread = 0.0;
    const std::size_t count = rows * d;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) reduction(max : max_abs)
    for (std::size_t i = 0; i < count; ++i) max_abs = std::max(max_abs, std::abs(static_cast<double>(values[i])));
    if (!with_spread || rows < 2) return;
    // Blocks of up to 512 columns, each over all rows (reads of a row's block are
    // contiguous); a thread's low and high are one block's, never d values a thread (a
    // row of 25 M columns made per-thread copies gigabytes: issue 39).
    constexpr std::size_t kBlock = 512;
    const auto blocks = static_cast<std::ptrdiff_t>((d + kBlock - 1) / kBlock);
    if (blocks == 1) {  // d <= 512: the threads split the rows, each with its own low and high
        std::vector<double> low(values, values + d), high(low);
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            double my_low[kBlock], my_high[kBlock];  // from row 0, not from low/high: others merge into those
            for (std::size_t j = 0; j < d; ++j) my_low[j] = my_high[j] = static_cast<double>(values[j]);
#pragma omp for schedule(static)
            for (std::ptrdiff_t i = 1; i < static_cast<std::ptrdiff_t>(rows); ++i) {
                const T* row = values + static_cast<std::size_t>(i) * d;
                for (std::size_t j = 0; j < d; ++j) {
                    const double x = static_cast<double>(row[j]);
                    my_low[j] = std::min(my_low[j], x);
                    my_high[j] = std::max(my_high[j], x);
                }
            }
#pragma omp critical(kms_value_range)
            for (std::size_t j = 0; j < d; ++j) {
                low[j] = std::min(low[j], my_low[j]);
                high[j] = std::max(high[j], my_high[j]);
            }
        }
        for (std::size_t j = 0; j < d; ++j) spread = std::max(spread, high[j] - low[j]);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) reduction(max : spread)
    for (std::ptrdiff_t b = 0; b < blocks; ++b) {
        const std::size_t first = static_cast<std::size_t>(b) * kBlock, width = std::min(kBlock, d - first);
        double low[kBlock], high[kBlock];
        for (std::size_t j = 0; j < width; ++j) low[j] = high[j] = static_cast<double>(values[first + j]);
        for (std::size_t i = 1; i < rows; ++i) {
            const T* row = values + i * d + first;
            for (std::size_t j = 0; j < width; ++j) {
                const double x = static_cast<double>(row[j]);
                low[j] = std::min(low[j], x);
                high[j] = std::max(high[j], x);
            }
        }
        for (std::size_t j = 0; j < width; ++j) spread = std::max(spread, high[j] - low[j]);
    }
}

template <typename T>
void check_data(const Matrix<T>& points, Precision precision, int threads, bool whole) {
    if (points.rows() == 0 || points.cols() == 0) throw Error("the data set is empty");
    double max_abs = 0.0, spread = 0.0;
    value_range(points.data(), points.rows(), points.cols(), std::max(threads, 1), whole, max_abs, spread);
    check_coordinate_range(max_abs, spread, points.cols(), precision, "the data");
}
}  // namespace

void check_solver_data(const Matrix<double>& points, Precision precision, int threads, bool whole) {
    check_data(points, precision, threads, whole);
}
void check_solver_data(const Matrix<float>& points, Precision precision, int threads, bool whole) {
    check_data(points, precision, threads, whole);
}

void check_solver_data(const RowSource& source, std::size_t first_row, std::size_t rows, Precision precision,
                       bool whole, std::size_t block_rows) {
    const std::size_t d = source.cols();
    if (rows == 0 || d == 0) throw Error("the data set is empty");
    block_rows = std::max<std::size_t>(1, std::min(block_rows, rows));
    std::vector<double> block(block_rows * d);
    // The largest |x| and each column's least and largest value: the matrix check's
    // (value_range), whose maxima and minima do not depend on the order they are taken in.
    double max_abs = 0.0;
    std::vector<double> low(d, std::numeric_limits<double>::infinity()), high(d, -std::numeric_limits<double>::infinity());
    for (std::size_t start = 0; start < rows; start += block_rows) {
        const std::size_t count = std::min(block_rows, rows - start);
        source.read(first_row + start, count, block.data());
        for (std::size_t i = 0; i < count; ++i)
            for (std::size_t j = 0; j < d; ++j) {
                const double x = block[i * d + j];
                max_abs = std::max(max_abs, std::abs(x));
                low[j] = std::min(low[j], x);
                high[j] = std::max(high[j], x);
            }
    }
    double spread = 0.0;
    if (whole && rows >= 2)
        for (std::size_t j = 0; j < d; ++j) spread = std::max(spread, high[j] - low[j]);
    check_coordinate_range(max_abs, spread, d, precision, "the data");
}

void check_initial_centroids(const Matrix<double>& centroids, std::size_t n, std::size_t d, Precision precision,
                             const char* what) {
    // Refusals of the input: InputError (Python's ValueError), named by `what`.
    if (centroids.rows() < 1) throw InputError::whole(what, "k must be at least 1");
    if (centroids.cols() != d)
        throw InputError::whole(what, "have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                                          std::to_string(d));
    if (centroids.rows() > n)
        throw InputError::whole(what, "k = " + std::to_string(centroids.rows()) +
                                          " is larger than the number of points n = " + std::to_string(n));
    for (double v : centroids.values())
        if (!std::isfinite(v)) throw InputError::whole(what, "contain NaN or Inf");
    double max_abs = 0.0, spread = 0.0;
    value_range(centroids.data(), centroids.rows(), d, 1, false, max_abs, spread);
    check_coordinate_range(max_abs, 0.0, d, precision, what);
}

template <typename T>
std::vector<std::size_t> farthest_points(std::span<const T> distance, std::size_t count) {
    const std::size_t take = std::min(count, distance.size());
    std::vector<std::size_t> order(distance.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          return distance[a] > distance[b] || (distance[a] == distance[b] && a < b);
                      });
    order.resize(take);
    return order;
}
template std::vector<std::size_t> farthest_points<float>(std::span<const float>, std::size_t);
template std::vector<std::size_t> farthest_points<double>(std::span<const double>, std::size_t);

template <typename T, typename Point>
std::vector<RelocationMover<T>> farthest_movers(std::span<const T> distance, std::span<const std::int32_t> labels,
                                                const Point* points, std::size_t d, const T* weights,
                                                std::size_t count, std::size_t first_row, Communicator* comm) {
    const std::vector<std::size_t> order = farthest_points<T>(distance, count);
    std::vector<RelocationMover<T>> movers;
    if (!comm) {
        for (std::size_t i : order) {
            RelocationMover<T> m;
            m.from = static_cast<std::size_t>(labels[i]);
            m.w = weights ? weights[i] : T(1);
            for (std::size_t t = 0; t < d; ++t) m.x.push_back(static_cast<T>(points[i * d + t]));
            movers.push_back(std::move(m));
        }
        return movers;
    }
    // Offers: distance, global row, label, weight, d coordinates (floats widen exactly).
    const std::size_t width = 4 + d;
    std::vector<double> offers;
    for (std::size_t i : order) {
        offers.insert(offers.end(), {static_cast<double>(distance[i]), static_cast<double>(first_row + i),
                                     static_cast<double>(labels[i]), static_cast<double>(weights ? weights[i] : T(1))});
        for (std::size_t t = 0; t < d; ++t) offers.push_back(static_cast<double>(static_cast<T>(points[i * d + t])));
    }
    const std::vector<double> all = comm->allgather(offers);
    std::vector<std::size_t> rank_of(all.size() / width);
    std::iota(rank_of.begin(), rank_of.end(), std::size_t{0});
    std::sort(rank_of.begin(), rank_of.end(), [&](std::size_t a, std::size_t b) {
        const double da = all[a * width], db = all[b * width];
        return da != db ? da > db : all[a * width + 1] < all[b * width + 1];
    });
    for (std::size_t e = 0; e < std::min(count, rank_of.size()); ++e) {
        const double* offer = all.data() + rank_of[e] * width;
        RelocationMover<T> m;
        m.from = static_cast<std::size_t>(offer[2]);
        m.w = static_cast<T>(offer[3]);
        for (std::size_t t = 0; t < d; ++t) m.x.push_back(static_cast<T>(offer[4 + t]));
        movers.push_back(std::move(m));
    }
    return movers;
}

template <typename T>
void relocate_to_movers(const std::vector<std::size_t>& empty_ids, const std::vector<RelocationMover<T>>& movers,
                        std::size_t d, const T* previous, T* centroids, std::vector<double> sums,
                        std::vector<std::int64_t> counts, std::vector<double> weights) {
    const bool weighted = !weights.empty();
    for (std::size_t e = 0; e < std::min(movers.size(), empty_ids.size()); ++e) {
        const std::size_t target = empty_ids[e];
        const std::size_t from = movers[e].from;
        const T* x = movers[e].x.data();
        const T w = movers[e].w;
        const T* old = previous + from * d;
        for (std::size_t t = 0; t < d; ++t) {
            sums[from * d + t] -= static_cast<double>(weighted ? w * (x[t] - old[t]) : x[t] - old[t]);
            centroids[target * d + t] = x[t];
        }
        counts[target] = 1;
        bool from_left = --counts[from] > 0;
        if (weighted) {
            weights[target] = static_cast<double>(w);
            weights[from] -= static_cast<double>(w);
            from_left = weights[from] > 0.0;
        }
        if (from_left) {
            const double count = weighted ? weights[from] : static_cast<double>(counts[from]);
            for (std::size_t t = 0; t < d; ++t)
                centroids[from * d + t] = static_cast<T>(static_cast<double>(old[t]) + sums[from * d + t] / count);
        }
    }
}

#define KMS_INSTANTIATE_RELOCATION(T)                                                                             \
    template std::vector<RelocationMover<T>> farthest_movers<T, T>(std::span<const T>, std::span<const std::int32_t>, \
                                                                   const T*, std::size_t, const T*, std::size_t,  \
                                                                   std::size_t, Communicator*);                   \
    template void relocate_to_movers<T>(const std::vector<std::size_t>&, const std::vector<RelocationMover<T>>&,  \
                                        std::size_t, const T*, T*, std::vector<double>, std::vector<std::int64_t>, \
                                        std::vector<double>);
KMS_INSTANTIATE_RELOCATION(float)
KMS_INSTANTIATE_RELOCATION(double)
template std::vector<RelocationMover<float>> farthest_movers<float, double>(std::span<const float>,
                                                                           std::span<const std::int32_t>,
                                                                           const double*, std::size_t, const float*,
                                                                           std::size_t, std::size_t, Communicator*);

std::size_t CentroidGroups::largest() const {
    std::size_t most = 0;
    for (std::size_t g = 0; g < count(); ++g) most = std::max(most, size(g));
    return most;
}

CentroidGroups form_centroid_groups(const Matrix<double>& centroids, std::size_t points,
                                    std::size_t centroids_per_group) {
    constexpr std::size_t kMaxGroupBounds = std::size_t{1} << 27;
    constexpr int kGroupingIterations = 5;
    const std::size_t k = centroids.rows(), d = centroids.cols();
    std::size_t t = std::max<std::size_t>(1, k / std::max<std::size_t>(1, centroids_per_group));
    t = std::min(t, std::max<std::size_t>(1, kMaxGroupBounds / std::max<std::size_t>(1, points)));
    Matrix<double> centers(t, d);
    for (std::size_t g = 0; g < t; ++g) std::copy_n(centroids.row(g * k / t), d, centers.row(g));
    std::vector<std::size_t> group(k, 0);
    for (int iteration = 0; iteration < kGroupingIterations; ++iteration) {
        for (std::size_t j = 0; j < k; ++j) {
            double best = std::numeric_limits<double>::infinity();
            for (std::size_t g = 0; g < t; ++g) {
                const double distance = squared_distance(centroids.row(j), centers.row(g), d);
                if (distance < best) {
                    best = distance;
                    group[j] = g;
                }
            }
        }
        std::vector<double> sums(t * d, 0.0);
        std::vector<std::size_t> counts(t, 0);
        for (std::size_t j = 0; j < k; ++j) {
            ++counts[group[j]];
            for (std::size_t c = 0; c < d; ++c) sums[group[j] * d + c] += centroids(j, c);
        }
        for (std::size_t g = 0; g < t; ++g)
            if (counts[g] > 0)
                for (std::size_t c = 0; c < d; ++c) centers(g, c) = sums[g * d + c] / static_cast<double>(counts[g]);
    }
    CentroidGroups groups;
    groups.begin.assign(1, 0);
    groups.group_of.assign(k, 0);
    for (std::size_t g = 0; g < t; ++g) {
        const std::size_t before = groups.members.size();
        for (std::size_t j = 0; j < k; ++j)
            if (group[j] == g) {
                groups.group_of[j] = groups.begin.size() - 1;
                groups.members.push_back(j);
            }
        if (groups.members.size() > before) groups.begin.push_back(groups.members.size());
    }
    return groups;
}

}  // namespace kms
