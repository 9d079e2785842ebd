// The bounds Hamerly, Elkan and Yinyang share (cuda_bounded_solver.hpp).
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

namespace {
// may_rebuild_every_step(): bounded steps in a row slower than the last rebuilding step
// before every step rebuilds (the first bounded steps after a rebuild move the most
// points), and rebuilding steps before a bounded one is timed again.
constexpr int kSlowerStepsToRebuild = 2, kRebuildRetrySteps = 8;
}  // namespace

template <typename T>
void CudaBoundedSolver<T>::allocate_state() {
    const std::size_t n = static_cast<std::size_t>(this->n_), k = static_cast<std::size_t>(this->k_);
    upper_.allocate(n, "the upper bounds");
    stamp_.allocate(n, "the bound stamps");
    nearest_half_.allocate(k, "the centroid separations");
    shift_table_.allocate(static_cast<std::size_t>(kMaxShiftRows) * (k + 1), "the cumulative shift table");
    KMS_CUDA_CHECK(cudaMemset(shift_table_.get(), 0, (k + 1) * sizeof(double)));  // row 0: nothing moved yet
    allocate_lower_bounds();
}

template <typename T>
void CudaBoundedSolver<T>::restart() {
    bounds_valid_ = false;
    shift_row_ = 0;
    rebuilding_ = false;
    build_ms_ = -1.0;
    slower_bounded_steps_ = steps_since_switch_ = 0;
}

template <typename T>
std::uint64_t CudaBoundedSolver<T>::separations(T* nearest_half) {
    launch_centroid_separations<T>(this->current(), this->k_, this->d_, nearest_half, centroid_half_distances(),
                                   this->stream_);
    return static_cast<std::uint64_t>(this->k_) * (this->k_ - 1) / 2;
}

template <typename T>
void CudaBoundedSolver<T>::before_assign(IterationStats& stats) {
    if (!bounds_valid_) return;
    stats.centroid_centroid_distances = separations(nearest_half_.get());
}

// The view's rows: all of them, or (streamed) one chunk at a time, each with its
// slice of the per-point state; the step's first chunk decides whether it builds.
template <typename T>
void CudaBoundedSolver<T>::assign(bool, IterationStats&) {
    const long long first_row = this->view_first();
    if (first_row == 0) {
        built_this_step_ = !bounds_valid_;
        if (built_this_step_) shift_row_ = 0;
    }
    BoundedArgs<T> args{};
    args.points = this->view_points();
    args.n = this->view_rows();
    args.d = this->d_;
    args.centroids = this->current();
    args.k = this->k_;
    args.labels = this->view_labels();
    args.status = this->view_status();
    args.counters = &this->record_.get()->counters;
    args.upper = upper_.get() + first_row;
    args.stamp = stamp_.get() + first_row;
    args.cumulative_shift = shift_table_.get();
    args.first = built_this_step_;
    args.now = shift_row_;
    args.nearest_half = nearest_half_.get();
    launch_assign(args, first_row);
    bounds_valid_ = true;
}

// The bounds follow the centroids through a cumulative table of shift upper
// bounds; when it is full, the next assignment rebuilds them by a full search.
template <typename T>
void CudaBoundedSolver<T>::after_update() {
    if (shift_row_ + 1 >= kMaxShiftRows) {
        bounds_valid_ = false;
        return;
    }
    ++shift_row_;
    launch_cumulative_row<T>(shift_table_.get(), shift_row_, this->k_, this->shift_upper_.get(), this->stream_);
    after_shift_row(shift_row_);
}

// A step that rebuilds the bounds gives the same labels as a bounded one (both are
// exact), so the choice is only speed: rebuild every step while bounded steps are
// slower than rebuilding ones, timing a bounded step again every kRebuildRetrySteps.
template <typename T>
void CudaBoundedSolver<T>::after_record(const DeviceCounters&, const IterationStats& stats) {
    if (!may_rebuild_every_step()) return;
    const double ms = stats.time_bounds_ms + stats.time_assign_ms;
    if (built_this_step_) {
        build_ms_ = ms;
    } else {
        slower_bounded_steps_ = build_ms_ >= 0.0 && ms > build_ms_ ? slower_bounded_steps_ + 1 : 0;
    }
    ++steps_since_switch_;
    if (rebuilding_ ? steps_since_switch_ >= kRebuildRetrySteps : slower_bounded_steps_ >= kSlowerStepsToRebuild) {
        rebuilding_ = !rebuilding_;
        slower_bounded_steps_ = steps_since_switch_ = 0;
    }
    if (rebuilding_) bounds_valid_ = false;  // the next step searches all k
}

template class CudaBoundedSolver<float>;
template class CudaBoundedSolver<double>;

}  // namespace kms::cuda
