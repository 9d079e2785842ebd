// The bounds Hamerly and Elkan share (cuda_bounded_solver.hpp).
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

namespace {
// Rows of the cumulative shift table before the bounds are rebuilt by a full search.
constexpr int kMaxShiftRows = 512;
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
}

template <typename T>
void CudaBoundedSolver<T>::before_assign(IterationStats& stats) {
    if (!bounds_valid_) return;
    launch_centroid_separations<T>(this->current(), this->k_, this->d_, nearest_half_.get(),
                                   centroid_half_distances(), this->stream_);
    stats.centroid_centroid_distances = static_cast<std::uint64_t>(this->k_) * (this->k_ - 1) / 2;
}

template <typename T>
void CudaBoundedSolver<T>::assign(bool, IterationStats&) {
    BoundedArgs<T> args{};
    args.points = this->points();
    args.n = this->n_;
    args.d = this->d_;
    args.centroids = this->current();
    args.k = this->k_;
    args.labels = this->labels_.get();
    args.status = this->status_.get();
    args.counters = &this->record_.get()->counters;
    args.upper = upper_.get();
    args.stamp = stamp_.get();
    args.cumulative_shift = shift_table_.get();
    args.first = !bounds_valid_;
    if (args.first) shift_row_ = 0;
    args.now = shift_row_;
    args.nearest_half = nearest_half_.get();
    launch_assign(args);
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
}

template class CudaBoundedSolver<float>;
template class CudaBoundedSolver<double>;

}  // namespace kms::cuda
