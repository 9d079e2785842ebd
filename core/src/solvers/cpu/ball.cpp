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
// the rest never walked).
//
// The walk is grouped, as Exponion's ball search is (annulus_search.hpp): a window of
// points is examined first (stable ball, stable area, the own distance, how many
// neighbours stay open), the points left with open neighbours are grouped by ball, and
// each ball's points, ordered by how many they left open, are searched in segments
// of at least 32 by the vector full-search kernel, with the points in its lanes,
// against the ball's centroid and the list prefix the segment's last point needs (in
// index order: the kernel's first minimum is the lowest index). A point takes the
// segment's winner: the centroids past its own prefix are proven farther than its own,
// and an unmoved neighbour of an unmoved centroid compares as it did last time (its own
// won), so the winner is the one its own walk would find. Its counts are its own walk's
// (the own distance and the open neighbours that moved, all of them where its own
// centroid moved): labels, bounds and counters do not depend on the grouping.
// Grouping pays only for long walks: a ball whose walking points in the last assignment
// were fewer than a segment per window, or left fewer than kLongWalk neighbours open on
// average, walks them one by one, neighbour by neighbour, where they are examined (1
// thread, 10^5 points, 15 iterations, grouped against one by one: blobs k = 1000 at
// d = 2, 8, 32 1.06-1.15x the time, where a segment's ball is its longest walk's and most
// walks are short; uniform k = 1000 at d = 8 and 32, 0.9-0.97x).
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
        walk_rows_.assign(std::min(this->n_, this->window_chunks(kChunk) * kChunk), 0);
        walk_open_.assign(walk_rows_.size(), 0);
        grouped_ball_.assign(k, 0);
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
        std::int32_t* labels = this->labels_.data();
        T* upper = upper_.data();
        PointStatus* status = this->config_.record_point_status ? this->status_.data() : nullptr;
        const std::size_t team = static_cast<std::size_t>(std::max(1, this->threads_));
        thread_radius_.assign(team * k, T(0));
        thread_walkers_.assign(team * k, 0);
        thread_walked_.assign(team * k, 0);
        std::uint64_t changed = 0, evaluations = 0, skips = 0, stable = 0, neighbour_distances = 0;
        const std::size_t chunks = (n + kChunk - 1) / kChunk;
        // (at least 1: a rank's block may hold no rows, and the windows are counted below)
        const std::size_t window_chunks = std::max<std::size_t>(1, first ? chunks : this->window_chunks(kChunk));
        std::vector<std::size_t> walk_count(chunks, 0);
        std::vector<std::size_t> ball_start(k + 1, 0), place(k, 0);
        std::size_t* walk_rows = walk_rows_.data();
        std::uint32_t* walk_open = walk_open_.data();
        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) \
    reduction(+ : changed, evaluations, skips, stable, neighbour_distances)
        {
            T* radius = thread_radius_.data() + static_cast<std::size_t>(omp_get_thread_num()) * k;
            std::size_t* walkers = thread_walkers_.data() + static_cast<std::size_t>(omp_get_thread_num()) * k;
            std::size_t* walked = thread_walked_.data() + static_cast<std::size_t>(omp_get_thread_num()) * k;
            typename CpuSolver<T>::FullSearchBatch batch;
            std::vector<std::pair<std::uint32_t, std::size_t>> segment;  // a ball's walking points: (open, point)
            std::vector<std::uint32_t> ball;
            std::vector<T> ball_centroids;
            std::vector<std::size_t> rows;
            guard.run([&] {
                batch.allocate(kChunk, d);
                rows.resize(kChunk);
            });
            // The batch's points searched in full (the vector kernel); each one's bound is its distance.
            const auto search_batch = [&] {
                nearest_two(points, d, this->centroids_.data(), k, batch.pending.data(), batch.size,
                            batch.nearest.data(), batch.best.data(), batch.second.data(), batch.scratch.data());
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
            // A point settled after `evaluated` distances, with its label and bound.
            const auto settled = [&](std::size_t i, std::uint64_t evaluated) {
                const std::size_t label = static_cast<std::size_t>(labels[i]);
                radius[label] = std::max(radius[label], upper[i]);
                evaluations += evaluated;
                if (evaluated < k) {
                    ++skips;
                    if (status) status[i] = PointStatus::Skipped;
                }
            };
            for (std::size_t window = 0; window < chunks; window += window_chunks) {
                const std::size_t window_end = std::min(chunks, window + window_chunks);
                // Pass 1: each point's stable ball, stable area or own distance; the points left
                // with open neighbours to the window's slots, those with too many to the batch.
#pragma omp for schedule(dynamic, 1)
                for (std::size_t chunk = window; chunk < window_end; ++chunk) {
                    if (guard.failed() || this->stop_now()) continue;  // cancelled: step() restores the last iteration
                    const std::size_t begin = chunk * kChunk, end = std::min(n, begin + kChunk);
                    if (first) {  // Lloyd's full search
                        for (std::size_t i = begin; i < end; ++i) batch.add(i);
                        search_batch();
                        continue;
                    }
                    const std::size_t slot = (chunk - window) * kChunk;
                    std::size_t walking = 0;
                    for (std::size_t i = begin; i < end; ++i) {
                        std::size_t open = 0;
                        T own = T(0);
                        const std::uint64_t evaluated = examine(i, bounds, stable, open, own);
                        const std::size_t a = static_cast<std::size_t>(labels[i]);
                        walkers[a] += open > 0 && open < wide_;
                        walked[a] += open < wide_ ? open : 0;
                        if (open >= wide_) {  // searched in full below
                            evaluations += evaluated;
                            batch.add(i);
                        } else if (open > 0 && !grouped_ball_[a]) {
                            settled(i, walk_one(i, open, own, bounds, neighbour_distances));
                            changed += static_cast<std::size_t>(labels[i]) != a;
                        } else if (open > 0) {
                            walk_rows[slot + walking] = i;
                            walk_open[slot + walking] = static_cast<std::uint32_t>(open);
                            ++walking;
                        } else {
                            settled(i, evaluated);
                        }
                    }
                    walk_count[chunk] = walking;
                    if (batch.size > 0) search_batch();
                }
                if (first) continue;
                // Pass 2: the walking points grouped by ball (a counting sort, in point order).
#pragma omp single
                guard.run([&] {
                    std::fill(ball_start.begin(), ball_start.end(), 0);
                    for (std::size_t chunk = window; chunk < window_end; ++chunk)
                        for (std::size_t o = (chunk - window) * kChunk; o < (chunk - window) * kChunk + walk_count[chunk]; ++o)
                            ++ball_start[static_cast<std::size_t>(labels[walk_rows[o]]) + 1];
                    for (std::size_t a = 0; a < k; ++a) ball_start[a + 1] += ball_start[a];
                    grouped_.resize(ball_start[k]);
                    grouped_open_.resize(ball_start[k]);
                    std::copy(ball_start.begin(), ball_start.end() - 1, place.begin());
                    for (std::size_t chunk = window; chunk < window_end; ++chunk)
                        for (std::size_t o = (chunk - window) * kChunk; o < (chunk - window) * kChunk + walk_count[chunk]; ++o) {
                            const std::size_t at = place[static_cast<std::size_t>(labels[walk_rows[o]])]++;
                            grouped_[at] = walk_rows[o];
                            grouped_open_[at] = walk_open[o];
                        }
                });
                if (guard.failed()) continue;  // every thread sees it after the single's barrier
                // Pass 3: each ball's walking points, fewest open first, in segments of at least
                // kSegment (at most kChunk), each against the prefix its last point needs.
#pragma omp for schedule(dynamic, 1)
                for (std::size_t a = 0; a < k; ++a) {
                    if (guard.failed() || this->stop_now() || ball_start[a] == ball_start[a + 1]) continue;
                    if (!guard.run([&] {
                            segment.clear();
                            for (std::size_t g = ball_start[a]; g < ball_start[a + 1]; ++g)
                                segment.emplace_back(grouped_open_[g], grouped_[g]);
                        }))
                        continue;
                    std::sort(segment.begin(), segment.end());
                    const std::size_t size = segment.size();
                    for (std::size_t s_begin = 0; s_begin < size;) {
                        std::size_t s_end = std::min(size, s_begin + kSegment);
                        while (s_end < size && s_end - s_begin < kChunk && segment[s_end].first == segment[s_end - 1].first)
                            ++s_end;  // the points of the same prefix: the same ball
                        if (size - s_end < kSegment) s_end = std::min(size, s_begin + kChunk);  // no short tail
                        if (!guard.run([&] { walk_segment(a, segment, s_begin, s_end, ball, ball_centroids, rows, batch); }))
                            break;
                        for (std::size_t p = s_begin; p < s_end; ++p) {
                            const std::size_t i = segment[p].second, open = segment[p].first;
                            const std::size_t label = static_cast<std::size_t>(batch.nearest[p - s_begin]);
                            std::uint64_t evaluated = 1;  // its own walk's: the own distance, the open neighbours that moved
                            for (std::size_t q = 0; q < open; ++q)
                                evaluated += moved_[a] || moved_[neighbours_[a][q].index];
                            neighbour_distances += evaluated - 1;
                            changed += label != a;
                            labels[i] = static_cast<std::int32_t>(label);
                            if (label != a) upper[i] = bounds.upper(std::sqrt(batch.best[p - s_begin]));
                            settled(i, evaluated);
                        }
                        s_begin = s_end;
                    }
                }
            }
        }
        guard.rethrow();
        // Which balls group their walks next time: a segment or more per window, kLongWalk
        // open neighbours or more on average.
        const std::size_t windows = (chunks + window_chunks - 1) / window_chunks;
        for (std::size_t a = 0; a < k; ++a) {
            std::size_t walkers = 0, walked = 0;
            for (std::size_t t = 0; t < team; ++t) {
                walkers += thread_walkers_[t * k + a];
                walked += thread_walked_[t * k + a];
            }
            grouped_ball_[a] = walkers >= kSegment * windows && walked >= kLongWalk * walkers;
        }
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
        return this->centroid_rows([&](std::size_t a, T* row) {
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
    }

    // A point with this many neighbours open is searched in full by the vector kernel, which
    // takes a distance several times faster than the scalar loop over a list (measured to
    // convergence, 10^5 uniform points, d = 8, k = 1000: 12.6 s with the scalar loop alone,
    // Exponion 5.8): an eighth of the others, at least 8.
    std::size_t wide_ = 8;

    // How many of a's neighbours (nearest first) a point within `u` of a may be nearer to.
    std::size_t open_neighbours(std::size_t a, T u, const BoundArithmetic<T>& bounds) const {
        const std::vector<Neighbour>& list = neighbours_[a];
        std::size_t m = 0;
        while (m < list.size() && !bounds.separated(u, list[m].half)) ++m;
        return m;
    }

    // Point i before its walk: its stable ball or stable area (no distance), else its own
    // distance, which becomes its bound. `open`: how many of its ball's neighbours (nearest
    // first) it may be nearer to, 0 if none can have come nearer (only moved ones can where
    // its own centroid did not move), wide_ or more where it is to be searched in full.
    // `own`: the squared distance to its centroid, where taken. Returns the distances evaluated.
    std::uint64_t examine(std::size_t i, const BoundArithmetic<T>& bounds, std::uint64_t& stable, std::size_t& open,
                          T& own) {
        const std::size_t a = static_cast<std::size_t>(this->labels_[i]);
        open = 0;
        if (!active_[a]) {  // a stable ball
            ++stable;
            return 0;
        }
        const bool own_moved = moved_[a];
        const std::vector<Neighbour>& list = neighbours_[a];
        const auto none_moved = [&] {
            std::size_t q = 0;
            while (q < open && !moved_[list[q].index]) ++q;
            return q == open;
        };
        T u = own_moved ? bounds.grow(upper_[i], this->shift_upper_[a]) : upper_[i];
        open = open_neighbours(a, u, bounds);
        if (open >= wide_) return 0;  // (the list holds only the nearest wide_: those past it are unknown)
        if (!own_moved && none_moved()) open = 0;
        upper_[i] = u;
        if (open == 0) {  // the stable area
            ++stable;
            return 0;
        }
        const std::size_t d = this->d_;
        own = squared_distance(this->points_ + i * d, this->centroids_.row(a), d);
        u = bounds.upper(std::sqrt(own));
        upper_[i] = u;
        open = open_neighbours(a, u, bounds);  // (wide_ or more: the own distance is taken again in full)
        if (open < wide_ && !own_moved && none_moved()) open = 0;
        return 1;
    }

    // Point i's walk over the `open` nearest neighbours of its ball one at a time, from
    // its own squared distance `own`: its label and bound; returns the distances evaluated.
    std::uint64_t walk_one(std::size_t i, std::size_t open, T best, const BoundArithmetic<T>& bounds,
                           std::uint64_t& neighbour_distances) {
        const std::size_t a = static_cast<std::size_t>(this->labels_[i]), d = this->d_;
        const std::vector<Neighbour>& list = neighbours_[a];
        const T* x = this->points_ + i * d;
        std::size_t label = a;
        std::uint64_t evaluated = 1;
        for (std::size_t q = 0; q < open; ++q) {
            const std::size_t b = list[q].index;
            if (!moved_[a] && !moved_[b]) continue;  // the same comparison as last time: a won it
            const T distance = squared_distance(x, this->centroids_.row(b), d);
            ++evaluated;
            if (distance < best || (distance == best && b < label)) {
                best = distance;
                label = b;
            }
        }
        neighbour_distances += evaluated - 1;
        this->labels_[i] = static_cast<std::int32_t>(label);
        if (label != a) upper_[i] = bounds.upper(std::sqrt(best));
        return evaluated;
    }

    // Ball a's points segment[s_begin, s_end) (sorted by open neighbours) against a and
    // the list prefix the last of them leaves open, in index order, by the vector
    // kernel: each point's winner into batch.nearest (a centroid index) and its
    // squared distance into batch.best.
    void walk_segment(std::size_t a, const std::vector<std::pair<std::uint32_t, std::size_t>>& segment,
                      std::size_t s_begin, std::size_t s_end, std::vector<std::uint32_t>& ball,
                      std::vector<T>& ball_centroids, std::vector<std::size_t>& rows,
                      typename CpuSolver<T>::FullSearchBatch& batch) {
        const std::size_t d = this->d_, m = s_end - s_begin;
        const std::vector<Neighbour>& list = neighbours_[a];
        ball.assign(1, static_cast<std::uint32_t>(a));
        for (std::size_t q = 0; q < segment[s_end - 1].first; ++q) ball.push_back(list[q].index);
        std::sort(ball.begin(), ball.end());
        ball_centroids.resize(ball.size() * d);
        for (std::size_t q = 0; q < ball.size(); ++q)
            std::copy_n(this->centroids_.row(ball[q]), d, ball_centroids.data() + q * d);
        for (std::size_t p = 0; p < m; ++p) rows[p] = segment[s_begin + p].second;
        nearest_two(this->points_, d, ball_centroids.data(), ball.size(), rows.data(), m, batch.nearest.data(),
                    batch.best.data(), batch.second.data(), batch.scratch.data());
        for (std::size_t p = 0; p < m; ++p)
            batch.nearest[p] = static_cast<std::int32_t>(ball[static_cast<std::size_t>(batch.nearest[p])]);
    }

    // Points per work item, and the fewest searched with one ball (a tile of the widest
    // vector kernel), as in Exponion's search.
    static constexpr std::size_t kChunk = 2048;
    static constexpr std::size_t kSegment = 32;
    static constexpr std::size_t kLongWalk = 16;  // open neighbours a walk, on average, for the grouped search

    std::vector<T> upper_;                // per point: a certain upper bound of the distance to its centroid
    std::vector<T> radius_;               // per ball: the largest of its points' bounds
    std::vector<T> thread_radius_;        // per thread and ball, during an assignment
    std::vector<T> previous_;             // the centroids of the last assignment (what moved)
    std::vector<unsigned char> moved_;    // per centroid: it moved since the last assignment
    std::vector<unsigned char> active_;   // per ball: it or a neighbour moved
    std::vector<std::vector<Neighbour>> neighbours_;  // per ball: its nearest wide_ neighbours, nearest first
    std::vector<std::size_t> walk_rows_;       // per slot of a window: the points left with open neighbours
    std::vector<std::uint32_t> walk_open_;     // and how many
    std::vector<std::size_t> grouped_;         // the window's walking points grouped by ball
    std::vector<std::uint32_t> grouped_open_;  // and how many neighbours each left open
    std::vector<std::size_t> thread_walkers_;  // per thread and ball: its points with open neighbours
    std::vector<std::size_t> thread_walked_;   // and the neighbours they left open
    std::vector<unsigned char> grouped_ball_;  // per ball: its walks grouped (else one by one)
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
