// Sequential and OpenMP solvers: Lloyd, Elkan and Hamerly in float and double.
//
// One class per algorithm over a shared base (as in Hamerly's fast-kmeans): the
// base owns the data, the centroids, the labels, the update step and the
// statistics; an algorithm supplies only its assignment step and bounds.
//
// Exactness: every algorithm compares candidate centroids by squared_distance()
// (kms/distance.hpp) computed in the same order, ties to the lowest index, and
// every algorithm shares the same centroid update, so Elkan and Hamerly give
// Lloyd's labels and centroids bit for bit, for any thread count.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <string>

#include <omp.h>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/solver.hpp"

namespace kms {
namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point since) {
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// Points per sub-package: partial sums of at most this many points are formed
// in the solver's precision, then added to the package sum, which is kept in
// double (as are the package-combining sums). The sums are of deviations from
// the old centroid, which are small, so float partial sums lose almost nothing
// even for data far from the origin: float solvers give centroids within an ulp
// or two of the exact mean however large n is.
constexpr std::size_t kSubPackage = 256;

// ---------------------------------------------------------------------------
// Lloyd's distance kernel: squared distances from one point to all k centroids,
// centroids transposed (d × k) so the loop over centroids vectorises. Each
// distance is accumulated over coordinates in index order starting from zero,
// exactly as squared_distance() does, so the values are bitwise the same.
template <typename T>
inline void distances_to_all(const T* __restrict point, const T* __restrict centroids_t, std::size_t d,
                             std::size_t k, T* __restrict out) {
    for (std::size_t j = 0; j < k; ++j) out[j] = T(0);
    for (std::size_t t = 0; t < d; ++t) {
        const T x = point[t];
        const T* c = centroids_t + t * k;
        for (std::size_t j = 0; j < k; ++j) {
            const T diff = x - c[j];
            out[j] += diff * diff;
        }
    }
}

// Lowest index of the smallest value (ties keep the lower index). Kept per lane
// of kLanes interleaved columns so the compiler can vectorise it; each lane keeps
// its first minimum, and the lanes are merged by value, then by index, which is
// exactly the sequential scan's answer.
constexpr std::size_t kLanes = 8;

template <typename T>
inline std::size_t argmin(const T* values, std::size_t k) {
    if (k < 2 * kLanes) {
        std::size_t best = 0;
        for (std::size_t j = 1; j < k; ++j)
            if (values[j] < values[best]) best = j;
        return best;
    }
    T lane_min[kLanes];
    std::size_t lane_index[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
        lane_min[l] = values[l];
        lane_index[l] = l;
    }
    std::size_t j = kLanes;
    for (; j + kLanes <= k; j += kLanes)
        for (std::size_t l = 0; l < kLanes; ++l) {
            const bool smaller = values[j + l] < lane_min[l];
            lane_min[l] = smaller ? values[j + l] : lane_min[l];
            lane_index[l] = smaller ? j + l : lane_index[l];
        }
    std::size_t best = lane_index[0];
    T best_value = lane_min[0];
    for (std::size_t l = 1; l < kLanes; ++l)
        if (lane_min[l] < best_value || (lane_min[l] == best_value && lane_index[l] < best)) {
            best_value = lane_min[l];
            best = lane_index[l];
        }
    for (; j < k; ++j)  // the tail, after every lane: strictly smaller only
        if (values[j] < best_value) {
            best_value = values[j];
            best = j;
        }
    return best;
}

// Nearest (lowest index on ties) and the second smallest value, by a sequential scan.
template <typename T>
inline std::size_t nearest_two(const T* values, std::size_t k, T& best, T& second) {
    best = std::numeric_limits<T>::infinity();
    second = best;
    std::size_t best_index = 0;
    for (std::size_t j = 0; j < k; ++j) {
        const T v = values[j];
        if (v < best) {
            second = best;
            best = v;
            best_index = j;
        } else if (v < second) {
            second = v;
        }
    }
    return best_index;
}

// Label a range of points by full search; returns how many labels changed.
// Compiled for AVX2 as well as the baseline, chosen at run time.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define KMS_HOT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KMS_HOT_CLONES
#endif

template <typename T>
inline std::uint64_t lloyd_label_range(const T* points, std::size_t d, const T* centroids_t, std::size_t k,
                                       std::size_t begin, std::size_t end, std::int32_t* labels, T* scratch) {
    std::uint64_t changed = 0;
    for (std::size_t i = begin; i < end; ++i) {
        distances_to_all(points + i * d, centroids_t, d, k, scratch);
        const auto label = static_cast<std::int32_t>(argmin(scratch, k));
        changed += labels[i] != label;
        labels[i] = label;
    }
    return changed;
}

KMS_HOT_CLONES std::uint64_t lloyd_label_range_f32(const float* points, std::size_t d, const float* centroids_t,
                                                   std::size_t k, std::size_t begin, std::size_t end,
                                                   std::int32_t* labels, float* scratch) {
    return lloyd_label_range(points, d, centroids_t, k, begin, end, labels, scratch);
}
KMS_HOT_CLONES std::uint64_t lloyd_label_range_f64(const double* points, std::size_t d, const double* centroids_t,
                                                   std::size_t k, std::size_t begin, std::size_t end,
                                                   std::int32_t* labels, double* scratch) {
    return lloyd_label_range(points, d, centroids_t, k, begin, end, labels, scratch);
}
KMS_HOT_CLONES void distances_to_all_f32(const float* p, const float* ct, std::size_t d, std::size_t k, float* out) {
    distances_to_all(p, ct, d, k, out);
}
KMS_HOT_CLONES void distances_to_all_f64(const double* p, const double* ct, std::size_t d, std::size_t k,
                                         double* out) {
    distances_to_all(p, ct, d, k, out);
}
inline void all_distances(const float* p, const float* ct, std::size_t d, std::size_t k, float* out) {
    distances_to_all_f32(p, ct, d, k, out);
}
inline void all_distances(const double* p, const double* ct, std::size_t d, std::size_t k, double* out) {
    distances_to_all_f64(p, ct, d, k, out);
}
inline std::uint64_t label_range(const float* p, std::size_t d, const float* ct, std::size_t k, std::size_t b,
                                 std::size_t e, std::int32_t* l, float* s) {
    return lloyd_label_range_f32(p, d, ct, k, b, e, l, s);
}
inline std::uint64_t label_range(const double* p, std::size_t d, const double* ct, std::size_t k, std::size_t b,
                                 std::size_t e, std::int32_t* l, double* s) {
    return lloyd_label_range_f64(p, d, ct, k, b, e, l, s);
}

// ---------------------------------------------------------------------------
template <typename T>
class CpuSolver : public Solver {
public:
    explicit CpuSolver(const SolverConfig& config) : config_(config) {
        if (config_.backend == Backend::Sequential) threads_ = 1;
        else threads_ = config_.threads > 0 ? config_.threads : omp_get_max_threads();
        if (config_.max_iterations < 1) throw Error("max iterations must be at least 1");
        if (!(config_.tol >= 0.0) || !std::isfinite(config_.tol)) throw Error("tol must be a finite number >= 0");
    }

    const SolverConfig& config() const override { return config_; }

    void set_data(std::shared_ptr<const Matrix<double>> points) override {
        if (!points || points->rows() == 0 || points->cols() == 0) throw Error("the data set is empty");
        source_ = std::move(points);
        if constexpr (std::is_same_v<T, double>) {
            points_ = source_->data();
        } else {
            converted_ = source_->template cast<T>();
            points_ = converted_.data();
        }
        n_ = source_->rows();
        d_ = source_->cols();
        check_range(source_->values(), "the data");
        tol_absolute_ = absolute_tolerance(*source_, config_.tol);
        initial_ = Matrix<double>();
        k_ = 0;
        clear_run();
    }

    void set_initial_centroids(const Matrix<double>& centroids) override {
        if (!source_) throw Error("set the data before the initial centroids");
        if (centroids.rows() < 1) throw Error("k must be at least 1");
        if (centroids.cols() != d_)
            throw Error("initial centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                        std::to_string(d_));
        if (centroids.rows() > n_)
            throw Error("k = " + std::to_string(centroids.rows()) + " is larger than the number of points n = " +
                        std::to_string(n_));
        for (double v : centroids.values())
            if (!std::isfinite(v)) throw Error("initial centroids contain NaN or Inf");
        check_range(centroids.values(), "the initial centroids");
        initial_ = centroids;
        k_ = centroids.rows();
        allocate();
        clear_run();
    }

    void reset() override { clear_run(); }

    IterationStats step() override {
        if (!source_) throw Error("no data set");
        if (k_ == 0) throw Error("no initial centroids");
        const auto start = Clock::now();
        IterationStats stats;
        stats.iteration = iteration_ + 1;
        if (config_.record_point_status) status_.assign(n_, PointStatus::Recomputed);
        else status_.clear();

        stats.labels_changed = assign(stats);
        update(stats);
        if (config_.compute_inertia) stats.inertia = inertia();
        ++iteration_;
        stop_reason_ = evaluate_stop(config_, stats, tol_absolute_);
        stats.time_total_ms = elapsed_ms(start);
        return stats;
    }

    std::uint64_t finalize_labels() override {
        if (!source_ || k_ == 0) throw Error("no data or no centroids");
        const std::uint64_t changed = full_assignment();
        bounds_valid_ = false;  // the bounds no longer describe these labels
        return changed;
    }

    int iteration() const override { return iteration_; }
    bool converged() const override { return stop_reason_ != StopReason::NotStopped; }
    StopReason stop_reason() const override { return stop_reason_; }
    const std::vector<std::int32_t>& labels() const override { return labels_; }
    const std::vector<PointStatus>& point_status() const override { return status_; }

    Matrix<double> centroids() const override { return centroids_.template cast<double>(); }

    double inertia() const override {
        if (!source_ || k_ == 0) return 0.0;
        // Per-package partial sums in double, then summed in package order: the
        // same value for any thread count.
        std::vector<double> partial(packages_, 0.0);
        const T* c = centroids_.data();
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t p = 0; p < packages_; ++p) {
            double sum = 0.0;
            const std::size_t end = std::min(n_, (p + 1) * package_size_);
            for (std::size_t i = p * package_size_; i < end; ++i) {
                if (labels_[i] < 0) continue;
                sum += static_cast<double>(
                    squared_distance(points_ + i * d_, c + static_cast<std::size_t>(labels_[i]) * d_, d_));
            }
            partial[p] = sum;
        }
        return std::accumulate(partial.begin(), partial.end(), 0.0);
    }

protected:
    void transpose_centroids() {
        centroids_t_ = Matrix<T>(d_, k_);
        for (std::size_t c = 0; c < k_; ++c)
            for (std::size_t t = 0; t < d_; ++t) centroids_t_(t, c) = centroids_(c, t);
    }

    // Book-keeping shared by the bounded assignments (Elkan, Hamerly).
    std::uint64_t finish_bounded_assignment(IterationStats& stats, std::uint64_t changed, std::uint64_t evaluations,
                                            std::uint64_t skips, Clock::time_point start) {
        bounds_valid_ = true;
        stats.point_centroid_distances += evaluations;
        stats.bound_skips += skips;
        stats.time_assign_ms += elapsed_ms(start);
        return changed;
    }

    // The algorithm's assignment step: labels_ against centroids_, filling the
    // counters, the phase times and status_. Returns the number of changed labels.
    virtual std::uint64_t assign(IterationStats& stats) = 0;
    virtual void allocate_bounds() {}

    // Lloyd's full search for every point (also the first step of Elkan/Hamerly
    // when they do not keep per-centroid bounds).
    std::uint64_t full_assignment() {
        transpose_centroids();
        std::uint64_t changed = 0;
        const T* ct = centroids_t_.data();
#pragma omp parallel num_threads(threads_) if (threads_ > 1) reduction(+ : changed)
        {
            std::vector<T> scratch(k_);
            constexpr std::size_t kChunk = 1024;
            const std::size_t chunks = (n_ + kChunk - 1) / kChunk;
#pragma omp for schedule(static)
            for (std::size_t c = 0; c < chunks; ++c)
                changed += label_range(points_, d_, ct, k_, c * kChunk, std::min(n_, (c + 1) * kChunk),
                                       labels_.data(), scratch.data());
        }
        return changed;
    }

    // Distances between centroids, as certain lower bounds: cc_half_[a*k+b] =
    // lower(d(a,b)) / 2 and nearest_half_[a] = min over b ≠ a. Returns k(k-1)/2.
    std::uint64_t centroid_separations(bool keep_matrix) {
        const BoundArithmetic<T> bounds(d_);
        const T inf = std::numeric_limits<T>::infinity();
        std::fill(nearest_half_.begin(), nearest_half_.end(), inf);
        if (keep_matrix) cc_half_.assign(k_ * k_, T(0));
        const T* c = centroids_.data();
#pragma omp parallel for schedule(dynamic, 8) num_threads(threads_) if (threads_ > 1 && k_ > 64)
        for (std::size_t a = 0; a < k_; ++a) {
            for (std::size_t b = a + 1; b < k_; ++b) {
                const T half = bounds.lower(std::sqrt(squared_distance(c + a * d_, c + b * d_, d_))) / T(2);
                if (keep_matrix) cc_half_[a * k_ + b] = half;
            }
        }
        for (std::size_t a = 0; a < k_; ++a)
            for (std::size_t b = a + 1; b < k_; ++b) {
                const T half = keep_matrix ? cc_half_[a * k_ + b]
                                           : bounds.lower(std::sqrt(squared_distance(c + a * d_, c + b * d_, d_))) / T(2);
                if (keep_matrix) cc_half_[b * k_ + a] = half;
                nearest_half_[a] = std::min(nearest_half_[a], half);
                nearest_half_[b] = std::min(nearest_half_[b], half);
            }
        return static_cast<std::uint64_t>(k_) * (k_ - 1) / 2;
    }

    SolverConfig config_;
    int threads_ = 1;
    std::shared_ptr<const Matrix<double>> source_;
    Matrix<T> converted_;            // float copy of the data (float solvers only)
    const T* points_ = nullptr;
    std::size_t n_ = 0, d_ = 0, k_ = 0;
    double tol_absolute_ = 0.0;
    Matrix<double> initial_;
    Matrix<T> centroids_;            // k × d, current
    Matrix<T> centroids_t_;          // d × k transpose for the vectorised full search
    std::vector<std::int32_t> labels_;
    std::vector<PointStatus> status_;
    std::vector<T> shift_upper_;     // per centroid: certain upper bound of the last move
    std::vector<T> cc_half_;         // k × k half centroid distances (Elkan)
    std::vector<T> nearest_half_;    // per centroid: half the distance to the nearest other one
    bool bounds_valid_ = false;      // false: the next assignment is a full search that rebuilds bounds
    int iteration_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;

private:
    // Refuse coordinates so large that a squared distance (or the conversion to
    // float) would overflow: every distance would be infinite and the labels
    // meaningless.
    void check_range(const std::vector<double>& values, const char* what) const {
        double max_abs = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1) reduction(max : max_abs)
        for (std::size_t i = 0; i < values.size(); ++i) max_abs = std::max(max_abs, std::abs(values[i]));
        const double limit = std::sqrt(static_cast<double>(std::numeric_limits<T>::max())) /
                             (2.0 * std::sqrt(static_cast<double>(std::max<std::size_t>(d_, 1))));
        if (max_abs > limit)
            throw Error(std::string(what) + " has coordinates up to " + std::to_string(max_abs) +
                        ", too large for " + std::string(to_string(config_.precision)) +
                        " distances (limit " + std::to_string(limit) + "): rescale the data" +
                        (std::is_same_v<T, float> ? " or use --precision f64" : ""));
    }

    void clear_run() {
        iteration_ = 0;
        stop_reason_ = StopReason::NotStopped;
        bounds_valid_ = false;
        labels_.assign(n_, -1);
        status_.clear();
        if (k_ > 0) centroids_ = initial_.template cast<T>();
    }

    void allocate() {
        // Packages depend on n, k and d only (never on the thread count), so the
        // update gives the same bits for any number of threads.
        const std::size_t by_size = (n_ + 1023) / 1024;
        const std::size_t by_memory = std::max<std::size_t>(1, (std::size_t{1} << 25) / std::max<std::size_t>(1, k_ * d_));
        packages_ = std::max<std::size_t>(1, std::min({by_size, std::size_t{256}, by_memory}));
        package_size_ = (n_ + packages_ - 1) / packages_;
        package_size_ = (package_size_ + kSubPackage - 1) / kSubPackage * kSubPackage;
        packages_ = (n_ + package_size_ - 1) / package_size_;
        try {
            package_sums_.assign(packages_ * k_ * d_, 0.0);
            package_counts_.assign(packages_ * k_, 0);
            shift_upper_.assign(k_, T(0));
            nearest_half_.assign(k_, T(0));
            allocate_bounds();
        } catch (const std::bad_alloc&) {
            throw Error("not enough memory for " + config_.describe() + " with n = " + std::to_string(n_) +
                        ", k = " + std::to_string(k_));
        }
    }


    // Two-step package reduction: each package sums its points (in sub-packages
    // of kSubPackage), then package sums are added pairwise in a fixed tree.
    void update(IterationStats& stats) {
        const auto start = Clock::now();
        const std::size_t kd = k_ * d_;
        double* sums = package_sums_.data();
        std::int64_t* counts = package_counts_.data();
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
        {
            std::vector<T> sub(kd);
            std::vector<unsigned char> touched(k_);
#pragma omp for schedule(static)
            for (std::size_t p = 0; p < packages_; ++p) {
                double* psum = sums + p * kd;
                std::int64_t* pcount = counts + p * k_;
                std::fill(psum, psum + kd, 0.0);
                std::fill(pcount, pcount + k_, 0);
                const std::size_t end = std::min(n_, (p + 1) * package_size_);
                for (std::size_t s = p * package_size_; s < end; s += kSubPackage) {
                    const std::size_t s_end = std::min(end, s + kSubPackage);
                    for (std::size_t i = s; i < s_end; ++i) {
                        const std::size_t c = static_cast<std::size_t>(labels_[i]);
                        T* row = sub.data() + c * d_;
                        const T* x = points_ + i * d_;
                        const T* old = centroids_.row(c);
                        if (!touched[c]) {
                            touched[c] = 1;
                            for (std::size_t t = 0; t < d_; ++t) row[t] = x[t] - old[t];
                        } else {
                            for (std::size_t t = 0; t < d_; ++t) row[t] += x[t] - old[t];
                        }
                        ++pcount[c];
                    }
                    for (std::size_t c = 0; c < k_; ++c) {
                        if (!touched[c]) continue;
                        touched[c] = 0;
                        double* dst = psum + c * d_;
                        const T* src = sub.data() + c * d_;
                        for (std::size_t t = 0; t < d_; ++t) dst[t] += static_cast<double>(src[t]);
                    }
                }
            }
            // Fixed pairwise tree over packages: 0+1, 2+3, ..., then 0+2, ...
            for (std::size_t stride = 1; stride < packages_; stride *= 2) {
#pragma omp for schedule(static)
                for (std::size_t p = 0; p < packages_; p += 2 * stride) {
                    if (p + stride >= packages_) continue;
                    double* dst = sums + p * kd;
                    const double* src = sums + (p + stride) * kd;
                    for (std::size_t e = 0; e < kd; ++e) dst[e] += src[e];
                    std::int64_t* cd = counts + p * k_;
                    const std::int64_t* cs = counts + (p + stride) * k_;
                    for (std::size_t c = 0; c < k_; ++c) cd[c] += cs[c];
                }
            }
        }

        Matrix<T> previous = centroids_;
        int empty = 0;
        for (std::size_t c = 0; c < k_; ++c) {
            if (counts[c] == 0) {
                ++empty;
                continue;  // keep the old centroid unless relocated below
            }
            const double count = static_cast<double>(counts[c]);
            for (std::size_t t = 0; t < d_; ++t)
                centroids_(c, t) = static_cast<T>(static_cast<double>(previous(c, t)) + sums[c * d_ + t] / count);
        }
        stats.empty_clusters = empty;
        if (empty > 0 && config_.empty_policy == EmptyClusterPolicy::Farthest)
            stats.point_centroid_distances += relocate_empty(previous, sums, counts);

        // Shifts: exact in double for the statistics, certain upper bounds in T for the bounds.
        const BoundArithmetic<T> bounds(d_);
        double max_shift = 0.0, sum_shift = 0.0, sum_sq = 0.0;
        for (std::size_t c = 0; c < k_; ++c) {
            double sq = 0.0;
            for (std::size_t t = 0; t < d_; ++t) {
                const double diff = static_cast<double>(centroids_(c, t)) - static_cast<double>(previous(c, t));
                sq += diff * diff;
            }
            const double shift = std::sqrt(sq);
            max_shift = std::max(max_shift, shift);
            sum_shift += shift;
            sum_sq += sq;
            shift_upper_[c] = bounds.upper(std::sqrt(squared_distance(centroids_.row(c), previous.row(c), d_)));
        }
        stats.max_shift = max_shift;
        stats.mean_shift = sum_shift / static_cast<double>(k_);
        stats.shift_sq_total = sum_sq;
        stats.time_update_ms += elapsed_ms(start);
    }

    // scikit-learn's relocation: each empty cluster takes one of the points
    // farthest from their (old) centroid, which leaves its own cluster's sum.
    // Returns the distance evaluations spent.
    std::uint64_t relocate_empty(const Matrix<T>& previous, const double* sums, const std::int64_t* counts) {
        std::vector<T> distance(n_);
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t i = 0; i < n_; ++i)
            distance[i] = squared_distance(points_ + i * d_, previous.row(static_cast<std::size_t>(labels_[i])), d_);
        std::vector<std::size_t> empty_ids;
        for (std::size_t c = 0; c < k_; ++c)
            if (counts[c] == 0) empty_ids.push_back(c);
        const std::size_t take = std::min(empty_ids.size(), n_);
        std::vector<std::size_t> order(n_);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                          [&](std::size_t a, std::size_t b) {
                              return distance[a] > distance[b] || (distance[a] == distance[b] && a < b);
                          });
        std::vector<double> cluster_sum(sums, sums + k_ * d_);
        std::vector<std::int64_t> cluster_count(counts, counts + k_);
        for (std::size_t e = 0; e < take; ++e) {
            const std::size_t far = order[e];
            const std::size_t target = empty_ids[e];
            const std::size_t from = static_cast<std::size_t>(labels_[far]);
            const T* x = points_ + far * d_;
            for (std::size_t t = 0; t < d_; ++t) {
                cluster_sum[from * d_ + t] -= static_cast<double>(x[t] - previous(from, t));
                centroids_(target, t) = x[t];
            }
            cluster_count[target] = 1;
            if (--cluster_count[from] > 0) {
                const double count = static_cast<double>(cluster_count[from]);
                for (std::size_t t = 0; t < d_; ++t)
                    centroids_(from, t) =
                        static_cast<T>(static_cast<double>(previous(from, t)) + cluster_sum[from * d_ + t] / count);
            }
        }
        return n_;
    }

    std::size_t packages_ = 1, package_size_ = 1;
    std::vector<double> package_sums_;
    std::vector<std::int64_t> package_counts_;
};

