#pragma once
// The base of every CPU solver (sequential and OpenMP): it owns the data, the
// centroids, the labels, the update step and the statistics; an algorithm
// supplies only its assignment step and bounds (the shape of Hamerly's
// fast-kmeans). One file per algorithm: lloyd.cpp, elkan.cpp, hamerly.cpp,
// yinyang.cpp, exponion.cpp and shallot.cpp (over annulus_search.hpp), ball.cpp.
//
// Exactness: every algorithm compares candidate centroids by squared_distance()
// (kms/distance.hpp) computed in the same order, ties to the lowest index, and
// every algorithm shares the same centroid update, so the bounded solvers give
// Lloyd's labels and centroids bit for bit, for any thread count.
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <exception>
#include <numeric>
#include <span>
#include <string>

#include <omp.h>

#include "gemm_assign.hpp"
#include "kernels.hpp"
#include "thread_binding.hpp"
#include "kms/algorithms.hpp"
#include "kms/communicator.hpp"
#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"
#include "kms/solver.hpp"
#include "kms/region_guard.hpp"
#include "kms/solver_support.hpp"
#include "kms/zeroed.hpp"

namespace kms::cpu {

// Points per sub-package: partial sums of at most this many points are formed
// in the solver's precision, then added to the package sum, which is kept in
// double (as are the package-combining sums). The sums are of deviations from
// the old centroid, which are small, so float partial sums lose almost nothing
// even for data far from the origin: float solvers give centroids within an ulp
// or two of the exact mean however large n is.
constexpr std::size_t kSubPackage = 256;

// A zero-filled buffer of n values that starts on a cache line of its own and
// ends with a line of padding, for one thread's scratch (allocate() inside a
// parallel region runs under a RegionGuard).
template <typename V>
class ThreadScratch {
public:
    void allocate(std::size_t n) {
        storage_.assign(n + 2 * kLine / sizeof(V) + 1, V{});
        const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
        data_ = storage_.data() + ((kLine - address % kLine) % kLine) / sizeof(V);
    }
    V* data() { return data_; }
    V& operator[](std::size_t i) { return data_[i]; }

private:
    static constexpr std::size_t kLine = 64;
    std::vector<V> storage_;
    V* data_ = nullptr;
};

// Out of core: the most bytes of points one block (of two buffers) holds.
constexpr std::size_t kMaxWindowBytes = std::size_t{64} << 20;

template <typename T>
class CpuSolver : public Solver {
public:
    explicit CpuSolver(const SolverConfig& config) : config_(config) {
        config_.validate();
        if (config_.backend == Backend::Sequential) threads_ = 1;
        else threads_ = config_.threads > 0 ? config_.threads : omp_get_max_threads();
    }

    const SolverConfig& config() const override { return config_; }

    void set_data(std::shared_ptr<const Matrix<double>> points) override { attach(std::move(points)); }
    void set_data(std::shared_ptr<const Matrix<float>> points) override { attach(std::move(points)); }
    // The points the steps read: the caller's values in place when they are of the
    // solver's precision, else the converted copy.
    const void* data_address() const override { return points_; }

    void set_row_source(std::shared_ptr<const RowSource> source, std::size_t first_row, std::size_t rows,
                        std::size_t buffer_bytes) override {
        if (!source) throw Error("the data set is empty");
        if (!solver_traits(config_.algorithm, config_.backend).streams_points) {
            std::string streaming;  // the registry's word
            for (const AlgorithmInfo& info : registered_algorithms())
                if (registered_solver(info.algorithm, config_.backend) &&
                    solver_traits(info.algorithm, config_.backend).streams_points)
                    streaming += (streaming.empty() ? "" : " or ") + std::string(to_string(info.algorithm));
            throw UsageError("out of core (the points read from the file a block at a time) runs " + streaming +
                             ": --solver " + std::string(to_string(config_.algorithm)) +
                             " keeps per-point state that is not kept beside the file's blocks; use --solver " +
                             streaming + ", or give the run the memory to load the points");
        }
        if (config_.empty_policy == EmptyClusterPolicy::Farthest)
            throw UsageError("out of core: --empty farthest reads every point's distance at once to relocate an "
                             "empty cluster; use --empty keep");
        if (first_row > source->rows() || rows > source->rows() - first_row)
            throw Error("rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + rows) +
                        ") outside " + source->name() + "'s " + std::to_string(source->rows()) + " rows");
        if (partition_.comm && first_row != partition_.first_row)
            throw Error("rank " + std::to_string(partition_.comm->rank()) + " reads rows from " +
                        std::to_string(first_row) + " but its block starts at row " +
                        std::to_string(partition_.first_row));
        n_ = rows;
        d_ = source->cols();
        first_row_ = partition_.comm ? partition_.first_row : 0;
        global_n_ = partition_.comm ? partition_.global_rows : n_;
        if (!partition_.comm && rows != source->rows())
            throw Error("one process reads every row of " + source->name() + ", not " + std::to_string(rows));
        if (first_row_ + n_ > global_n_)
            throw Error("rank " + std::to_string(partition_.comm->rank()) + "'s block runs past the data set's rows");
        buffer_bytes_ = buffer_bytes;
        // Set-up passes a block at a time (of the packages' grain unknown before k: 4096 rows
        // or what the buffers hold): the data's range, then the tolerance's two passes.
        const std::size_t scan_rows = std::max<std::size_t>(4096, buffer_bytes / 2 / std::max<std::size_t>(1, d_ * sizeof(double)));
        // (Ranks agree on a bad value in one block before the tolerance's collectives.)
        agreed(partition_.comm.get(), [&] {
            if (n_ > 0) check_solver_data(*source, first_row, n_, config_.precision, !partition_.comm, scan_rows);
            else if (d_ == 0) throw Error("the data set is empty");
        });
        tol_absolute_ = absolute_tolerance(*source, first_row, n_, config_.tol,
                                           partition_.comm ? &partition_ : nullptr, scan_rows);
        row_source_ = source;
        source_ = std::move(source);
        converted_ = Matrix<T>();
        points_ = nullptr;
        window_first_ = 0;
        window_rows_ = 0;
        initial_ = Matrix<double>();
        k_ = 0;
        weight_source_.reset();
        weights_ = nullptr;
        clear_run();
    }

