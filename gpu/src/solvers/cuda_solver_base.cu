// The part of the CUDA solver every algorithm shares (cuda_solver_base.hpp).
#include "solvers/cuda_solver_base.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>

#include "kernels/device_data.hpp"
#include "kms/error.hpp"
#include "kms/solver_support.hpp"

namespace kms::cuda {

namespace {
float elapsed(const Event& from, const Event& to) {
    float ms = 0.0f;
    KMS_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}
}  // namespace

template <typename T>
CudaSolverBase<T>::CudaSolverBase(const SolverConfig& config) : config_(config) {
    activate();
    cudaDeviceProp props{};
    KMS_CUDA_CHECK(cudaGetDeviceProperties(&props, config_.cuda_device));
    geometry_.sm_count = props.multiProcessorCount;
    compute_major_ = props.major;
    geometry_.block = config_.cuda_block_size > 0 ? config_.cuda_block_size : 256;
    blocks_per_sm_ = update_blocks_per_sm(geometry_.block);
    KMS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    record_.allocate(1, "the iteration record");
    scalar_.allocate(1, "the inertia result");
}

template <typename T>
CudaSolverBase<T>::~CudaSolverBase() {
    cudaSetDevice(config_.cuda_device);
    if (stream_) cudaStreamDestroy(stream_);
}

template <typename T>
void CudaSolverBase<T>::forget_data() {
    source_.reset();
    device_source_.reset();
    points_data_ = nullptr;
    n_ = 0;
    d_ = 0;
    k_ = 0;
    initial_ = Matrix<double>();
    weight_source_.reset();
    weights_.release();
    weights_float_.release();
}

template <typename T>
void CudaSolverBase<T>::set_data(std::shared_ptr<const Matrix<double>> points) {
    if (!points) throw Error("the data set is empty");
    check_solver_data(*points, config_.precision);
    if (points->rows() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("the CUDA back end takes at most 2^31 - 1 points; this data set has " +
                    std::to_string(points->rows()));
    activate();
    forget_data();
    source_ = std::move(points);
    n_ = static_cast<long long>(source_->rows());
    d_ = static_cast<int>(source_->cols());
    first_row_ = 0;
    global_n_ = n_;
    if (package_update()) {  // a block of a partitioned data set
        first_row_ = static_cast<long long>(partition_.first_row);
        global_n_ = static_cast<long long>(partition_.global_rows);
        if (first_row_ + n_ > global_n_)
            throw Error("rank " + std::to_string(partition_.comm->rank()) + "'s block (rows " +
                        std::to_string(first_row_) + " + " + std::to_string(n_) + ") runs past the data set's " +
                        std::to_string(global_n_) + " rows");
        tol_absolute_ = absolute_tolerance(*source_, config_.tol, partition_);  // collective
    } else {
        tol_absolute_ = absolute_tolerance(*source_, config_.tol);
    }
    points_.allocate(static_cast<std::size_t>(n_) * d_, "the data points");
    if constexpr (std::is_same_v<T, double>) {
        KMS_CUDA_CHECK(cudaMemcpy(points_.get(), source_->data(), source_->size() * sizeof(T),
                                  cudaMemcpyHostToDevice));
    } else {
        const Matrix<float> converted = source_->template cast<float>();
        KMS_CUDA_CHECK(cudaMemcpy(points_.get(), converted.data(), converted.size() * sizeof(float),
                                  cudaMemcpyHostToDevice));
    }
    points_data_ = points_.get();
    set_grid();
    data_low_.assign(d_, std::numeric_limits<double>::infinity());
    data_high_.assign(d_, -std::numeric_limits<double>::infinity());
    data_sum_.assign(d_, 0.0);
    for (long long i = 0; i < n_; ++i)
        for (int j = 0; j < d_; ++j) {
            const double v = (*source_)(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
            data_low_[j] = std::min(data_low_[j], v);
            data_high_[j] = std::max(data_high_[j], v);
            data_sum_[j] += v;
        }
    prepare_data();
    clear_run();
}

// Device data: checked and described on the device (the host never reads it); read
// in place when its element type is T, else converted once into the solver's copy.
template <typename T>
void CudaSolverBase<T>::set_device_data(std::shared_ptr<const DeviceMatrix> points) {
    if (!points || points->rows == 0 || points->cols == 0) throw Error("the data set is empty");
    if (!points->data) throw Error("the device data has no address");
    if (points->rows > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("the CUDA back end takes at most 2^31 - 1 points; this data set has " +
                    std::to_string(points->rows));
    if (package_update()) throw Error("a CUDA run over ranks or several devices takes host data");
    if (points->device >= 0 && points->device != config_.cuda_device)
        throw Error("the data are on CUDA device " + std::to_string(points->device) + ", the solver runs on device " +
                    std::to_string(config_.cuda_device));
    activate();
    cudaPointerAttributes attributes{};
    KMS_CUDA_CHECK(cudaPointerGetAttributes(&attributes, points->data));
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
        throw Error("the device data's address is not CUDA device memory");
    if (attributes.device != config_.cuda_device)
        throw Error("the data are on CUDA device " + std::to_string(attributes.device) +
                    ", the solver runs on device " + std::to_string(config_.cuda_device));
    forget_data();
    // Whatever the data's producer queued on its own streams finishes first.
    KMS_CUDA_CHECK(cudaDeviceSynchronize());
    const long long n = static_cast<long long>(points->rows);
    const int d = static_cast<int>(points->cols);
    const bool as_float = points->element == Precision::F32;
    ColumnStats stats = as_float ? column_stats(static_cast<const float*>(points->data), n, d, stream_)
                                 : column_stats(static_cast<const double*>(points->data), n, d, stream_);
    if (stats.non_finite) throw Error("the data contain NaN or infinite values");
    double max_abs = 0.0;
    for (int j = 0; j < d; ++j) max_abs = std::max({max_abs, std::abs(stats.low[j]), std::abs(stats.high[j])});
    const double limit = coordinate_limit(config_.precision, static_cast<std::size_t>(d));
    if (max_abs > limit)
        throw Error("the data has coordinates up to " + std::to_string(max_abs) + ", too large for " +
                    std::string(to_string(config_.precision)) + " distances (limit " + std::to_string(limit) +
                    "): rescale the data" + (config_.precision == Precision::F32 ? " or use --precision f64" : ""));
    n_ = n;
    d_ = d;
    first_row_ = 0;
    global_n_ = n;
    // absolute_tolerance()'s formula over the device's fixed-order sums.
    if (config_.tol == 0.0) {
        tol_absolute_ = 0.0;
    } else {
        double mean_variance = 0.0;
        for (int j = 0; j < d; ++j) mean_variance += stats.squared_deviation[j] / static_cast<double>(n);
        tol_absolute_ = config_.tol * (mean_variance / static_cast<double>(d));
    }
    data_low_ = std::move(stats.low);
    data_high_ = std::move(stats.high);
    data_sum_ = std::move(stats.sum);
    const bool same_type = as_float == std::is_same_v<T, float>;
    if (same_type) {
        points_.release();
        points_data_ = static_cast<const T*>(points->data);
    } else {
        points_.allocate(static_cast<std::size_t>(n_) * d_, "the data points (converted)");
        if (as_float) launch_convert(static_cast<const float*>(points->data), n_ * d_, points_.get(), stream_);
        else launch_convert(static_cast<const double*>(points->data), n_ * d_, points_.get(), stream_);
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        points_data_ = points_.get();
    }
    device_source_ = std::move(points);
    set_grid();
    prepare_data();
    clear_run();
}

template <typename T>
void CudaSolverBase<T>::set_initial_centroids(const Matrix<double>& centroids) {
    if (!has_data()) throw Error("set the data before the initial centroids");
    check_initial_centroids(centroids, static_cast<std::size_t>(global_n_), static_cast<std::size_t>(d_),
                            config_.precision);
    activate();
    initial_ = centroids;
    k_ = static_cast<int>(centroids.rows());
    allocate();
    clear_run();
}

// Weighted runs take the general update path (weighted piece sums and per-cluster
// weight sums), the weighted relocation and inertia; the unweighted path is untouched.
template <typename T>
void CudaSolverBase<T>::set_sample_weight(std::shared_ptr<const std::vector<double>> weights) {
    if (!has_data()) throw Error("set the data before the sample weights");
    if (weights && weights->size() != static_cast<std::size_t>(n_))
        throw Error(std::to_string(weights->size()) + " sample weights for " + std::to_string(n_) + " points");
    activate();
    weight_source_ = std::move(weights);
    weights_.release();
    weights_float_.release();
    if (weight_source_) {
        weights_.allocate(static_cast<std::size_t>(n_), "the sample weights");
        KMS_CUDA_CHECK(cudaMemcpy(weights_.get(), weight_source_->data(), n_ * sizeof(double),
                                  cudaMemcpyHostToDevice));
        if constexpr (std::is_same_v<T, float>) {
            const std::vector<float> rounded(weight_source_->begin(), weight_source_->end());
            weights_float_.allocate(static_cast<std::size_t>(n_), "the sample weights");
            KMS_CUDA_CHECK(cudaMemcpy(weights_float_.get(), rounded.data(), n_ * sizeof(float),
                                      cudaMemcpyHostToDevice));
        }
    }
    if (k_ > 0) {
        prepare_workspace();
        KMS_CUDA_CHECK(cudaDeviceSynchronize());
    }
    clear_run();
}

template <typename T>
void CudaSolverBase<T>::reset() {
    activate();
    clear_run();
}

template <typename T>
IterationStats CudaSolverBase<T>::step() {
    if (!has_data()) throw Error("no data set");
    if (k_ == 0) throw Error("no initial centroids");
    activate();
    IterationStats stats;
    stats.iteration = iteration_ + 1;
    KMS_CUDA_CHECK(cudaMemsetAsync(record_.get(), 0, sizeof(DeviceIterationRecord), stream_));
    KMS_CUDA_CHECK(cudaEventRecord(ev_start_.get(), stream_));
    before_assign(stats);
    KMS_CUDA_CHECK(cudaEventRecord(ev_bounds_.get(), stream_));

    // Small (k, d): the update runs in the last block of the kernel that sums
    // (Lloyd: the assignment itself; its time then counts as assignment).
    // Weighted runs always take the general path.
    const bool packages = package_update();
    const bool small = !packages && !weighted() && small_update_variant(k_, d_) >= 0;
    const bool fused = small && fuses_small_update();
    assign(fused, stats);
    KMS_CUDA_CHECK(cudaEventRecord(ev_assign_.get(), stream_));

    if (packages) {
        update_by_packages();
    } else if (small && !fused) {
        launch_small_sums_update<T>(points(), n_, d_, labels_.get(), k_, current(), small_update(), workspace_,
                                    geometry_, stream_);
    } else if (!small) {
        launch_accumulate<T>(points(), n_, d_, labels_.get(), k_, workspace_, stream_, update_weights());
        launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                               shift_exact_.get(), true, stream_, weighted());
    }
    if (config_.empty_policy == EmptyClusterPolicy::Farthest) {
        DeviceShiftStats shifts{};
        KMS_CUDA_CHECK(cudaMemcpyAsync(&shifts, &record_.get()->shifts, sizeof(shifts), cudaMemcpyDeviceToHost,
                                       stream_));
        KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (shifts.empty_clusters > 0)
            stats.point_centroid_distances += packages ? relocate_empty_by_packages() : relocate_empty();
    }
    centroid_buffer_ ^= 1;
    after_update();
    KMS_CUDA_CHECK(cudaEventRecord(ev_update_.get(), stream_));

    if (config_.compute_inertia && !packages)
        launch_inertia<T>(points(), n_, d_, current(), labels_.get(), inertia_blocks_.get(),
                          &record_.get()->inertia, geometry_, stream_, weights_.get());
    KMS_CUDA_CHECK(cudaEventRecord(ev_end_.get(), stream_));
    DeviceIterationRecord host{};
    KMS_CUDA_CHECK(cudaMemcpyAsync(&host, record_.get(), sizeof(host), cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));

    stats.time_bounds_ms = elapsed(ev_start_, ev_bounds_);
    stats.time_assign_ms = elapsed(ev_bounds_, ev_assign_);
    stats.time_update_ms = elapsed(ev_assign_, ev_update_);
    // The step as the CLI measures it; the inertia (asked for by the studio's chart) apart.
    stats.time_total_ms = elapsed(ev_start_, ev_update_);
    if (config_.compute_inertia) stats.time_inertia_ms = elapsed(ev_update_, ev_end_);
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
    after_record(host.counters);
    if (packages) {
        if (config_.compute_inertia) {
            const auto start = std::chrono::steady_clock::now();
            stats.inertia = package_inertia();
            stats.time_inertia_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        sum_over_ranks(stats);
    }

    labels_cached_ = status_cached_ = false;
    ++iteration_;
    stop_reason_ = evaluate_stop(config_, stats, tol_absolute_);
    return stats;
}

template <typename T>
std::uint64_t CudaSolverBase<T>::finalize_labels() {
    if (!has_data() || k_ == 0) throw Error("no data or no centroids");
    activate();
    KMS_CUDA_CHECK(cudaMemsetAsync(record_.get(), 0, sizeof(DeviceIterationRecord), stream_));
    IterationStats unused;  // a relabelling is not an iteration
    before_assign(unused);
    assign(false, unused);
    DeviceCounters counters{};
    KMS_CUDA_CHECK(cudaMemcpyAsync(&counters, &record_.get()->counters, sizeof(counters), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    labels_cached_ = status_cached_ = false;
    std::uint64_t changed = counters.labels_changed;
    if (package_update()) partition_.comm->sum({&changed, 1});
    return changed;
}

template <typename T>
const std::vector<std::int32_t>& CudaSolverBase<T>::labels() const {
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

template <typename T>
Matrix<double> CudaSolverBase<T>::centroids() const {
    if (k_ == 0) return Matrix<double>();
    activate();
    std::vector<T> values(static_cast<std::size_t>(k_) * d_);
    KMS_CUDA_CHECK(cudaMemcpy(values.data(), current(), values.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return Matrix<T>(k_, d_, std::move(values)).template cast<double>();
}

template <typename T>
const std::vector<PointStatus>& CudaSolverBase<T>::point_status() const {
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

template <typename T>
double CudaSolverBase<T>::inertia() const {
    if (!has_data() || k_ == 0) return 0.0;
    activate();
    if (package_update()) return package_inertia();
    launch_inertia<T>(points(), n_, d_, current(), labels_.get(), inertia_blocks_.get(), scalar_.get(),
                      geometry_, stream_, weights_.get());
    double value = 0.0;
    KMS_CUDA_CHECK(cudaMemcpyAsync(&value, scalar_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return value;
}

template <typename T>
SmallUpdate<T> CudaSolverBase<T>::small_update() {
    return SmallUpdate<T>{next(), workspace_.sums.get(), workspace_.counts.get(), shift_upper_.get(),
                          shift_exact_.get(), &record_.get()->shifts, workspace_.ticket.get()};
}

template <typename T>
void CudaSolverBase<T>::allocate() {
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_);
    set_grid();
    centroids_[0].allocate(k * d_, "the centroids");
    centroids_[1].allocate(k * d_, "the centroids");
    labels_.allocate(n, "the labels");
    if (config_.record_point_status) status_.allocate(n, "the point status");
    shift_upper_.allocate(k, "the centroid shifts");
    shift_exact_.allocate(k, "the centroid shifts");
    inertia_blocks_.allocate(static_cast<std::size_t>(geometry_.grid), "the inertia partial sums");
    if (package_update()) {
        // The whole data set's packages (the CPU's layout); this block holds whole ones.
        const PackageLayout layout = package_layout(static_cast<std::size_t>(global_n_), k, static_cast<std::size_t>(d_),
                                                    config_.packages);
        packages_ = layout.packages;
        PackageGeometry& g = package_geometry_;
        g.first_row = first_row_;
        g.package_size = static_cast<long long>(layout.package_size);
        g.package_begin = std::min<long long>(static_cast<long long>(packages_), first_row_ / g.package_size);
        g.package_end = std::min<long long>(static_cast<long long>(packages_),
                                            (first_row_ + n_ + g.package_size - 1) / g.package_size);
        if (first_row_ % g.package_size != 0 || (first_row_ + n_ != global_n_ && (first_row_ + n_) % g.package_size != 0))
            throw Error("rank " + std::to_string(partition_.comm->rank()) + "'s rows [" + std::to_string(first_row_) +
                        ", " + std::to_string(first_row_ + n_) + ") do not start and end on the update's packages of " +
                        std::to_string(g.package_size) + " points: split the rows with kms::partition_rows");
        const auto begin = static_cast<std::size_t>(g.package_begin), end = static_cast<std::size_t>(g.package_end);
        cover_ = package_tree_cover(packages_, begin, end);
        local_levels_ = package_tree_local_levels(packages_, begin, end);
        std::vector<std::int64_t> mine;
        for (const PackageSpan& span : cover_)
            mine.insert(mine.end(), {static_cast<std::int64_t>(span.first), static_cast<std::int64_t>(span.last)});
        const std::vector<std::int64_t> all = partition_.comm->allgather(std::span<const std::int64_t>(mine));
        all_covers_.clear();
        for (std::size_t i = 0; i + 1 < all.size(); i += 2)
            all_covers_.push_back({static_cast<std::size_t>(all[i]), static_cast<std::size_t>(all[i + 1])});
    }
    prepare_workspace();
    allocate_state();
    KMS_CUDA_CHECK(cudaDeviceSynchronize());  // set-up work ran outside the solver's stream
}

template <typename T>
void CudaSolverBase<T>::clear_run() {
    iteration_ = 0;
    stop_reason_ = StopReason::NotStopped;
    labels_cached_ = status_cached_ = false;
    first_empty_count_ = -1;
    restart();
    if (k_ == 0) return;
    KMS_CUDA_CHECK(cudaMemset(labels_.get(), 0xff, static_cast<std::size_t>(n_) * sizeof(std::int32_t)));
    centroid_buffer_ = 0;
    const Matrix<T> start = initial_.template cast<T>();
    KMS_CUDA_CHECK(cudaMemcpy(current(), start.data(), start.size() * sizeof(T), cudaMemcpyHostToDevice));
    KMS_CUDA_CHECK(cudaDeviceSynchronize());
}

// One wave of the grid-stride kernels: for the small (k, d) path, of the kernel
// that runs this shape (all small-path kernels then share its point order).
template <typename T>
void CudaSolverBase<T>::set_grid() {
    const int per_sm = k_ > 0 && small_update_variant(k_, d_) >= 0
                           ? small_blocks_per_sm<T>(k_, d_, geometry_.block)
                           : blocks_per_sm_;
    const long long by_size = (n_ + geometry_.block - 1) / geometry_.block;
    geometry_.grid = static_cast<int>(
        std::max<long long>(1, std::min<long long>(by_size, static_cast<long long>(geometry_.sm_count) * per_sm)));
}

template <typename T>
void CudaSolverBase<T>::set_partition(const RowPartition& partition) {
    if (!partition.comm) throw Error("a row partition needs a communicator");
    partition_ = partition;
}

template <typename T>
void CudaSolverBase<T>::prepare_workspace() {
    prepare_update_workspace(workspace_, n_, k_, d_, geometry_, weighted(),
                             package_update() && !direct_package_path(k_, d_, weighted()));
    if (package_update())
        prepare_package_workspace(package_workspace_, n_, k_, d_, sizeof(T), package_geometry_, weighted());
}

// The CPU's update (kernels/package_update.hpp): this block's packages summed and
// combined as far as they go alone, their tree's cover to the host, every rank's
// cover combined in the tree's order (finish_package_tree), the root back to the
// device, then c = T(old + Σ / count).
template <typename T>
void CudaSolverBase<T>::update_by_packages() {
    const PackageGeometry& g = package_geometry_;
    const std::size_t k = static_cast<std::size_t>(k_), kd = k * static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    launch_package_sums<T>(points(), n_, d_, labels_.get(), current(), k_, with_weights ? update_weights() : nullptr,
                           workspace_, package_workspace_, g, stream_);
    for (const PackageTreeLevel& level : local_levels_)
        launch_package_tree_level(package_workspace_, k_, d_, with_weights,
                                  static_cast<long long>(level.nodes.front()) - g.package_begin,
                                  static_cast<long long>(level.nodes.size()), static_cast<long long>(level.stride),
                                  stream_);
    const std::size_t width = kd + (with_weights ? k : 0);  // doubles per cover node
    std::vector<double> values(cover_.size() * width);
    std::vector<std::int64_t> counts(cover_.size() * k);
    static_assert(sizeof(long long) == sizeof(std::int64_t));
    for (std::size_t i = 0; i < cover_.size(); ++i) {
        const std::size_t local = cover_[i].first - static_cast<std::size_t>(g.package_begin);
        KMS_CUDA_CHECK(cudaMemcpyAsync(values.data() + i * width, package_workspace_.package_sums.get() + local * kd,
                                       kd * sizeof(double), cudaMemcpyDeviceToHost, stream_));
        if (with_weights)
            KMS_CUDA_CHECK(cudaMemcpyAsync(values.data() + i * width + kd,
                                           package_workspace_.package_weights.get() + local * k, k * sizeof(double),
                                           cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(counts.data() + i * k, package_workspace_.package_counts.get() + local * k,
                                       k * sizeof(long long), cudaMemcpyDeviceToHost, stream_));
    }
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<double> all_values = partition_.comm->allgather(std::span<const double>(values));
    std::vector<std::int64_t> all_counts = partition_.comm->allgather(std::span<const std::int64_t>(counts));
    if (all_values.size() != all_covers_.size() * width || all_counts.size() != all_covers_.size() * k)
        throw Error("the ranks' package sums do not match their covers");
    finish_package_tree(packages_, all_covers_, [&](std::size_t dst, std::size_t src) {
        for (std::size_t e = 0; e < width; ++e) all_values[dst * width + e] += all_values[src * width + e];
        for (std::size_t c = 0; c < k; ++c) all_counts[dst * k + c] += all_counts[src * k + c];
    });
    root_sums_.assign(all_values.begin(), all_values.begin() + static_cast<std::ptrdiff_t>(kd));
    root_weights_.assign(all_values.begin() + static_cast<std::ptrdiff_t>(kd),
                         all_values.begin() + static_cast<std::ptrdiff_t>(width));
    root_counts_.assign(all_counts.begin(), all_counts.begin() + static_cast<std::ptrdiff_t>(k));
    // The update's counts: a cluster of no positive weight is empty (scikit-learn's rule).
    upload_counts_.resize(k);
    for (std::size_t c = 0; c < k; ++c)
        upload_counts_[c] = with_weights && !(root_weights_[c] > 0.0) ? 0 : root_counts_[c];
    KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.sums.get(), root_sums_.data(), kd * sizeof(double),
                                   cudaMemcpyHostToDevice, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.counts.get(), upload_counts_.data(), k * sizeof(long long),
                                   cudaMemcpyHostToDevice, stream_));
    if (with_weights)
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.weight_sums.get(), root_weights_.data(), k * sizeof(double),
                                       cudaMemcpyHostToDevice, stream_));
    launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                           shift_exact_.get(), true, stream_, with_weights, true);
}

// Both relocations' inputs: each point's squared distance to its (previous) centroid
// and its label, copies to the host queued on the stream (the returned buffer must
// live until the stream is synchronised).
template <typename T>
DeviceBuffer<T> CudaSolverBase<T>::queue_relocation_inputs(std::vector<T>& distance, std::vector<std::int32_t>& label) {
    const std::size_t n = static_cast<std::size_t>(n_);
    DeviceBuffer<T> distances;
    distances.allocate(n, "the relocation distances");
    launch_label_distances<T>(points(), n_, d_, current(), labels_.get(), distances.get(), stream_);
    distance.resize(n);
    label.resize(n);
    KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data(), distances.get(), n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(label.data(), labels_.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_));
    return distances;
}

// The CPU's relocation (solver_support.hpp) over every rank's rows, from the
// package update's root on the host.
template <typename T>
std::uint64_t CudaSolverBase<T>::relocate_empty_by_packages() {
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_),
                      d = static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    std::vector<T> distance, previous(k * d), next_rows(k * d);
    std::vector<std::int32_t> label;
    DeviceBuffer<T> distances = queue_relocation_inputs(distance, label);
    KMS_CUDA_CHECK(cudaMemcpyAsync(previous.data(), current(), previous.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(next_rows.data(), next(), next_rows.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<std::size_t> empty_ids =
        with_weights ? empty_clusters<double>(root_weights_) : empty_clusters<std::int64_t>(root_counts_);
    first_empty_count_ = static_cast<int>(empty_ids.size());
    // The weights as the update used them (in T).
    std::vector<T> weights;
    if (with_weights) weights.assign(weight_source_->begin(), weight_source_->end());
    const std::vector<RelocationMover<T>> movers = farthest_movers<T, double>(
        distance, label, source_->data(), d, with_weights ? weights.data() : nullptr, empty_ids.size(),
        static_cast<std::size_t>(first_row_), partition_.comm.get());
    relocate_to_movers<T>(empty_ids, movers, d, previous.data(), next_rows.data(), root_sums_, root_counts_,
                          with_weights ? root_weights_ : std::vector<double>());
    KMS_CUDA_CHECK(cudaMemcpyAsync(next(), next_rows.data(), next_rows.size() * sizeof(T), cudaMemcpyHostToDevice,
                                   stream_));
    launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                           shift_exact_.get(), false, stream_);
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host vectors must outlive the copy
    return static_cast<std::uint64_t>(n);
}

// Each package's inertia on the device, then every rank's packages in order on the host.
template <typename T>
double CudaSolverBase<T>::package_inertia() const {
    launch_package_inertia<T>(points(), n_, d_, current(), labels_.get(), weights_.get(), package_workspace_,
                              package_geometry_, stream_);
    std::vector<double> mine(static_cast<std::size_t>(package_geometry_.local_packages()));
    KMS_CUDA_CHECK(cudaMemcpyAsync(mine.data(), package_workspace_.package_inertia.get(), mine.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<double> all = partition_.comm->allgather(std::span<const double>(mine));
    double total = 0.0;
    for (double value : all) total += value;
    return total;
}

// The per-point counts of a step, summed over the ranks (exact).
template <typename T>
void CudaSolverBase<T>::sum_over_ranks(IterationStats& stats) const {
    std::uint64_t counts[] = {stats.point_centroid_distances, stats.bound_skips, stats.labels_changed,
                              stats.verified_points};
    partition_.comm->sum(counts);
    stats.point_centroid_distances = counts[0];
    stats.bound_skips = counts[1];
    stats.labels_changed = counts[2];
    stats.verified_points = counts[3];
}

// scikit-learn's relocation, as the CPU solver does it: each empty cluster takes
// one of the points farthest from their previous centroid (largest first,
// lowest index on ties), which leaves its own cluster's sum. Weighted runs: the
// empty clusters are those of no positive weight (their count is 0 on the device)
// and the moved point takes its weight along. Rare: done on the host with a few
// copies. Returns the distance evaluations spent (n).
template <typename T>
std::uint64_t CudaSolverBase<T>::relocate_empty() {
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_),
                      d = static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    std::vector<T> distance;
    std::vector<std::int32_t> label;
    DeviceBuffer<T> distances = queue_relocation_inputs(distance, label);
    std::vector<double> sums(k * d);
    std::vector<long long> counts(k);
    std::vector<double> cluster_weight(with_weights ? k : 0);
    std::vector<T> next_rows(k * d);
    KMS_CUDA_CHECK(cudaMemcpyAsync(sums.data(), workspace_.sums.get(), sums.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(counts.data(), workspace_.counts.get(), k * sizeof(long long),
                                   cudaMemcpyDeviceToHost, stream_));
    if (with_weights)
        KMS_CUDA_CHECK(cudaMemcpyAsync(cluster_weight.data(), workspace_.weight_sums.get(), k * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
    KMS_CUDA_CHECK(cudaMemcpyAsync(next_rows.data(), next(), next_rows.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<std::size_t> empty_ids = empty_clusters<long long>(counts);
    first_empty_count_ = static_cast<int>(empty_ids.size());
    const std::vector<std::size_t> order = farthest_points<T>(distance, empty_ids.size());
    const std::size_t take = order.size();
    std::vector<T> x(d);
    for (std::size_t e = 0; e < take; ++e) {
        const std::size_t far = order[e], target = empty_ids[e];
        const std::size_t from = static_cast<std::size_t>(label[far]);
        KMS_CUDA_CHECK(cudaMemcpy(x.data(), points() + far * d, d * sizeof(T), cudaMemcpyDeviceToHost));
        // The weight as the update used it (in T).
        const double w = with_weights ? static_cast<double>(static_cast<T>((*weight_source_)[far])) : 1.0;
        for (std::size_t t = 0; t < d; ++t) {
            if (with_weights) {
                sums[from * d + t] -= w * static_cast<double>(x[t]);
                sums[target * d + t] = w * static_cast<double>(x[t]);
            } else {
                sums[from * d + t] -= static_cast<double>(x[t]);
                sums[target * d + t] = static_cast<double>(x[t]);
            }
            next_rows[target * d + t] = x[t];
        }
        counts[target] = 1;
        bool from_left = --counts[from] > 0;
        if (with_weights) {
            cluster_weight[target] = w;
            cluster_weight[from] -= w;
            from_left = cluster_weight[from] > 0.0;
        }
        if (from_left) {
            const double divisor = with_weights ? cluster_weight[from] : static_cast<double>(counts[from]);
            for (std::size_t t = 0; t < d; ++t)
                next_rows[from * d + t] = static_cast<T>(sums[from * d + t] / divisor);
        }
    }
    KMS_CUDA_CHECK(cudaMemcpyAsync(next(), next_rows.data(), next_rows.size() * sizeof(T), cudaMemcpyHostToDevice,
                                   stream_));
    // Shifts of the relocated centroids (the counts on the device still say which were empty).
    launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                           shift_exact_.get(), false, stream_);
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host vectors must outlive the copy
    return static_cast<std::uint64_t>(n);
}

template class CudaSolverBase<float>;
template class CudaSolverBase<double>;

}  // namespace kms::cuda
