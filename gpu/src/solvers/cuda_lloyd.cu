// Lloyd on the device: every point against every centroid, the small-path update
// fused into the assignment kernel, and for cuda-shared with large d and k the
// tensor-core filter-and-verify assignment (kernels/lloyd_gemm.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/lloyd.hpp"
#include "kernels/lloyd_gemm.hpp"
#include "kms/algorithms.hpp"
#include "kms/error.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms::cuda {

namespace {

template <typename T>
class LloydCuda : public CudaSolverBase<T> {
public:
    using CudaSolverBase<T>::CudaSolverBase;

private:
    // Shared for k >= 64 (many centroids to stage; there the int8 filter applies too) or
    // d >= 16 (k > 32: the tiled search; k <= 32: the small-k kernel, each row read once,
    // where the device has its ~80 KB of shared memory a block: compute capability 8.0 on).
    bool shared_pays() const override {
        return this->k_ >= kGemmMinK ||
               (this->d_ >= kGemmMinD && (tiled_search_pays(this->k_) || this->compute_major_ >= 8));
    }

    void allocate_state() override {
        // The filter's copy of the data is made once k is known (here, not when the data
        // are set): below kGemmMinK it would double the device memory for nothing.
        if (!quantised_points_.get() && this->int8_filter_possible() && this->shared_variant() &&
            gemm_filter_applies(this->k_, this->d_))
            prepare_filter_rows();
        if (!uses_gemm_filter()) return;
        const std::size_t n = static_cast<std::size_t>(this->n_), k = static_cast<std::size_t>(this->k_);
        // ~150 bytes a point (the candidate lists: 128): too little device memory for
        // them is no filter (the exact kernel), as for the rows' copy.
        try {
            quantised_centroids_.allocate(k * row_bytes(), "the filter's centroid rows");
            centroid_qnorms_.allocate(k, "the filter's centroid norms");
            centroid_slack_.allocate(k + 2, "the filter's centroid rounding errors");
            listed_.allocate(n, "the list of points with candidates");
            pending_.allocate(n, "the list of points awaiting candidates");
            candidates_.allocate(n * kListCapacity, "the candidates of uncertified points");
            list_lengths_.allocate(n, "the lengths of the candidate lists");
            list_limits_.allocate(n, "the limits of the candidate lists");
            full_searches_.allocate(n, "the list of points searched over all k");
        } catch (const Error&) {
            release_filter();  // uses_gemm_filter() is false from here
        }
    }

    void restart() override {
        gemm_active_ = uses_gemm_filter();
        gemm_hopeless_ = false;
        filter_ms_ = exact_ms_ = -1.0;
        steps_since_switch_ = 0;
    }

    bool fuses_small_update() const override { return true; }

    void assign(bool fused, IterationStats& stats) override {
        stats.point_centroid_distances = static_cast<std::uint64_t>(this->n_) * this->k_;
        if (gemm_active_) {
            GemmLloydArgs<T> gemm{{this->points(), this->n_, this->d_, this->current(), this->k_,
                                   this->labels_.get(), this->status_.get(), &this->record_.get()->counters, nullptr,
                                   SmallUpdate<T>{}},
                                  shift_.get(),
                                  filter_points(),
                                  quantised_centroids_.get(), centroid_qnorms_.get(), centroid_slack_.get(),
                                  listed_.get(), pending_.get(), full_searches_.get(), candidates_.get(),
                                  list_lengths_.get(), list_limits_.get(), this->geometry_.sm_count};
            launch_gemm_lloyd<T>(gemm, this->stream_);
            return;
        }
        // The rows in view: all of them, or a streamed chunk (its labels' slice).
        LloydArgs<T> args{this->view_points(), this->view_rows(), this->d_, this->current(), this->k_,
                          this->view_labels(), this->view_status(), &this->record_.get()->counters,
                          fused ? this->workspace_.block_partials.get() : nullptr,
                          fused ? this->small_update() : SmallUpdate<T>{}};
        launch_lloyd<T>(args, this->shared_variant(), this->geometry_, this->stream_);
    }

    // Filter or exact kernel, by the run's own assignment times (the labels are the
    // same either way). A filtered step that leaves work worth more than kGemmProbeShare
    // of the exact kernel's (its list pass, its lists, its searches over all k) makes the next step a probe of the exact kernel;
    // from then on the faster of the two runs, and the other is timed again after
    // kGemmRetrySteps steps (the filter certifies more as a run settles; a first
    // launch's one-time costs fade), the exact kernel only while its time was within
    // kGemmRetryWithin of the filter's (its work does not change as a run settles).
    // A filter that leaves almost every point to all k (kGemmHopelessShare) is left for good.
    void after_record(const DeviceCounters& counters, const IterationStats& stats) override {
        if (gemm_hopeless_ || !uses_gemm_filter()) return;
        const double ms = stats.time_assign_ms;
        if (gemm_active_) {
            filter_ms_ = ms;
            ++steps_since_switch_;
            const double n = static_cast<double>(this->n_);
            gemm_hopeless_ = static_cast<double>(counters.gemm_full_searches) / n > kGemmHopelessShare;
            // The exact-distance work it left (the list pass's k a point, the lists, the
            // searches over all k; the counters hold no more), in units of the exact kernel's.
            const double share = static_cast<double>(counters.point_centroid_distances) / (n * this->k_);
            const bool slower = exact_ms_ < 0.0 ? share > kGemmProbeShare
                                                : filter_ms_ > exact_ms_ || (steps_since_switch_ >= kGemmRetrySteps &&
                                                                             exact_ms_ < kGemmRetryWithin * filter_ms_);
            if (gemm_hopeless_ || slower) {
                gemm_active_ = false;
                steps_since_switch_ = 0;
            }
        } else {
            exact_ms_ = ms;
            ++steps_since_switch_;
            if (filter_ms_ < exact_ms_ || steps_since_switch_ >= kGemmRetrySteps) {
                gemm_active_ = true;
                steps_since_switch_ = 0;
            }
        }
    }

