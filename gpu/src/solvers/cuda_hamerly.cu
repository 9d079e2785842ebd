// Hamerly on the device: one lower bound per point (to the second nearest
// centroid) beside the shared upper bound.
#include <memory>

#include "kernels/bounds.hpp"
#include "kms/algorithms.hpp"
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

namespace {

template <typename T>
class HamerlyCuda : public CudaBoundedSolver<T> {
public:
    using CudaBoundedSolver<T>::CudaBoundedSolver;

private:
    bool shared_pays() const override { return tiled_search_pays(this->k_); }  // k > 32: the tiled searches stage centroids

    void allocate_lower_bounds() override {
        const std::size_t n = static_cast<std::size_t>(this->n_);
        lower_.allocate(n, "the lower bounds");
        if (tiled_search_pays(this->k_)) {
            search_list_.allocate(n, "the list of points to search");
            search_count_.allocate(1, "the count of points to search");
        }
    }

    void launch_assign(BoundedArgs<T>& args, long long first_row) override {
        args.lower = lower_.get() + first_row;
        args.search_list = search_list_.get();
        args.search_count = search_count_.get();
        launch_hamerly<T>(args, this->shared_variant(), this->geometry_, this->stream_);
    }

    DeviceBuffer<T> lower_;
    DeviceBuffer<std::int32_t> search_list_;  // large k: the points the bounds leave to the tiled search
    DeviceBuffer<unsigned long long> search_count_;
};

}  // namespace

}  // namespace kms::cuda

KMS_SOLVER_REGISTRATION(hamerly_cuda) {
    kms::register_solver(kms::Algorithm::Hamerly, kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::HamerlyCuda>,
                         {.streams_points = true});
}
