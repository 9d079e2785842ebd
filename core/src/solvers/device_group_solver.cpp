// Several devices as one Solver (kms/device_group_solver.hpp): persistent rank
// threads of a ThreadGroup, each owning its device's partitioned solver; a call
// is a task every rank runs at once (the solvers' own collectives keep them in
// step), the caller waiting until all are done. Each solver is made, used and
// destroyed on its own rank's thread only (a device's context is per thread).
#include "kms/device_group_solver.hpp"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"

namespace kms {
namespace {

class DeviceGroupSolver final : public Solver {
public:
    DeviceGroupSolver(const SolverConfig& config, std::vector<int> devices)
        : config_(config), devices_(std::move(devices)) {
        if (devices_.empty()) throw UsageError("a device group needs at least one device");
        config_.validate();
    }
    ~DeviceGroupSolver() override { stop_ranks(); }

    const SolverConfig& config() const override { return config_; }

    void set_data(std::shared_ptr<const Matrix<double>> points) override {
        stop_ranks();
        double_points_ = std::move(points);
        float_points_.reset();
        take_shape(double_points_ ? double_points_->rows() : 0, double_points_ ? double_points_->cols() : 0);
    }
    void set_data(std::shared_ptr<const Matrix<float>> points) override {
        stop_ranks();
        float_points_ = std::move(points);
        double_points_.reset();
        take_shape(float_points_ ? float_points_->rows() : 0, float_points_ ? float_points_->cols() : 0);
    }
    void set_device_data(std::shared_ptr<const DeviceMatrix>) override {
        throw Error("several devices take host data (each copies its block), not a device array");
    }
    // --devices under MPI ranks: this process's block of `partition`, split again over the
    // devices (partition_rows with parts = devices), each device thread a rank of the nested
    // communicator (processes × devices), so the run sums as one device does.
    void set_partition(const RowPartition& partition) override {
        if (!partition.comm) throw Error("a partition needs a communicator");
        stop_ranks();
        const auto mine = static_cast<std::int64_t>(devices_.size());
        const std::vector<std::int64_t> counts = partition.comm->allgather(std::span<const std::int64_t>(&mine, 1));
        for (std::size_t r = 0; r < counts.size(); ++r)
            if (counts[r] != counts.front())
                throw UsageError("every MPI rank must drive the same number of devices (--devices): rank 0 lists " +
                                 std::to_string(counts.front()) + ", rank " + std::to_string(r) + " " +
                                 std::to_string(counts[r]));
        outer_ = partition.comm;
        global_rows_ = partition.global_rows;
        global_first_ = partition.first_row;
    }