    void set_partition(const RowPartition& partition) override {
        if (!partition.comm) throw Error("a row partition needs a communicator");
        partition_ = partition;
        source_.reset();  // the block's data follows (set_data)
        n_ = 0;
    }

    void set_sample_weight(std::shared_ptr<const std::vector<double>> weights) override {
        if (!source_) throw Error("set the data before the sample weights");
        if (weights && weights->size() != n_)
            throw Error(std::to_string(weights->size()) + " sample weights for " + std::to_string(n_) + " points");
        weight_source_ = std::move(weights);
        weights_ = nullptr;
        if (weight_source_) {
            // The update multiplies in T; the weight sums use the same (rounded) weights.
            if constexpr (std::is_same_v<T, double>) {
                weights_ = weight_source_->data();
            } else {
                weights_converted_.assign(weight_source_->begin(), weight_source_->end());
                weights_ = weights_converted_.data();
            }
        }
        clear_run();
    }

    void set_initial_centroids(const Matrix<double>& centroids) override {
        if (!source_) throw Error("set the data before the initial centroids");
        check_initial_centroids(centroids, global_n_, d_, config_.precision);
        initial_ = centroids;
        k_ = centroids.rows();
        allocate();
        clear_run();
    }

    void reset() override { clear_run(); }

    IterationStats step() override {
        if (!source_) throw Error("no data set");
        if (k_ == 0) throw Error("no initial centroids");
        if (config_.backend == Backend::OpenMP) apply_thread_binding(config_.binding, threads_);
        const auto start = Clock::now();
        IterationStats stats;
        stats.iteration = iteration_ + 1;
        // A cancellable step keeps the last completed iteration's labels and status
        // to fall back on (one O(n) copy, small beside a CPU step).
        // A partitioned step is never cut short: every rank must reach the same collectives.
        const bool cancellable = stop_.stop_possible() && !partition_.comm;
        if (cancellable) {
            parallel_copy(labels_, labels_before_);
            parallel_copy(status_, status_before_);
        }
        if (config_.record_point_status) status_.assign(n_, PointStatus::Recomputed);
        else status_.clear();

        in_step_ = cancellable;
        double window_update_ms = 0.0;
        if (row_source_) {
            // Out of core: each block of whole packages is labelled, then summed into
            // its packages' leaves, while the next block is read; the tree and the
            // centroids follow (finish_update), as one pass over the file.
            stats.labels_changed = 0;
            stats.streamed_bytes += for_each_window([&] {
                stats.labels_changed += assign(stats);
                if (stop_now()) return;
                const auto leaves_start = Clock::now();
                sum_package_leaves();
                window_update_ms += elapsed_ms(leaves_start);
            });
        } else {
            stats.labels_changed = assign(stats);
        }
        in_step_ = false;
        if (cancellable && stop_.stop_requested()) {
            labels_.swap(labels_before_);
            status_.swap(status_before_);
            bounds_valid_ = false;  // partly updated: the next assignment rebuilds them
            throw Cancelled("step " + std::to_string(iteration_ + 1) + " cancelled");
        }
        if (!row_source_) sum_package_leaves_timed(stats);
        stats.time_update_ms += window_update_ms;
        finish_update(stats);
        if (partition_.comm) sum_over_ranks(stats, *partition_.comm);
        ++iteration_;
        stop_reason_ = finish_step(config_, tol_absolute_, start, stats, [this] { return inertia(); });
        return stats;
    }

    std::uint64_t finalize_labels() override {
        if (!source_ || k_ == 0) throw Error("no data or no centroids");
        std::uint64_t changed = 0;
        if (row_source_) for_each_window([&] { changed += full_assignment(); });
        else changed = full_assignment();
        bounds_valid_ = false;  // the bounds no longer describe these labels
        if (partition_.comm) partition_.comm->sum({&changed, 1});
        return changed;
    }

    void set_stop_token(std::stop_token stop) override { stop_ = std::move(stop); }

    // to = from, copied by all the solver's threads (the labels of 10^8 points are
    // 400 MB: one thread would leave the others idle for tens of ms each step).
    template <typename V>
    void parallel_copy(const std::vector<V>& from, std::vector<V>& to) const {
        to.resize(from.size());
        const std::size_t n = from.size();
        constexpr std::size_t kBlock = std::size_t{1} << 16;
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1 && n > kBlock)
        for (std::size_t b = 0; b < (n + kBlock - 1) / kBlock; ++b)
            std::copy(from.begin() + b * kBlock, from.begin() + std::min(n, (b + 1) * kBlock), to.begin() + b * kBlock);
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
        const double* w = weight_source_ ? weight_source_->data() : nullptr;
        // (Out of core: a pass over the file, a block of whole packages at a time.)
        for_each_window([&] {
            const WindowPackages window = window_packages();
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
            for (std::size_t p = window.begin; p < window.end; ++p) {
                double sum = 0.0;
                const std::size_t end = std::min(n_, (p + 1) * package_size_ - first_row_);
                for (std::size_t i = p * package_size_ - first_row_; i < end; ++i) {
                    if (labels_[i] < 0) continue;
                    const auto distance = static_cast<double>(squared_distance(
                        points_ + (i - window_first_) * d_, c + static_cast<std::size_t>(labels_[i]) * d_, d_));
                    sum += w ? w[i] * distance : distance;
                }
                partial[p] = sum;
            }
        });
        if (partition_.comm) gather_packages(partial.data(), 1);
        return std::accumulate(partial.begin(), partial.end(), 0.0);
    }

protected:
    // The grouped ball searches (Exponion's and Shallot's annuli, Ball k-means' walks) take
    // their points a window at a time, in chunks of `chunk`: about 320·k points per
    // thread, so that each centroid has a few dozen open points to search together when a
    // tenth are open, yet each thread's share of the window's points and bounds stays
    // near in its cache while the groups, scattered over it, are searched (at least
    // 32768 points a thread). Per thread: a window costs four barriers, and with a
    // fixed window 16 threads spent more time at them than searching (Exponion, 10^6 × 2-D,
    // k = 100: 6.0 ms an iteration against Hamerly's 2.8). The grouping never
    // changes results or statistics, so neither does the window.
    std::size_t window_chunks(std::size_t chunk) const {
        const std::size_t team = static_cast<std::size_t>(std::max(1, threads_));
        return team * std::max<std::size_t>(32768 / chunk, (320 * k_ + chunk - 1) / chunk);
    }

