#pragma once
// What every CUDA solver shares, as CpuSolver<T> does on the CPU side: the data on
// the device, the centroids (double buffer), labels, point status, the update
// (small path and general), empty-cluster relocation, inertia, phase timing, the
// per-iteration record, the step and the stopping rule. An algorithm
// (solvers/cuda_lloyd.cu, cuda_elkan.cu, cuda_hamerly.cu, cuda_yinyang.cu, cuda_exponion.cu) supplies its assignment
// and the state it keeps, through the hooks below. Data, centroids, labels and
// bounds stay on the device; each iteration copies back one small record
// (counters, shift statistics, inertia).
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cuda_common.hpp"
#include "kernels/lloyd_gemm.hpp"
#include "kernels/package_update.hpp"
#include "kms/communicator.hpp"
#include "kernels/update.hpp"
#include "kms/device_matrix.hpp"
#include "kms/matrix.hpp"
#include "kms/solver.hpp"
#include "kms/stats.hpp"

namespace kms::cuda {

class Event {
public:
    // On `device`: an event belongs to the device current when it is made, and the
    // solver's members are made before its constructor makes its device current.
    explicit Event(int device) {
        KMS_CUDA_CHECK(cudaSetDevice(device));
        KMS_CUDA_CHECK(cudaEventCreate(&event_));
    }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_{};
};

template <typename T>
class CudaSolverBase : public Solver {
public:
    explicit CudaSolverBase(const SolverConfig& config);
    ~CudaSolverBase() override;

    const SolverConfig& config() const override { return config_; }
    using Solver::set_data;  // float host data: widened once (Solver::set_data(Matrix<float>)), then the double path
    void set_data(std::shared_ptr<const Matrix<double>> points) override;
    void set_device_data(std::shared_ptr<const DeviceMatrix> points) override;
    // Out of core: the rows read from the file chunk by chunk on every pass, through two
    // page-locked buffers, by the solvers that stream (cuda_streaming.cpp).
    void set_row_source(std::shared_ptr<const RowSource> source, std::size_t first_row, std::size_t rows,
                        std::size_t buffer_bytes) override;
    // A block of rows (one device of --devices, or an MPI rank): the update then
    // sums in the CPU's package tree (kernels/package_update.hpp), combined over
    // the ranks in its fixed order, so every split gives the same bits.
    void set_partition(const RowPartition& partition) override;
    // Streamed: the page-locked host memory the chunks are copied from (double data: the caller's own).
    const void* data_address() const override { return streamed_ ? host_points_.get() : points_data_; }
    void set_initial_centroids(const Matrix<double>& centroids) override;
    void set_sample_weight(std::shared_ptr<const std::vector<double>> weights) override;
    void reset() override;
    IterationStats step() override;
    std::uint64_t finalize_labels() override;
    int iteration() const override { return iteration_; }
    bool converged() const override { return stop_reason_ != StopReason::NotStopped; }
    StopReason stop_reason() const override { return stop_reason_; }
    const std::vector<std::int32_t>& labels() const override;
    Matrix<double> centroids() const override;
    const std::vector<PointStatus>& point_status() const override;
    double inertia() const override;
    const std::int32_t* device_labels() const override { return labels_.get(); }
    const PointStatus* device_point_status() const override {
        return config_.record_point_status ? reinterpret_cast<const PointStatus*>(status_.get()) : nullptr;
    }

protected:
    // --- The algorithm's hooks.
    // A new data set is on the device (points(), data_low_/data_high_/data_sum_ set).
    virtual void prepare_data() {}
    // k is known and the shared buffers are allocated: the algorithm's own.
    virtual void allocate_state() {}
    // The run goes back to iteration 0 (kept state no longer describes the labels).
    virtual void restart() {}
    // Before each assignment, timed as the bounds phase (bounded: centroid separations).
    virtual void before_assign(IterationStats&) {}
    // Labels of every point for current(); counters into record_. fused: the
    // assignment kernel also does the small-path update (see fuses_small_update()).
    virtual void assign(bool fused, IterationStats& stats) = 0;
    // Lloyd's assignment kernel can sum for the small-path update; the bounded
    // ones leave it to a kernel of its own.
    virtual bool fuses_small_update() const { return false; }
    // The new centroids are current() (bounded: the cumulative shift row).
    virtual void after_update() {}
    // The iteration's counters are back on the host.
    virtual void after_record(const DeviceCounters&, const IterationStats&) {}
    // Yinyang: its number of centroid groups (IterationStats::groups); 0 without groups.
    virtual std::uint32_t centroid_groups() const { return 0; }

