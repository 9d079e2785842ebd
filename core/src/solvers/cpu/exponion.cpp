// Exponion (Newling & Fleuret, ICML 2016): when Hamerly's bounds fail, only the
// ball of radius R = 2u + s(a) around the own centroid a is searched (u: the
// tightened upper bound, s(a): the distance from a to its nearest other
// centroid). The ball search itself is annulus_search.hpp's, shared with Shallot.
#include "annulus_search.hpp"
#include "cpu_backend.hpp"

namespace kms::cpu {
namespace {

template <typename T>
class ExponionSolver final : public AnnulusSearchSolver<T, ExponionSolver<T>> {
public:
    using AnnulusSearchSolver<T, ExponionSolver<T>>::AnnulusSearchSolver;

    // The ball around the own centroid; its half radius u + s(a)/2 (centroid
    // distances are stored halved).
    std::pair<std::size_t, T> search_ball(std::size_t i, const T* upper, std::uint64_t&) const {
        const std::size_t a = static_cast<std::size_t>(this->labels_[i]);
        return {a, upper[i] + this->nearest_half_[a]};
    }
    void ball_searched(std::size_t, std::size_t, std::size_t, std::size_t) {}
    void allocate_search() {}
};

}  // namespace
}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(exponion_cpu) {
    kms::cpu::register_cpu_solver({kms::Algorithm::Exponion, "Hamerly's bounds, then only the centroids near the own one",
                                   2016, "Exponion's bounds and its ball around the own centroid"},
                                  kms::cpu::make_in_precision<kms::cpu::ExponionSolver>,
                                  {.streams_points = true, .bounds_per_point = 2});
}
