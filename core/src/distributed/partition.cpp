// Row partitions (kms/communicator.hpp): the package layout the CPU solvers share,
// the block boundaries that keep a partitioned run's sums those of one process,
// and ThreadGroup, threads as ranks.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

#include "kms/communicator.hpp"
#include "kms/error.hpp"

namespace kms {

namespace {
constexpr std::size_t kSubPackage = 256;         // the CPU update's sub-package (cpu_solver.hpp)
constexpr std::size_t kInitBlock = 4096;         // the initialisation's block (init.cpp)
}  // namespace

PackageLayout package_layout(std::size_t n, std::size_t k, std::size_t d, int packages_option) {
    // Packages depend on n, k and d only (never on the thread or rank count), so
    // the update gives the same bits for any number of threads and ranks.
    // Up to 256 packages of at least 1024 points; past 2^25 points, one per 2^17
    // points, so that each of several devices still gets a few packages per
    // multiprocessor (a device sums a package with one block; 256 packages over 4
    // GPUs left half of each idle). A package's sums cost k·d additions in the
    // tree, k/2^17 of its rows' work. All package sums stay within 2^25 doubles.
    const std::size_t by_size = (n + 1023) / 1024;
    const std::size_t by_scale = std::max<std::size_t>(256, n >> 17);
    const std::size_t by_memory = std::max<std::size_t>(1, (std::size_t{1} << 25) / std::max<std::size_t>(1, k * d));
    std::size_t packages = std::max<std::size_t>(1, std::min({by_size, by_scale, by_memory}));
    if (packages_option > 0)  // asked for (the float-error study): at most one per sub-package
        packages = std::min<std::size_t>(static_cast<std::size_t>(packages_option), (n + kSubPackage - 1) / kSubPackage);
    packages = std::max<std::size_t>(packages, 1);
    PackageLayout layout;
    layout.package_size = (n + packages - 1) / packages;
    // Past 256 automatic packages, whole blocks of the initialisation's 4096
    // points, so that rank boundaries (on both) can fall on every package.
    const std::size_t unit = packages_option <= 0 && packages > 256 ? kInitBlock : kSubPackage;
    layout.package_size = std::max<std::size_t>(1, (layout.package_size + unit - 1) / unit) * unit;
    layout.packages = std::max<std::size_t>(1, (n + layout.package_size - 1) / layout.package_size);
    return layout;
}

std::vector<std::size_t> partition_rows(std::size_t n, std::size_t k, std::size_t d, int ranks, int packages_option,
                                        int parts) {
    if (ranks < 1) throw Error("the number of ranks must be at least 1");
    if (parts < 1) throw Error("the number of parts of a rank must be at least 1");
    if (parts > 1) {
        const std::vector<std::size_t> fine = partition_rows(n, k, d, ranks * parts, packages_option);
        std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1);
        for (int r = 0; r <= ranks; ++r) first[static_cast<std::size_t>(r)] = fine[static_cast<std::size_t>(r * parts)];
        return first;
    }
    const PackageLayout layout = package_layout(n, k, d, packages_option);
    const std::size_t grain = std::lcm(layout.package_size, kInitBlock);
    const std::size_t units = (n + grain - 1) / grain;
    std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1);
    for (int r = 0; r <= ranks; ++r)
        first[static_cast<std::size_t>(r)] =
            std::min(n, units * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks) * grain);
    first.back() = n;
    return first;
}

std::vector<PackageSpan> package_tree_cover(std::size_t packages, std::size_t begin, std::size_t end) {
    if (begin > end || end > packages) throw Error("package range [" + std::to_string(begin) + ", " +
                                                   std::to_string(end) + ") outside the " + std::to_string(packages) +
                                                   " packages");
    std::vector<PackageSpan> cover;
    for (std::size_t p = begin; p < end;) {
        std::size_t size = 1;  // the largest aligned node starting at p that ends by `end`
        while (size < packages && p % (2 * size) == 0 && std::min(p + 2 * size, packages) <= end) size *= 2;
        const std::size_t last = std::min(p + size, packages);
        cover.push_back({p, last});
        p = last;
    }
    return cover;
}

