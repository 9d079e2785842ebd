#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

// Elkan: one upper bound and k lower bounds per point, plus all half distances
// between centroids.
//
// Out of core the n·(k + 1) bounds stay in memory while each step assigns the file's
// blocks in turn: what a step decides once (whether it builds the bounds; the centroids'
// half distances) is decided at its first block.
template <typename T>
class ElkanSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        const std::size_t n = this->n_, k = this->k_;
        if (k > 0 && n > std::numeric_limits<std::size_t>::max() / sizeof(T) / k)
            throw Error("Elkan needs n·k lower bounds, too many for this machine; use Hamerly");
        upper_.assign(n, T(0));
        this->assign_zeroed(lower_, n * k);
    }

    // Rows [window_first_, window_first_ + window_rows_): every row, or (out of core) the
    // block in points_ (row i at i − from).
    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t d = this->d_, k = this->k_;
        const std::size_t from = this->window_first_, to = from + this->window_rows_;
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;
        const T* c = this->centroids_.data();
        std::int32_t* labels = this->labels_.data();
        const bool record = this->config_.record_point_status;
        PointStatus* status = record ? this->status_.data() : nullptr;

        const auto bounds_start = Clock::now();
        if (from == 0) {
            building_ = !this->bounds_valid_;
            if (!building_) stats.centroid_centroid_distances += this->centroid_separations(true);
        }
        const bool first = building_;
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        const T* cc_half = this->cc_half_.data();
        const T* nearest_half = this->nearest_half_.data();
        const T* shift = this->shift_upper_.data();
        T* upper = upper_.data();
        T* lower_all = lower_.data();
        if (first) {
            // Every distance, vectorised, written straight into the lower bounds' rows,
            // then each row scanned in index order (first minimum) and made a bound.
            constexpr std::size_t kChunk = 256;
            const std::size_t chunks = (to - from + kChunk - 1) / kChunk;
            RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed, evaluations)
            {
                std::vector<T> scratch;
                guard.run([&] { scratch.resize(kernel_scratch_size(d)); });
#pragma omp for schedule(dynamic, 4)
                for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                    if (guard.failed() || this->stop_now()) continue;
                    const std::size_t begin = from + chunk * kChunk, end = std::min(to, begin + kChunk);
                    distances_range(points, d, c, k, begin - from, end - from, lower_all + begin * k, scratch.data());
                    for (std::size_t i = begin; i < end; ++i) {
                        T* lower = lower_all + i * k;
                        T best = std::numeric_limits<T>::infinity();
                        std::size_t best_index = 0;
                        for (std::size_t j = 0; j < k; ++j) {
                            const T dist = lower[j];
                            lower[j] = bounds.lower(std::sqrt(dist));
                            if (dist < best) {
                                best = dist;
                                best_index = j;
                            }
                        }
                        evaluations += k;
                        upper[i] = bounds.upper(std::sqrt(best));
                        changed += static_cast<std::int32_t>(best_index) != labels[i];
                        labels[i] = static_cast<std::int32_t>(best_index);
                    }
                }
            }
            guard.rethrow();
            return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
        }
#pragma omp parallel for schedule(dynamic, 1024) num_threads(this->threads_) if (this->threads_ > 1) \
    reduction(+ : changed, evaluations, skips)
        for (std::size_t i = from; i < to; ++i) {
            if (this->stop_now()) continue;  // cancelled: step() restores the last iteration
            const T* x = points + (i - from) * d;
            T* lower = lower_all + i * k;
            const std::int32_t old_label = labels[i];
            std::size_t a = static_cast<std::size_t>(old_label);
            T u = bounds.grow(upper[i], shift[a]);
            // Shrink every lower bound and find the first centroid the bounds do
            // not rule out: up to it the loop below would only skip (u changes
            // only at the first candidate), so it starts there.
            const T reach = u * (T(1) + T(4) * bounds.rel);  // as bounds.separated(u, ·) inflates u
            const std::size_t first_open = elkan_shrink_first(lower, shift, cc_half + a * k, k, a, reach);
            if (bounds.separated(u, nearest_half[a])) {
                upper[i] = u;
                ++skips;
                if (status) status[i] = PointStatus::Skipped;
                continue;
            }
            bool tight = false;
            T best = T(0);  // computed squared distance to a, valid once tight
            std::uint64_t point_evaluations = 0;
            for (std::size_t j = first_open; j < k; ++j) {
                if (j == a) continue;
                if (bounds.separated(u, lower[j]) || bounds.separated(u, cc_half[a * k + j])) continue;
                if (!tight) {
                    best = squared_distance(x, c + a * d, d);
                    ++point_evaluations;
                    u = bounds.upper(std::sqrt(best));
                    lower[a] = bounds.lower(std::sqrt(best));
                    tight = true;
                    if (bounds.separated(u, lower[j]) || bounds.separated(u, cc_half[a * k + j])) continue;
                }
                const T dist = squared_distance(x, c + j * d, d);
                ++point_evaluations;
                lower[j] = bounds.lower(std::sqrt(dist));
                if (dist < best || (dist == best && j < a)) {
                    best = dist;
                    a = j;
                    u = bounds.upper(std::sqrt(dist));
                }
            }
            upper[i] = u;
            evaluations += point_evaluations;
            if (point_evaluations < k) {
                ++skips;
                if (status) status[i] = PointStatus::Skipped;
            }
            labels[i] = static_cast<std::int32_t>(a);
            changed += labels[i] != old_label;
        }
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::vector<T> upper_, lower_;
    bool building_ = false;  // this step's assignment is a full search that builds the bounds
};

}  // namespace

}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(elkan_cpu) {
    kms::cpu::register_cpu_solver({kms::Algorithm::Elkan, "an upper bound and k lower bounds per point", 2003,
                                   "Elkan's upper and k lower bounds"},
                                  kms::cpu::make_in_precision<kms::cpu::ElkanSolver>,
                                  {.streams_points = true, .bounds_per_point = 1, .centroids_per_bound = 1});
}