// ---------------------------------------------------------------------------
template <typename T>
class LloydSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    std::uint64_t assign(IterationStats& stats) override {
        const auto start = Clock::now();
        const std::uint64_t changed = this->full_assignment();
        stats.point_centroid_distances += static_cast<std::uint64_t>(this->n_) * this->k_;
        stats.time_assign_ms += elapsed_ms(start);
        return changed;
    }
};

// ---------------------------------------------------------------------------
// Hamerly: one upper bound (to the own centroid) and one lower bound (to the
// second nearest) per point; the half distance to the nearest other centroid.
template <typename T>
class HamerlySolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        upper_.assign(this->n_, T(0));
        lower_.assign(this->n_, T(0));
    }

    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t n = this->n_, d = this->d_, k = this->k_;
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;
        const T* c = this->centroids_.data();
        std::int32_t* labels = this->labels_.data();
        const bool record = this->config_.record_point_status;
        PointStatus* status = record ? this->status_.data() : nullptr;

        auto bounds_start = Clock::now();
        const bool first = !this->bounds_valid_;
        if (!first) {
            stats.centroid_centroid_distances += this->centroid_separations(false);
            // Largest and second largest move: a point's lower bound shrinks by the
            // largest move among the centroids other than its own.
            const auto& shift = this->shift_upper_;
            std::size_t top = 0;
            for (std::size_t j = 1; j < k; ++j)
                if (shift[j] > shift[top]) top = j;
            T second = T(0);
            for (std::size_t j = 0; j < k; ++j)
                if (j != top) second = std::max(second, shift[j]);
            top_mover_ = top;
            top_shift_ = shift[top];
            second_shift_ = second;
        }
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        this->transpose_centroids();
        const T* ct = this->centroids_t_.data();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        const T inf = std::numeric_limits<T>::infinity();
        const T* nearest_half = this->nearest_half_.data();
        const T* shift = this->shift_upper_.data();
        T* upper = upper_.data();
        T* lower = lower_.data();
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed, evaluations, skips)
        {
            std::vector<T> scratch(k);
#pragma omp for schedule(dynamic, 2048)
            for (std::size_t i = 0; i < n; ++i) {
                const T* x = points + i * d;
                const std::int32_t label = labels[i];
                if (!first) {
                    const std::size_t a = static_cast<std::size_t>(label);
                    upper[i] = bounds.grow(upper[i], shift[a]);
                    lower[i] = bounds.shrink(lower[i], a == top_mover_ ? second_shift_ : top_shift_);
                    const T limit = std::max(lower[i], nearest_half[a]);
                    if (bounds.separated(upper[i], limit)) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                        continue;
                    }
                    // Tighten the upper bound with one distance and test again.
                    upper[i] = bounds.upper(std::sqrt(squared_distance(x, c + a * d, d)));
                    ++evaluations;
                    if (bounds.separated(upper[i], limit)) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                        continue;
                    }
                }
                // Full search: nearest (lowest index on ties) and second nearest.
                all_distances(x, ct, d, k, scratch.data());
                evaluations += k;
                T best, second;
                const auto new_label = static_cast<std::int32_t>(nearest_two(scratch.data(), k, best, second));
                upper[i] = bounds.upper(std::sqrt(best));
                lower[i] = second == inf ? inf : bounds.lower(std::sqrt(second));
                changed += new_label != label;
                labels[i] = new_label;
            }
        }
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::vector<T> upper_, lower_;
    std::size_t top_mover_ = 0;
    T top_shift_ = T(0), second_shift_ = T(0);
};