std::vector<PackageTreeLevel> package_tree_local_levels(std::size_t packages, std::size_t begin, std::size_t end) {
    std::vector<PackageTreeLevel> levels;
    for (std::size_t stride = 1; stride < packages; stride *= 2) {
        PackageTreeLevel level;
        level.stride = stride;
        for (std::size_t p = (begin + 2 * stride - 1) / (2 * stride) * (2 * stride); p + stride < packages; p += 2 * stride) {
            if (std::min(p + 2 * stride, packages) > end) break;
            level.nodes.push_back(p);
        }
        if (!level.nodes.empty()) levels.push_back(std::move(level));
    }
    return levels;
}

void finish_package_tree(std::size_t packages, const std::vector<PackageSpan>& covers,
                         const std::function<void(std::size_t, std::size_t)>& add) {
    std::vector<std::size_t> cover_at(packages + 1, covers.size());  // cover index by its first package
    std::size_t expected = 0;
    for (std::size_t i = 0; i < covers.size(); ++i) {
        if (covers[i].first != expected || covers[i].last <= covers[i].first || covers[i].last > packages)
            throw Error("the ranks' package covers do not span the " + std::to_string(packages) +
                        " packages once each, in order");
        cover_at[covers[i].first] = i;
        expected = covers[i].last;
    }
    if (expected != packages)
        throw Error("the ranks' package covers end at package " + std::to_string(expected) + " of " +
                    std::to_string(packages));
    // An addition already made by a rank lies inside one cover (covers are aligned
    // nodes); any other adds two covers' current values (both start a node there).
    std::vector<std::size_t> covering(packages);
    for (std::size_t i = 0; i < covers.size(); ++i)
        for (std::size_t p = covers[i].first; p < covers[i].last; ++p) covering[p] = i;
    for (std::size_t stride = 1; stride < packages; stride *= 2)
        for (std::size_t p = 0; p + stride < packages; p += 2 * stride) {
            const PackageSpan& inside = covers[covering[p]];
            if (std::min(p + 2 * stride, packages) <= inside.last && p >= inside.first) continue;
            if (cover_at[p] == covers.size() || cover_at[p + stride] == covers.size())
                throw Error("the package covers are not nodes of the update's tree");
            add(cover_at[p], cover_at[p + stride]);
        }
}

void agree_on_failure(Communicator& comm, std::exception_ptr failure) {
    // 0: no failure; 1: an echo (this rank stopped for another's failure, agreed earlier); 2: its own.
    std::int64_t mine = 0;
    if (failure) {
        mine = 2;
        try {
            std::rethrow_exception(failure);
        } catch (const ReportedByAnotherRank&) {
            mine = 1;
        } catch (...) {
        }
    }
    const std::vector<std::int64_t> flags = comm.allgather(std::span<const std::int64_t>(&mine, 1));
    if (std::all_of(flags.begin(), flags.end(), [](std::int64_t flag) { return flag == 0; })) return;
    const auto own = std::find(flags.begin(), flags.end(), std::int64_t{2});
    const auto rank = static_cast<int>((own != flags.end() ? own : std::find(flags.begin(), flags.end(), std::int64_t{1})) -
                                       flags.begin());
    if (rank == comm.rank() && own != flags.end()) std::rethrow_exception(failure);
    throw ReportedByAnotherRank("rank " + std::to_string(rank) + " failed and reports why");
}

namespace {
// The first of the launcher's variables `names` that is set to a number of at
// least `least`; `otherwise` when none is.
int launcher_number(std::initializer_list<const char*> names, int least, int otherwise) {
    for (const char* name : names)
        if (const char* value = std::getenv(name)) {
            const int number = std::atoi(value);
            if (number >= least) return number;
        }
    return otherwise;
}
}  // namespace

