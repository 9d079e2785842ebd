#pragma once
// Exponion on the device: Hamerly's two bounds per point, and per centroid its
// kExponionNear nearest others sorted each step (kernels/exponion.cu). Shallot
// (cuda_shallot.cu) is this solver with a tracked second centroid per point.
#include <algorithm>
#include <cstdint>

#include "kernels/bounds.hpp"
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

template <typename T>
class ExponionCuda : public CudaBoundedSolver<T> {
public:
    using CudaBoundedSolver<T>::CudaBoundedSolver;

protected:
    // Shallot's hooks: its per-point state, and its arguments to the ball walk.
    virtual void allocate_walk_state() {}
    virtual void walk_args(BoundedArgs<T>& /*args*/, long long /*first_row*/) {}

private:
    bool shared_pays() const override { return true; }  // all k centroids staged once per block (when they fit)

    int near_count() const { return std::max(1, std::min(this->k_ - 1, kExponionNear)); }

    void allocate_lower_bounds() override {
        const std::size_t n = static_cast<std::size_t>(this->n_), k = static_cast<std::size_t>(this->k_);
        lower_.allocate(n, "the lower bounds");
        walk_list_.allocate(n, "the list of points to walk");
        walk_count_.allocate(1, "the count of points to walk");
        search_list_.allocate(n, "the list of points to search");
        search_count_.allocate(1, "the count of points to search");
        near_.allocate(k * static_cast<std::size_t>(near_count()), "the sorted rows of near centroids");
        rest_half_.allocate(k, "the bounds beyond the near centroids");
        rows_built_ = false;
        allocate_walk_state();
    }

    // The rows kernel computes every centroid pair (both ways), and the nearest other
    // centroid with them: no separate separation kernel.
    std::uint64_t separations(T* nearest_half) override {
        launch_exponion_rows<T>(this->current(), this->k_, this->d_, near_count(), rows_built_, near_.get(),
                                rest_half_.get(), nearest_half, this->stream_);
        rows_built_ = true;
        return static_cast<std::uint64_t>(this->k_) * (this->k_ - 1);
    }

    void launch_assign(BoundedArgs<T>& args, long long first_row) override {
        args.lower = lower_.get() + first_row;
        args.walk_list = walk_list_.get();
        args.walk_count = walk_count_.get();
        args.search_list = search_list_.get();
        args.search_count = search_count_.get();
        args.near = near_.get();
        args.rest_half = rest_half_.get();
        args.near_count = near_count();
        // Elkan's measured break-even (past k/16 distances a thread's walk costs more than
        // the tiled row), taken over, not measured for Exponion; small k: a walk never
        // costs more than the k distances of a full search.
        args.defer_after = tiled_search_pays(this->k_) ? std::max(1, this->k_ / 16) : this->k_;
        walk_args(args, first_row);
        launch_exponion<T>(args, this->shared_variant(), this->geometry_, this->stream_);
    }

    DeviceBuffer<T> lower_;
    DeviceBuffer<std::int32_t> walk_list_;    // the points Hamerly's test leaves to the ball walk
    DeviceBuffer<unsigned long long> walk_count_;
    DeviceBuffer<std::int32_t> search_list_;  // the points whose ball is larger than their row: full search
    DeviceBuffer<unsigned long long> search_count_;
    DeviceBuffer<unsigned long long> near_;
    DeviceBuffer<float> rest_half_;
    bool rows_built_ = false;  // near_ holds a build's rows for this k (any centroids): a candidate set
};

}  // namespace kms::cuda