    // One thread's points whose bounds failed, searched together: one vectorised
    // nearest-two search over them, then each takes its label, its upper bound (the
    // nearest) and its lower bound (the second nearest). Hamerly's and Exponion's full search.
    // (allocate() inside a parallel region runs under a RegionGuard).
    struct FullSearchBatch {
        void allocate(std::size_t capacity, std::size_t d) {
            scratch.resize(kernel_scratch_size(d));
            pending.resize(capacity);
            nearest.resize(capacity);
            best.resize(capacity);
            second.resize(capacity);
        }
        void add(std::size_t point) { pending[size++] = point; }
        std::vector<T> scratch;
        std::vector<std::size_t> pending;
        std::vector<std::int32_t> nearest;
        std::vector<T> best, second;
        std::size_t size = 0;
    };
    // Runs and empties the batch; returns how many labels changed, adds the distances evaluated.
    // (The batch holds row indices; out of core points_ holds only the window's rows, from
    // window_first_.)
    std::uint64_t search_batch(FullSearchBatch& batch, T* upper, T* lower, std::uint64_t& evaluations) {
        const BoundArithmetic<T> bounds(d_);
        const T inf = std::numeric_limits<T>::infinity();
        const std::size_t base = window_first_;
        if (base)
            for (std::size_t s = 0; s < batch.size; ++s) batch.pending[s] -= base;
        nearest_two(points_, d_, centroids_.data(), k_, batch.pending.data(), batch.size, batch.nearest.data(),
                    batch.best.data(), batch.second.data(), batch.scratch.data());
        evaluations += static_cast<std::uint64_t>(batch.size) * k_;
        std::uint64_t changed = 0;
        for (std::size_t s = 0; s < batch.size; ++s) {
            const std::size_t i = batch.pending[s] + base;
            upper[i] = bounds.upper(std::sqrt(batch.best[s]));
            lower[i] = batch.second[s] == inf ? inf : bounds.lower(std::sqrt(batch.second[s]));
            changed += batch.nearest[s] != labels_[i];
            labels_[i] = batch.nearest[s];
        }
        batch.size = 0;
        return changed;
    }

    // Book-keeping shared by the bounded assignments (Elkan, Hamerly, Yinyang, Exponion).
    std::uint64_t finish_bounded_assignment(IterationStats& stats, std::uint64_t changed, std::uint64_t evaluations,
                                            std::uint64_t skips, Clock::time_point start) {
        bounds_valid_ = true;
        stats.point_centroid_distances += evaluations;
        stats.bound_skips += skips;
        stats.time_assign_ms += elapsed_ms(start);
        return changed;
    }

    // The largest centroid move and the largest among the others: a bound on the
    // distance to every centroid but the own one (Hamerly's lower bound, Exponion's,
    // Yinyang's global one) shrinks by the largest move of a centroid other than the own.
    struct ShiftLeaders {
        std::size_t top = 0;
        T top_shift = T(0), second_shift = T(0);
        T other_than(std::size_t own) const { return own == top ? second_shift : top_shift; }
    };
    // Hamerly's test over points [begin, end) (Hamerly's and Exponion's): each
    // upper bound grows by its centroid's move and each lower bound shrinks by the
    // largest move of another; a point whose upper bound stays below max(lower
    // bound, half the distance from its centroid to the nearest other) keeps its
    // label. Else the upper bound is tightened with the distance to the own
    // centroid and the test tried again. The points it fails for are listed in
    // `open`; returns how many. The bounds of all points first, branch-free
    // (hamerly_bounds), then the few that failed: no misprediction per point.
    std::size_t hamerly_filter(std::size_t begin, std::size_t end, T* upper, T* lower, const ShiftLeaders& leaders,
                               std::size_t* open, std::uint64_t& evaluations, std::uint64_t& skips) {
        const BoundArithmetic<T> bounds(d_);
        const std::size_t d = d_, base = window_first_;  // (out of core points_ holds the window's rows)
        const T* points = points_;
        const T* c = centroids_.data();
        const std::int32_t* labels = labels_.data();
        const T* nearest_half = nearest_half_.data();
        PointStatus* status = config_.record_point_status ? status_.data() : nullptr;
        std::size_t opened = 0;
        std::uint64_t evaluated = 0;
        constexpr std::size_t kSlice = 512;
        std::uint8_t failed[kSlice];
        std::uint32_t candidates[kSlice];
        for (std::size_t from = begin; from < end; from += kSlice) {
            const std::size_t m = std::min(kSlice, end - from);
            hamerly_bounds(labels + from, upper + from, lower + from, shift_upper_.data(), nearest_half, leaders.top,
                           leaders.top_shift, leaders.second_shift, d, m, failed);
            std::size_t count = 0;
            for (std::size_t q = 0; q < m; ++q) {
                candidates[count] = static_cast<std::uint32_t>(q);
                count += failed[q];
            }
            if (status)
                for (std::size_t q = 0; q < m; ++q)
                    if (!failed[q]) status[from + q] = PointStatus::Skipped;
            for (std::size_t e = 0; e < count; ++e) {
                const std::size_t i = from + candidates[e];
                const std::size_t a = static_cast<std::size_t>(labels[i]);
                // Tighten the upper bound with the distance to the own centroid and test again.
                const T distance = squared_distance(points + (i - base) * d, c + a * d, d);
                ++evaluated;
                const T tight = bounds.upper(std::sqrt(distance));
                upper[i] = tight;
                if (bounds.separated(tight, std::max(lower[i], nearest_half[a]))) {
                    if (status) status[i] = PointStatus::Skipped;
                    continue;
                }
                open[opened++] = i;
            }
        }
        skips += (end - begin) - opened;
        evaluations += evaluated;
        return opened;
    }