int launcher_world_size() {
    return launcher_number({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}, 2, 1);
}

int launcher_world_rank() {
    if (launcher_world_size() < 2) return 0;
    return launcher_number({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0, 0);
}

int launcher_local_rank() {
    return launcher_number({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, 0, 0);
}

int launcher_local_size() {
    return launcher_number({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}, 1, 1);
}

// ---- nested_communicator: every operation first within the process, then (inner rank 0
// alone) between the processes, then the result handed to the process's other ranks.
namespace {
class NestedCommunicator final : public Communicator {
public:
    NestedCommunicator(std::shared_ptr<Communicator> outer, std::shared_ptr<Communicator> inner)
        : outer_(std::move(outer)), inner_(std::move(inner)) {}
    int rank() const override { return outer_->rank() * inner_->size() + inner_->rank(); }
    int size() const override { return outer_->size() * inner_->size(); }

    std::vector<double> allgather(std::span<const double> values) override { return gather(values); }
    std::vector<std::int64_t> allgather(std::span<const std::int64_t> values) override { return gather(values); }
    void sum(std::span<std::uint64_t> values) override {
        inner_->sum(values);
        if (inner_->rank() == 0) outer_->sum(values);
        else std::fill(values.begin(), values.end(), 0);
        inner_->sum(values);  // inner rank 0's totals, on every rank of the process
    }
    void broadcast(std::span<double> values, int root) override {
        const int inner_size = inner_->size();
        inner_->broadcast(values, root % inner_size);  // the root's process: its values (elsewhere overwritten below)
        if (inner_->rank() == 0) outer_->broadcast(values, root / inner_size);
        inner_->broadcast(values, 0);
    }

private:
    // The process's values in inner order, then the processes' in outer order: rank order.
    template <typename V>
    std::vector<V> gather(std::span<const V> values) {
        const std::vector<V> process = inner_->allgather(values);
        std::vector<V> all;
        if (inner_->rank() == 0) all = outer_->allgather(std::span<const V>(process));
        return inner_->allgather(std::span<const V>(all));  // inner rank 0's alone: the others gave none
    }
    std::shared_ptr<Communicator> outer_, inner_;
};
}  // namespace

std::shared_ptr<Communicator> nested_communicator(std::shared_ptr<Communicator> outer,
                                                  std::shared_ptr<Communicator> inner) {
    if (!outer || !inner) throw Error("a nested communicator needs both communicators");
    return std::make_shared<NestedCommunicator>(std::move(outer), std::move(inner));
}

// ---- ThreadGroup: a barrier and one slot per rank.
struct ThreadGroup::Shared {
    explicit Shared(int ranks)
        : ranks(ranks), barrier(ranks) {
        for (int set = 0; set < 2; ++set) {
            doubles[set].resize(static_cast<std::size_t>(ranks));
            integers[set].resize(static_cast<std::size_t>(ranks));
        }
    }
    int ranks;
    std::barrier<> barrier;
    // The fewest barriers a failed rank had passed: a later barrier completed without
    // it (arrive_and_drop), so what it gathered is incomplete. Barriers up to this
    // one were whole: a rank that passes one of them sees no failure, even if a
    // faster rank has failed just after it.
    std::atomic<std::uint64_t> failed_after{UINT64_MAX};
    // Two sets of slots, taken in turn by consecutive gathers: a rank writes a set again
    // two gathers later, after the barrier of the gather between, which every rank reaches
    // only once it has read the set. So one barrier a gather suffices.
    std::vector<std::vector<double>> doubles[2];
    std::vector<std::vector<std::int64_t>> integers[2];
};

namespace {
class ThreadCommunicator final : public Communicator {
public:
    ThreadCommunicator(void* shared, int rank) : shared_(shared), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return group().ranks; }

    std::vector<double> allgather(std::span<const double> values) override {
        return gather(group().doubles[syncs_ % 2], values);
    }
    std::vector<std::int64_t> allgather(std::span<const std::int64_t> values) override {
        return gather(group().integers[syncs_ % 2], values);
    }
    void sum(std::span<std::uint64_t> values) override {
        std::vector<std::int64_t> mine(values.begin(), values.end());
        const std::vector<std::int64_t> all = allgather(std::span<const std::int64_t>(mine));
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::uint64_t total = 0;
            for (int r = 0; r < size(); ++r) total += static_cast<std::uint64_t>(all[static_cast<std::size_t>(r) * values.size() + i]);
            values[i] = total;
        }
    }
    void broadcast(std::span<double> values, int root) override {
        const std::vector<double> all = allgather(rank_ == root ? std::span<const double>(values) : std::span<const double>());
        std::copy(all.begin(), all.end(), values.begin());
    }

private:
    ThreadGroup::Shared& group() const { return *static_cast<ThreadGroup::Shared*>(shared_); }
    void sync() {
        group().barrier.arrive_and_wait();
        if (++syncs_ > group().failed_after.load())
            throw ReportedByAnotherRank("another rank of the thread group failed");
    }
    template <typename V>
    std::vector<V> gather(std::vector<std::vector<V>>& slots, std::span<const V> values) {
        slots[static_cast<std::size_t>(rank_)].assign(values.begin(), values.end());
        sync();  // every rank passes the same barriers, so every rank took the same set
        std::vector<V> all;
        for (const auto& slot : slots) all.insert(all.end(), slot.begin(), slot.end());
        return all;
    }
    void* shared_;
    int rank_;
    std::uint64_t syncs_ = 0;  // barriers passed

public:
    std::uint64_t syncs() const noexcept { return syncs_; }
};
}  // namespace

