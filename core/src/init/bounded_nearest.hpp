#pragma once
// Internal to core/src/init: the nearest-centre masses D[i] of k-means++ and
// k-means‖, kept with a tree of boxes over the points instead of one distance per
// point and centre (the exact acceleration of Raff, "Exact Acceleration of K-Means++
// and K-Means‖", IJCAI 2021, with the box bound of a k-d tree in place of his
// centre-to-centre bound).
//
// The points are put once in Morton order (of the widest dimensions) and cut into
// leaves of kLeaf points; a balanced binary tree over the leaves keeps, per node,
// the box of its points and the largest D among them. A new centre c walks the tree
// and passes over a node whose box is at least that largest D away from c; in the
// leaves it reaches, each point takes D[i] = s when s = dist(i, c) < D[i], as the
// plain pass does. Points never move: a changed D is written in place.
//
// EXACTNESS. The result must be bitwise the plain pass's (init.cpp), which sets
// D[i] = s when the computed s < D[i]. A node is passed over only when the computed
// box distance b = Σ_j t_j² (t_j = lo_j - c_j, c_j - hi_j or 0; sums in j order
// from 0.0, as kms::squared_distance) is >= the computed D of each of its points.
// Each point's computed s is >= b with no margin: rounding is monotone (a - c >=
// lo - c gives fl(a - c) >= fl(lo - c), likewise squares and sums of non-negative
// terms, and fl(-x) = -fl(x)), so s >= b >= D and the plain pass would keep D too.
// This holds through underflow and overflow; a box distance that is not a number
// never skips. (Rows with a non-finite coordinate make the first centre's total
// non-finite, which ends the seeding before any skip.) The sub-block and block sums
// are the plain pass's sums, recomputed in the same order where a D changed (a
// sub-block from its D, its block from the kept sub-block sums), so the totals and
// the D² sampling walk are bit for bit the same; greedy potentials take a
// sub-block's sum where no D of it would change.
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/matrix.hpp"
#include "large_buffer.hpp"
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
    // (ties: the earlier) when nearer than its D; the sums once at the end.
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
    const double* distances() const { return nearest_.data(); }  // D by row
    const std::vector<std::uint32_t>& owner();  // index of the centre giving D[i] (ties: the earlier)
    const LargeVector<std::uint32_t>& owner_in_tree_order() const { return owner_at_; }  // the same, points permuted
    std::size_t centres() const { return centres_; }
    std::uint64_t point_distances() const { return point_distances_; }
    std::uint64_t centre_distances() const { return box_distances_; }  // the bounds' own: centre to box

private:
    struct Change {
        std::uint32_t point;  // row
        std::uint32_t at;     // its place in tree order
        double distance;      // its new D
    };
    struct Candidate {  // what potentials() found for one candidate
        std::vector<double> row;
        std::vector<Change> changes;
    };
    // One walk of the tree by one centre (a thread's part of it).
    struct Walk {
        const double* centre;
        std::uint32_t index;           // the centre's number (owner)
        bool apply;                    // write the changes (else only list them)
        std::vector<Change>* changes;  // listed here; null (applied by one thread): dirty_ marked
        std::uint64_t points = 0, boxes = 0, polls = 0;
    };
    // Several centres at once (a thread's part of them).
    struct Batch {
        const double* centres;                          // m × d, contiguous
        std::uint32_t first;                            // the number of centres[0]
        std::vector<std::vector<std::uint32_t>> lists;  // per depth: the centres kept there
        std::vector<std::vector<double>> lows;          // and their box distances
        std::vector<double> near;                       // a leaf's kept centres' rows, contiguous
        std::uint64_t points = 0, boxes = 0, polls = 0;
    };

    void build();        // the Morton order, the leaves and the boxes
    void first_centre(const double* centre);  // the tree, every distance, the largest D
    template <bool Far>  // the farthest a point of the box can be, else the nearest
    double box_distance(std::size_t node, const double* centre) const;
    double visit(std::size_t node, Walk& walk);  // returns the node's largest D after the walk
    double leaf_largest(std::size_t node) const;
    void update_above(std::size_t depth);        // largest D of the nodes above `depth`, from below
    std::vector<std::size_t> shares(std::size_t& depth) const;  // subtrees to share out, at `depth`
    // One centre numbered `number` (apply: D, owner and largest D written; else the changes listed).
    void walk(const double* centre, std::uint32_t number, bool apply, std::vector<Change>& changes);
    // The batch's centres `list` (increasing) that may lower a D below `node`; returns its largest D.
    // Dims: d when known at compile time (the loops unrolled), else 0. Changed points'
    // sub-blocks are marked in dirty_ (by any thread: relaxed atomic stores of 1).
    template <std::size_t Dims>
    double filter(std::size_t node, std::size_t depth, const std::uint32_t* list, std::size_t size, Batch& batch);
    void apply_known(std::uint32_t index, const std::vector<Change>& changes);
    void refresh_sums(const std::vector<Change>& moved);
    double sum_of_sub_blocks(std::size_t block) const;  // the block's sum from sub_sums_, in order

    const Matrix<T>& points_;
    std::size_t n_, d_;
    int threads_;
    const double* weight_;
    StopPoll stop_;
    LargeVector<double> nearest_;          // D by row
    std::vector<std::uint32_t> owner_;     // by row, filled by owner()
    // Tree order: position p holds row row_[p], its coordinates, D and owner.
    LargeVector<std::uint32_t> row_;
    LargeVector<T> coordinates_;           // n × d
    LargeVector<double> near_;
    LargeVector<std::uint32_t> owner_at_;
    std::vector<char> dirty_;              // sub-blocks with a changed D, for refresh_sums()
    // Nodes 1 .. 2·slots_ - 1 (children 2v, 2v + 1; leaf l is node slots_ + l).
    std::size_t slots_ = 0, depth_ = 0;
    std::vector<std::uint32_t> begin_, end_;  // its points [begin, end) in tree order
    std::vector<double> low_, high_;          // its box (× d)
    std::vector<double> largest_;             // the largest D of its points (-inf: none)
    std::vector<double> block_sums_;
    std::vector<double> sub_sums_;         // per 64-point sub-block: a changed D re-sums 64, not 4096
    double total_ = 0.0;
    std::size_t centres_ = 0;
    std::vector<Candidate> candidates_;
    std::uint64_t point_distances_ = 0, box_distances_ = 0;
};

extern template class BoundedNearest<float>;
extern template class BoundedNearest<double>;

}  // namespace kms::seeding
