// The part of the CUDA solver every algorithm shares (cuda_solver_base.hpp).
#include "solvers/cuda_solver_base.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

// Device bytes a run keeps per point besides its coordinates, at most: the label,
// the point status, and the update's sort (sorted keys, index, sorted index,
// segment flags and their scan).
constexpr double kStatePerPoint = 4 + 1 + 20;
// Streamed: what stays on the device per point (label, status).
constexpr double kStreamedStatePerPoint = 4 + 1;
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
    if (copy_stream_) {
        cudaStreamSynchronize(copy_stream_);
        cudaStreamDestroy(copy_stream_);
    }
    if (stream_) cudaStreamDestroy(stream_);
    host_points_.release();  // after the last copy that read it
}

template <typename T>
void CudaSolverBase<T>::forget_data() {
    if (copy_stream_) KMS_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));
    host_points_.release();  // unregistered before its owner may free it
    chunk_buffers_[0].release();
    chunk_buffers_[1].release();
    streamed_ = false;
    chunks_.clear();
    view_points_ = nullptr;
    view_rows_ = view_first_ = 0;
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
    if (partition_.comm) {  // a block of a partitioned data set
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
    decide_streaming();
    if (streamed_) {
        // The points stay on the host, page-locked so their copies overlap the kernels:
        // double data of a whole data set registered in place; float data rounded once,
        // and a block of --devices copied, into page-locked memory of the solver's own
        // (the blocks are views of one array, whose pageable copies other ranks' seeding
        // is making while a block would be registered: the driver refuses such copies).
        const std::size_t values = source_->size();
        if (values == 0) {  // a rank without rows: nothing to copy
        } else if (std::is_same_v<T, double> && !partition_.comm) {
            host_points_.register_memory(source_->data(), values * sizeof(double), "the streamed points");
        } else {
            host_points_.allocate(values * sizeof(T), "the streamed points");
            T* out = static_cast<T*>(host_points_.get());
            const double* in = source_->data();
            for (std::size_t i = 0; i < values; ++i) out[i] = static_cast<T>(in[i]);
        }
        if (!copy_stream_) KMS_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
        for (int b = 0; b < 2; ++b) {
            if (!uploaded_[b]) uploaded_[b] = std::make_unique<Event>(config_.cuda_device);
            if (!released_[b]) released_[b] = std::make_unique<Event>(config_.cuda_device);
        }
        points_.release();
        points_data_ = nullptr;
    } else {
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
        view_points_ = points_data_;
        view_rows_ = n_;
    }
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
    if (partition_.comm) throw Error("a CUDA run over ranks or several devices takes host data");
    if (config_.stream_chunk > 0)
        throw Error("--stream-chunk streams host data to the device; these points are in device memory already");
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
    double max_abs = 0.0, spread = 0.0;
    for (int j = 0; j < d; ++j) {
        max_abs = std::max({max_abs, std::abs(stats.low[j]), std::abs(stats.high[j])});
        spread = std::max(spread, stats.high[j] - stats.low[j]);
    }
    check_coordinate_range(max_abs, spread, static_cast<std::size_t>(d), config_.precision, "the data");
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
    view_points_ = points_data_;
    view_rows_ = n_;
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
    if (streamed_) {
        // Each chunk is assigned and summed while the next one is copied: the
        // assignment phase's time holds the copies and the chunks' package sums.
        begin_package_update();
        for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
            set_view(chunk, chunk_points);
            assign(false, stats);
            queue_chunk_sums(chunk, chunk_points);
        });
        KMS_CUDA_CHECK(cudaEventRecord(ev_assign_.get(), stream_));
        finish_package_update();
    } else {
        assign(fused, stats);
        KMS_CUDA_CHECK(cudaEventRecord(ev_assign_.get(), stream_));
        if (packages) {  // one chunk: a block of --devices or MPI ranks, or one device's rows
            begin_package_update();
            queue_chunk_sums(chunks_.front(), points());
            finish_package_update();
        } else if (small && !fused) {
            launch_small_sums_update<T>(points(), n_, d_, labels_.get(), k_, current(), small_update(), workspace_,
                                        geometry_, stream_);
        } else if (!small) {
            launch_accumulate<T>(points(), n_, d_, labels_.get(), k_, workspace_, stream_, update_weights());
            launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                                   shift_exact_.get(), true, stream_, weighted());
        }
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
    stats.verified_points = host.counters.gemm_pairs + host.counters.gemm_full_searches;
    stats.gemm_certified = host.counters.gemm_certified;
    stats.group_skips = host.counters.group_skips;
    stats.groups = centroid_groups();
    if (streamed_) stats.streamed_bytes = static_cast<std::uint64_t>(n_) * d_ * sizeof(T);
    after_record(host.counters, stats);
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
    if (streamed_) {
        for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
            set_view(chunk, chunk_points);
            assign(false, unused);
        });
    } else {
        assign(false, unused);
    }
    DeviceCounters counters{};
    KMS_CUDA_CHECK(cudaMemcpyAsync(&counters, &record_.get()->counters, sizeof(counters), cudaMemcpyDeviceToHost,
                                   stream_));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    labels_cached_ = status_cached_ = false;
    std::uint64_t changed = counters.labels_changed;
    if (partition_.comm) partition_.comm->sum({&changed, 1});
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
    if (partition_.comm || streamed_ || device_packages_possible()) {  // (weights may come or go later)
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
            throw Error("rank " + std::to_string(partition_.comm ? partition_.comm->rank() : 0) + "'s rows [" +
                        std::to_string(first_row_) + ", " + std::to_string(first_row_ + n_) +
                        ") do not start and end on the update's packages of " + std::to_string(g.package_size) +
                        " points: split the rows with kms::partition_rows");
        plan_chunks(layout);
        if (partition_.comm) {
            std::vector<std::int64_t> mine;
            for (const PackageSpan& span : cover_)
                mine.insert(mine.end(), {static_cast<std::int64_t>(span.first), static_cast<std::int64_t>(span.last)});
            const std::vector<std::int64_t> all = partition_.comm->allgather(std::span<const std::int64_t>(mine));
            all_covers_.clear();
            for (std::size_t i = 0; i + 1 < all.size(); i += 2)
                all_covers_.push_back({static_cast<std::size_t>(all[i]), static_cast<std::size_t>(all[i + 1])});
        } else {
            all_covers_ = cover_;
        }
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
    // The package update's buffers serve one chunk at a time (the first is the largest).
    const bool packages = package_update() && !chunks_.empty();
    const long long rows = packages ? chunks_.front().rows : n_;
    prepare_update_workspace(workspace_, rows, k_, d_, geometry_, weighted(),
                             packages && !unsorted_package_sums(k_, d_, weighted(), sizeof(T)));
    if (packages)
        prepare_package_workspace(package_workspace_, rows, k_, d_, sizeof(T), chunks_.front().geometry, weighted());
}