ThreadGroup::ThreadGroup(int ranks) {
    if (ranks < 1) throw Error("a thread group needs at least one rank");
    shared_ = std::make_unique<Shared>(ranks);
}
ThreadGroup::~ThreadGroup() = default;

void ThreadGroup::run_impl(const std::function<void(std::shared_ptr<Communicator>)>& body) {
    shared_ = std::make_unique<Shared>(shared_->ranks);  // a fresh barrier: the last run dropped every thread
    Shared& shared = *shared_;
    std::exception_ptr failure;
    bool failure_is_echo = false;
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int r = 0; r < shared.ranks; ++r)
        threads.emplace_back([&, r] {
            const auto comm = std::make_shared<ThreadCommunicator>(&shared, r);
            try {
                body(comm);
            } catch (...) {
                {
                    // A rank's own failure is rethrown, not another's echo of it.
                    bool echo = false;
                    try {
                        throw;
                    } catch (const ReportedByAnotherRank&) {
                        echo = true;
                    } catch (...) {
                    }
                    std::lock_guard lock(mutex);
                    if (!failure || (failure_is_echo && !echo)) {
                        failure = std::current_exception();
                        failure_is_echo = echo;
                    }
                }
                std::uint64_t after = shared.failed_after.load();
                while (comm->syncs() < after && !shared.failed_after.compare_exchange_weak(after, comm->syncs())) {
                }
                shared.barrier.arrive_and_drop();  // the others pass their next barrier and see the failure
                return;
            }
            shared.barrier.arrive_and_drop();
        });
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
}

void sum_over_ranks(IterationStats& stats, Communicator& comm) {
    std::uint64_t* const counters[] = {&stats.point_centroid_distances, &stats.bound_skips,     &stats.group_skips,
                                       &stats.labels_changed,           &stats.verified_points, &stats.gemm_certified,
                                       &stats.streamed_bytes,           &stats.second_centred,  &stats.stable_points,
                                       &stats.neighbour_clusters,       &stats.gemm_listed};
    std::uint64_t sums[std::size(counters)];
    for (std::size_t c = 0; c < std::size(counters); ++c) sums[c] = *counters[c];
    comm.sum(sums);
    for (std::size_t c = 0; c < std::size(counters); ++c) *counters[c] = sums[c];
}

}  // namespace kms
