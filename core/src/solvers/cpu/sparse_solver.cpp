// Lloyd and Elkan over sparse rows (kms/sparse.hpp).
//
// Assignment: each point independently (OpenMP over points), so its label does not
// depend on the thread count. Lloyd evaluates every centroid. Elkan keeps, per point,
// an upper bound u of the exact distance to its centroid and lower bounds l[j] of the
// exact distances to every centroid, all certain: a bound built from a computed
// distance s is widened by sparse::distance_error (the formula's round-off), moved by
// certain upper bounds of the centroids' shifts, and a centroid j is skipped only when
// its lower bound proves its computed distance larger than the current best's by more
// than twice that error (max(l[j], ½·lower(|c_a − c_j|)·2 − u)² > u² + M). Every
// distance that is computed is compared exactly as Lloyd compares it (strictly
// smaller wins, ties to the lower index), so the labels are Lloyd's bit for bit.
//
// Update: the points are bucketed by label (a stable counting sort, increasing row
// order) and each cluster's Σ w·x and Σ w are added in that order, in double, one
// cluster per OpenMP task: the same bits for any thread count. Empty clusters take
// the points farthest from their centroid (scikit-learn's rule, as the dense solvers'
// EmptyClusterPolicy::Farthest), shifts and the stop rule as the dense solvers.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "kernels.hpp"
#include "kms/error.hpp"
#include "kms/region_guard.hpp"
#include "kms/solver_support.hpp"
#include "kms/sparse_solver.hpp"
#include "sparse_distance.hpp"

namespace kms {
namespace {

using cpu::Clock;
using cpu::elapsed_ms;

constexpr double kRoundUp = 1.0 + 0x1.0p-50;    // a product or sqrt widened past its rounding
constexpr double kRoundDown = 1.0 - 0x1.0p-50;

template <typename T>
class SparseSolver final : public Solver {
public:
    SparseSolver(std::shared_ptr<const SparseMatrix<T>> points, const SolverConfig& config)
        : points_(std::move(points)), config_(config), n_(points_->rows), d_(points_->cols) {
        if (config_.algorithm != Algorithm::Lloyd && config_.algorithm != Algorithm::Elkan)
            throw UsageError("sparse input runs the solvers 'lloyd' and 'elkan'; got '" +
                             std::string(to_string(config_.algorithm)) + "' (convert the data to a dense array "
                             "for the others)");
        if (config_.backend == Backend::Cuda)
            throw UsageError("sparse input runs on the CPU (backend 'omp' or 'seq'), not on '" + config_.backend_name() + "'");
        threads_ = config_.backend == Backend::Sequential ? 1 : (config_.threads > 0 ? config_.threads : omp_get_max_threads());
        x_norm_sq_.resize(n_);
        x_norm_.resize(n_);
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t i = 0; i < n_; ++i) {
            const sparse::Row<T> x = sparse::row(*points_, i);
            x_norm_sq_[i] = sparse::squared_norm(x);
            // Above the exact norm: the sum of squares errs by at most (nnz + 1)·2^-53 relative.
            x_norm_[i] = std::sqrt(x_norm_sq_[i]) * (kRoundUp + 0x1.0p-52 * static_cast<double>(x.count + 2));
        }
        tol_absolute_ = tolerance(config_.tol);
        labels_.assign(n_, -1);
    }