// Whether the points fit on the device beside what a run keeps per point (at most);
// if not, or when asked (--stream-chunk), Lloyd streams them from host memory and
// the other solvers refuse, naming the sizes.
template <typename T>
void CudaSolverBase<T>::decide_streaming() {
    streamed_ = false;
    std::size_t free_bytes = 0, total_bytes = 0;
    KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double rows = static_cast<double>(n_), usable = 0.9 * static_cast<double>(free_bytes);
    const double point_bytes = rows * d_ * sizeof(T), state_bytes = rows * kStatePerPoint;
    const std::string device = "CUDA device " + std::to_string(config_.cuda_device);
    if (config_.stream_chunk == 0) {
        if (point_bytes + state_bytes <= usable) return;
        if (!streams_points())
            throw Error("the " + std::to_string(n_) + " points need " + gib(point_bytes) + " of device memory (" +
                        gib(point_bytes + state_bytes) + " with the run's per-point state) and " + device + " has " +
                        gib(static_cast<double>(free_bytes)) + " free; only Lloyd streams its points from host "
                        "memory (--stream-chunk): use --solver lloyd, --precision f32, or spread the rows over "
                        "several devices (--devices) or MPI ranks");
    }
    if (rows * kStreamedStatePerPoint > usable)
        throw Error("even streamed, the labels of " + std::to_string(n_) + " points need " +
                    gib(rows * kStreamedStatePerPoint) + " of device memory and " + device + " has " +
                    gib(static_cast<double>(free_bytes)) + " free: spread the rows over several devices (--devices) "
                    "or MPI ranks");
    streamed_ = true;
}

