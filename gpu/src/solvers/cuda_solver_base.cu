// The part of the CUDA solver every algorithm shares (cuda_solver_base.hpp): data,
// centroids, the step, labels. Streaming the points is cuda_streaming.cpp (and
// cuda_chunks.hpp), the CPU's package update cuda_package_update.cpp, the empty
// clusters' relocation cuda_relocation.cpp.
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
#include "solvers/cuda_chunks.hpp"
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
    row_source_.reset();
    staging_[0].release();
    staging_[1].release();
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
        prepare_streams();
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
    stats.verified_points = host.counters.gemm_listed + host.counters.gemm_full_searches;
    stats.gemm_certified = host.counters.gemm_certified;
    stats.gemm_listed = host.counters.gemm_listed;
    stats.group_skips = host.counters.group_skips;
    stats.second_centred = host.counters.second_centred;
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
        if (partition_.comm) sum_over_ranks(stats, *partition_.comm);
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
        g.packages = static_cast<long long>(packages_);
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

template class CudaSolverBase<float>;
template class CudaSolverBase<double>;

}  // namespace kms::cuda
