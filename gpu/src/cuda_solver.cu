// The CUDA solver: Lloyd, Elkan and Hamerly × cuda-global / cuda-shared × f32 / f64
// behind kms::Solver. Data, centroids, labels and bounds stay on the device; each
// iteration copies back one small record (counters, shift statistics, inertia).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "cuda_common.hpp"
#include "cuda_gemm_assign.hpp"
#include "kms/error.hpp"

namespace kms {
namespace cuda {

void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();
    throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

namespace {

// Rows of the cumulative shift table before the bounds are rebuilt by a full search.
constexpr int kMaxShiftRows = 512;

class Event {
public:
    Event() { KMS_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_{};
};

float elapsed(const Event& from, const Event& to) {
    float ms = 0.0f;
    KMS_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}

template <typename T>
class CudaSolver final : public Solver {
    using Lower = typename ElkanLowerStorage<T>::type;

public:
    explicit CudaSolver(const SolverConfig& config) : config_(config) {
        activate();
        cudaDeviceProp props{};
        KMS_CUDA_CHECK(cudaGetDeviceProperties(&props, config_.cuda_device));
        geometry_.sm_count = props.multiProcessorCount;
        int8_mma_ = props.major >= 8;  // mma.sync m16n8k32 s8
        geometry_.block = config_.cuda_block_size > 0 ? config_.cuda_block_size : 256;
        blocks_per_sm_ = update_blocks_per_sm(geometry_.block);
        KMS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        record_.allocate(1, "the iteration record");
        scalar_.allocate(1, "the inertia result");
    }
    ~CudaSolver() override {
        cudaSetDevice(config_.cuda_device);
        if (stream_) cudaStreamDestroy(stream_);
    }

    const SolverConfig& config() const override { return config_; }

