#pragma once
// What Hamerly, Elkan and Yinyang share on the device: the upper bound per point, kept
// lazily against a cumulative table of centroid shifts (a point's bounds carry
// the table row they were written at), and the half distance from each centroid
// to its nearest other one. Each algorithm adds its lower bounds and its kernel.
#include <cstdint>

#include "kernels/bounds.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

template <typename T>
class CudaBoundedSolver : public CudaSolverBase<T> {
public:
    using CudaSolverBase<T>::CudaSolverBase;

protected:
    // --- The algorithm's hooks.
    // Its lower bounds, once k is known.
    virtual void allocate_lower_bounds() = 0;
    // The k × k half distances between centroids it wants besides the nearest
    // ones (Elkan), or nullptr.
    virtual T* centroid_half_distances() const { return nullptr; }
    // Its lower bounds into args (their slice from row `first_row` on: streamed, a step
    // assigns chunk by chunk), and its kernel.
    virtual void launch_assign(BoundedArgs<T>& args, long long first_row) = 0;
    // Streamed (--stream-chunk): the upper bound, the stamp, one lower bound and two
    // lists per point beside the label and status (Yinyang adds its group bounds).
    double streamed_state_per_point() const override { return 4 + 1 + 2.0 * sizeof(T) + 4 + 8; }
    // Whether a step that rebuilds the bounds by a full search can be the faster
    // (Elkan: its full search is tiled, while a bounded step that prunes little walks
    // the surviving centroids a thread per point); the run then times both.
    virtual bool may_rebuild_every_step() const { return false; }
    // Row `row` of the cumulative shift table is now the current centroids' (Yinyang
    // appends its group row beside it).
    virtual void after_shift_row(int /*row*/) {}
    // Before a bounded step: half the distance from each centroid to its nearest other
    // into nearest_half (and the k × k table of centroid_half_distances() when given);
    // returns the centroid-centroid distances computed. Exponion finds them while it
    // sorts its rows of near centroids.
    virtual std::uint64_t separations(T* nearest_half);
    // Rows of the cumulative shift tables (the bounds are rebuilt when they fill).
    static constexpr int kMaxShiftRows = 512;

private:
    void allocate_state() final;
    void restart() final;
    void before_assign(IterationStats& stats) final;
    void assign(bool fused, IterationStats& stats) final;
    void after_update() final;
    void after_record(const DeviceCounters& counters, const IterationStats& stats) final;

    DeviceBuffer<T> upper_, nearest_half_;
    DeviceBuffer<std::int32_t> stamp_;
    DeviceBuffer<double> shift_table_;
    int shift_row_ = 0;
    bool bounds_valid_ = false;
    // Rebuilding every step, by the run's timings (may_rebuild_every_step()).
    bool built_this_step_ = false, rebuilding_ = false;
    double build_ms_ = -1.0;     // the last rebuilding step (−1: none yet)
    int slower_bounded_steps_ = 0, steps_since_switch_ = 0;
};

extern template class CudaBoundedSolver<float>;
extern template class CudaBoundedSolver<double>;

}  // namespace kms::cuda