    ShiftLeaders shift_leaders() const {
        ShiftLeaders leaders;
        const auto& shift = shift_upper_;
        for (std::size_t j = 1; j < k_; ++j)
            if (shift[j] > shift[leaders.top]) leaders.top = j;
        for (std::size_t j = 0; j < k_; ++j)
            if (j != leaders.top) leaders.second_shift = std::max(leaders.second_shift, shift[j]);
        leaders.top_shift = k_ > 0 ? shift[leaders.top] : T(0);
        return leaders;
    }

    // The algorithm's assignment step: labels_ against centroids_, filling the
    // counters, the phase times and status_. Returns the number of changed labels.
    virtual std::uint64_t assign(IterationStats& stats) = 0;
    virtual void allocate_bounds() {}
    // Per-point state zeroed answering a stop request (kms/zeroed.hpp: Elkan's n·k bounds
    // are gigabytes); a partitioned run allocates whole (every rank reaches the same
    // collectives).
    template <typename V>
    void assign_zeroed(std::vector<V>& values, std::size_t count) const {
        if (partition_.comm) values.assign(count, V{});
        else kms::assign_zeroed(values, count, stop_, "cancelled while allocating the bounds of " + config_.describe());
    }

    // Lloyd's full search for every point (Lloyd's step and every solver's
    // finalize_labels()): through the certified GEMM (gemm_assign.hpp) where it
    // applies and SolverConfig::gemm_filter is on, else the exact kernel; the same
    // labels either way. `gemm` (optional) receives the GEMM's counts (zero without it).
    std::uint64_t full_assignment(GemmAssignCounts* gemm = nullptr) {
        if (config_.gemm_filter && gemm_assign_applies(d_, k_, std::is_same_v<T, float>)) {
            const GemmAssignCounts counts = gemm_assignment();
            if (gemm) *gemm = counts;
            return counts.changed;
        }
        std::uint64_t changed = 0;
        const T* c = centroids_.data();
        const std::size_t rows = window_rows_;  // every row, or (out of core) the block in the buffer
        std::int32_t* labels = labels_.data() + window_first_;
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) if (threads_ > 1) reduction(+ : changed)
        {
            std::vector<T> scratch;
            guard.run([&] { scratch.resize(kernel_scratch_size(d_)); });
            constexpr std::size_t kChunk = 1024;
            const std::size_t chunks = (rows + kChunk - 1) / kChunk;
#pragma omp for schedule(static)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk)
                if (!guard.failed() && !stop_now())
                    changed += label_range(points_, d_, c, k_, chunk * kChunk, std::min(rows, (chunk + 1) * kChunk),
                                           labels, scratch.data());
        }
        guard.rethrow();
        return changed;
    }

    // full_assignment() through the GEMM: the same fixed chunks, each labelled by one
    // thread with the single-threaded micro-kernel, so nothing depends on the thread count.
    GemmAssignCounts gemm_assignment() {
        gemm_.prepare(centroids_.data(), k_, d_);
        std::uint64_t changed = 0, certified = 0, verified = 0;
        const std::size_t rows = window_rows_;  // every row, or (out of core) the block in the buffer
        std::int32_t* labels = labels_.data() + window_first_;
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) if (threads_ > 1) reduction(+ : changed, certified, verified)
        {
            typename GemmAssign<T>::Scratch scratch;
            GemmAssignCounts counts;
            constexpr std::size_t kChunk = 1024;
            const std::size_t chunks = (rows + kChunk - 1) / kChunk;
#pragma omp for schedule(static) nowait
            for (std::size_t chunk = 0; chunk < chunks; ++chunk)
                if (!guard.failed() && !stop_now())
                    guard.run([&] {  // the scratch grows on first use
                        gemm_.label_range(points_, centroids_.data(), chunk * kChunk,
                                          std::min(rows, (chunk + 1) * kChunk), labels, scratch, counts);
                    });
            // The thread's points left to the exact search, as one batch (a part-empty
            // vector tile per chunk cost 7 % of a 64-D, k = 1000 step).
            if (!guard.failed()) guard.run([&] { gemm_.finish(points_, centroids_.data(), labels, scratch, counts); });
            changed += counts.changed;
            certified += counts.certified;
            verified += counts.verified;
        }
        guard.rethrow();
        gemm_.record({changed, certified, verified});
        return {changed, certified, verified};
    }

    // Distances between centroids, as certain lower bounds: cc_half_[a*k+b] =
    // lower(d(a,b)) / 2 and nearest_half_[a] = min over b ≠ a. Returns k(k-1)/2.
    std::uint64_t centroid_separations(bool keep_matrix) {
        const BoundArithmetic<T> bounds(d_);
        const T inf = std::numeric_limits<T>::infinity();
        std::fill(nearest_half_.begin(), nearest_half_.end(), inf);
        // Every entry off the diagonal is written below; the diagonal stays zero.
        if (keep_matrix && cc_half_.size() != k_ * k_) cc_half_.assign(k_ * k_, T(0));
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

    // Squared distances between centroids a row at a time with the vector kernel
    // (block_distances: bitwise squared_distance()): for every centroid a, in
    // parallel, row_done(a, row) sees row[b] = |c_a − c_b|² for all b (row[a] = 0);
    // the row is the thread's scratch, which row_done may overwrite.
    // Fills nearest_half_ as centroid_separations() does (lower(√·) is monotone,
    // so one square root per row gives the same bits). Returns k(k − 1), the
    // distances evaluated: twice centroid_separations()'s, but vectorised.
    template <typename RowDone>
    std::uint64_t centroid_rows(RowDone&& row_done) {
        const BoundArithmetic<T> bounds(d_);
        const std::size_t stride = block_stride(k_, d_);
        by_coordinate_.resize(stride * d_);  // lanes past k stay as they were: finite, never read
        for (std::size_t b = 0; b < k_; ++b)
            for (std::size_t t = 0; t < d_; ++t) by_coordinate_[t * stride + b] = centroids_(b, t);
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) if (threads_ > 1 && k_ > 64)
        {
            std::vector<T> row;
            guard.run([&] { row.resize(stride); });
#pragma omp for schedule(dynamic, 8)
            for (std::size_t a = 0; a < k_; ++a) {
                if (guard.failed()) continue;
                block_distances(centroids_.row(a), d_, by_coordinate_.data(), stride, k_, row.data());
                row[a] = std::numeric_limits<T>::infinity();
                const T nearest = least(row.data(), k_);
                row[a] = T(0);
                nearest_half_[a] = k_ < 2 ? nearest : bounds.lower(std::sqrt(nearest)) / T(2);
                guard.run([&] { row_done(a, row.data()); });  // (it may allocate: Ball k-means' lists)
            }
        }
        guard.rethrow();
        return static_cast<std::uint64_t>(k_) * (k_ - 1);
    }

    // The least of values[0, count) (+inf if none): eight independent minima, so
    // the loop is not one chain of dependent comparisons. The minimum of non-NaN
    // values does not depend on the order they are taken in.
    static T least(const T* values, std::size_t count) {
        T lane[8];
        std::fill(lane, lane + 8, std::numeric_limits<T>::infinity());
        std::size_t b = 0;
        for (; b + 8 <= count; b += 8)
            for (std::size_t l = 0; l < 8; ++l) lane[l] = std::min(lane[l], values[b + l]);
        for (; b < count; ++b) lane[0] = std::min(lane[0], values[b]);
        return *std::min_element(lane, lane + 8);
    }

    SolverConfig config_;
    int threads_ = 1;
    template <typename Source>
    void attach(std::shared_ptr<const Matrix<Source>> points) {
        if (!points) throw Error("the data set is empty");
        if (partition_.comm) {  // a block: may be empty, must lie inside the data set
            if (points->cols() == 0) throw Error("the data set is empty");
            if (points->rows() > 0) check_solver_data(*points, config_.precision, threads_, false);
            if (partition_.first_row + points->rows() > partition_.global_rows)
                throw Error("rank " + std::to_string(partition_.comm->rank()) + "'s block (rows " +
                            std::to_string(partition_.first_row) + " + " + std::to_string(points->rows()) +
                            ") runs past the data set's " + std::to_string(partition_.global_rows) + " rows");
        } else {
            check_solver_data(*points, config_.precision, threads_);
        }
        if constexpr (std::is_same_v<Source, T>) {
            converted_ = Matrix<T>();
            points_ = points->data();
        } else {
            converted_ = points->template cast<T>();
            points_ = converted_.data();
        }
        n_ = points->rows();
        d_ = points->cols();
        row_source_.reset();
        window_first_ = 0;
        window_rows_ = n_;
        first_row_ = partition_.comm ? partition_.first_row : 0;
        global_n_ = partition_.comm ? partition_.global_rows : n_;
        tol_absolute_ = partition_.comm ? absolute_tolerance(*points, config_.tol, partition_)
                                        : absolute_tolerance(*points, config_.tol);
        source_ = std::move(points);
        initial_ = Matrix<double>();
        k_ = 0;
        weight_source_.reset();
        weights_ = nullptr;
        clear_run();
    }

    std::shared_ptr<const void> source_;  // the caller's points (Matrix<double> or Matrix<float>), kept alive
    // Out of core (set_row_source): the file the rows are read from, and the two
    // buffers' budget; null when the points are in memory.
    std::shared_ptr<const RowSource> row_source_;
    std::size_t buffer_bytes_ = 0;
    // The rows the per-point loops of Lloyd, the update and the inertia see now:
    // points_ holds rows [window_first_, window_first_ + window_rows_) of this
    // solver's n_ (all of them in memory; out of core, the block in a buffer).
    // Mutable: the const inertia() reads the file through them too.
    mutable std::size_t window_first_ = 0, window_rows_ = 0;
    mutable std::size_t window_capacity_ = 0;   // rows per block out of core: whole packages
    mutable std::vector<T> window_buffers_[2];  // out of core: the block worked on, the block being read
    Matrix<T> converted_;                 // the points in T when the caller's are of the other precision
    mutable const T* points_ = nullptr;
    std::shared_ptr<const std::vector<double>> weight_source_;  // null: unweighted
    std::vector<T> weights_converted_;  // float copy of the weights (float solvers only)
    const T* weights_ = nullptr;        // per point, in T; null: unweighted
    std::size_t n_ = 0, d_ = 0, k_ = 0;
    double tol_absolute_ = 0.0;
    Matrix<double> initial_;
    Matrix<T> centroids_;            // k × d, current
    std::vector<std::int32_t> labels_;
    std::vector<PointStatus> status_;
    std::vector<T> shift_upper_;     // per centroid: certain upper bound of the last move
    std::vector<T> cc_half_;         // k × k half centroid distances (Elkan, Exponion)
    std::vector<T> nearest_half_;    // per centroid: half the distance to the nearest other one
    std::vector<T> by_coordinate_;   // the centroids coordinate-major (centroid_rows)
    GemmAssign<T> gemm_;             // the certified GEMM's packed centroids (full_assignment)
    bool bounds_valid_ = false;      // false: the next assignment is a full search that rebuilds bounds
    // Cancellation inside a step: assignment loops skip their remaining work once
    // stop_now() holds; step() then restores the last completed iteration.
    std::stop_token stop_;
    bool in_step_ = false;
    std::vector<std::int32_t> labels_before_;
    std::vector<PointStatus> status_before_;
    bool stop_now() const { return in_step_ && stop_.stop_requested(); }
    int iteration_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;

