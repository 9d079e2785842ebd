// Shallot (Borgelt, "Even Faster Exact k-Means Clustering", IDA 2020): Exponion
// with a second tracked centroid per point. When Hamerly's bounds fail, the
// distance to the tracked second b is taken as well as the one to the own
// centroid a; the nearer of the two, z, centres the ball, and its radius is
// m1 + min(m2, m1 + s(z)) (m1, m2: the distances to z and to the other of the
// pair; s(z): the distance from z to its nearest other centroid) instead of
// Exponion's 2u + s(a) around a. Every centroid that could be the point's
// nearest or second nearest is within m1 + m2 of z, and z's nearest other is
// within m1 + s(z) of the point, so the ball still holds the winner, and it is
// smaller wherever the tracked second is near (centroids that trade points). The
// ball search is annulus_search.hpp's, shared with Exponion; the centre and the
// radius decide only how much is searched, never the result.
//
// The tracked second: the centroid the point left when its label changed, else
// the other of the pair it was searched with; the own centroid's nearest other
// (its ring's first entry) while none is known.
#include <limits>

#include "annulus_search.hpp"
#include "cpu_backend.hpp"

namespace kms::cpu {
namespace {

template <typename T>
class ShallotSolver final : public AnnulusSearchSolver<T, ShallotSolver<T>> {
public:
    using AnnulusSearchSolver<T, ShallotSolver<T>>::AnnulusSearchSolver;

    // The ball around the nearer of the own centroid and the tracked second, with
    // its bound made the point's upper bound (pass 3 bounds what lies beyond the
    // ball by it); returns the centre and half the radius.
    std::pair<std::size_t, T> search_ball(std::size_t i, T* upper, std::uint64_t& evaluations) {
        const std::size_t a = static_cast<std::size_t>(this->labels_[i]);
        const T* nearest_half = this->nearest_half_.data();
        const T exponion_half = upper[i] + nearest_half[a];
        // Where Exponion's ball is searched in full, the second's distance is not
        // taken: the point costs no more than there (at most Lloyd's k and the tightening).
        if (this->inner_ == 0 || this->searched_in_full(this->reach_of(a, exponion_half))) return {a, exponion_half};
        std::size_t b = second_[i];
        if (b == kNone || b == a) b = this->ring_[a * this->inner_];  // a's nearest other: the best guess
        const std::size_t d = this->d_;
        const BoundArithmetic<T> bounds(d);
        const T* x = this->points_ + (i - this->window_first_) * d;  // (out of core points_ holds the block's rows)
        const T to_b = bounds.upper(std::sqrt(squared_distance(x, this->centroids_.row(b), d)));
        ++evaluations;
        second_[i] = static_cast<std::uint32_t>(b);
        const T to_a = upper[i];
        const bool b_nearer = to_b < to_a;
        const std::size_t centre = b_nearer ? b : a;
        const T near = b_nearer ? to_b : to_a, far = b_nearer ? to_a : to_b;
        upper[i] = near;
        if (b_nearer) ++centred_on_second_[static_cast<std::size_t>(omp_get_thread_num()) * kPad];
        return {centre, T(0.5) * (near + std::min(far, near + T(2) * nearest_half[centre]))};
    }

    // After a ball search: the centroid the point left is its new second; if it
    // stayed with the centre, the other of the pair stays (or becomes) the second.
    void ball_searched(std::size_t i, std::size_t old_label, std::size_t centre, std::size_t label) {
        if (label != centre) second_[i] = static_cast<std::uint32_t>(centre);
        else if (centre != old_label) second_[i] = static_cast<std::uint32_t>(old_label);
    }

    void allocate_search() { second_.assign(this->n_, kNone); }

    std::uint64_t assign(IterationStats& stats) override {
        centred_on_second_.assign(static_cast<std::size_t>(std::max(1, this->threads_)) * kPad, 0);
        const std::uint64_t changed = AnnulusSearchSolver<T, ShallotSolver<T>>::assign(stats);
        for (std::size_t t = 0; t < centred_on_second_.size(); t += kPad) stats.second_centred += centred_on_second_[t];
        return changed;
    }

private:
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::size_t kPad = 8;  // a thread's count on a cache line of its own
    std::vector<std::uint32_t> second_;  // per point: the tracked second centroid (kNone: none yet)
    std::vector<std::uint64_t> centred_on_second_;  // per thread: open points whose ball was centred on the second
};

}  // namespace
}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(shallot_cpu) {
    kms::cpu::register_cpu_solver(
        {kms::Algorithm("shallot"), "Exponion with a tracked second centroid: smaller balls around the nearer of the two",
         2020, "Shallot's bounds and its ball around the nearer of the own and the tracked second centroid"},
        kms::cpu::make_in_precision<kms::cpu::ShallotSolver>,
        {.streams_points = true, .bounds_per_point = 3});  // two bounds and the tracked second (4 bytes, counted as one)
}