    void set_initial_centroids(const Matrix<double>& centroids) override {
        if (!double_points_ && !float_points_) throw Error("no data: set the data before the centroids");
        if (centroids.cols() != cols_)
            throw Error("initial centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                        std::to_string(cols_));
        if (!running_ || centroids.rows() != k_) {  // the blocks follow the package layout, which depends on k
            stop_ranks();
            k_ = centroids.rows();
            start_ranks();
        }
        changed();
        run_all([&](Rank& rank) { rank.solver->set_initial_centroids(centroids); });
    }
    void reset() override {
        changed();
        if (running_) run_all([](Rank& rank) { rank.solver->reset(); });
    }
    void set_sample_weight(std::shared_ptr<const std::vector<double>> weights) override {
        if (weights && weights->size() != rows_)
            throw Error(std::to_string(weights->size()) + " sample weights for " + std::to_string(rows_) + " points");
        weights_ = std::move(weights);
        changed();
        if (running_) run_all([this](Rank& rank) { rank.solver->set_sample_weight(weight_block(rank)); });
    }

    IterationStats step() override {
        require_running();
        changed();
        run_all([](Rank& rank) { rank.stats = rank.solver->step(); });
        return ranks_.front().stats;  // counts are summed over the ranks by the solvers; times are rank 0's
    }
    std::uint64_t finalize_labels() override {
        require_running();
        changed();
        run_all([](Rank& rank) { rank.count = rank.solver->finalize_labels(); });
        return ranks_.front().count;  // summed over the ranks
    }

    int iteration() const override { return running_ ? front_.iteration : 0; }
    bool converged() const override { return stop_reason() != StopReason::NotStopped; }
    StopReason stop_reason() const override { return running_ ? front_.stop_reason : StopReason::NotStopped; }
    Matrix<double> centroids() const override {
        require_running();
        return front_.centroids;
    }
    const std::vector<std::int32_t>& labels() const override {
        if (!running_) return no_labels_;
        if (!labels_valid_) {
            labels_.assign(rows_, -1);
            run_all([this](Rank& rank) {
                const std::vector<std::int32_t>& mine = rank.solver->labels();
                std::copy(mine.begin(), mine.end(), labels_.begin() + static_cast<std::ptrdiff_t>(rank.first));
            });
            labels_valid_ = true;
        }
        return labels_;
    }
    const std::vector<PointStatus>& point_status() const override {
        if (!running_ || !config_.record_point_status) return no_status_;
        if (!status_valid_) {
            status_.assign(rows_, PointStatus::Recomputed);
            std::atomic<bool> complete{true};
            run_all([&](Rank& rank) {
                const std::vector<PointStatus>& mine = rank.solver->point_status();
                if (mine.size() != rank.rows) {
                    complete = false;
                    return;
                }
                std::copy(mine.begin(), mine.end(), status_.begin() + static_cast<std::ptrdiff_t>(rank.first));
            });
            if (!complete) status_.clear();  // before the first step
            status_valid_ = true;
        }
        return status_;
    }
    double inertia() const override {
        require_running();
        run_all([](Rank& rank) { rank.value = rank.solver->inertia(); });  // a collective
        return ranks_.front().value;
    }

private:
    struct Rank {
        int device = 0;
        std::size_t first = 0, rows = 0;
        std::unique_ptr<Solver> solver;
        IterationStats stats;
        std::uint64_t count = 0;
        double value = 0.0;
    };
    // Rank 0's state after the last task, read by the const accessors.
    struct Front {
        int iteration = 0;
        StopReason stop_reason = StopReason::NotStopped;
        Matrix<double> centroids;
    };
    using Task = std::function<void(Rank&)>;

    void take_shape(std::size_t rows, std::size_t cols) {
        rows_ = rows;
        cols_ = cols;
        weights_.reset();  // set_data() clears them, as for every solver
        if (rows_ == 0) throw Error("no points to cluster");
    }
    void changed() const { labels_valid_ = status_valid_ = false; }
    void require_running() const {
        if (!running_) throw Error("no data or no centroids");
    }
    std::shared_ptr<const std::vector<double>> weight_block(const Rank& rank) const {
        if (!weights_) return nullptr;
        return std::make_shared<const std::vector<double>>(
            weights_->begin() + static_cast<std::ptrdiff_t>(rank.first),
            weights_->begin() + static_cast<std::ptrdiff_t>(rank.first + rank.rows));
    }
    template <typename T>
    void attach(Rank& rank, const std::shared_ptr<const Matrix<T>>& points) const {
        rank.solver->set_data(std::make_shared<const Matrix<T>>(
            Matrix<T>::view(rank.rows, cols_, points->data() + rank.first * cols_, points)));
    }

    // The ranks: the non-empty blocks of partition_rows (as --devices), a thread each.
    void start_ranks() {
        ranks_.clear();
        if (outer_) {
            start_ranks_of_process();
        } else {
            const std::vector<std::size_t> first =
                partition_rows(rows_, k_, cols_, static_cast<int>(devices_.size()), config_.packages);
            for (std::size_t r = 0; r < devices_.size(); ++r)
                if (first[r + 1] > first[r])
                    ranks_.push_back(Rank{devices_[r], first[r], first[r + 1] - first[r], {}, {}, 0, 0.0});
        }
        {
            std::lock_guard lock(mutex_);
            quit_ = failed_ = host_done_ = false;
            failure_ = nullptr;
            done_ = 0;
            generation_ = 0;
        }
        host_ = std::thread([this] {
            std::exception_ptr failure;
            try {
                ThreadGroup group(static_cast<int>(ranks_.size()));
                group.run([this](std::shared_ptr<Communicator> comm) { rank_loop(std::move(comm)); });
            } catch (...) {
                failure = std::current_exception();
            }
            {
                std::lock_guard lock(mutex_);
                failure_ = failure;
                failed_ = failed_ || failure != nullptr;
                host_done_ = true;
            }
            wake_.notify_all();
        });
        running_ = true;
        wait_all();  // every rank made its solver and took its block
    }

    // Under MPI ranks every device of every process holds rows (the nested communicator
    // numbers processes × devices alike everywhere): each of this process's devices takes
    // its block of partition_rows over processes × devices.
    void start_ranks_of_process() {
        const auto parts = devices_.size();
        const auto process = static_cast<std::size_t>(outer_->rank());
        const std::vector<std::size_t> first =
            partition_rows(global_rows_, k_, cols_, outer_->size() * static_cast<int>(parts), config_.packages);
        for (std::size_t b = 0; b + 1 < first.size(); ++b)
            if (first[b + 1] == first[b])
                throw UsageError(std::to_string(global_rows_) + " points are too few for " +
                                 std::to_string(outer_->size()) + " MPI ranks x " + std::to_string(parts) +
                                 " devices: a device's block holds whole update packages (" +
                                 std::to_string(first[1]) + " rows here); use fewer devices or ranks");
        if (first[process * parts] != global_first_ || first[(process + 1) * parts] - global_first_ != rows_)
            throw Error("rank " + std::to_string(process) + " holds rows [" + std::to_string(global_first_) + ", " +
                        std::to_string(global_first_ + rows_) + ") but its block over " + std::to_string(parts) +
                        " devices a rank is [" + std::to_string(first[process * parts]) + ", " +
                        std::to_string(first[(process + 1) * parts]) + "): kms::partition_rows with parts = devices");
        for (std::size_t r = 0; r < parts; ++r) {
            const std::size_t begin = first[process * parts + r], end = first[process * parts + r + 1];
            ranks_.push_back(Rank{devices_[r], begin - global_first_, end - begin, {}, {}, 0, 0.0});
        }
    }

    void rank_loop(std::shared_ptr<Communicator> comm) {
        Rank& rank = ranks_[static_cast<std::size_t>(comm->rank())];
        try {
            SolverConfig mine = config_;
            mine.cuda_device = rank.device;
            rank.solver = make_solver(mine);
            if (outer_)
                rank.solver->set_partition(
                    RowPartition{nested_communicator(outer_, comm), global_rows_, global_first_ + rank.first});
            else
                rank.solver->set_partition(RowPartition{comm, rows_, rank.first});
            if (double_points_) attach(rank, double_points_);
            else attach(rank, float_points_);
            if (weights_) rank.solver->set_sample_weight(weight_block(rank));
            report_done();
            std::uint64_t seen = 0;
            for (;;) {
                Task task;
                {
                    std::unique_lock lock(mutex_);
                    wake_.wait(lock, [&] { return quit_ || failed_ || generation_ != seen; });
                    if (quit_ || failed_) break;
                    seen = generation_;
                    task = task_;
                }
                task(rank);
                if (comm->rank() == 0) {  // for the const accessors, read on the caller's thread
                    front_.iteration = rank.solver->iteration();
                    front_.stop_reason = rank.solver->stop_reason();
                    front_.centroids = rank.solver->centroids();
                }
                report_done();
            }
            rank.solver.reset();
        } catch (...) {
            rank.solver.reset();
            {
                std::lock_guard lock(mutex_);
                failed_ = true;  // the others stop at their next wait or collective
            }
            wake_.notify_all();
            throw;
        }
    }

    void report_done() {
        {
            std::lock_guard lock(mutex_);
            ++done_;
        }
        wake_.notify_all();
    }

    // Every rank runs `task`; returns when all have, or rethrows the group's failure
    // (then the ranks are gone: the next set_initial_centroids starts them again).
    void run_all(Task task) const {
        require_running();
        {
            std::lock_guard lock(mutex_);
            task_ = std::move(task);
            done_ = 0;
            ++generation_;
        }
        wake_.notify_all();
        wait_all();
    }
    void wait_all() const {
        bool all_done = false;
        std::exception_ptr failure;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return done_ == ranks_.size() || (failed_ && host_done_); });
            all_done = done_ == ranks_.size() && !failed_;
            failure = failure_;
        }
        if (all_done) return;
        stop_ranks();
        changed();
        if (failure) std::rethrow_exception(failure);
        throw Error("the device group stopped");
    }

