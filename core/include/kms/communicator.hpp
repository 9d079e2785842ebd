#pragma once
// Row partitions: one data set split into contiguous blocks of rows, one per rank
// (an MPI process, or a thread of ThreadGroup in tests), each rank running the
// same solver on its block. The few collective operations a partitioned run needs
// are those of kms::Communicator; the solvers call them in the same order on every
// rank, and combine what they gather in the single-process order, so a partitioned
// run gives the single process's bits (docs/scale-out.md says how).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "kms/error.hpp"
#include "kms/stats.hpp"

namespace kms {

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Every rank's values (their counts may differ), concatenated in rank order, on every rank.
    virtual std::vector<double> allgather(std::span<const double> values) = 0;
    virtual std::vector<std::int64_t> allgather(std::span<const std::int64_t> values) = 0;
    // In place: each entry becomes its sum over the ranks (integers: exact in any order).
    virtual void sum(std::span<std::uint64_t> values) = 0;
    // In place: every rank gets `root`'s values.
    virtual void broadcast(std::span<double> values, int root) = 0;
};

// A rank's block of a data set of `global_rows` rows: rows [first_row, first_row + rows).
struct RowPartition {
    std::shared_ptr<Communicator> comm;
    std::size_t global_rows = 0;
    std::size_t first_row = 0;
};

// A partitioned run's iteration: each per-rank counter of `stats` (distances, skips,
// changed labels, the GEMM filter's counts, streamed bytes) becomes its sum over the
// ranks; the rest (times, shifts) is every rank's already. The one list, for every back end.
void sum_over_ranks(IterationStats& stats, Communicator& comm);

// How the CPU solvers cut n points into packages for the centroid update (the
// reduction tree's leaves): a function of n, k, d and --packages only.
struct PackageLayout {
    std::size_t packages = 1;
    std::size_t package_size = 1;  // points per package, a multiple of 256; the last may be shorter
};
PackageLayout package_layout(std::size_t n, std::size_t k, std::size_t d, int packages_option = 0);

// The first row of each of `ranks` blocks of n rows (and n at the end: ranks + 1
// numbers), as equal as the grain allows: every boundary falls on a package of
// package_layout(n, k, d, packages_option) and on a 4096-point block of the
// initialisation's fixed order, so each rank's sums are whole leaves of the
// single-process trees. Ranks past the data get no rows.
// `parts` > 1: each rank splits its block again over `parts` (the devices of a rank
// driving several, --devices under MPI ranks): rank r's block is then parts r·parts to
// (r+1)·parts of partition_rows(n, k, d, ranks·parts), so every device holds a block of
// one partition and the run sums as one device would.
std::vector<std::size_t> partition_rows(std::size_t n, std::size_t k, std::size_t d, int ranks,
                                        int packages_option = 0, int parts = 1);

// The update's pairwise tree over P packages (the CPU's, cpu_solver.hpp): with
// stride 1, 2, 4, ..., node p (a multiple of 2·stride) adds node p + stride when
// p + stride < P; node p then spans packages [p, min(p + 2·stride, P)). A rank
// holding packages [begin, end) can complete alone every node whose span lies
// inside; package_tree_cover() lists the largest of them (left to right), the
// values it ships, and finish_package_tree() completes the tree from every rank's.
struct PackageSpan {
    std::size_t first = 0, last = 0;  // packages [first, last)
};
std::vector<PackageSpan> package_tree_cover(std::size_t packages, std::size_t begin, std::size_t end);

// The tree's additions a rank holding packages [begin, end) makes alone, level by
// level: for each stride, the nodes p that add node p + stride (in any order
// within a level; levels in increasing stride).
struct PackageTreeLevel {
    std::size_t stride = 1;
    std::vector<std::size_t> nodes;
};
std::vector<PackageTreeLevel> package_tree_local_levels(std::size_t packages, std::size_t begin, std::size_t end);

