#pragma once
// What Hamerly and Elkan share on the device: the upper bound per point, kept
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
    // Its lower bounds into args, and its kernel.
    virtual void launch_assign(BoundedArgs<T>& args) = 0;

private:
    void allocate_state() final;
    void restart() final;
    void before_assign(IterationStats& stats) final;
    void assign(bool fused, IterationStats& stats) final;
    void after_update() final;

    DeviceBuffer<T> upper_, nearest_half_;
    DeviceBuffer<std::int32_t> stamp_;
    DeviceBuffer<double> shift_table_;
    int shift_row_ = 0;
    bool bounds_valid_ = false;
};

extern template class CudaBoundedSolver<float>;
extern template class CudaBoundedSolver<double>;

}  // namespace kms::cuda