    // Shared-memory or global-memory kernels: as configured; Auto asks the algorithm
    // (shared_pays()), from what measured faster (docs/gpu-benchmark.md).
    bool shared_variant() const {
        if (config_.variant != KernelVariant::Auto) return config_.variant == KernelVariant::Shared;
        return shared_pays();
    }
    // Auto: whether this algorithm's shared-memory kernels are the faster at this
    // shape (global elsewhere).
    virtual bool shared_pays() const { return false; }
    // Whether this algorithm runs on points streamed from page-locked host memory
    // (decide_streaming()): the registry's word (kms::solver_traits).
    bool streams_points() const;
    // Device bytes per point that a streamed run keeps besides the chunks (the label,
    // the status; the bounded solvers add their bounds and lists).
    virtual double streamed_state_per_point() const { return 4 + 1; }
    // Lloyd's int8 filter: on, a GPU with int8 mma.sync (sm_80+), not forced to global kernels.
    bool int8_filter_possible() const {
        return config_.gemm_filter && compute_major_ >= 8 && config_.variant != KernelVariant::Global && !streamed_;
    }

    void activate() const { KMS_CUDA_CHECK(cudaSetDevice(config_.cuda_device)); }
    // The rows the assignment reads now: all of them, or (streamed) the chunk on the
    // device; their labels and status are the view's slices of the run's.
    bool streamed() const { return streamed_; }
    const T* view_points() const { return view_points_; }
    long long view_rows() const { return view_rows_; }
    long long view_first() const { return view_first_; }  // the view's first row among the run's
    std::int32_t* view_labels() const { return labels_.get() + view_first_; }
    std::uint8_t* view_status() const { return status_ ? status_.get() + view_first_ : nullptr; }
    // The points in T on the device: the solver's copy, or the caller's device memory read in place.
    const T* points() const { return points_data_; }
    bool has_data() const { return points_data_ != nullptr || streamed_; }
    // Sample weights on the device (nullptr: unweighted): in T for the update (as the
    // CPU solver multiplies in T), in double for the inertia.
    bool weighted() const { return weights_.get() != nullptr; }
    const T* update_weights() const {
        if constexpr (std::is_same_v<T, double>) return weights_.get();
        else return weights_float_.get();
    }
    T* current() const { return centroids_[centroid_buffer_].get(); }
    T* next() const { return centroids_[centroid_buffer_ ^ 1].get(); }
    // Where the small-path update (run by the summing kernel's last block) writes.
    SmallUpdate<T> small_update();

    SolverConfig config_;
    Geometry geometry_;
    int compute_major_ = 0;  // the device's compute capability (major)
    cudaStream_t stream_ = nullptr;

    std::shared_ptr<const Matrix<double>> source_;           // host data (set_data), or
    std::shared_ptr<const DeviceMatrix> device_source_;     // device data (set_device_data)
    long long n_ = 0;
    int d_ = 0, k_ = 0;
    Matrix<double> initial_;
    std::vector<double> data_low_, data_high_, data_sum_;  // per-coordinate range and sum of the data

    DeviceBuffer<T> points_;          // the solver's copy of the points (unless read in place)
    const T* points_data_ = nullptr;  // what the kernels read: points_ or the caller's device memory
    DeviceBuffer<std::int32_t> labels_;
    DeviceBuffer<std::uint8_t> status_;
    DeviceBuffer<T> shift_upper_;  // k: this step's centroid shifts, rounded up
    DeviceBuffer<DeviceIterationRecord> record_;
    UpdateWorkspace workspace_;

private:
    // Rows summed as one unit of the package tree: the block, or a streamed chunk of
    // whole packages. Its cover's values are cover_[cover_begin, cover_end).
    struct Chunk {
        long long first = 0, rows = 0;  // within the block
        PackageGeometry geometry;
        std::size_t cover_begin = 0, cover_end = 0;
        std::vector<PackageTreeLevel> levels;
    };
    void decide_streaming();
    void plan_chunks(const PackageLayout& layout);
    // body(chunk, its points on the device) for every chunk in order: streamed, the
    // next chunk's copy runs on copy_stream_ while this one's kernels run.
    template <typename Body>
    void for_each_chunk(Body&& body) const;
    void set_view(const Chunk& chunk, const T* points) const;
    void queue_chunk_sums(const Chunk& chunk, const T* chunk_points);
    void allocate();
    void clear_run();
    void set_grid();
    std::uint64_t relocate_empty();
    void forget_data();
    void prepare_workspace();
    // The package update: the CPU's sums, so the CPU's bits. Partitioned and streamed
    // runs always; one device where one_device_package_update() says (package_update.hpp:
    // where the rounds path applies), weighted runs of those shapes too (so unit weights
    // give the unweighted bits).
    bool package_update() const { return partition_.comm != nullptr || streamed_ || device_package_update(); }
    bool device_package_update() const { return !partition_.comm && !streamed_ && device_packages_possible(); }
    bool device_packages_possible() const { return one_device_package_update(k_, d_, sizeof(T)); }
    // Where the tree's root stays on the device (no host round trip): one device,
    // unweighted (the host applies the empty-weight rule), no Farthest relocation
    // (that reads the root's sums on the host).
    bool root_on_device() const {
        return device_package_update() && !weighted() && config_.empty_policy != EmptyClusterPolicy::Farthest;
    }
    void begin_package_update();
    void finish_package_update();
    std::uint64_t relocate_empty_by_packages();
    DeviceBuffer<T> queue_relocation_inputs(std::vector<T>& distance, std::vector<std::int32_t>& label);
    void upload_relocated(const std::vector<T>& next_rows);
    double package_inertia() const;