// The root (packages [0, P)) from the values of `covers` (every rank's cover,
// ascending, together spanning [0, P) once): add(dst, src) adds cover src's value
// into cover dst's (indices into `covers`), in the order the whole tree adds them;
// the root's value ends in cover 0.
void finish_package_tree(std::size_t packages, const std::vector<PackageSpan>& covers,
                         const std::function<void(std::size_t dst, std::size_t src)>& add);

// On one rank of a partitioned run: another rank failed and reports why (the job
// prints one message, not one per rank); this rank stops quietly with exit status 1.
class ReportedByAnotherRank : public Error {
public:
    using Error::Error;
};

// Collective: every rank passes what its part of a step threw (or nothing). When
// no rank failed it returns; otherwise the lowest rank with a failure of its own
// (not a ReportedByAnotherRank from an earlier agreement) rethrows it — for a load
// split in row order, the first error in the file, the one a single process
// reports; for a failure every rank meets alike, rank 0 — and every other rank
// throws ReportedByAnotherRank. Called before the next collective, it keeps one
// rank's failure from leaving the others waiting in that collective for ever.
void agree_on_failure(Communicator& comm, std::exception_ptr failure);

// The number of ranks an MPI launcher (mpirun/mpiexec: OpenMPI, MPICH, PMI/PMIx)
// started this process among; 1 when it was not started by one. Needs no MPI.
int launcher_world_size();

// Runs `body` and, with a communicator, agrees on its failure (agree_on_failure):
// every rank must call it at the same point. Without one (a single process), just
// runs it and lets its exception through.
template <typename Body>
void agreed(Communicator* comm, Body&& body) {
    if (!comm) return body();
    std::exception_ptr failure;
    try {
        body();
    } catch (...) {
        failure = std::current_exception();
    }
    agree_on_failure(*comm, failure);
}

// This process's rank among those an MPI launcher started (OMPI_COMM_WORLD_RANK,
// PMI_RANK, PMIX_RANK); 0 when it was not started as one of several. Needs no MPI:
// errors every rank meets before MPI starts (a bad option) are printed by rank 0 only.
int launcher_world_rank();

// This process's index among the ranks the launcher started on this machine
// (OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK, MPICH/Hydra's MPI_LOCALRANKID, Slurm's
// SLURM_LOCALID); 0 when none is set. MPI ranks with a CUDA back end take device
// local_rank mod the devices visible, so the ranks of one machine spread over its GPUs.
int launcher_local_rank();
// The number of ranks the launcher started on this machine (OMPI_COMM_WORLD_LOCAL_SIZE,
// MPI_LOCALNRANKS, SLURM_NTASKS_PER_NODE); 1 when none is set.
int launcher_local_size();

// The ranks of `inner` (threads of this process: a device group's) inside each rank of
// `outer` (the MPI processes) as one communicator of outer.size() × inner.size() ranks,
// numbered process-major (rank o·I + i holds rows after those of every lower rank), so a
// partitioned solver on each thread sees one flat run. Every process must have the same
// inner size. Only inner rank 0 calls `outer`, one call at a time (MPI_THREAD_SERIALIZED).
std::shared_ptr<Communicator> nested_communicator(std::shared_ptr<Communicator> outer,
                                                  std::shared_ptr<Communicator> inner);

// `ranks` threads of this process as ranks, for tests and for comparing a
// partitioned run with the single process in one program: run(body) calls
// body(comm) on each thread with that thread's communicator and returns when all
// have. An exception on one rank is rethrown by run() (the others are released).
class ThreadGroup {
public:
    explicit ThreadGroup(int ranks);
    ~ThreadGroup();
    ThreadGroup(const ThreadGroup&) = delete;
    ThreadGroup& operator=(const ThreadGroup&) = delete;
    template <typename Body>
    void run(Body body) {
        run_impl([&](std::shared_ptr<Communicator> comm) { body(std::move(comm)); });
    }

    struct Shared;  // the threads' barrier and slots (partition.cpp)

private:
    void run_impl(const std::function<void(std::shared_ptr<Communicator>)>& body);
    std::unique_ptr<Shared> shared_;
};

}  // namespace kms