    void stop_ranks() const {
        if (!host_.joinable()) {
            running_ = false;
            return;
        }
        {
            std::lock_guard lock(mutex_);
            quit_ = true;
        }
        wake_.notify_all();
        host_.join();
        running_ = false;
        front_ = Front{};
        changed();
    }

    SolverConfig config_;
    std::vector<int> devices_;
    std::shared_ptr<const Matrix<double>> double_points_;
    std::shared_ptr<const Matrix<float>> float_points_;
    std::shared_ptr<const std::vector<double>> weights_;
    std::size_t rows_ = 0, cols_ = 0, k_ = 0;
    std::shared_ptr<Communicator> outer_;         // the MPI ranks, when this group is one of them
    std::size_t global_rows_ = 0, global_first_ = 0;  // their data set and this rank's first row

    mutable std::vector<Rank> ranks_;
    mutable std::thread host_;
    mutable bool running_ = false;
    mutable Front front_;
    mutable std::mutex mutex_;
    mutable std::condition_variable wake_;
    mutable Task task_;
    mutable std::uint64_t generation_ = 0;
    mutable std::size_t done_ = 0;
    mutable bool quit_ = false, failed_ = false, host_done_ = false;
    mutable std::exception_ptr failure_;
    mutable std::vector<std::int32_t> labels_;
    mutable std::vector<PointStatus> status_;
    mutable bool labels_valid_ = false, status_valid_ = false;
    const std::vector<std::int32_t> no_labels_;
    const std::vector<PointStatus> no_status_;
};

}  // namespace

std::unique_ptr<Solver> make_device_group_solver(const SolverConfig& config, std::vector<int> devices) {
    return std::make_unique<DeviceGroupSolver>(config, std::move(devices));
}

}  // namespace kms