// The block's chunks: one (the block) unless streamed; streamed, chunks of whole
// packages, --stream-chunk rows rounded up, or (automatic) as large as a quarter
// of the free device memory allows for two buffers and a chunk's update.
template <typename T>
void CudaSolverBase<T>::plan_chunks(const PackageLayout& layout) {
    chunk_buffers_[0].release();
    chunk_buffers_[1].release();
    const long long package_size = static_cast<long long>(layout.package_size);
    long long rows = std::max<long long>(n_, 1);
    if (streamed_) {
        long long asked = config_.stream_chunk;
        if (asked == 0) {
            std::size_t free_bytes = 0, total_bytes = 0;
            KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
            const double per_row = 2.0 * d_ * sizeof(T) + kStatePerPoint;
            asked = static_cast<long long>(0.25 * static_cast<double>(free_bytes) / per_row);
        }
        rows = std::min(rows, std::max<long long>(1, (asked + package_size - 1) / package_size) * package_size);
    }
    chunk_rows_ = std::min(rows, n_);
    chunks_.clear();
    cover_.clear();
    const long long packages = static_cast<long long>(layout.packages);
    for (long long first = 0; first == 0 || first < n_; first += rows) {
        Chunk chunk;
        chunk.first = first;
        chunk.rows = std::min(rows, n_ - first);
        PackageGeometry& g = chunk.geometry;
        g.first_row = first_row_ + first;
        g.package_size = package_size;
        g.package_begin = std::min(packages, g.first_row / package_size);
        g.package_end = std::min(packages, (g.first_row + chunk.rows + package_size - 1) / package_size);
        const auto begin = static_cast<std::size_t>(g.package_begin), end = static_cast<std::size_t>(g.package_end);
        const std::vector<PackageSpan> cover = package_tree_cover(layout.packages, begin, end);
        chunk.cover_begin = cover_.size();
        cover_.insert(cover_.end(), cover.begin(), cover.end());
        chunk.cover_end = cover_.size();
        chunk.levels = package_tree_local_levels(layout.packages, begin, end);
        chunks_.push_back(std::move(chunk));
    }
    if (streamed_ && chunk_rows_ > 0)
        for (DeviceBuffer<T>& buffer : chunk_buffers_)
            buffer.allocate(static_cast<std::size_t>(chunk_rows_) * d_, "a streamed chunk of the points");
}

template <typename T>
void CudaSolverBase<T>::set_view(const Chunk& chunk, const T* chunk_points) const {
    view_points_ = chunk_points;
    view_rows_ = chunk.rows;
    view_first_ = chunk.first;
}