    RowPartition partition_;
    long long first_row_ = 0, global_n_ = 0;  // the block's first row, the data set's rows
    PackageGeometry package_geometry_;
    std::size_t packages_ = 1;
    mutable PackageWorkspace package_workspace_;
    std::vector<PackageSpan> cover_, all_covers_;  // this block's covers (its chunks'); every rank's, in order
    std::vector<Chunk> chunks_;
    // The covers' sums (and weights) and counts, filled chunk by chunk: page-locked, so
    // their copies are queued without the host waiting for each chunk's kernels.
    PinnedHostMemory cover_values_, cover_counts_;
    std::size_t cover_capacity_ = 0;  // bytes of each
    // Streaming: the points in page-locked host memory (in T), two device buffers of
    // chunk_rows_, the copy stream and the events that order buffer reuse.
    bool streamed_ = false;
    long long chunk_rows_ = 0;
    PinnedHostMemory host_points_;
    // Out of core: the file's rows (this block's from row_source_first_), read chunk by
    // chunk into staging_[c % 2] within row_source_bytes_ for both.
    std::shared_ptr<const RowSource> row_source_;
    std::size_t row_source_first_ = 0, row_source_bytes_ = 0;
    PinnedHostMemory staging_[2];
    void prepare_streams();  // the copy stream and the buffers' events
    DeviceBuffer<T> chunk_buffers_[2];
    cudaStream_t copy_stream_ = nullptr;
    std::unique_ptr<Event> uploaded_[2], released_[2];
    mutable const T* view_points_ = nullptr;
    mutable long long view_rows_ = 0, view_first_ = 0;
    // The last package update's root on the host: Σ (x − old), counts, weights (relocation).
    std::vector<double> root_sums_, root_weights_;
    std::vector<std::int64_t> root_counts_;
    std::vector<long long> upload_counts_;  // the update's counts (outlives its asynchronous copy)

    std::shared_ptr<const std::vector<double>> weight_source_;
    DeviceBuffer<double> weights_;
    DeviceBuffer<float> weights_float_;  // float solvers: the weights rounded to float

    int blocks_per_sm_ = 1;
    Event ev_start_{config_.cuda_device}, ev_bounds_{config_.cuda_device}, ev_assign_{config_.cuda_device},
        ev_update_{config_.cuda_device}, ev_end_{config_.cuda_device};
    double tol_absolute_ = 0.0;
    DeviceBuffer<T> centroids_[2];
    int centroid_buffer_ = 0;
    DeviceBuffer<double> shift_exact_;
    DeviceBuffer<double> inertia_blocks_;
    DeviceBuffer<double> scalar_;
    int first_empty_count_ = -1;
    int iteration_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;
    mutable std::vector<std::int32_t> host_labels_;
    mutable std::vector<PointStatus> host_status_;
    mutable bool labels_cached_ = false, status_cached_ = false;
};

extern template class CudaSolverBase<float>;
extern template class CudaSolverBase<double>;

// How a solver is made: the algorithm's device buffers are freed before the base
// destructor runs, so the solver's device is made current here, first.
template <class Algorithm>
class OnDevice final : public Algorithm {
public:
    using Algorithm::Algorithm;
    ~OnDevice() override { cudaSetDevice(this->config_.cuda_device); }
};

// kms::Error unless the configuration's device exists (cuda_backend.cu).
void check_solver_device(const SolverConfig& config);

// The factory a solver file registers (kms/algorithms.hpp): `Algorithm<T>` on the
// configuration's device, in its precision.
template <template <typename> class Algorithm>
std::unique_ptr<Solver> make_on_device(const SolverConfig& config) {
    check_solver_device(config);
    if (config.precision == Precision::F32) return std::make_unique<OnDevice<Algorithm<float>>>(config);
    return std::make_unique<OnDevice<Algorithm<double>>>(config);
}

}  // namespace kms::cuda