    const SolverConfig& config() const override { return config_; }
    void set_data(std::shared_ptr<const Matrix<double>>) override {
        throw Error("a sparse solver takes its points when it is made (make_sparse_solver)");
    }
    const void* data_address() const override { return points_->values; }
    void set_initial_centroids(const Matrix<double>& centroids) override {
        if (centroids.cols() != d_ || centroids.rows() < 1 || centroids.rows() > n_)
            throw Error("initial centroids of shape " + std::to_string(centroids.rows()) + " x " +
                        std::to_string(centroids.cols()) + " for " + std::to_string(n_) + " points of dimension " +
                        std::to_string(d_));
        initial_ = centroids;
        k_ = centroids.rows();
        reset();
    }
    void reset() override {
        centroids_ = initial_;
        labels_.assign(n_, -1);
        iteration_ = 0;
        stop_reason_ = StopReason::NotStopped;
        bounds_valid_ = false;
        refresh_norms();
    }
    void set_sample_weight(std::shared_ptr<const std::vector<double>> weights) override {
        if (weights && weights->size() != n_) throw Error("sample weights for a different number of points");
        weights_ = std::move(weights);
    }
    void set_stop_token(std::stop_token stop) override { stop_ = stop; }
    int iteration() const override { return iteration_; }
    bool converged() const override { return stop_reason_ != StopReason::NotStopped; }
    StopReason stop_reason() const override { return stop_reason_; }
    const std::vector<std::int32_t>& labels() const override { return labels_; }
    Matrix<double> centroids() const override { return centroids_; }
    const std::vector<PointStatus>& point_status() const override { return status_; }

    double inertia() const override {
        double total = 0.0;
        for (std::size_t i = 0; i < n_; ++i) {
            if (labels_[i] < 0) continue;
            const auto c = static_cast<std::size_t>(labels_[i]);
            total += weight(i) * distance(i, c);
        }
        return total;
    }

    IterationStats step() override {
        const auto start = Clock::now();
        IterationStats stats;
        stats.iteration = iteration_ + 1;
        const std::vector<std::int32_t> before = stop_.stop_possible() ? labels_ : std::vector<std::int32_t>();
        const auto assign_start = Clock::now();
        const bool elkan = config_.algorithm == Algorithm::Elkan;
        if (elkan && bounds_valid_) {
            const auto bounds_start = Clock::now();
            centroid_distances(stats);
            stats.time_bounds_ms += elapsed_ms(bounds_start);
        }
        stats.labels_changed = (elkan && bounds_valid_) ? assign_elkan(stats) : assign_full(stats, elkan);
        stats.time_assign_ms = elapsed_ms(assign_start) - stats.time_bounds_ms;
        if (stop_.stop_possible() && stop_.stop_requested()) {
            labels_ = before;  // the last completed iteration's
            bounds_valid_ = false;
            throw Cancelled("step " + std::to_string(iteration_ + 1) + " cancelled");
        }
        bounds_valid_ = elkan;
        const auto update_start = Clock::now();
        update(stats);
        stats.time_update_ms = elapsed_ms(update_start);
        ++iteration_;
        stop_reason_ = finish_step(config_, tol_absolute_, start, stats, [this] { return inertia(); });
        return stats;
    }

    std::uint64_t finalize_labels() override {
        IterationStats ignored;
        assign_full(ignored, false);
        bounds_valid_ = false;
        return static_cast<std::uint64_t>(n_) * k_;
    }

private:
    double weight(std::size_t i) const { return weights_ ? (*weights_)[i] : 1.0; }

    double distance(std::size_t i, std::size_t c) const {
        return sparse::squared_distance(sparse::row(*points_, i), x_norm_sq_[i], centroids_.row(c), c_norm_sq_[c]);
    }

    // The certain bounds of the exact distance from a computed squared distance s.
    double upper_of(double s, double error) const { return std::sqrt(s + error) * kRoundUp; }
    double lower_of(double s, double error) const { return s > error ? std::sqrt(s - error) * kRoundDown : 0.0; }

    double error_of(std::size_t i) const {
        return sparse::distance_error(static_cast<std::size_t>(points_->indptr[i + 1] - points_->indptr[i]), d_,
                                      x_norm_[i], max_c_norm_);
    }

    void refresh_norms() {
        c_norm_sq_.assign(k_, 0.0);
        max_c_norm_ = 0.0;
        for (std::size_t c = 0; c < k_; ++c) {
            c_norm_sq_[c] = sparse::squared_norm(centroids_.row(c), d_);
            max_c_norm_ = std::max(max_c_norm_, std::sqrt(c_norm_sq_[c]) * kRoundUp * (1.0 + 0x1.0p-40 * static_cast<double>(d_)));
        }
    }

