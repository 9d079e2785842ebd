// Elkan on the device: n × k lower bounds (compact: half for float data, float
// for double data, rounded down) and the k × k half distances between centroids,
// beside the shared upper bound.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "kernels/bounds.hpp"
#include "kms/algorithms.hpp"
#include "kms/error.hpp"
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

namespace {

template <typename T>
class ElkanCuda : public CudaBoundedSolver<T> {
    using Lower = typename ElkanLowerStorage<T>::type;

public:
    using CudaBoundedSolver<T>::CudaBoundedSolver;

private:
    void allocate_lower_bounds() override {
        const std::size_t n = static_cast<std::size_t>(this->n_), k = static_cast<std::size_t>(this->k_);
        if (k > 0 && n > std::numeric_limits<std::size_t>::max() / sizeof(Lower) / k)
            throw Error("Elkan needs n·k lower bounds, too many for this machine; use Hamerly");
        lower_k_.allocate(n * k, "Elkan's n×k lower bounds (use Hamerly for less memory)");
        cc_half_.allocate(k * k, "the centroid distance matrix");
        if (tiled_search_pays(this->k_)) {
            search_list_.allocate(n, "the list of points to search");
            search_count_.allocate(1, "the count of points to search");
        }
        // Half-precision bounds (float data) are scaled by a power of two so the
        // largest possible distance (data ∪ centroids box diagonal) fits half's range.
        double diagonal_sq = 0.0;
        for (int j = 0; j < this->d_; ++j) {
            double low = this->data_low_[j], high = this->data_high_[j];
            for (std::size_t c = 0; c < k; ++c) {
                low = std::min(low, this->initial_(c, static_cast<std::size_t>(j)));
                high = std::max(high, this->initial_(c, static_cast<std::size_t>(j)));
            }
            diagonal_sq += (high - low) * (high - low);
        }
        const double diagonal = std::sqrt(diagonal_sq);
        int exponent = diagonal > 0.0 ? static_cast<int>(std::floor(std::log2(32768.0 / diagonal))) : 0;
        exponent = std::clamp(exponent, -100, 100);
        lower_scale_ = std::ldexp(1.0f, exponent);
    }

    T* centroid_half_distances() const override { return cc_half_.get(); }
    bool may_rebuild_every_step() const override { return tiled_search_pays(this->k_); }

    // Not streamed (its n×k bounds are centroid-major, and do not fit where streaming is
    // needed): the view is every row.
    void launch_assign(BoundedArgs<T>& args, long long /*first_row: 0*/) override {
        args.lower_k = lower_k_.get();
        args.cc_half = cc_half_.get();
        args.lower_scale = lower_scale_;
        args.search_list = search_list_.get();
        args.search_count = search_count_.get();
        // Past k/16 distances a thread's walk costs more than the tiled search's whole
        // row (≈ 0.26 ns a distance walked against 23 ns a point searched at d = 64,
        // k = 1000 on the H200, both scaling with d).
        args.defer_after = std::max(1, this->k_ / 16);
        launch_elkan<T>(args, this->shared_variant(), this->geometry_, this->stream_);
    }

    DeviceBuffer<Lower> lower_k_;
    DeviceBuffer<T> cc_half_;
    DeviceBuffer<std::int32_t> search_list_;  // large k: the points given up to the tiled search
    DeviceBuffer<unsigned long long> search_count_;
    float lower_scale_ = 1.0f;
};

}  // namespace

}  // namespace kms::cuda

KMS_SOLVER_REGISTRATION(elkan_cuda) {
    kms::register_solver(kms::Algorithm::Elkan, kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::ElkanCuda>);
}
