// Yinyang on the device: the centroid groups every back end forms
// (form_centroid_groups()), a bound per point and group (stored n × groups: the
// group walk runs a thread per listed point, each reading its own row), a global
// bound, and a cumulative table of each group's largest move beside the shared one.
#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/bounds.hpp"
#include "kms/algorithms.hpp"
#include "kms/solver_support.hpp"
#include "solvers/cuda_bounded_solver.hpp"

namespace kms::cuda {

namespace {

// From this many coordinates a point with many open groups goes to the tiled search
// (whose atomic group minimums cost more than distances at small d). A chosen
// threshold, not a measured break-even: only d = 2, 4, 16, 64 were timed, all on the
// side of it the code takes (docs/gpu-benchmark.md).
constexpr int kTiledSearchMinD = 8;

template <typename T>
class YinyangCuda : public CudaBoundedSolver<T> {
public:
    using CudaBoundedSolver<T>::CudaBoundedSolver;

private:
    bool shared_pays() const override { return true; }  // all k centroids staged once per block (when they fit)

    void allocate_lower_bounds() override {
        // Ten centroids a group, as on the CPU: 25 and 50 were slower at every shape
        // measured (d = 2 to 64, k = 100 and 1000; docs/gpu-benchmark.md).
        const CentroidGroups formed = form_centroid_groups(this->initial_, static_cast<std::size_t>(this->n_));
        groups_ = static_cast<int>(formed.count());
        auto upload = [&](DeviceBuffer<std::int32_t>& target, const std::vector<std::size_t>& values, const char* what) {
            const std::vector<std::int32_t> narrow(values.begin(), values.end());
            target.allocate(narrow.size(), what);
            KMS_CUDA_CHECK(cudaMemcpy(target.get(), narrow.data(), narrow.size() * sizeof(std::int32_t),
                                      cudaMemcpyHostToDevice));
        };
        upload(members_, formed.members, "the centroid groups");
        upload(group_begin_, formed.begin, "the centroid groups");
        upload(group_of_, formed.group_of, "the centroid groups");
        const std::size_t n = static_cast<std::size_t>(this->n_), k = static_cast<std::size_t>(this->k_);
        const std::size_t t = static_cast<std::size_t>(groups_);
        lower_.allocate(n, "the global lower bounds");
        group_lower_.allocate(n * t, "Yinyang's n×t group bounds");
        walk_list_.allocate(n, "the list of points to walk");
        walk_count_.allocate(1, "the count of points to walk");
        group_stamp_.allocate(n, "the group bound stamps");
        grouped_.allocate(k * static_cast<std::size_t>(this->d_), "the centroids in group order");
        group_shift_.allocate(static_cast<std::size_t>(this->kMaxShiftRows) * t, "the cumulative group shift table");
        group_drift_.allocate(static_cast<std::size_t>(this->kMaxShiftRows) * t, "the group drift table");
        KMS_CUDA_CHECK(cudaMemset(group_shift_.get(), 0, t * sizeof(double)));  // row 0: nothing moved yet
        if (defer()) {
            search_list_.allocate(n, "the list of points to search");
            search_count_.allocate(1, "the count of points to search");
        }
    }

    bool defer() const { return tiled_search_pays(this->k_) && this->d_ >= kTiledSearchMinD; }

    void after_shift_row(int row) override {
        launch_group_cumulative_row<T>(group_shift_.get(), row, groups_, this->shift_upper_.get(), members_.get(),
                                       group_begin_.get(), this->stream_);
    }

    std::uint32_t centroid_groups() const override { return static_cast<std::uint32_t>(groups_); }

    // Streamed: the group bounds are point-major, so a chunk's are one slice.
    double streamed_state_per_point() const override {
        return CudaBoundedSolver<T>::streamed_state_per_point() + 4 + (this->k_ / 10 + 1) * sizeof(T);
    }

    void launch_assign(BoundedArgs<T>& args, long long first_row) override {
        if (first_row == 0)  // once a step
            launch_gather_rows<T>(args.centroids, members_.get(), this->k_, this->d_, grouped_.get(), this->stream_);
        args.lower = lower_.get() + first_row;
        args.groups = groups_;
        args.group_lower = group_lower_.get() + first_row * groups_;
        args.group_stamp = group_stamp_.get() + first_row;
        args.group_shift = group_shift_.get();
        args.group_drift = group_drift_.get();
        args.members = members_.get();
        args.group_begin = group_begin_.get();
        args.group_of = group_of_.get();
        args.grouped_centroids = grouped_.get();
        args.walk_list = walk_list_.get();
        args.walk_count = walk_count_.get();
        args.search_list = search_list_.get();
        args.search_count = search_count_.get();
        // Elkan's measured break-even (past k/16 distances a thread's walk costs more than
        // the tiled row), taken over, not measured for Yinyang.
        args.defer_after = std::max(1, this->k_ / 16);
        launch_yinyang<T>(args, this->shared_variant(), defer(), this->geometry_, this->stream_);
    }

    int groups_ = 0;
    DeviceBuffer<std::int32_t> members_, group_begin_, group_of_;
    DeviceBuffer<T> lower_, group_lower_, grouped_, group_drift_;
    DeviceBuffer<std::int32_t> group_stamp_;
    DeviceBuffer<double> group_shift_;
    DeviceBuffer<std::int32_t> walk_list_;    // the points the global filter leaves to the group walk
    DeviceBuffer<unsigned long long> walk_count_;
    DeviceBuffer<std::int32_t> search_list_;  // large k·d: the points given up to the tiled search
    DeviceBuffer<unsigned long long> search_count_;
};

}  // namespace

}  // namespace kms::cuda

KMS_SOLVER_REGISTRATION(yinyang_cuda) {
    kms::register_solver(kms::Algorithm::Yinyang, kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::YinyangCuda>,
                         {.streams_points = true});
}