    // scikit-learn's tolerance: tol × the mean of the features' variances (two passes over the non-zeros).
    double tolerance(double tol) const {
        if (tol == 0.0 || n_ == 0) return 0.0;
        std::vector<double> mean(d_, 0.0), variance(d_, 0.0);
        std::vector<std::size_t> count(d_, 0);
        const std::size_t nnz = points_->nnz();
        for (std::size_t e = 0; e < nnz; ++e) mean[static_cast<std::size_t>(points_->indices[e])] += static_cast<double>(points_->values[e]);
        for (double& m : mean) m /= static_cast<double>(n_);
        for (std::size_t e = 0; e < nnz; ++e) {
            const auto j = static_cast<std::size_t>(points_->indices[e]);
            const double diff = static_cast<double>(points_->values[e]) - mean[j];
            variance[j] += diff * diff;
            ++count[j];
        }
        double mean_variance = 0.0;
        for (std::size_t j = 0; j < d_; ++j)
            mean_variance += (variance[j] + static_cast<double>(n_ - count[j]) * mean[j] * mean[j]) / static_cast<double>(n_);
        return tol * mean_variance / static_cast<double>(d_);
    }

    // Every centroid for every point (Lloyd; Elkan's first step, which also sets the bounds).
    std::uint64_t assign_full(IterationStats& stats, bool set_bounds) {
        if (set_bounds) {
            lower_.assign(n_ * k_, 0.0);
            upper_.assign(n_, 0.0);
        }
        std::uint64_t changed = 0;
        std::atomic<bool> cancelled{false};
        const std::vector<double> ct = sparse::transposed(centroids_.data(), k_, d_);
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
        {
            std::vector<double> s;
            guard.run([&] { s.resize(k_); });
#pragma omp for schedule(dynamic, 256) reduction(+ : changed)
            for (std::size_t i = 0; i < n_; ++i) {
                if (guard.failed() || cancelled.load(std::memory_order_relaxed)) continue;
                if ((i & 1023) == 0 && stop_.stop_requested()) {
                    cancelled.store(true, std::memory_order_relaxed);  // the others stop at their next point
                    continue;
                }
                sparse::squared_distances(sparse::row(*points_, i), x_norm_sq_[i], ct.data(), c_norm_sq_.data(), k_,
                                          s.data());
                const double error = set_bounds ? error_of(i) : 0.0;
                std::size_t best = 0;
                double best_s = std::numeric_limits<double>::infinity();
                for (std::size_t c = 0; c < k_; ++c) {
                    if (set_bounds) lower_[i * k_ + c] = lower_of(s[c], error);
                    if (s[c] < best_s) {
                        best_s = s[c];
                        best = c;
                    }
                }
                if (set_bounds) upper_[i] = upper_of(best_s, error);
                if (labels_[i] != static_cast<std::int32_t>(best)) {
                    ++changed;
                    labels_[i] = static_cast<std::int32_t>(best);
                }
            }
        }
        guard.rethrow();
        stats.point_centroid_distances += static_cast<std::uint64_t>(n_) * k_;
        return changed;
    }