    // --- cuda-shared, large d and k: the filter-and-verify assignment.
    bool uses_gemm_filter() const {
        return this->int8_filter_possible() && this->shared_variant() && gemm_filter_applies(this->k_, this->d_) &&
               quantised_points_.get() != nullptr;
    }
    QuantisedPoints filter_points() const {
        return {quantised_points_.get(), point_qnorms_.get(), point_slack_.get(), filter_width(this->d_, format_),
                quantisation_scale_, format_};
    }
    std::size_t row_bytes() const {
        return static_cast<std::size_t>(filter_width(this->d_, format_)) * filter_element_bytes(format_);
    }
    // The filter's format: tf32 (the finer: it certifies the most points), or int8
    // where KMS_GEMM_FORMAT=int8 asks for it (the device probes compare the two).
    static FilterFormat chosen_format() {
        const char* asked = std::getenv("KMS_GEMM_FORMAT");
        return asked && std::strcmp(asked, "int8") == 0 ? FilterFormat::int8 : FilterFormat::tf32;
    }

    // New data: the filter's copy of the old is gone (allocate_state makes the new one).
    void prepare_data() override { release_filter(); }
    void release_filter() {
        for (auto* buffer : {&quantised_points_, &quantised_centroids_}) buffer->release();
        for (auto* buffer : {&point_qnorms_, &centroid_qnorms_, &listed_, &pending_, &full_searches_, &candidates_,
                             &list_limits_})
            buffer->release();
        for (auto* buffer : {&point_slack_, &centroid_slack_}) buffer->release();
        list_lengths_.release();
        shift_.release();
    }

    // The filter's copy of the data: the shift m (the data mean in T), the scale s
    // (int8), and the rounded data with their norms and δ_x. Device memory too short
    // for the copy: no filter (the exact kernel), not a failed run.
    void prepare_filter_rows() {
        const long long n = this->n_;
        const int d = this->d_;
        const std::vector<double>& sum = this->data_sum_;  // per coordinate (host data: in index order)
        std::vector<T> mean(sum.size());
        double largest = 0.0;  // max |x_j − m_j| (a hint only: δ is computed honestly for any s)
        for (std::size_t j = 0; j < sum.size(); ++j) {
            mean[j] = static_cast<T>(sum[j] / static_cast<double>(n));
            if (!std::isfinite(static_cast<double>(mean[j]))) mean[j] = T(0);  // any shift is sound; keep it finite
            const double m = static_cast<double>(mean[j]);
            largest = std::max({largest, std::abs(this->data_high_[j] - m), std::abs(this->data_low_[j] - m)});
        }
        format_ = chosen_format();
        quantisation_scale_ = format_ == FilterFormat::int8 ? quantisation_scale(largest) : 1.0;
        try {
            shift_.allocate(mean.size(), "the data shift");
            quantised_points_.allocate(static_cast<std::size_t>(n) * row_bytes(), "the filter's point rows");
            point_qnorms_.allocate(static_cast<std::size_t>(n), "the filter's point norms");
            point_slack_.allocate(static_cast<std::size_t>(n), "the filter's point rounding errors");
        } catch (const Error&) {
            quantised_points_.release();
            point_qnorms_.release();
            point_slack_.release();
            shift_.release();
            return;
        }
        KMS_CUDA_CHECK(cudaMemcpy(shift_.get(), mean.data(), mean.size() * sizeof(T), cudaMemcpyHostToDevice));
        KMS_CUDA_CHECK(cudaDeviceSynchronize());  // the pageable copies may still be in flight
        launch_quantise_points<T>(this->points(), n, d, shift_.get(), filter_points(), this->stream_);
        KMS_CUDA_CHECK(cudaStreamSynchronize(this->stream_));
    }

    // Shift m, rounded rows (bytes), their norms (int32 or float), δ (centroids: +
    // the maxima), the uncertified points.
    DeviceBuffer<T> shift_;
    DeviceBuffer<std::int8_t> quantised_points_, quantised_centroids_;
    DeviceBuffer<std::int32_t> point_qnorms_, centroid_qnorms_;
    DeviceBuffer<float> point_slack_, centroid_slack_;
    double quantisation_scale_ = 1.0;
    FilterFormat format_ = FilterFormat::tf32;
    DeviceBuffer<std::int32_t> listed_, pending_, full_searches_, candidates_, list_limits_;  // limits: int32 or float bits
    DeviceBuffer<std::uint8_t> list_lengths_;
    bool gemm_active_ = false;    // the next step uses the filter
    bool gemm_hopeless_ = false;  // the filter certified almost nothing: not again this run
    double filter_ms_ = -1.0, exact_ms_ = -1.0;  // the last assignment time of each (−1: not timed yet)
    int steps_since_switch_ = 0;
};

}  // namespace

}  // namespace kms::cuda

KMS_SOLVER_REGISTRATION(lloyd_cuda) {
    kms::register_solver(kms::Algorithm::Lloyd, kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::LloydCuda>,
                         {.streams_points = true});
}