template <typename T>
template <typename Body>
void CudaSolverBase<T>::for_each_chunk(Body&& body) const {
    if (!streamed_) {
        for (const Chunk& chunk : chunks_) body(chunk, points_data_ + chunk.first * d_);
        return;
    }
    const T* host = static_cast<const T*>(host_points_.get());
    // Chunk c goes to buffer c % 2 once the kernels of chunk c − 2 (the buffer's last
    // reader) are done; the kernels of chunk c wait for its copy.
    const auto upload = [&](std::size_t c) {
        const Chunk& chunk = chunks_[c];
        const std::size_t b = c % 2;
        KMS_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, released_[b]->get(), 0));
        if (chunk.rows > 0)
            KMS_CUDA_CHECK(cudaMemcpyAsync(chunk_buffers_[b].get(), host + chunk.first * d_,
                                           static_cast<std::size_t>(chunk.rows) * d_ * sizeof(T),
                                           cudaMemcpyHostToDevice, copy_stream_));
        KMS_CUDA_CHECK(cudaEventRecord(uploaded_[b]->get(), copy_stream_));
    };
    upload(0);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
        if (c + 1 < chunks_.size()) upload(c + 1);
        const std::size_t b = c % 2;
        KMS_CUDA_CHECK(cudaStreamWaitEvent(stream_, uploaded_[b]->get(), 0));
        body(chunks_[c], static_cast<const T*>(chunk_buffers_[b].get()));
        KMS_CUDA_CHECK(cudaEventRecord(released_[b]->get(), stream_));
    }
}

// The CPU's update (kernels/package_update.hpp): each chunk's packages summed and
// combined as far as they go alone, their tree's cover to the host; every rank's
// covers combined in the tree's order (finish_package_tree), the root back to the
// device, then c = T(old + Σ / count).
template <typename T>
void CudaSolverBase<T>::begin_package_update() {
    if (root_on_device()) return;  // no covers go to the host
    const std::size_t k = static_cast<std::size_t>(k_), width = k * d_ + (weighted() ? k : 0);
    const std::size_t bytes = std::max<std::size_t>(1, cover_.size() * width) * sizeof(double);
    if (bytes > cover_capacity_) {
        cover_values_.allocate(bytes, "the package covers' sums");
        cover_counts_.allocate(bytes, "the package covers' counts");  // k ≤ width values of 8 bytes
        cover_capacity_ = bytes;
    }
}