    // Certain lower bounds of ½·|c_a − c_b| (k × k) and, per centroid, of the
    // smallest of them (Elkan's s(c)).
    void centroid_distances(IterationStats& stats) {
        half_cc_.assign(k_ * k_, 0.0);
        const double widen = 1.0 - 0x1.0p-51 * (static_cast<double>(d_) + 4.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (threads_ > 1)
        for (std::size_t a = 0; a < k_; ++a)
            for (std::size_t b = a + 1; b < k_; ++b) {
                double sum = 0.0;
                for (std::size_t j = 0; j < d_; ++j) {
                    const double diff = centroids_(a, j) - centroids_(b, j);
                    sum += diff * diff;
                }
                const double half = 0.5 * std::sqrt(sum) * widen;
                half_cc_[a * k_ + b] = half_cc_[b * k_ + a] = half > 0.0 ? half : 0.0;
            }
        stats.centroid_centroid_distances += static_cast<std::uint64_t>(k_) * (k_ - 1) / 2;
    }

    std::uint64_t assign_elkan(IterationStats& stats) {
        std::uint64_t changed = 0, distances = 0, skips = 0;
        std::atomic<bool> cancelled{false};
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads_) if (threads_ > 1) \
    reduction(+ : changed, distances, skips)
        for (std::size_t i = 0; i < n_; ++i) {
            if (cancelled.load(std::memory_order_relaxed)) continue;
            if ((i & 1023) == 0 && stop_.stop_requested()) {
                cancelled.store(true, std::memory_order_relaxed);
                continue;
            }
            const double error = error_of(i), margin = 2.0 * error;
            auto a = static_cast<std::size_t>(labels_[i]);
            double u = upper_[i];
            double* l = lower_.data() + i * k_;
            bool tight = false;
            double s_a = 0.0;
            std::uint64_t evaluated = 0;
            for (std::size_t j = 0; j < k_; ++j) {
                if (j == a) continue;
                // j cannot beat a when a certain lower bound of its exact distance exceeds
                // sqrt(u² + margin): then its computed distance exceeds a's.
                auto provably_farther = [&] {
                    const double bound = std::max(l[j], 2.0 * half_cc_[a * k_ + j] - u);
                    return bound > 0.0 && bound * bound * kRoundDown > (u * u + margin) * kRoundUp;
                };
                if (provably_farther()) continue;
                if (!tight) {
                    s_a = distance(i, a);
                    ++evaluated;
                    u = upper_of(s_a, error);
                    l[a] = lower_of(s_a, error);
                    tight = true;
                    if (provably_farther()) continue;
                }
                const double s = distance(i, j);
                ++evaluated;
                l[j] = lower_of(s, error);
                if (s < s_a || (s == s_a && j < a)) {
                    a = j;
                    s_a = s;
                    u = upper_of(s, error);
                }
            }
            upper_[i] = u;
            distances += evaluated;
            if (evaluated == 0) ++skips;
            if (labels_[i] != static_cast<std::int32_t>(a)) {
                ++changed;
                labels_[i] = static_cast<std::int32_t>(a);
            }
        }
        stats.point_centroid_distances += distances;
        stats.bound_skips += skips;
        return changed;
    }