// ---------------------------------------------------------------------------
// Elkan: one upper bound and k lower bounds per point, plus all half distances
// between centroids.
template <typename T>
class ElkanSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        const std::size_t n = this->n_, k = this->k_;
        if (k > 0 && n > std::numeric_limits<std::size_t>::max() / sizeof(T) / k)
            throw Error("Elkan needs n·k lower bounds, too many for this machine; use Hamerly");
        upper_.assign(n, T(0));
        lower_.assign(n * k, T(0));
    }

    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t n = this->n_, d = this->d_, k = this->k_;
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;
        const T* c = this->centroids_.data();
        std::int32_t* labels = this->labels_.data();
        const bool record = this->config_.record_point_status;
        PointStatus* status = record ? this->status_.data() : nullptr;

        const auto bounds_start = Clock::now();
        const bool first = !this->bounds_valid_;
        if (!first) stats.centroid_centroid_distances += this->centroid_separations(true);
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        const T* cc_half = this->cc_half_.data();
        const T* nearest_half = this->nearest_half_.data();
        const T* shift = this->shift_upper_.data();
        T* upper = upper_.data();
        T* lower_all = lower_.data();
#pragma omp parallel for schedule(dynamic, 1024) num_threads(this->threads_) if (this->threads_ > 1) \
    reduction(+ : changed, evaluations, skips)
        for (std::size_t i = 0; i < n; ++i) {
            const T* x = points + i * d;
            T* lower = lower_all + i * k;
            const std::int32_t old_label = labels[i];
            if (first) {
                T best = std::numeric_limits<T>::infinity();
                std::size_t best_index = 0;
                for (std::size_t j = 0; j < k; ++j) {
                    const T dist = squared_distance(x, c + j * d, d);
                    lower[j] = bounds.lower(std::sqrt(dist));
                    if (dist < best) {
                        best = dist;
                        best_index = j;
                    }
                }
                evaluations += k;
                upper[i] = bounds.upper(std::sqrt(best));
                labels[i] = static_cast<std::int32_t>(best_index);
                changed += labels[i] != old_label;
                continue;
            }
            std::size_t a = static_cast<std::size_t>(old_label);
            T u = bounds.grow(upper[i], shift[a]);
            for (std::size_t j = 0; j < k; ++j) lower[j] = bounds.shrink(lower[j], shift[j]);
            if (bounds.separated(u, nearest_half[a])) {
                upper[i] = u;
                ++skips;
                if (status) status[i] = PointStatus::Skipped;
                continue;
            }
            bool tight = false;
            T best = T(0);  // computed squared distance to a, valid once tight
            std::uint64_t point_evaluations = 0;
            for (std::size_t j = 0; j < k; ++j) {
                if (j == a) continue;
                if (bounds.separated(u, lower[j]) || bounds.separated(u, cc_half[a * k + j])) continue;
                if (!tight) {
                    best = squared_distance(x, c + a * d, d);
                    ++point_evaluations;
                    u = bounds.upper(std::sqrt(best));
                    lower[a] = bounds.lower(std::sqrt(best));
                    tight = true;
                    if (bounds.separated(u, lower[j]) || bounds.separated(u, cc_half[a * k + j])) continue;
                }
                const T dist = squared_distance(x, c + j * d, d);
                ++point_evaluations;
                lower[j] = bounds.lower(std::sqrt(dist));
                if (dist < best || (dist == best && j < a)) {
                    best = dist;
                    a = j;
                    u = bounds.upper(std::sqrt(dist));
                }
            }
            upper[i] = u;
            evaluations += point_evaluations;
            if (point_evaluations < k) {
                ++skips;
                if (status) status[i] = PointStatus::Skipped;
            }
            labels[i] = static_cast<std::int32_t>(a);
            changed += labels[i] != old_label;
        }
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::vector<T> upper_, lower_;
};

template <typename T>
std::unique_ptr<Solver> make_for_precision(const SolverConfig& config) {
    switch (config.algorithm) {
        case Algorithm::Lloyd: return std::make_unique<LloydSolver<T>>(config);
        case Algorithm::Elkan: return std::make_unique<ElkanSolver<T>>(config);
        case Algorithm::Hamerly: return std::make_unique<HamerlySolver<T>>(config);
    }
    throw Error("unknown algorithm");
}

}  // namespace

std::unique_ptr<Solver> make_cpu_solver(const SolverConfig& config) {
    if (config.backend != Backend::Sequential && config.backend != Backend::OpenMP)
        throw Error("back end " + std::string(to_string(config.backend)) + " is not a CPU back end");
    if (config.backend == Backend::OpenMP && config.threads < 0) throw Error("threads must be >= 0");
    return config.precision == Precision::F32 ? make_for_precision<float>(config)
                                              : make_for_precision<double>(config);
}

}  // namespace kms
