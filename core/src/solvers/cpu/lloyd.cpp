// Lloyd: a full search over all k centroids for every point.
#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

template <typename T>
class LloydSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    std::uint64_t assign(IterationStats& stats) override {
        const auto start = Clock::now();
        const std::uint64_t changed = this->full_assignment();
        stats.point_centroid_distances += static_cast<std::uint64_t>(this->n_) * this->k_;
        stats.time_assign_ms += elapsed_ms(start);
        return changed;
    }
};

}  // namespace

std::unique_ptr<Solver> make_lloyd(const SolverConfig& config) { return make_in_precision<LloydSolver>(config); }

}  // namespace kms::cpu