    void update(IterationStats& stats) {
        // Stable bucket order: the points of cluster c at order[first[c] .. first[c+1]).
        std::vector<std::size_t> first(k_ + 1, 0), order(n_);
        for (std::size_t i = 0; i < n_; ++i) ++first[static_cast<std::size_t>(labels_[i]) + 1];
        std::partial_sum(first.begin(), first.end(), first.begin());
        {
            std::vector<std::size_t> next(first.begin(), first.end() - 1);
            for (std::size_t i = 0; i < n_; ++i) order[next[static_cast<std::size_t>(labels_[i])]++] = i;
        }
        std::vector<double> sums(k_ * d_, 0.0), mass(k_, 0.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (threads_ > 1)
        for (std::size_t c = 0; c < k_; ++c) {
            double* sum = sums.data() + c * d_;
            for (std::size_t p = first[c]; p < first[c + 1]; ++p) {
                const std::size_t i = order[p];
                const double w = weight(i);
                const sparse::Row<T> x = sparse::row(*points_, i);
                for (std::size_t e = 0; e < x.count; ++e) sum[x.index[e]] += w * static_cast<double>(x.value[e]);
                mass[c] += w;
            }
        }
        const Matrix<double> previous = centroids_;
        std::vector<std::size_t> empty;
        for (std::size_t c = 0; c < k_; ++c) {
            if (!(mass[c] > 0.0)) {
                empty.push_back(c);  // keeps its centroid unless relocated below
                continue;
            }
            for (std::size_t j = 0; j < d_; ++j) centroids_(c, j) = sums[c * d_ + j] / mass[c];
        }
        stats.empty_clusters = static_cast<int>(empty.size());
        if (!empty.empty() && config_.empty_policy == EmptyClusterPolicy::Farthest)
            relocate(empty, previous, sums, mass, stats);

        double max_shift = 0.0, total_shift = 0.0, total_sq = 0.0, max_upper = 0.0;
        shift_upper_.assign(k_, 0.0);
        for (std::size_t c = 0; c < k_; ++c) {
            double sq = 0.0;
            for (std::size_t j = 0; j < d_; ++j) {
                const double diff = centroids_(c, j) - previous(c, j);
                sq += diff * diff;
            }
            const double shift = std::sqrt(sq);
            max_shift = std::max(max_shift, shift);
            total_shift += shift;
            total_sq += sq;
            shift_upper_[c] = shift * (1.0 + 0x1.0p-51 * (static_cast<double>(d_) + 4.0));
            max_upper = std::max(max_upper, shift_upper_[c]);
        }
        stats.max_shift = max_shift;
        stats.mean_shift = total_shift / static_cast<double>(k_);
        stats.shift_sq_total = total_sq;
        refresh_norms();
        if (config_.algorithm == Algorithm::Elkan) {  // the bounds follow the centroids
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
            for (std::size_t i = 0; i < n_; ++i) {
                upper_[i] = (upper_[i] + shift_upper_[static_cast<std::size_t>(labels_[i])]) * kRoundUp;
                double* l = lower_.data() + i * k_;
                for (std::size_t c = 0; c < k_; ++c) {
                    const double moved = (l[c] - shift_upper_[c]) * kRoundDown;
                    l[c] = moved > 0.0 ? moved : 0.0;
                }
            }
        }
    }

    // Each empty cluster takes one of the points farthest from their own (old)
    // centroid, which leaves its cluster's sums (scikit-learn's relocation).
    void relocate(const std::vector<std::size_t>& empty, const Matrix<double>& previous, std::vector<double>& sums,
                  std::vector<double>& mass, IterationStats& stats) {
        std::vector<double> far(n_);
        std::vector<double> previous_norm(k_);
        for (std::size_t c = 0; c < k_; ++c) previous_norm[c] = sparse::squared_norm(previous.row(c), d_);
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t i = 0; i < n_; ++i) {
            const auto c = static_cast<std::size_t>(labels_[i]);
            far[i] = sparse::squared_distance(sparse::row(*points_, i), x_norm_sq_[i], previous.row(c), previous_norm[c]);
        }
        stats.point_centroid_distances += n_;
        const std::vector<std::size_t> movers = farthest_points<double>(far, empty.size());
        for (std::size_t e = 0; e < movers.size(); ++e) {
            const std::size_t i = movers[e], target = empty[e], from = static_cast<std::size_t>(labels_[i]);
            const double w = weight(i);
            const sparse::Row<T> x = sparse::row(*points_, i);
            std::fill(centroids_.row(target), centroids_.row(target) + d_, 0.0);
            for (std::size_t t = 0; t < x.count; ++t) {
                centroids_(target, static_cast<std::size_t>(x.index[t])) = static_cast<double>(x.value[t]);
                sums[from * d_ + static_cast<std::size_t>(x.index[t])] -= w * static_cast<double>(x.value[t]);
            }
            mass[target] = w;
            mass[from] -= w;
            if (mass[from] > 0.0)
                for (std::size_t j = 0; j < d_; ++j) centroids_(from, j) = sums[from * d_ + j] / mass[from];
        }
    }

    std::shared_ptr<const SparseMatrix<T>> points_;
    SolverConfig config_;
    std::size_t n_, d_, k_ = 0;
    int threads_ = 1;
    std::shared_ptr<const std::vector<double>> weights_;
    std::stop_token stop_;
    Matrix<double> initial_, centroids_;
    std::vector<double> x_norm_sq_, x_norm_, c_norm_sq_, shift_upper_;
    double max_c_norm_ = 0.0;
    std::vector<double> lower_, upper_, half_cc_;  // Elkan: n × k, n, k × k
    bool bounds_valid_ = false;
    std::vector<std::int32_t> labels_;
    std::vector<PointStatus> status_;
    int iteration_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;
    double tol_absolute_ = 0.0;
};

}  // namespace

