// Hamerly on the device: one lower bound per point (to the second nearest
// centroid) beside the shared upper bound.
#include <memory>

#include "kernels/bounds.hpp"
#include "solvers/cuda_bounded_solver.hpp"
#include "solvers/cuda_solvers.hpp"

namespace kms::cuda {

namespace {

template <typename T>
class HamerlyCuda : public CudaBoundedSolver<T> {
public:
    using CudaBoundedSolver<T>::CudaBoundedSolver;

private:
    void allocate_lower_bounds() override {
        const std::size_t n = static_cast<std::size_t>(this->n_);
        lower_.allocate(n, "the lower bounds");
        if (tiled_search_pays(this->k_)) {
            search_list_.allocate(n, "the list of points to search");
            search_count_.allocate(1, "the count of points to search");
        }
    }

    void launch_assign(BoundedArgs<T>& args) override {
        args.lower = lower_.get();
        args.search_list = search_list_.get();
        args.search_count = search_count_.get();
        launch_hamerly<T>(args, this->shared_variant(), this->geometry_, this->stream_);
    }

    DeviceBuffer<T> lower_;
    DeviceBuffer<std::int32_t> search_list_;  // large k: the points the bounds leave to the tiled search
    DeviceBuffer<unsigned long long> search_count_;
};

}  // namespace

template <typename T>
std::unique_ptr<Solver> make_hamerly_solver(const SolverConfig& config) {
    return std::make_unique<OnDevice<HamerlyCuda<T>>>(config);
}

template std::unique_ptr<Solver> make_hamerly_solver<float>(const SolverConfig&);
template std::unique_ptr<Solver> make_hamerly_solver<double>(const SolverConfig&);

}  // namespace kms::cuda
