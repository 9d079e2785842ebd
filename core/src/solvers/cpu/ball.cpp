// Ball k-means (Xia, Peng, Wang, Wang, Chen, Wang & Zhu, "Ball k-Means: Fast
// Adaptive Clustering With No Bounds", TPAMI 2022): each cluster is a ball
// around its centroid, whose radius bounds its points' distances. A point of
// ball a can move only to a neighbour cluster b, one whose half distance
// |a b| / 2 is within a's radius; within the ball, a point at distance u from a
// can move only to the neighbours with |a b| / 2 ≤ u (the ball's annular areas:
// neighbours sorted by distance, each ring of points searches a prefix), and
// a point with none (the stable area) keeps its label with no distance taken.
// A stable ball, whose centroid and whose neighbours did not move, keeps all its
// points unexamined: a point's comparison with an unmoved centroid is the one
// that labelled it last time, bit for bit, so only moved centroids are compared.
//
// Exactness: a neighbour is passed over only when BoundArithmetic proves it
// farther than the own centroid (u certain, |a b| / 2 a certain lower bound), or
// when neither it nor the own centroid moved (the same computed distances as
// the last assignment, whose labels were Lloyd's); candidates are compared by
// squared_distance() with ties to the lowest index, as Lloyd's full search.
// Instead of recomputing each distance to the own centroid, a point keeps an
// upper bound of it, grown by its centroid's move, and takes the distance only
// when that bound leaves some neighbour open; a ball's radius is the largest of
// its points' bounds (grown the same way), which only sizes its neighbour list.
//
// A point that leaves an eighth of the others (at least 8) open is searched in full by
// the vector kernel instead, as Hamerly's are: on uniform data at d ≥ 8 a ball's
// neighbours are many (only the nearest eighth of each ball's list is kept in order,
// the rest never walked). The walk over a list's open prefix takes its distances from
// a coordinate-major copy of the ball's neighbours (block_distances: bitwise
// squared_distance(), the neighbours in the vector lanes), refreshed with the lists.
//
// Statistics: stable_points counts the points settled with no distance taken,
// neighbour_clusters the neighbour distances taken; a point that evaluated
// fewer than k centroids counts as a bound skip.
#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