private:
    void clear_run() {
        iteration_ = 0;
        stop_reason_ = StopReason::NotStopped;
        bounds_valid_ = false;
        labels_.assign(n_, -1);
        status_.clear();
        if (k_ > 0) centroids_ = initial_.template cast<T>();
        gemm_ = GemmAssign<T>();  // a new run tries the float GEMM for double data again
    }

    void allocate() {
        // Packages depend on n, k and d only (never on the thread count), so the
        // update gives the same bits for any number of threads.
        // (of the whole data set: a partitioned run's ranks own whole packages).
        const PackageLayout layout = package_layout(global_n_, k_, d_, config_.packages);
        packages_ = layout.packages;
        package_size_ = layout.package_size;
        package_begin_ = std::min(packages_, first_row_ / package_size_);
        package_end_ = std::min(packages_, (first_row_ + n_ + package_size_ - 1) / package_size_);
        if (first_row_ % package_size_ != 0 || (first_row_ + n_ != global_n_ && (first_row_ + n_) % package_size_ != 0))
            throw Error("rank " + std::to_string(partition_.comm ? partition_.comm->rank() : 0) + "'s rows [" +
                        std::to_string(first_row_) + ", " + std::to_string(first_row_ + n_) +
                        ") do not start and end on the update's packages of " + std::to_string(package_size_) +
                        " points: split the rows with kms::partition_rows");
        tree_levels_ = package_tree_local_levels(packages_, package_begin_, package_end_);
        if (row_source_) {
            // Two buffers in the budget, each of whole packages (a package's leaf sum
            // is made from one block); at least one package, whatever the budget.
            // At most kMaxWindowBytes a block: a pass's first read and last block's work,
            // which nothing overlaps, stay short beside the pass (8 GiB in 512 MiB blocks
            // left 6 % of a step unoverlapped; H100 host, 16 cores).
            const std::size_t row_bytes = std::max<std::size_t>(1, d_ * sizeof(T));
            const std::size_t fits = std::min(buffer_bytes_ / 2, kMaxWindowBytes) / row_bytes / package_size_ * package_size_;
            window_capacity_ = std::max(package_size_, fits);
            for (auto& buffer : window_buffers_) std::vector<T>().swap(buffer);  // sized by the first pass
        }
        cover_ = partition_.comm ? package_tree_cover(packages_, package_begin_, package_end_) : std::vector<PackageSpan>{};
        try {
            package_sums_.assign(packages_ * k_ * d_, 0.0);
            package_counts_.assign(packages_ * k_, 0);
            package_weights_.assign(packages_ * k_, 0.0);  // used by weighted runs only
            shift_upper_.assign(k_, T(0));
            nearest_half_.assign(k_, T(0));
            allocate_bounds();
        } catch (const std::bad_alloc&) {
            throw Error("not enough memory for " + config_.describe() + " with n = " + std::to_string(n_) +
                        ", k = " + std::to_string(k_));
        }
    }


    // Two-step package reduction: each package sums its points (in sub-packages
    // of kSubPackage: sum_package_leaves, of the packages in the window), then
    // package sums are added pairwise in a fixed tree (finish_update). Out of core
    // the leaves are summed block by block (a package never straddles two blocks)
    // and the tree once after the last: the same additions, so the same bits.
    void sum_package_leaves_timed(IterationStats& stats) {
        const auto start = Clock::now();
        sum_package_leaves();
        stats.time_update_ms += elapsed_ms(start);
    }

    void sum_package_leaves() {
        const std::size_t kd = k_ * d_;
        double* sums = package_sums_.data();
        std::int64_t* counts = package_counts_.data();
        double* weight_sums = weight_source_ ? package_weights_.data() : nullptr;  // (a rank with no rows has weights_ == nullptr)
        const WindowPackages window = window_packages();
        const std::int32_t* labels = labels_.data() + window_first_;
        const T* weights = weights_ ? weights_ + window_first_ : nullptr;
        const std::size_t row_offset = first_row_ + window_first_;  // the window's first row in the data set
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
        {
            // Sub-package sums start at zero and are added to unconditionally (no
            // branch per point); a row's first term is then 0 + v rather than v,
            // which differs only for v = −0, and the package sum (which starts at
            // +0) absorbs that: +0 + (−0) = +0 + (+0) = +0. Same bits as before.
            // Each thread's scratch on cache lines of its own (no false sharing with
            // another thread's allocation); counts kept per thread and stored once
            // per package, not written to the shared array point by point.
            // `touched` marks the clusters a sub-package has added to and `touched_list`
            // names them once each, so that its flush costs what it touched, not k
            // (each cluster's sum is its own: the flush order does not change the bits).
            ThreadScratch<T> sub;
            ThreadScratch<unsigned char> touched;
            ThreadScratch<std::uint32_t> touched_list;
            ThreadScratch<std::int64_t> count;
            guard.run([&] {
                sub.allocate(kd);
                touched.allocate(k_);
                touched_list.allocate(k_);
                count.allocate(k_);
            });
            // In memory and unpartitioned, a thread sums packages 2q and 2q + 1 and makes the
            // tree's first addition (package 2q += 2q + 1, finish_update's stride 1) while
            // both are in its cache.
            const bool pairs = pairs_summed_with_leaves();
            const std::size_t unit = pairs ? 2 : 1, units = (window.end - window.begin + unit - 1) / unit;
#pragma omp for schedule(static)
            for (std::size_t u = 0; u < units; ++u) {
                const std::size_t unit_end = std::min(window.end, window.begin + (u + 1) * unit);
                for (std::size_t p = window.begin + u * unit; p < unit_end; ++p) {
                    if (guard.failed()) continue;  // the sums are not used: rethrown below
                    double* psum = sums + p * kd;
                    std::int64_t* pcount = count.data();
                    std::fill(psum, psum + kd, 0.0);
                    std::fill(pcount, pcount + k_, 0);
                    if (weight_sums) std::fill(weight_sums + p * k_, weight_sums + (p + 1) * k_, 0.0);
                    const std::size_t end = std::min(window_rows_, (p + 1) * package_size_ - row_offset);  // window rows
                    for (std::size_t s = p * package_size_ - row_offset; s < end; s += kSubPackage)
                        sum_sub_package(labels, points_, centroids_.row(0), weights, d_, s, std::min(end, s + kSubPackage),
                                        sub.data(), touched.data(), touched_list.data(), pcount,
                                        weight_sums ? weight_sums + p * k_ : nullptr, psum);
                    std::copy(pcount, pcount + k_, counts + p * k_);
                }
                const std::size_t p = window.begin + u * unit;
                if (pairs && p + 1 < unit_end && !guard.failed()) add_package(p, 1);
            }
        }
        guard.rethrow();
    }

    // sum_package_leaves() made the package tree's first level (stride 1): the same
    // additions, so the same bits; only with at least 4 pairs a thread (fewer units of
    // work would leave threads idle: 10^5 points are 98 packages).
    bool pairs_summed_with_leaves() const {
        return !row_source_ && !partition_.comm && packages_ > 1 && packages_ >= 8 * static_cast<std::size_t>(threads_);
    }

    // Package p's sums, counts and weights += those of package p + stride (the tree's addition).
    void add_package(std::size_t p, std::size_t stride) {
        const std::size_t kd = k_ * d_;
        double* dst = package_sums_.data() + p * kd;
        const double* src = dst + stride * kd;
        add_to(dst, src, kd);
        std::int64_t* cd = package_counts_.data() + p * k_;
        const std::int64_t* cs = cd + stride * k_;
        for (std::size_t c = 0; c < k_; ++c) cd[c] += cs[c];
        if (weight_source_) {
            double* wd = package_weights_.data() + p * k_;
            const double* ws = wd + stride * k_;
            for (std::size_t c = 0; c < k_; ++c) wd[c] += ws[c];
        }
    }

    void finish_update(IterationStats& stats) {
        const auto start = Clock::now();
        double* sums = package_sums_.data();
        std::int64_t* counts = package_counts_.data();
        double* weight_sums = weight_source_ ? package_weights_.data() : nullptr;
        std::exception_ptr gather_failure;
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
        {
            // Fixed pairwise tree over packages: 0+1, 2+3, ..., then 0+2, ... A rank
            // makes the additions inside its own packages (all of them, alone) and
            // ships only the largest nodes it completed, its cover; every rank then
            // makes the remaining additions in the tree's order (combine_covers).
            for (const PackageTreeLevel& level : tree_levels_) {
                if (level.stride == 1 && pairs_summed_with_leaves()) continue;
#pragma omp for schedule(static)
                for (std::size_t i = 0; i < level.nodes.size(); ++i) add_package(level.nodes[i], level.stride);
            }
            if (partition_.comm) {
#pragma omp master
                try {
                    combine_covers(sums, counts, weight_sums);
                } catch (...) {
                    gather_failure = std::current_exception();  // rethrown after the parallel region
                }
            }
        }

        if (gather_failure) std::rethrow_exception(gather_failure);

        Matrix<T> previous = centroids_;
        int empty = 0;
        for (std::size_t c = 0; c < k_; ++c) {
            // Weighted: a cluster of zero-weight points only is empty (scikit-learn's rule).
            if (counts[c] == 0 || (weight_sums && !(weight_sums[c] > 0.0))) {
                ++empty;
                continue;  // keep the old centroid unless relocated below
            }
            const double count = weight_sums ? weight_sums[c] : static_cast<double>(counts[c]);
            for (std::size_t t = 0; t < d_; ++t)
                centroids_(c, t) = static_cast<T>(static_cast<double>(previous(c, t)) + sums[c * d_ + t] / count);
        }
        stats.empty_clusters = empty;
        if (empty > 0 && config_.empty_policy == EmptyClusterPolicy::Farthest)
            stats.point_centroid_distances += relocate_empty(previous, sums, counts, weight_sums);

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
    // Weighted (weight_sums set): clusters of zero weight are the empty ones and
    // the moved point takes its weight along, as in scikit-learn.
    std::uint64_t relocate_empty(const Matrix<T>& previous, const double* sums, const std::int64_t* counts,
                                 const double* weight_sums = nullptr) {
        std::vector<T> distance(n_);
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
        for (std::size_t i = 0; i < n_; ++i)
            distance[i] = squared_distance(points_ + i * d_, previous.row(static_cast<std::size_t>(labels_[i])), d_);
        const std::vector<std::size_t> empty_ids =
            weight_sums ? empty_clusters<double>({weight_sums, k_}) : empty_clusters<std::int64_t>({counts, k_});
        const std::vector<RelocationMover<T>> movers = farthest_movers<T>(
            distance, labels_, points_, d_, weight_sums ? weights_ : nullptr, empty_ids.size(), first_row_,
            partition_.comm.get());
        relocate_to_movers<T>(empty_ids, movers, d_, previous.data(), centroids_.data(),
                              std::vector<double>(sums, sums + k_ * d_), std::vector<std::int64_t>(counts, counts + k_),
                              weight_sums ? std::vector<double>(weight_sums, weight_sums + k_) : std::vector<double>());
        return n_;
    }

    // The packages of the rows in the window: [begin, end) of packages_.
    struct WindowPackages {
        std::size_t begin = 0, end = 0;
    };
    WindowPackages window_packages() const {
        if (window_rows_ == 0) return {package_begin_, package_begin_};
        const std::size_t first = first_row_ + window_first_;
        return {first / package_size_, std::min(packages_, (first + window_rows_ + package_size_ - 1) / package_size_)};
    }

    // Runs body() once with the window on every row (points in memory), or (out of
    // core) once per block of window_capacity_ rows, in row order (read_blocks: each
    // block read into one buffer while body() works on the other). Returns the bytes
    // read from the file. A read's failure (or body's) ends the pass.
    template <typename Body>
    std::uint64_t for_each_window(Body&& body) const {
        if (!row_source_) {
            window_first_ = 0;
            window_rows_ = n_;
            body();
            return 0;
        }
        // Ranks agree on a read's failure (the file changed under the run) before the
        // step's collectives: every rank throws, none is left waiting in them.
        std::uint64_t bytes = 0;
        agreed(partition_.comm.get(), [&] { bytes = read_windows(body); });
        return bytes;
    }
    template <typename Body>
    std::uint64_t read_windows(Body& body) const {
        // This solver's rows start at first_row_ of the file (a rank's block).
        const std::uint64_t bytes =
            read_blocks(*row_source_, first_row_, n_, window_capacity_, window_buffers_, threads_,
                        [&](std::size_t first, std::size_t rows, const T* values) {
                            window_first_ = first;
                            window_rows_ = rows;
                            points_ = values;
                            body();
                        });
        window_first_ = 0;
        window_rows_ = 0;
        points_ = nullptr;
        return bytes;
    }

    // Every rank's packages [package_begin_, package_end_) of `values` (`width`
    // per package), so that each rank holds all packages' values.
    template <typename V>
    void gather_packages(V* values, std::size_t width) const {
        const std::vector<V> all = partition_.comm->allgather(
            std::span<const V>(values + package_begin_ * width, (package_end_ - package_begin_) * width));
        if (all.size() != packages_ * width)
            throw Error("the ranks' blocks do not cover the data set's " + std::to_string(packages_) +
                        " packages once each, in rank order");
        std::copy(all.begin(), all.end(), values);
    }

    // The ranks' covers (package_tree_cover: the largest tree nodes each completed
    // alone, with their spans), allgathered in rank order and added in the tree's
    // order (finish_package_tree), as a single process adds them; the root goes to
    // package 0's place. What crosses is at most 2·log2(packages) nodes a rank.
    void combine_covers(double* sums, std::int64_t* counts, double* weight_sums) const {
        const std::size_t kd = k_ * d_, width = kd + (weight_sums ? k_ : 0), count_width = k_ + 2;
        std::vector<double> values;
        std::vector<std::int64_t> spans_and_counts;
        values.reserve(cover_.size() * width);
        spans_and_counts.reserve(cover_.size() * count_width);
        for (const PackageSpan& span : cover_) {
            values.insert(values.end(), sums + span.first * kd, sums + (span.first + 1) * kd);
            if (weight_sums) values.insert(values.end(), weight_sums + span.first * k_, weight_sums + (span.first + 1) * k_);
            spans_and_counts.push_back(static_cast<std::int64_t>(span.first));
            spans_and_counts.push_back(static_cast<std::int64_t>(span.last));
            spans_and_counts.insert(spans_and_counts.end(), counts + span.first * k_, counts + (span.first + 1) * k_);
        }
        std::vector<double> all_values = partition_.comm->allgather(std::span<const double>(values));
        std::vector<std::int64_t> all_counts = partition_.comm->allgather(std::span<const std::int64_t>(spans_and_counts));
        const std::size_t covers = all_counts.size() / count_width;
        if (all_counts.size() != covers * count_width || all_values.size() != covers * width)
            throw Error("the ranks' package sums do not match their covers");
        std::vector<PackageSpan> spans(covers);
        for (std::size_t i = 0; i < covers; ++i)
            spans[i] = {static_cast<std::size_t>(all_counts[i * count_width]),
                        static_cast<std::size_t>(all_counts[i * count_width + 1])};
        finish_package_tree(packages_, spans, [&](std::size_t dst, std::size_t src) {
            for (std::size_t e = 0; e < width; ++e) all_values[dst * width + e] += all_values[src * width + e];
            for (std::size_t c = 2; c < count_width; ++c) all_counts[dst * count_width + c] += all_counts[src * count_width + c];
        });
        std::copy(all_values.begin(), all_values.begin() + static_cast<std::ptrdiff_t>(kd), sums);
        if (weight_sums)
            std::copy(all_values.begin() + static_cast<std::ptrdiff_t>(kd),
                      all_values.begin() + static_cast<std::ptrdiff_t>(width), weight_sums);
        std::copy(all_counts.begin() + 2, all_counts.begin() + static_cast<std::ptrdiff_t>(count_width), counts);
    }

    std::size_t packages_ = 1, package_size_ = 1;
    std::vector<PackageTreeLevel> tree_levels_;  // the tree's additions inside this block's packages
    std::vector<PackageSpan> cover_;             // partitioned: the nodes it ships (combine_covers)
    // A partitioned run (set_partition): this rank's rows are [first_row_, first_row_ + n_)
    // of global_n_, its packages [package_begin_, package_end_) of packages_.
    RowPartition partition_;
    std::size_t first_row_ = 0, global_n_ = 0, package_begin_ = 0, package_end_ = 1;
    std::vector<double> package_sums_;
    std::vector<std::int64_t> package_counts_;
    std::vector<double> package_weights_;  // weighted runs: Σ w per package and cluster
};

// The solver of algorithm `Algorithm<T>` in the configuration's precision.
template <template <typename> class Algorithm>
std::unique_ptr<Solver> make_in_precision(const SolverConfig& config) {
    if (config.precision == Precision::F32) return std::make_unique<Algorithm<float>>(config);
    return std::make_unique<Algorithm<double>>(config);
}

}  // namespace kms::cpu
