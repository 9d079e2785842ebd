// Shallot (Borgelt, IDA 2020) on the device: Exponion (solvers/cuda_exponion.hpp)
// with one more uint32 per point, the tracked second centroid. A point Hamerly's
// test leaves open also takes its distance to the tracked second; the ball is
// centred on the nearer of the pair, its radius m1 + min(m2, m1 + s(z)), as on
// the CPU (core/src/solvers/cpu/shallot.cpp), and walked in that centroid's sorted
// row (kernels/exponion.cu). The centre and radius decide only how much is
// walked; the walk's stop and the bounds are proved as Exponion's, so the labels
// are Lloyd's.
#include "kms/algorithms.hpp"
#include "solvers/cuda_exponion.hpp"

namespace kms::cuda {

namespace {

template <typename T>
class ShallotCuda : public ExponionCuda<T> {
public:
    using ExponionCuda<T>::ExponionCuda;

private:
    void allocate_walk_state() override {
        second_.allocate(static_cast<std::size_t>(this->n_), "the tracked second centroids");
    }
    // Streamed: the tracked second beside Exponion's state.
    double streamed_state_per_point() const override { return ExponionCuda<T>::streamed_state_per_point() + 4; }

    void walk_args(BoundedArgs<T>& args, long long first_row) override {
        args.second = second_.get() + first_row;
        // A step that builds the bounds forgets the tracked seconds: what a run walks
        // (its distance counts) does not depend on the run before it.
        if (args.first)
            KMS_CUDA_CHECK(cudaMemsetAsync(args.second, 0xff, static_cast<std::size_t>(args.n) * sizeof(std::uint32_t),
                                           this->stream_));
    }

    DeviceBuffer<std::uint32_t> second_;  // per point: the tracked second centroid (kNoSecond: none yet)
};

}  // namespace

}  // namespace kms::cuda

KMS_SOLVER_REGISTRATION(shallot_cuda) {
    kms::register_solver(kms::Algorithm("shallot"), kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::ShallotCuda>,
                         {.streams_points = true});
}