template <typename T>
class BallSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        const std::size_t k = this->k_;
        upper_.assign(this->n_, T(0));
        radius_.assign(k, T(0));
        moved_.assign(k, 1);
        active_.assign(k, 1);
        previous_.assign(k * this->d_, T(0));
        neighbours_.assign(k, {});
        wide_ = std::max<std::size_t>(8, k / 8);
        // The blocks take about the points' own memory at most: n / k neighbours a ball (at
        // least a vector block's lanes); the rest of a longer open prefix is walked scalar.
        blocked_ = std::min(wide_, std::max<std::size_t>(block_stride(1, this->d_), this->n_ / k));
        block_offset_.assign(k + 1, 0);
    }

    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t n = this->n_, d = this->d_, k = this->k_;
        const bool first = !this->bounds_valid_;
        const auto bounds_start = Clock::now();
        if (!first) stats.centroid_centroid_distances += neighbour_lists();
        std::copy_n(this->centroids_.data(), k * d, previous_.data());
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;
        const T* c = this->centroids_.data();
        std::int32_t* labels = this->labels_.data();
        T* upper = upper_.data();
        PointStatus* status = this->config_.record_point_status ? this->status_.data() : nullptr;
        const std::size_t team = static_cast<std::size_t>(std::max(1, this->threads_));
        thread_radius_.assign(team * k, T(0));
        std::uint64_t changed = 0, evaluations = 0, skips = 0, stable = 0, neighbour_distances = 0;
        constexpr std::size_t kChunk = 2048;
        const std::size_t chunks = (n + kChunk - 1) / kChunk;
        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) \
    reduction(+ : changed, evaluations, skips, stable, neighbour_distances)
        {
            T* radius = thread_radius_.data() + static_cast<std::size_t>(omp_get_thread_num()) * k;
            typename CpuSolver<T>::FullSearchBatch batch;
            std::vector<T> distances;  // a block's distances (block_distances)
            guard.run([&] {
                batch.allocate(kChunk, d);
                distances.resize(block_stride(blocked_, d));
            });
#pragma omp for schedule(dynamic, 1)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                if (guard.failed() || this->stop_now()) continue;  // cancelled: step() restores the last iteration
                const std::size_t begin = chunk * kChunk, end = std::min(n, begin + kChunk);
                // The batch's points searched in full (the vector kernel); each one's bound is its distance.
                const auto search_batch = [&] {
                    nearest_two(points, d, c, k, batch.pending.data(), batch.size, batch.nearest.data(),
                                batch.best.data(), batch.second.data(), batch.scratch.data());
                    evaluations += static_cast<std::uint64_t>(batch.size) * k;
                    for (std::size_t s = 0; s < batch.size; ++s) {
                        const std::size_t i = batch.pending[s];
                        changed += batch.nearest[s] != labels[i];
                        labels[i] = batch.nearest[s];
                        upper[i] = bounds.upper(std::sqrt(batch.best[s]));
                        radius[labels[i]] = std::max(radius[labels[i]], upper[i]);
                    }
                    batch.size = 0;
                };
                if (first) {  // Lloyd's full search
                    for (std::size_t i = begin; i < end; ++i) batch.add(i);
                    search_batch();
                    continue;
                }
                for (std::size_t i = begin; i < end; ++i) {
                    const std::size_t a = static_cast<std::size_t>(labels[i]);
                    bool wide = false;
                    const std::uint64_t evaluated = examine(i, a, bounds, distances.data(), stable, neighbour_distances, wide);
                    evaluations += evaluated;
                    if (wide) {  // searched in full below
                        batch.add(i);
                        continue;
                    }
                    const std::size_t label = static_cast<std::size_t>(labels[i]);
                    radius[label] = std::max(radius[label], upper[i]);
                    changed += label != a;
                    if (evaluated < k) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                    }
                }
                // The points whose balls left too many neighbours open: the vector full search.
                if (batch.size > 0) search_batch();
            }
        }
        guard.rethrow();
        // Each ball's radius: the largest bound of its points (the maximum does not
        // depend on the order the threads' maxima are taken in).
        for (std::size_t a = 0; a < k; ++a) {
            T largest = T(0);
            for (std::size_t t = 0; t < team; ++t) largest = std::max(largest, thread_radius_[t * k + a]);
            radius_[a] = largest;
        }
        stats.stable_points += stable;
        stats.neighbour_clusters += neighbour_distances;
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    struct Neighbour {
        T half;             // a certain lower bound of half the distance between the centroids
        std::uint32_t index;
    };

    // Which centroids moved since the last assignment (bit for bit), and each
    // ball's neighbours: the centroids whose half distance its radius (grown by
    // its move) reaches, nearest first; a ball is active when its centroid or a
    // neighbour moved. Returns the centroid distances evaluated.
    std::uint64_t neighbour_lists() {
        const std::size_t k = this->k_, d = this->d_;
        const BoundArithmetic<T> bounds(d);
        for (std::size_t a = 0; a < k; ++a)
            moved_[a] = std::memcmp(this->centroids_.row(a), previous_.data() + a * d, d * sizeof(T)) != 0;
        const std::uint64_t evaluated = this->centroid_rows([&](std::size_t a, T* row) {
            const T reach = moved_[a] ? bounds.grow(radius_[a], this->shift_upper_[a]) : radius_[a];
            std::vector<Neighbour>& list = neighbours_[a];
            list.clear();
            bool active = moved_[a];
            // A first cut in squared distances, with room for the rounding of the
            // bound arithmetic (no square root for the many centroids far beyond the
            // radius); the certain test follows for the few within.
            const T cut = T(2) * reach * (T(1) + T(16) * bounds.rel);
            const T squared_cut = cut * cut * (T(1) + T(16) * bounds.rel);
            for (std::size_t b = 0; b < k; ++b) {
                if (b == a || row[b] > squared_cut) continue;
                const T half = bounds.lower(std::sqrt(row[b])) / T(2);
                if (bounds.separated(reach, half)) continue;
                list.push_back({half, static_cast<std::uint32_t>(b)});
                active = active || moved_[b];
            }
            // Only the nearest wide_ need their order: a point that reaches past them is
            // searched in full (open_neighbours stops at the list's end, which is wide_).
            const auto nearer = [](const Neighbour& x, const Neighbour& y) {
                return x.half < y.half || (x.half == y.half && x.index < y.index);
            };
            if (list.size() > wide_) {
                std::nth_element(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(wide_), list.end(), nearer);
                list.resize(wide_);
            }
            std::sort(list.begin(), list.end(), nearer);
            active_[a] = active;
        });
        // Each active ball's first blocked_ neighbours, coordinate-major (lanes past a
        // list's end hold whatever was there: finite, computed, never read).
        for (std::size_t a = 0; a < k; ++a)
            block_offset_[a + 1] = block_offset_[a] +
                                   (active_[a] ? block_stride(std::min(blocked_, neighbours_[a].size()), d) * d : 0);
        blocks_.resize(block_offset_[k]);
#pragma omp parallel for schedule(dynamic, 16) num_threads(this->threads_) if (this->threads_ > 1 && k > 64)
        for (std::size_t a = 0; a < k; ++a) {
            if (!active_[a]) continue;
            const std::vector<Neighbour>& list = neighbours_[a];
            const std::size_t size = std::min(blocked_, list.size()), stride = block_stride(size, d);
            T* block = blocks_.data() + block_offset_[a];
            for (std::size_t q = 0; q < size; ++q) {
                const T* row = this->centroids_.row(list[q].index);
                for (std::size_t t = 0; t < d; ++t) block[t * stride + q] = row[t];
            }
        }
        return evaluated;
    }

    // A point with this many neighbours open is searched in full by the vector kernel, which
    // takes a distance several times faster than the scalar loop over a list (measured to
    // convergence, 10^5 uniform points, d = 8, k = 1000: 12.6 s with the scalar loop alone,
    // Exponion 5.8): an eighth of the others, at least 8.
    std::size_t wide_ = 8;
    std::size_t blocked_ = 8;  // a ball's neighbours in its block at most

    std::vector<T> blocks_;                    // per active ball: its first blocked_ neighbours, coordinate-major
    std::vector<std::size_t> block_offset_;    // k + 1: where each ball's block starts in blocks_

    // How many of a's neighbours (nearest first) a point within `u` of a may be nearer to.
    std::size_t open_neighbours(std::size_t a, T u, const BoundArithmetic<T>& bounds) const {
        const std::vector<Neighbour>& list = neighbours_[a];
        std::size_t m = 0;
        while (m < list.size() && !bounds.separated(u, list[m].half)) ++m;
        return m;
    }

    // Point i of ball a: its label and bound; returns the distances evaluated. Sets `wide`
    // instead where the point is to be searched in full (label and bound left to the caller).
    std::uint64_t examine(std::size_t i, std::size_t a, const BoundArithmetic<T>& bounds, T* distances,
                          std::uint64_t& stable, std::uint64_t& neighbour_distances, bool& wide) {
        if (!active_[a]) {  // a stable ball
            ++stable;
            return 0;
        }
        const bool own_moved = moved_[a];
        T u = own_moved ? bounds.grow(upper_[i], this->shift_upper_[a]) : upper_[i];
        std::size_t open = open_neighbours(a, u, bounds);
        const std::vector<Neighbour>& list = neighbours_[a];
        if (open >= wide_) {  // (the list holds only the nearest wide_: those past it are unknown)
            wide = true;
            return 0;
        }
        if (!own_moved) {  // only a moved neighbour can have come nearer
            std::size_t q = 0;
            while (q < open && !moved_[list[q].index]) ++q;
            if (q == open) open = 0;
        }
        upper_[i] = u;
        if (open == 0) {  // the stable area
            ++stable;
            return 0;
        }
        const std::size_t d = this->d_;
        const T* x = this->points_ + i * d;
        T best = squared_distance(x, this->centroids_.row(a), d);
        u = bounds.upper(std::sqrt(best));
        open = open_neighbours(a, u, bounds);
        if (open >= wide_) {  // (the own distance is taken again there: one more than Lloyd's k)
            wide = true;
            return 1;
        }
        std::size_t label = a;
        std::uint64_t evaluated = 1;
        // The open prefix's distances from the ball's block, as far as it goes, past it one by one.
        const std::size_t in_block = std::min(open, blocked_);
        const std::size_t stride = block_stride(std::min(blocked_, list.size()), d);
        block_distances(x, d, blocks_.data() + block_offset_[a], stride, in_block, distances);
        for (std::size_t q = 0; q < open; ++q) {
            const std::size_t b = list[q].index;
            if (!own_moved && !moved_[b]) continue;  // the same comparison as last time: a won it
            const T distance = q < in_block ? distances[q] : squared_distance(x, this->centroids_.row(b), d);
            ++evaluated;
            if (distance < best || (distance == best && b < label)) {
                best = distance;
                label = b;
            }
        }
        neighbour_distances += evaluated - 1;
        this->labels_[i] = static_cast<std::int32_t>(label);
        upper_[i] = label == a ? u : bounds.upper(std::sqrt(best));
        return evaluated;
    }

    std::vector<T> upper_;                // per point: a certain upper bound of the distance to its centroid
    std::vector<T> radius_;               // per ball: the largest of its points' bounds
    std::vector<T> thread_radius_;        // per thread and ball, during an assignment
    std::vector<T> previous_;             // the centroids of the last assignment (what moved)
    std::vector<unsigned char> moved_;    // per centroid: it moved since the last assignment
    std::vector<unsigned char> active_;   // per ball: it or a neighbour moved
    std::vector<std::vector<Neighbour>> neighbours_;  // per ball: its nearest wide_ neighbours, nearest first
};

}  // namespace
}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(ball_cpu) {
    kms::cpu::register_cpu_solver(
        {kms::Algorithm("ball"),
         "no bounds between points and other centroids: each cluster a ball, searched only against its neighbour balls",
         2022, "Ball k-means' stable balls and areas, and its neighbour clusters"},
        kms::cpu::make_in_precision<kms::cpu::BallSolver>);
}
