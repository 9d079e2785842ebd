#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

// Hamerly: one upper bound (to the own centroid) and one lower bound (to the
// second nearest) per point; the half distance to the nearest other centroid.
template <typename T>
class HamerlySolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        upper_.assign(this->n_, T(0));
        lower_.assign(this->n_, T(0));
    }

    // Out of core a step assigns one block of rows at a time (window_first_, window_rows_):
    // what the step decides once — whether it builds the bounds, the centroids' half
    // distances and moves — is decided at its first block.
    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t d = this->d_;
        const std::size_t from = this->window_first_, to = from + this->window_rows_;
        auto bounds_start = Clock::now();
        if (from == 0) {
            building_ = !this->bounds_valid_;
            if (!building_) {
                stats.centroid_centroid_distances += this->centroid_rows([](std::size_t, T*) {});
                leaders_ = this->shift_leaders();
            }
        }
        const bool first = building_;
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        T* upper = upper_.data();
        T* lower = lower_.data();
        // Points in chunks: the bounds test first, then one vectorised full search
        // over the chunk's points whose bounds failed.
        constexpr std::size_t kChunk = 2048;
        const std::size_t chunks = (to - from + kChunk - 1) / kChunk;
        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed, evaluations, skips)
        {
            typename CpuSolver<T>::FullSearchBatch batch;
            guard.run([&] { batch.allocate(kChunk, d); });
#pragma omp for schedule(dynamic, 1)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                if (guard.failed() || this->stop_now()) continue;  // cancelled: step() restores the last iteration
                const std::size_t begin = from + chunk * kChunk, end = std::min(to, begin + kChunk);
                if (first) {
                    for (std::size_t i = begin; i < end; ++i) batch.add(i);
                } else {
                    batch.size = this->hamerly_filter(begin, end, upper, lower, leaders_, batch.pending.data(),
                                                      evaluations, skips);
                }
                // Full search: nearest (lowest index on ties) and second nearest.
                changed += this->search_batch(batch, upper, lower, evaluations);
            }
        }
        guard.rethrow();
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::vector<T> upper_, lower_;
    typename CpuSolver<T>::ShiftLeaders leaders_;
    bool building_ = false;  // this step's assignment is a full search that builds the bounds
};

}  // namespace

}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(hamerly_cpu) {
    kms::cpu::register_cpu_solver({kms::Algorithm::Hamerly, "one upper and one lower bound per point", 2010,
                                   "Hamerly's upper and lower bound"},
                                  kms::cpu::make_in_precision<kms::cpu::HamerlySolver>,
                                  {.streams_points = true, .bounds_per_point = 2});
}