template <typename T>
void CudaSolverBase<T>::queue_chunk_sums(const Chunk& chunk, const T* chunk_points) {
    const PackageGeometry& g = chunk.geometry;
    const std::size_t k = static_cast<std::size_t>(k_), kd = k * static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    launch_package_sums<T>(chunk_points, chunk.rows, d_, labels_.get() + chunk.first, current(), k_,
                           with_weights ? update_weights() + chunk.first : nullptr, workspace_, package_workspace_, g,
                           stream_);
    launch_package_tree(package_workspace_, k_, d_, with_weights, chunk.levels, g.package_begin, g.package_end,
                        stream_);
    const std::size_t width = kd + (with_weights ? k : 0);  // doubles per cover node
    static_assert(sizeof(long long) == sizeof(std::int64_t));
    if (root_on_device()) return;
    double* values = static_cast<double*>(cover_values_.get());
    std::int64_t* counts = static_cast<std::int64_t*>(cover_counts_.get());
    for (std::size_t i = chunk.cover_begin; i < chunk.cover_end; ++i) {
        const std::size_t local = cover_[i].first - static_cast<std::size_t>(g.package_begin);
        KMS_CUDA_CHECK(cudaMemcpyAsync(values + i * width,
                                       package_workspace_.package_sums.get() + local * kd, kd * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
        if (with_weights)
            KMS_CUDA_CHECK(cudaMemcpyAsync(values + i * width + kd,
                                           package_workspace_.package_weights.get() + local * k, k * sizeof(double),
                                           cudaMemcpyDeviceToHost, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(counts + i * k, package_workspace_.package_counts.get() + local * k,
                                       k * sizeof(long long), cudaMemcpyDeviceToHost, stream_));
    }
}

template <typename T>
void CudaSolverBase<T>::finish_package_update() {
    const std::size_t k = static_cast<std::size_t>(k_), kd = k * static_cast<std::size_t>(d_);
    const bool with_weights = weighted();
    const std::size_t width = kd + (with_weights ? k : 0);
    if (root_on_device()) {
        // One chunk of every package: its tree levels left the root in package 0.
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.sums.get(), package_workspace_.package_sums.get(),
                                       kd * sizeof(double), cudaMemcpyDeviceToDevice, stream_));
        KMS_CUDA_CHECK(cudaMemcpyAsync(workspace_.counts.get(), package_workspace_.package_counts.get(),
                                       k * sizeof(long long), cudaMemcpyDeviceToDevice, stream_));
        launch_apply_update<T>(current(), next(), k_, d_, workspace_, shift_upper_.get(), &record_.get()->shifts,
                               shift_exact_.get(), true, stream_, false, true);
        return;
    }
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::span<const double> values(static_cast<const double*>(cover_values_.get()), cover_.size() * width);
    const std::span<const std::int64_t> counts(static_cast<const std::int64_t*>(cover_counts_.get()), cover_.size() * k);
    std::vector<double> all_values;
    std::vector<std::int64_t> all_counts;
    if (partition_.comm) {
        all_values = partition_.comm->allgather(values);
        all_counts = partition_.comm->allgather(counts);
    } else {
        all_values.assign(values.begin(), values.end());
        all_counts.assign(counts.begin(), counts.end());
    }
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
    distance.resize(n);
    label.resize(n);
    if (streamed_) {  // chunk by chunk into the host vector (the copy to pageable memory waits)
        distances.allocate(static_cast<std::size_t>(chunk_rows_), "the relocation distances");
        for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
            launch_label_distances<T>(chunk_points, chunk.rows, d_, current(), labels_.get() + chunk.first,
                                      distances.get(), stream_);
            KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data() + chunk.first, distances.get(), chunk.rows * sizeof(T),
                                           cudaMemcpyDeviceToHost, stream_));
        });
    } else {
        distances.allocate(n, "the relocation distances");
        launch_label_distances<T>(points(), n_, d_, current(), labels_.get(), distances.get(), stream_);
        KMS_CUDA_CHECK(cudaMemcpyAsync(distance.data(), distances.get(), n * sizeof(T), cudaMemcpyDeviceToHost,
                                       stream_));
    }
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

// Each package's inertia on the device (chunk by chunk), then every rank's packages
// in order on the host.
template <typename T>
double CudaSolverBase<T>::package_inertia() const {
    std::vector<double> mine(static_cast<std::size_t>(package_geometry_.local_packages()));
    for_each_chunk([&](const Chunk& chunk, const T* chunk_points) {
        launch_package_inertia<T>(chunk_points, chunk.rows, d_, current(), labels_.get() + chunk.first,
                                  weights_ ? weights_.get() + chunk.first : nullptr, package_workspace_,
                                  chunk.geometry, stream_);
        KMS_CUDA_CHECK(cudaMemcpyAsync(mine.data() + (chunk.geometry.package_begin - package_geometry_.package_begin),
                                       package_workspace_.package_inertia.get(),
                                       chunk.geometry.local_packages() * sizeof(double), cudaMemcpyDeviceToHost,
                                       stream_));
    });
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<double> all =
        partition_.comm ? partition_.comm->allgather(std::span<const double>(mine)) : mine;
    double total = 0.0;
    for (double value : all) total += value;
    return total;
}

// The per-point counts of a step, summed over the ranks (exact).
template <typename T>
void CudaSolverBase<T>::sum_over_ranks(IterationStats& stats) const {
    if (!partition_.comm) return;
    std::uint64_t counts[] = {stats.point_centroid_distances, stats.bound_skips, stats.labels_changed,
                              stats.verified_points, stats.streamed_bytes, stats.gemm_certified};
    partition_.comm->sum(counts);
    stats.point_centroid_distances = counts[0];
    stats.bound_skips = counts[1];
    stats.labels_changed = counts[2];
    stats.verified_points = counts[3];
    stats.streamed_bytes = counts[4];
    stats.gemm_certified = counts[5];
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
