// kms::Communicator over MPI_COMM_WORLD (kms/mpi_communicator.hpp).
#include "mpi_communicator.hpp"

#include <mpi.h>

#include <string>
#include <vector>

#include "kms/error.hpp"

namespace kms {

namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error(std::string("MPI ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

template <typename V>
MPI_Datatype type_of();
template <>
MPI_Datatype type_of<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype type_of<std::int64_t>() { return MPI_INT64_T; }

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator() {
        check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "Comm_rank");
        check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "Comm_size");
    }
    ~MpiCommunicator() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }

    std::vector<double> allgather(std::span<const double> values) override { return gather(values); }
    std::vector<std::int64_t> allgather(std::span<const std::int64_t> values) override { return gather(values); }

    void sum(std::span<std::uint64_t> values) override {
        check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                            MPI_COMM_WORLD),
              "Allreduce");
    }
    void broadcast(std::span<double> values, int root) override {
        check(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, root, MPI_COMM_WORLD), "Bcast");
    }

private:
    // Counts first, then the values (MPI counts are int: blocks past 2^31 values
    // would need MPI 4's large counts).
    template <typename V>
    std::vector<V> gather(std::span<const V> values) {
        const auto mine = static_cast<long long>(values.size());
        if (mine > 0x7fffffff) throw Error("an MPI gather of more than 2^31 values per rank");
        std::vector<long long> counts(static_cast<std::size_t>(size_));
        check(MPI_Allgather(&mine, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "Allgather");
        std::vector<int> sizes(counts.size()), offsets(counts.size());
        long long total = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            if (total > 0x7fffffff) throw Error("an MPI gather of more than 2^31 values");
            offsets[r] = static_cast<int>(total);
            sizes[r] = static_cast<int>(counts[r]);
            total += counts[r];
        }
        std::vector<V> all(static_cast<std::size_t>(total));
        check(MPI_Allgatherv(values.data(), static_cast<int>(mine), type_of<V>(), all.data(), sizes.data(),
                             offsets.data(), type_of<V>(), MPI_COMM_WORLD),
              "Allgatherv");
        return all;
    }
    int rank_ = 0, size_ = 1;
};

}  // namespace

namespace {
int provided_level = MPI_THREAD_SINGLE;
}  // namespace

bool mpi_world_serialized() { return provided_level >= MPI_THREAD_SERIALIZED; }

std::shared_ptr<Communicator> mpi_world() {
    // One for the process, finalized at its exit: after a failing rank has printed why.
    // (Finalized with the command's last reference, the ranks that only echo a failure
    // left MPI_Finalize and exited while the failing rank was still unwinding to its
    // message, and the launcher, seeing a rank exit with status 1, aborted the job
    // before the message came out.)
    static const std::shared_ptr<Communicator> world = [] {
        int initialized = 0;
        MPI_Initialized(&initialized);
        if (!initialized) {
            check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided_level), "Init_thread");
            if (provided_level < MPI_THREAD_FUNNELED)
                throw Error("this MPI library does not support MPI_THREAD_FUNNELED");
        } else {
            check(MPI_Query_thread(&provided_level), "Query_thread");
        }
        return std::shared_ptr<Communicator>(std::make_shared<MpiCommunicator>());
    }();
    return world;
}

}  // namespace kms