template <typename T>
void SparseMatrix<T>::check(const std::string& source_name) const {
    if (rows == 0) throw InputError::whole(source_name, "no points to cluster");
    if (cols == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    if (cols > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw InputError::whole(source_name, "more than 2^31 - 1 columns");
    if (indptr[0] != 0) throw InputError::whole(source_name, "the sparse row offsets do not start at 0");
    for (std::size_t i = 0; i < rows; ++i)
        if (indptr[i + 1] < indptr[i])
            throw InputError::whole(source_name, "the sparse row offsets decrease at row " + std::to_string(i + 1));
    const std::size_t count = nnz();
    for (std::size_t e = 0; e < count; ++e) {
        if (indices[e] < 0 || static_cast<std::size_t>(indices[e]) >= cols)
            throw InputError::whole(source_name, "a sparse column index (" + std::to_string(indices[e]) +
                                                     ") is outside [0, " + std::to_string(cols) + ")");
        if (!std::isfinite(static_cast<double>(values[e])))
            throw InputError::whole(source_name, "the data contain NaN or infinity");
    }
}

template <typename T>
std::unique_ptr<Solver> make_sparse_solver(std::shared_ptr<const SparseMatrix<T>> points, const SolverConfig& config) {
    return std::make_unique<SparseSolver<T>>(std::move(points), config);
}

template <typename T>
Assignment assign_sparse(const SparseMatrix<T>& points, const Matrix<double>& centroids, int threads,
                         const std::vector<double>* sample_weight, std::stop_token stop) {
    if (centroids.cols() != points.cols)
        throw InputError::whole("X", "X has " + std::to_string(points.cols) + " features, the centroids " +
                                         std::to_string(centroids.cols()));
    const std::size_t n = points.rows, k = centroids.rows(), d = centroids.cols();
    std::vector<double> c_norm(k);
    for (std::size_t c = 0; c < k; ++c) c_norm[c] = sparse::squared_norm(centroids.row(c), d);
    const int t = threads > 0 ? threads : omp_get_max_threads();
    Assignment out;
    out.labels.assign(n, 0);
    std::vector<double> best_of(n, 0.0);
    std::atomic<bool> cancelled{false};
    const std::vector<double> ct = sparse::transposed(centroids.data(), k, d);
    RegionGuard guard;
#pragma omp parallel num_threads(t) if (t > 1)
    {
        std::vector<double> s;
        guard.run([&] { s.resize(k); });
#pragma omp for schedule(dynamic, 256)
        for (std::size_t i = 0; i < n; ++i) {
            if (guard.failed() || cancelled.load(std::memory_order_relaxed)) continue;
            if ((i & 1023) == 0 && stop.stop_requested()) {
                cancelled.store(true, std::memory_order_relaxed);
                continue;
            }
            const sparse::Row<T> x = sparse::row(points, i);
            sparse::squared_distances(x, sparse::squared_norm(x), ct.data(), c_norm.data(), k, s.data());
            double best = std::numeric_limits<double>::infinity();
            std::int32_t label = 0;
            for (std::size_t c = 0; c < k; ++c)
                if (s[c] < best) {
                    best = s[c];
                    label = static_cast<std::int32_t>(c);
                }
            out.labels[i] = label;
            best_of[i] = best;
        }
    }
    guard.rethrow();
    if (stop.stop_requested()) throw Cancelled("assignment cancelled");
    for (std::size_t i = 0; i < n; ++i) out.inertia += (sample_weight ? (*sample_weight)[i] : 1.0) * best_of[i];
    return out;
}

#define KMS_SPARSE_INSTANTIATE(T)                                                                                  \
    template struct SparseMatrix<T>;                                                                               \
    template std::unique_ptr<Solver> make_sparse_solver<T>(std::shared_ptr<const SparseMatrix<T>>, const SolverConfig&); \
    template Assignment assign_sparse<T>(const SparseMatrix<T>&, const Matrix<double>&, int, const std::vector<double>*, \
                                         std::stop_token);
KMS_SPARSE_INSTANTIATE(float)
KMS_SPARSE_INSTANTIATE(double)

}  // namespace kms