    void set_data(std::shared_ptr<const Matrix<double>> points) override {
        if (!points || points->rows() == 0 || points->cols() == 0) throw Error("the data set is empty");
        if (points->rows() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            throw Error("the CUDA back end takes at most 2^31 - 1 points; this data set has " +
                        std::to_string(points->rows()));
        activate();
        source_ = std::move(points);
        n_ = static_cast<long long>(source_->rows());
        d_ = static_cast<int>(source_->cols());
        k_ = 0;
        initial_ = Matrix<double>();
        tol_absolute_ = absolute_tolerance(*source_, config_.tol);
        points_.allocate(static_cast<std::size_t>(n_) * d_, "the data points");
        if constexpr (std::is_same_v<T, double>) {
            KMS_CUDA_CHECK(cudaMemcpy(points_.get(), source_->data(), source_->size() * sizeof(T),
                                      cudaMemcpyHostToDevice));
        } else {
            const Matrix<float> converted = source_->template cast<float>();
            KMS_CUDA_CHECK(cudaMemcpy(points_.get(), converted.data(), converted.size() * sizeof(float),
                                      cudaMemcpyHostToDevice));
        }
        set_grid();
        data_low_.assign(d_, std::numeric_limits<double>::infinity());
        data_high_.assign(d_, -std::numeric_limits<double>::infinity());
        for (long long i = 0; i < n_; ++i)
            for (int j = 0; j < d_; ++j) {
                const double v = (*source_)(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
                data_low_[j] = std::min(data_low_[j], v);
                data_high_[j] = std::max(data_high_[j], v);
            }
        prepare_quantised_points();
        clear_run();
    }

    void set_initial_centroids(const Matrix<double>& centroids) override {
        if (!source_) throw Error("set the data before the initial centroids");
        if (centroids.rows() < 1) throw Error("k must be at least 1");
        if (centroids.cols() != static_cast<std::size_t>(d_))
            throw Error("initial centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                        std::to_string(d_));
        if (centroids.rows() > static_cast<std::size_t>(n_))
            throw Error("k = " + std::to_string(centroids.rows()) + " is larger than the number of points n = " +
                        std::to_string(n_));
        for (double v : centroids.values())
            if (!std::isfinite(v)) throw Error("initial centroids contain NaN or Inf");
        activate();
        initial_ = centroids;
        k_ = static_cast<int>(centroids.rows());
        allocate();
        clear_run();
    }

    void reset() override {
        activate();
        clear_run();
    }

    IterationStats step() override {
        if (!source_) throw Error("no data set");
        if (k_ == 0) throw Error("no initial centroids");
        activate();
        IterationStats stats;
        stats.iteration = iteration_ + 1;
        KMS_CUDA_CHECK(cudaMemsetAsync(record_.get(), 0, sizeof(DeviceIterationRecord), stream_));
        KMS_CUDA_CHECK(cudaEventRecord(ev_start_.get(), stream_));

        const bool bounded = config_.algorithm != Algorithm::Lloyd;
        if (bounded && bounds_valid_) {
            launch_centroid_separations<T>(current(), k_, d_, nearest_half_.get(),
                                           config_.algorithm == Algorithm::Elkan ? cc_half_.get() : nullptr, stream_);
            stats.centroid_centroid_distances = static_cast<std::uint64_t>(k_) * (k_ - 1) / 2;
        }
        KMS_CUDA_CHECK(cudaEventRecord(ev_bounds_.get(), stream_));

        // Small (k, d): the update runs in the last block of the kernel that sums
        // (Lloyd: the assignment itself; its time then counts as assignment).
        const bool small = small_update_variant(k_, d_) >= 0;
        const bool gemm_used = !bounded && gemm_active_;
        assign(small && !bounded);
        if (!bounded) stats.point_centroid_distances = static_cast<std::uint64_t>(n_) * k_;
        KMS_CUDA_CHECK(cudaEventRecord(ev_assign_.get(), stream_));

        if (small && bounded) {
            launch_small_sums_update<T>(points_.get(), n_, d_, labels_.get(), k_, current(), small_update(),
                                        workspace_, geometry_, stream_);
        } else if (!small) {
            launch_accumulate<T>(points_.get(), n_, d_, labels_.get(), k_, workspace_, stream_);
            launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                                   shift_exact_.get(), true, stream_);
        }
        if (config_.empty_policy == EmptyClusterPolicy::Farthest) {
            DeviceShiftStats shifts{};
            KMS_CUDA_CHECK(cudaMemcpyAsync(&shifts, &record_.get()->shifts, sizeof(shifts), cudaMemcpyDeviceToHost,
                                           stream_));
            KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
            if (shifts.empty_clusters > 0) stats.point_centroid_distances += relocate_empty();
        }
        centroid_buffer_ ^= 1;
        if (bounded) append_shift_row();
        KMS_CUDA_CHECK(cudaEventRecord(ev_update_.get(), stream_));

        if (config_.compute_inertia)
            launch_inertia<T>(points_.get(), n_, d_, current(), labels_.get(), inertia_blocks_.get(),
                              &record_.get()->inertia, geometry_, stream_);
        KMS_CUDA_CHECK(cudaEventRecord(ev_end_.get(), stream_));
        DeviceIterationRecord host{};
        KMS_CUDA_CHECK(cudaMemcpyAsync(&host, record_.get(), sizeof(host), cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));

        stats.time_bounds_ms = elapsed(ev_start_, ev_bounds_);
        stats.time_assign_ms = elapsed(ev_bounds_, ev_assign_);
        stats.time_update_ms = elapsed(ev_assign_, ev_update_);
        stats.time_total_ms = elapsed(ev_start_, ev_end_);
        stats.point_centroid_distances += host.counters.point_centroid_distances;
        stats.bound_skips = host.counters.bound_skips;
        stats.labels_changed = host.counters.labels_changed;
        stats.max_shift = host.shifts.max_shift;
        stats.mean_shift = host.shifts.sum_shift / static_cast<double>(k_);
        stats.shift_sq_total = host.shifts.shift_sq_total;
        stats.empty_clusters = first_empty_count_ >= 0 ? first_empty_count_ : host.shifts.empty_clusters;
        first_empty_count_ = -1;
        if (config_.compute_inertia) stats.inertia = host.inertia;
        stats.verified_points = host.counters.gemm_unsettled;
        // Too many searches over all k (the bound certifies little on this data): the exact kernel from now on.
        if (gemm_used &&
            static_cast<double>(host.counters.gemm_full_searches) > kGemmMaxUnsettledShare * static_cast<double>(n_))
            gemm_active_ = false;

        labels_cached_ = status_cached_ = false;
        ++iteration_;
        stop_reason_ = evaluate_stop(config_, stats, tol_absolute_);
        return stats;
    }

    std::uint64_t finalize_labels() override {
        if (!source_ || k_ == 0) throw Error("no data or no centroids");
        activate();
        KMS_CUDA_CHECK(cudaMemsetAsync(record_.get(), 0, sizeof(DeviceIterationRecord), stream_));
        if (config_.algorithm != Algorithm::Lloyd && bounds_valid_)
            launch_centroid_separations<T>(current(), k_, d_, nearest_half_.get(),
                                           config_.algorithm == Algorithm::Elkan ? cc_half_.get() : nullptr, stream_);
        assign(false);
        DeviceCounters counters{};
        KMS_CUDA_CHECK(cudaMemcpyAsync(&counters, &record_.get()->counters, sizeof(counters), cudaMemcpyDeviceToHost,
                                       stream_));
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        labels_cached_ = status_cached_ = false;
        return counters.labels_changed;
    }

    int iteration() const override { return iteration_; }
    bool converged() const override { return stop_reason_ != StopReason::NotStopped; }
    StopReason stop_reason() const override { return stop_reason_; }

    const std::vector<std::int32_t>& labels() const override {
        if (!labels_cached_) {
            activate();
            host_labels_.resize(static_cast<std::size_t>(n_));
            if (n_ > 0)
                KMS_CUDA_CHECK(cudaMemcpy(host_labels_.data(), labels_.get(), n_ * sizeof(std::int32_t),
                                          cudaMemcpyDeviceToHost));
            labels_cached_ = true;
        }
        return host_labels_;
    }

    Matrix<double> centroids() const override {
        if (k_ == 0) return Matrix<double>();
        activate();
        std::vector<T> values(static_cast<std::size_t>(k_) * d_);
        KMS_CUDA_CHECK(cudaMemcpy(values.data(), current(), values.size() * sizeof(T), cudaMemcpyDeviceToHost));
        return Matrix<T>(k_, d_, std::move(values)).template cast<double>();
    }

    const std::vector<PointStatus>& point_status() const override {
        if (!config_.record_point_status || k_ == 0 || iteration_ == 0) {
            host_status_.clear();
            return host_status_;
        }
        if (!status_cached_) {
            activate();
            host_status_.resize(static_cast<std::size_t>(n_));
            KMS_CUDA_CHECK(cudaMemcpy(host_status_.data(), status_.get(), n_, cudaMemcpyDeviceToHost));
            status_cached_ = true;
        }
        return host_status_;
    }

    double inertia() const override {
        if (!source_ || k_ == 0) return 0.0;
        activate();
        launch_inertia<T>(points_.get(), n_, d_, current(), labels_.get(), inertia_blocks_.get(), scalar_.get(),
                          geometry_, stream_);
        double value = 0.0;
        KMS_CUDA_CHECK(cudaMemcpyAsync(&value, scalar_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return value;
    }

    const std::int32_t* device_labels() const override { return labels_.get(); }
    const PointStatus* device_point_status() const override {
        return config_.record_point_status ? reinterpret_cast<const PointStatus*>(status_.get()) : nullptr;
    }

private:
    void activate() const { KMS_CUDA_CHECK(cudaSetDevice(config_.cuda_device)); }
    T* current() const { return centroids_[centroid_buffer_].get(); }
    T* next() const { return centroids_[centroid_buffer_ ^ 1].get(); }

    void allocate() {
        const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_);
        set_grid();
        centroids_[0].allocate(k * d_, "the centroids");
        centroids_[1].allocate(k * d_, "the centroids");
        labels_.allocate(n, "the labels");
        if (config_.record_point_status) status_.allocate(n, "the point status");
        shift_upper_.allocate(k, "the centroid shifts");
        shift_exact_.allocate(k, "the centroid shifts");
        inertia_blocks_.allocate(static_cast<std::size_t>(geometry_.grid), "the inertia partial sums");
        prepare_update_workspace(workspace_, n_, k_, d_, geometry_);
        if (uses_gemm_filter()) {
            quantised_centroids_.allocate(k * quantised_width(d_), "the quantised centroids");
            centroid_qnorms_.allocate(k, "the quantised centroid norms");
            centroid_slack_.allocate(k + 1, "the centroid quantisation errors");
            unsettled_.allocate(n, "the list of uncertified points");
            candidates_.allocate(n, "the candidates of uncertified points");
        }
        KMS_CUDA_CHECK(cudaDeviceSynchronize());  // set-up work ran outside the solver's stream
        if (config_.algorithm == Algorithm::Lloyd) return;
        upper_.allocate(n, "the upper bounds");
        stamp_.allocate(n, "the bound stamps");
        nearest_half_.allocate(k, "the centroid separations");
        shift_table_.allocate(static_cast<std::size_t>(kMaxShiftRows) * (k + 1), "the cumulative shift table");
        KMS_CUDA_CHECK(cudaMemset(shift_table_.get(), 0, (k + 1) * sizeof(double)));  // row 0: nothing moved yet
        if (config_.algorithm == Algorithm::Hamerly) {
            lower_.allocate(n, "the lower bounds");
            return;
        }
        if (k > 0 && n > std::numeric_limits<std::size_t>::max() / sizeof(Lower) / k)
            throw Error("Elkan needs n·k lower bounds, too many for this machine; use Hamerly");
        lower_k_.allocate(n * k, "Elkan's n×k lower bounds (use Hamerly for less memory)");
        cc_half_.allocate(k * k, "the centroid distance matrix");
        // Half-precision bounds (float data) are scaled by a power of two so the
        // largest possible distance (data ∪ centroids box diagonal) fits half's range.
        double diagonal_sq = 0.0;
        for (int j = 0; j < d_; ++j) {
            double low = data_low_[j], high = data_high_[j];
            for (std::size_t c = 0; c < k; ++c) {
                low = std::min(low, initial_(c, static_cast<std::size_t>(j)));
                high = std::max(high, initial_(c, static_cast<std::size_t>(j)));
            }
            diagonal_sq += (high - low) * (high - low);
        }
        const double diagonal = std::sqrt(diagonal_sq);
        int exponent = diagonal > 0.0 ? static_cast<int>(std::floor(std::log2(32768.0 / diagonal))) : 0;
        exponent = std::clamp(exponent, -100, 100);
        lower_scale_ = std::ldexp(1.0f, exponent);
        KMS_CUDA_CHECK(cudaDeviceSynchronize());  // set-up work ran outside the solver's stream
    }

    void clear_run() {
        iteration_ = 0;
        stop_reason_ = StopReason::NotStopped;
        bounds_valid_ = false;
        shift_row_ = 0;
        labels_cached_ = status_cached_ = false;
        first_empty_count_ = -1;
        gemm_active_ = uses_gemm_filter();
        if (k_ == 0) return;
        KMS_CUDA_CHECK(cudaMemset(labels_.get(), 0xff, static_cast<std::size_t>(n_) * sizeof(std::int32_t)));
        centroid_buffer_ = 0;
        const Matrix<T> start = initial_.template cast<T>();
        KMS_CUDA_CHECK(cudaMemcpy(current(), start.data(), start.size() * sizeof(T), cudaMemcpyHostToDevice));
        KMS_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void assign(bool fused) {
        if (config_.algorithm == Algorithm::Lloyd && gemm_active_) {
            GemmLloydArgs<T> gemm{{points_.get(), n_, d_, current(), k_, labels_.get(), status_.get(),
                                   &record_.get()->counters, nullptr, SmallUpdate<T>{}},
                                  shift_.get(),
                                  {quantised_points_.get(), point_qnorms_.get(), point_slack_.get(),
                                   quantised_width(d_), quantisation_scale_},
                                  quantised_centroids_.get(), centroid_qnorms_.get(), centroid_slack_.get(),
                                  unsettled_.get(), candidates_.get(), geometry_.sm_count};
            launch_gemm_lloyd<T>(gemm, stream_);
            return;
        }
        if (config_.algorithm == Algorithm::Lloyd) {
            LloydArgs<T> args{points_.get(), n_, d_, current(), k_, labels_.get(), status_.get(),
                              &record_.get()->counters, fused ? workspace_.block_partials.get() : nullptr,
                              fused ? small_update() : SmallUpdate<T>{}};
            launch_lloyd<T>(args, shared_variant(), geometry_, stream_);
            return;
        }
        BoundedArgs<T> args{};
        args.points = points_.get();
        args.n = n_;
        args.d = d_;
        args.centroids = current();
        args.k = k_;
        args.labels = labels_.get();
        args.status = status_.get();
        args.counters = &record_.get()->counters;
        args.upper = upper_.get();
        args.lower = lower_.get();
        args.lower_k = lower_k_.get();
        args.stamp = stamp_.get();
        args.cumulative_shift = shift_table_.get();
        args.first = !bounds_valid_;
        if (args.first) shift_row_ = 0;
        args.now = shift_row_;
        args.nearest_half = nearest_half_.get();
        args.cc_half = cc_half_.get();
        args.lower_scale = lower_scale_;
        if (config_.algorithm == Algorithm::Hamerly) launch_hamerly<T>(args, shared_variant(), geometry_, stream_);
        else launch_elkan<T>(args, shared_variant(), geometry_, stream_);
        bounds_valid_ = true;
    }

    // The bounds follow the centroids through a cumulative table of shift upper
    // bounds; when it is full, the next assignment rebuilds them by a full search.
    void append_shift_row() {
        if (shift_row_ + 1 >= kMaxShiftRows) {
            bounds_valid_ = false;
            return;
        }
        ++shift_row_;
        launch_cumulative_row<T>(shift_table_.get(), shift_row_, k_, shift_upper_.get(), stream_);
    }

    // Auto: shared where Lloyd can use the int8 filter (its only faster shape), global elsewhere.
    bool shared_variant() const {
        if (config_.variant != KernelVariant::Auto) return config_.variant == KernelVariant::Shared;
        return config_.algorithm == Algorithm::Lloyd && config_.int8_filter && int8_mma_ && gemm_filter_applies(k_, d_);
    }

    // Where the small-path update (run by the summing kernel's last block) writes.
    SmallUpdate<T> small_update() {
        return SmallUpdate<T>{next(), workspace_.sums.get(), workspace_.counts.get(), shift_upper_.get(),
                              shift_exact_.get(), &record_.get()->shifts, workspace_.ticket.get()};
    }

    // One wave of the grid-stride kernels: for the small (k, d) path, of the kernel
    // that runs this shape (all small-path kernels then share its point order).
    void set_grid() {
        const int per_sm = k_ > 0 && small_update_variant(k_, d_) >= 0
                               ? small_blocks_per_sm<T>(k_, d_, geometry_.block)
                               : blocks_per_sm_;
        const long long by_size = (n_ + geometry_.block - 1) / geometry_.block;
        geometry_.grid = static_cast<int>(
            std::max<long long>(1, std::min<long long>(by_size, static_cast<long long>(geometry_.sm_count) * per_sm)));
    }

    // --- Lloyd cuda-shared, large d and k: the int8 filter-and-verify assignment.
    bool uses_gemm_filter() const {
        return config_.algorithm == Algorithm::Lloyd && config_.int8_filter && shared_variant() &&
               gemm_filter_applies(k_, d_) && quantised_points_.get() != nullptr;
    }
    // The shift m (the data mean in T), the scale s, and the quantised data with
    // ‖q_x‖² and δ_x. Device memory too short for the n·padded_d int8 copy: no
    // filter (the exact kernel), not a failed run.
    void prepare_quantised_points() {
        quantised_points_.release();
        point_qnorms_.release();
        point_slack_.release();
        shift_.release();
        // Before the centroids: k is not known yet, so the shape test is on d alone.
        if (config_.algorithm != Algorithm::Lloyd || !config_.int8_filter || config_.variant == KernelVariant::Global ||
            !int8_mma_ || d_ < kGemmMinD || d_ > kGemmMaxD)
            return;
        std::vector<double> sum(static_cast<std::size_t>(d_), 0.0);
        for (long long i = 0; i < n_; ++i)
            for (int j = 0; j < d_; ++j) sum[j] += (*source_)(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
        std::vector<T> mean(sum.size());
        double largest = 0.0;  // max |x_j − m_j| (a hint only: δ is computed honestly for any s)
        for (std::size_t j = 0; j < sum.size(); ++j) {
            mean[j] = static_cast<T>(sum[j] / static_cast<double>(n_));
            if (!std::isfinite(static_cast<double>(mean[j]))) mean[j] = T(0);  // any shift is sound; keep it finite
            const double m = static_cast<double>(mean[j]);
            largest = std::max({largest, std::abs(data_high_[j] - m), std::abs(data_low_[j] - m)});
        }
        quantisation_scale_ = quantisation_scale(largest);
        try {
            shift_.allocate(mean.size(), "the data shift");
            quantised_points_.allocate(static_cast<std::size_t>(n_) * quantised_width(d_), "the quantised points");
            point_qnorms_.allocate(static_cast<std::size_t>(n_), "the quantised point norms");
            point_slack_.allocate(static_cast<std::size_t>(n_), "the point quantisation errors");
        } catch (const Error&) {
            quantised_points_.release();
            point_qnorms_.release();
            point_slack_.release();
            shift_.release();
            return;
        }
        KMS_CUDA_CHECK(cudaMemcpy(shift_.get(), mean.data(), mean.size() * sizeof(T), cudaMemcpyHostToDevice));
        KMS_CUDA_CHECK(cudaDeviceSynchronize());  // the pageable copies may still be in flight
        launch_quantise_points<T>(points_.get(), n_, d_, shift_.get(), quantisation_scale_, quantised_points_.get(),
                                  point_qnorms_.get(), point_slack_.get(), stream_);
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    // scikit-learn's relocation, as the CPU solver does it: each empty cluster takes
    // one of the points farthest from their previous centroid (largest first,
    // lowest index on ties), which leaves its own cluster's sum. Rare: done on the
    // host with a few copies. Returns the distance evaluations spent (n).
    std::uint64_t relocate_empty() {
        const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_),
                          d = static_cast<std::size_t>(d_);
        DeviceBuffer<T> distances;
        distances.allocate(n, "the relocation distances");
        launch_label_distances<T>(points_.get(), n_, d_, current(), labels_.get(), distances.get(), stream_);
        std::vector<T> distance(n);
        std::vector<std::int32_t> label(n);
        std::vector<double> sums(k * d);
        std::vector<long long> counts(k);
        std::vector<T> next_rows(k * d);
        KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data(), distances.get(), n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(label.data(), labels_.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(sums.data(), workspace_.sums.get(), sums.size() * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(counts.data(), workspace_.counts.get(), k * sizeof(long long),
                                       cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(next_rows.data(), next(), next_rows.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                       stream_));
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<std::size_t> empty_ids;
        for (std::size_t c = 0; c < k; ++c)
            if (counts[c] == 0) empty_ids.push_back(c);
        first_empty_count_ = static_cast<int>(empty_ids.size());
        const std::size_t take = std::min(empty_ids.size(), n);
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                          [&](std::size_t a, std::size_t b) {
                              return distance[a] > distance[b] || (distance[a] == distance[b] && a < b);
                          });
        for (std::size_t e = 0; e < take; ++e) {
            const std::size_t far = order[e], target = empty_ids[e];
            const std::size_t from = static_cast<std::size_t>(label[far]);
            for (std::size_t t = 0; t < d; ++t) {
                const T x = static_cast<T>((*source_)(far, t));
                sums[from * d + t] -= static_cast<double>(x);
                sums[target * d + t] = static_cast<double>(x);
                next_rows[target * d + t] = x;
            }
            counts[target] = 1;
            if (--counts[from] > 0)
                for (std::size_t t = 0; t < d; ++t)
                    next_rows[from * d + t] = static_cast<T>(sums[from * d + t] / static_cast<double>(counts[from]));
        }
        KMS_CUDA_CHECK(cudaMemcpyAsync(next(), next_rows.data(), next_rows.size() * sizeof(T), cudaMemcpyHostToDevice,
                                       stream_));
        // Shifts of the relocated centroids (the counts on the device still say which were empty).
        launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                               shift_exact_.get(), false, stream_);
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host vectors must outlive the copy
        return static_cast<std::uint64_t>(n);
    }

    SolverConfig config_;
    Geometry geometry_;
    int blocks_per_sm_ = 1;
    cudaStream_t stream_ = nullptr;
    Event ev_start_, ev_bounds_, ev_assign_, ev_update_, ev_end_;

    std::shared_ptr<const Matrix<double>> source_;
    long long n_ = 0;
    int d_ = 0, k_ = 0;
    double tol_absolute_ = 0.0;
    Matrix<double> initial_;
    std::vector<double> data_low_, data_high_;

    DeviceBuffer<T> points_;
    DeviceBuffer<T> centroids_[2];
    int centroid_buffer_ = 0;
    DeviceBuffer<std::int32_t> labels_;
    DeviceBuffer<std::uint8_t> status_;
    DeviceBuffer<T> shift_upper_;
    DeviceBuffer<double> shift_exact_;
    DeviceBuffer<double> inertia_blocks_;
    DeviceBuffer<DeviceIterationRecord> record_;
    DeviceBuffer<double> scalar_;
    UpdateWorkspace workspace_;
    // Bounds (Hamerly, Elkan).
    DeviceBuffer<T> upper_, lower_, nearest_half_, cc_half_;
    DeviceBuffer<Lower> lower_k_;
    DeviceBuffer<std::int32_t> stamp_;
    DeviceBuffer<double> shift_table_;
    int shift_row_ = 0;
    float lower_scale_ = 1.0f;
    bool bounds_valid_ = false;
    int first_empty_count_ = -1;
    // int8 filter (Lloyd cuda-shared): shift m, quantised rows, ‖q‖², δ (centroids: + their max), the
    // uncertified points.
    DeviceBuffer<T> shift_;
    DeviceBuffer<std::int8_t> quantised_points_, quantised_centroids_;
    DeviceBuffer<std::int32_t> point_qnorms_, centroid_qnorms_;
    DeviceBuffer<float> point_slack_, centroid_slack_;
    double quantisation_scale_ = 1.0;
    bool int8_mma_ = false;
    DeviceBuffer<std::int32_t> unsettled_;
    DeviceBuffer<int2> candidates_;
    bool gemm_active_ = false;  // this run still uses the filter

    int iteration_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;
    mutable std::vector<std::int32_t> host_labels_;
    mutable std::vector<PointStatus> host_status_;
    mutable bool labels_cached_ = false, status_cached_ = false;
};

}  // namespace
}  // namespace cuda

BackendAvailability cuda_availability() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        return {false, std::string("no usable CUDA driver or device: ") + cudaGetErrorString(status)};
    }
    if (count == 0) return {false, "no CUDA device found"};
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return {false, "cannot query CUDA device 0"};
    }
    if (props.major < 7)
        return {false, std::string("CUDA device 0 (") + props.name + ") has compute capability " +
                           std::to_string(props.major) + "." + std::to_string(props.minor) +
                           "; this build needs 7.0 or newer"};
    return {true, {}};
}

std::unique_ptr<Solver> make_cuda_solver(const SolverConfig& config) {
    if (config.backend != Backend::Cuda)
        throw Error("back end " + config.backend_name() + " is not a CUDA back end");
    config.validate();
    int count = 0;
    cuda::check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (config.cuda_device < 0 || config.cuda_device >= count)
        throw Error("CUDA device " + std::to_string(config.cuda_device) + " does not exist (" + std::to_string(count) +
                    " device(s) found)");
    if (config.precision == Precision::F32) return std::make_unique<cuda::CudaSolver<float>>(config);
    return std::make_unique<cuda::CudaSolver<double>>(config);
}

}  // namespace kms
