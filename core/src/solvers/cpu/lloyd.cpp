// Lloyd: a full search over all k centroids for every point; at d >= 16 and
// k >= 32 through the certified GEMM (gemm_assign.hpp) unless SolverConfig::gemm_filter
// is off: the same labels, bit for bit.
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
        GemmAssignCounts gemm;
        const std::uint64_t changed = this->full_assignment(&gemm);
        stats.gemm_certified += gemm.certified;
        stats.verified_points += gemm.verified;
        // Distance evaluations: n·k (the exact kernel's, or the GEMM's approximate
        // ones), plus k for every point the GEMM left to the exact search.
        // (Out of core assign() sees one block at a time: window_rows_ of the n_ rows.)
        stats.point_centroid_distances +=
            static_cast<std::uint64_t>(this->window_rows_) * this->k_ + gemm.verified * this->k_;
        stats.time_assign_ms += elapsed_ms(start);
        return changed;
    }
};

}  // namespace

}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(lloyd_cpu) {
    kms::cpu::register_cpu_solver({kms::Algorithm::Lloyd, "every point against every centroid (the reference)", 1982, ""},
                                  kms::cpu::make_in_precision<kms::cpu::LloydSolver>, {.streams_points = true});
}
