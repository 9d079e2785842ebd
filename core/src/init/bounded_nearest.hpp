#pragma once
// Internal to core/src/init: the nearest-centre masses D[i] of k-means++, kept
// with the triangle inequality (Raff, "Exact Acceleration of K-Means++ and
// K-Means‖", IJCAI 2021) instead of one distance per point and centre.
//
// Every point remembers the centre that gave its D[i] (its owner) and every
// centre the points it owns with the largest of their D (its radius², R). A new
// centre c can lower D[i] only if ||c - c_owner|| < 2·sqrt(D[i]); so a centre
// with ||c - c_j||² > F·R_j is passed over whole, and a point of a centre that
// is searched with ||c - c_j||² > F·D[i] keeps D[i] without a distance.
//
// EXACTNESS. The result must be bitwise the plain pass's (init.cpp), which sets
// D[i] = s when the computed s < D[i]. Skipping is right when the computed s is
// surely >= the computed D[i]. Computed squared distances of sums of d squares
// carry a relative error of at most γ = (d+2)u/(1-(d+2)u) (u = 2^-53: one rounding
// per difference, square and addition, every term non-negative), when nothing
// underflows or overflows. With F = 4(1 + 8(d+2)·2^-53) > ρ(1+√ρ)²(1+u)², ρ =
// (1+γ)/(1-γ), the test cc_comp > F·D_comp gives s_true >= ρ·D_true, so s_comp >=
// D_comp. Outside the range where the relative bound holds the test is made safe:
// a D below 2^-900 is tested as 2^-900 (an upper bound of it, far above what
// underflow can move), a D above 2^900 (or not a number) is never skipped, and a
// centre distance that is not a number never skips. The sub-block and block sums
// are the plain pass's sums, recomputed in the same order where a D changed (a
// sub-block from its D, its block from the kept sub-block sums), so the totals and
// the D² sampling walk are bit for bit the same; greedy potentials take a
// sub-block's sum where no D of it would change.
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <vector>

#include "kms/matrix.hpp"
#include "kms/region_guard.hpp"
#include "seeding.hpp"

namespace kms::seeding {

template <typename T>
class BoundedNearest {
public:
    // `sample_weight`: n weights, or null (unweighted). Points fewer than 2^32. A stop
    // request (`stop`) ends the call in progress inside its loops (a round over 10^7
    // points takes a few hundred ms) with kms::Cancelled naming `source_name`; the
    // object is then unusable.
    BoundedNearest(const Matrix<T>& points, int threads, const double* sample_weight, std::stop_token stop,
                   std::string source_name);

    // D[i] = min(D[i], dist(i, centre)) for a new centre, the block sums and the total.
    void add_centre(const double* centre);
    // Several new centres at once (a k-means‖ round): each point takes the nearest
    // (ties: the earlier in a fixed order) when nearer than its D.
    void add_centres(const std::vector<std::vector<double>>& centres);

    double total() const { return total_; }
    const std::vector<double>& block_sums() const { return block_sums_; }  // Σ mass of each 4096-point block
    // D² sampling with u in [0, 1), the plain pass's walk. Needs total() > 0.
    std::size_t sample(double u) const;
    // Σ_i min(D[i], dist(i, candidate)) (weighted: w·min) per candidate in the plain
    // pass's blocked order. Remembers what each candidate would change, so that
    // add_centre() with one of them applies it without distances.
    std::vector<double> potentials(const std::vector<std::vector<double>>& candidates);

    double mass(std::size_t i) const { return weight_ ? weight_[i] * nearest_[i] : nearest_[i]; }
    const std::vector<std::uint32_t>& owner();  // index of the centre giving D[i] (ties: the earlier)
    std::size_t centres() const { return clusters_.size(); }
    std::uint64_t point_distances() const { return point_distances_; }
    std::uint64_t centre_distances() const { return centre_distances_; }

private:
    struct Change {
        std::uint32_t point;
        std::uint32_t from;  // the centre that owned it
        std::size_t at;      // its place in that centre's cluster
        double distance;     // its new D
    };
    // The points a centre owns in increasing band of D (band: D's binary exponent,
    // so a band spans a factor 2; any order inside a band), each with its D
    // (which stays while the point is owned) and its coordinates: a new centre can
    // take only a suffix (the top bands), read in a row, not scattered over the data.
    struct Cluster {
        std::vector<double> nearest;
        std::vector<std::uint32_t> point;
        std::vector<T> coordinates;  // size() × d
        double radius = 0.0;         // R: >= every tested(D), 0 with no points
        std::size_t size() const { return point.size(); }
        void reserve(std::size_t count, std::size_t d);
        void push(double d_value, std::uint32_t p, const T* row, std::size_t d);
        // drops the points of [from, size()) marked gone (a stop leaves the cluster unusable)
        void keep_unmarked(std::size_t from, std::size_t d, StopPoll& stop);
    };
    struct Visit {
        std::uint32_t centre;
        std::size_t from;  // its points [from, size()) were searched
    };
    struct Candidate {       // what potentials() found for one candidate
        std::vector<double> row;
        std::vector<Change> changes;  // in increasing band of D
    };

    const double* centre_row(std::size_t j) const { return centre_rows_.data() + j * d_; }
    void first_centre();
    std::vector<Change> changes_for(const double* row);  // in increasing band
    std::size_t suffix(const Cluster& cluster, double between) const;  // where a search from `between` away starts
    // `later`: the moved points are added there for one refresh_sums() later; null: now.
    void apply(std::size_t new_centre, const std::vector<Change>& changes, std::vector<std::uint32_t>* later = nullptr);
    void drop_moved(const std::vector<Change>& changes);  // the clusters drop the points marked gone
    void refresh_sums(const std::vector<std::uint32_t>& moved);
    double sum_of_sub_blocks(std::size_t block) const;  // the block's sum from sub_sums_, in order

    const Matrix<T>& points_;
    std::size_t n_, d_;
    int threads_;
    const double* weight_;
    StopPoll stop_;
    double factor_;  // F above
    std::vector<double> nearest_;          // D
    std::vector<std::uint32_t> owner_;
    std::vector<double> centre_rows_;      // centres × d
    std::vector<Cluster> clusters_;        // one per centre
    std::vector<double> block_sums_;
    std::vector<double> sub_sums_;         // per 64-point sub-block: a changed D re-sums 64, not 4096
    double total_ = 0.0;
    std::vector<Candidate> candidates_;
    std::uint64_t point_distances_ = 0, centre_distances_ = 0;
};

extern template class BoundedNearest<float>;
extern template class BoundedNearest<double>;

}  // namespace kms::seeding
