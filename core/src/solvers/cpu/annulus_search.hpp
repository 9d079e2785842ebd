#pragma once
// Exponion's ball search over annuli (Newling & Fleuret, ICML 2016), shared by
// Exponion and Shallot (Borgelt, IDA 2020), which differ only in where an open
// point's ball is centred and how far it reaches.
//
// Hamerly's bounds (an upper bound to the own centroid a, one lower bound to all
// the others) settle most points; when they fail, only a ball of centroids
// around a centre z (Exponion: a, radius R = 2u + s(a); Shallot: the nearer of a
// and its tracked second) is searched. A centroid j outside the ball is at least
// |z j| − u(z) > the ball's winner from x, which gives the new lower bound. The
// ball's members come from z's row of the other centroids partitioned into
// annuli of the 1, 1, 2, 4, 8, ... nearest (O(k) per row with nth_element,
// instead of a sort): the search takes whole annuli, at most twice the ball.
// Only the inner annuli (the 32 nearest) are kept as lists; a ball that reaches
// past them is searched in full. A row's lists are kept from one iteration to
// the next while the fresh distances leave them nearly in order (centroids move
// little late in a run): then only each annulus' least distance is taken again.
//
// A step runs in three passes over each window of about 320·k points: Hamerly's
// test over every point (CpuSolver::hamerly_filter, branch-free); the points it
// left open grouped by ball centre and annuli reached; then each group's ball
// searched by the vector full-search kernel with the group's points in its lanes
// (a ball of 16 centroids costs a few vector operations per point, not a scalar
// loop with a branch per centroid).
// Exactness does not rest on the centre or the radius: a ball's winner is taken
// only when its bounds prove every centroid beyond the annuli searched farther
// (else the point is searched in full).
// Statistics: a point whose search evaluated fewer than k centroids counts as a
// bound skip (its full search was avoided), as in Elkan.
#include "cpu_solver.hpp"

namespace kms::cpu {
// The ball search over annuli; `Search` (the algorithm, derived from it) says
// where each open point's ball is centred and how far it reaches
// (search_ball), and sees each ball search's result (ball_searched).
template <typename T, typename Search>
class AnnulusSearchSolver : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    // Points per work item: bounds first, then one vector full search for the
    // chunk's points whose ball holds nearly every centroid; and the most points
    // of one ball search call.
    static constexpr std::size_t kChunk = 2048;
    // Annuli double up to this many centroids; beyond, one annulus holds the rest, so
    // partitioning a row costs one pass over it plus the inner annuli's small ones.
    static constexpr std::size_t kInnerEntries = 32;
    // Fewest points searched with one ball, where the centroid has that many open:
    // a tile of the widest vector kernel (8 lanes × 4 vectors of doubles).
    static constexpr std::size_t kSegment = 32;

    void allocate_bounds() override {
        const std::size_t k = this->k_;
        upper_.assign(this->n_, T(0));
        lower_.assign(this->n_, T(0));
        // Annulus f of a row holds its entries [edge_[f], edge_[f + 1]): the 1, 1, 2, 4, ... nearest of
        // the k − 1 others up to kInnerEntries, then all the rest (a ball that large is searched in full).
        inner_ = std::min(k - 1, kInnerEntries);
        edge_.assign(1, 0);
        for (std::size_t size = 1; edge_.back() < inner_; size = edge_.size() == 2 ? 1 : size * 2)
            edge_.push_back(std::min(inner_, edge_.back() + size));
        if (edge_.back() < k - 1) edge_.push_back(k - 1);
        ring_.assign(k * inner_, 0);
        ring_ready_.assign(k, 0);
        by_index_.assign(k * (inner_ + 1), 0);
        by_index_place_.assign(k * (inner_ + 1), 0);
        annulus_min_.assign(k * annuli(), T(0));
        threshold_.clear();
        // A window's open points, by chunk slot (kChunk slots per chunk of the window).
        open_rows_.assign(std::min(this->n_, this->window_chunks(kChunk) * kChunk), 0);
        open_reach_.assign(open_rows_.size(), 0);
        open_centre_.assign(open_rows_.size(), 0);
        search().allocate_search();
    }

    // Out of core a step assigns one block of rows at a time (window_first_, window_rows_;
    // points_ holds only the block): what the step decides once — whether it builds the
    // bounds, the centroids' moves and the annuli — is decided at its first block.
    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t d = this->d_, k = this->k_;
        const std::size_t from = this->window_first_, to = from + this->window_rows_;
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;  // rows [from, to): point i at (i − from)·d
        const T inf = std::numeric_limits<T>::infinity();
        std::int32_t* labels = this->labels_.data();
        PointStatus* status = this->config_.record_point_status ? this->status_.data() : nullptr;

        const auto bounds_start = Clock::now();
        if (from == 0) {
            building_ = !this->bounds_valid_;
            if (!building_) {
                leaders_ = this->shift_leaders();
                threshold_.resize(k, -std::numeric_limits<T>::infinity());  // -inf: none yet
                stats.centroid_centroid_distances +=
                    this->centroid_rows([this](std::size_t a, T* row) { partition_row(a, row); });
            }
        }
        const bool first = building_;
        const typename CpuSolver<T>::ShiftLeaders& leaders = leaders_;
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        T* upper = upper_.data();  // (locals: stores through T* could alias the vectors' own pointers)
        T* lower = lower_.data();
        const std::size_t annuli = this->annuli(), levels = annuli + 1;
        const std::size_t chunks = (to - from + kChunk - 1) / kChunk;  // the block's
        const std::size_t window_chunks = first ? chunks : this->window_chunks(kChunk);
        std::size_t* open = open_rows_.data();
        std::uint8_t* open_reach = open_reach_.data();
        std::uint32_t* open_centre = open_centre_.data();
        std::vector<std::size_t> open_count(chunks, 0);
        const std::size_t groups = k * levels;
        std::vector<std::size_t> group_start(groups + 1, 0);
        std::vector<std::size_t> thread_counts(static_cast<std::size_t>(std::max(1, this->threads_)) * groups);

        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed, evaluations, skips)
        {
            typename CpuSolver<T>::FullSearchBatch batch;
            std::vector<std::uint32_t> ball;
            std::vector<T> ball_centroids, scratch, best, second;
            std::vector<std::int32_t> nearest;
            guard.run([&] {
                batch.allocate(kChunk, d);
                scratch.resize(kernel_scratch_size(d));
                best.resize(kChunk);
                second.resize(kChunk);
                nearest.resize(kChunk);
            });
            // A point to the full search. The batch holds a chunk's points; pass 3 can
            // leave some in it when the next window's pass 1 begins, so it runs when full.
            const auto full_search = [&](std::size_t i) {
                if (batch.size == kChunk) changed += this->search_batch(batch, upper, lower, evaluations);
                batch.add(i);
            };
            for (std::size_t window = 0; window < chunks; window += window_chunks) {
                const std::size_t window_end = std::min(chunks, window + window_chunks);
                // Pass 1: Hamerly's test; each point it leaves open takes the annuli that
                // reach into its ball (centroid distances are stored halved: compare with
                // R / 2), or the full search when they are (nearly) all.
#pragma omp for schedule(dynamic, 1)
                for (std::size_t chunk = window; chunk < window_end; ++chunk) {
                    if (guard.failed() || this->stop_now()) continue;  // cancelled: step() restores the last iteration
                    const std::size_t begin = from + chunk * kChunk, end = std::min(to, begin + kChunk);
                    const std::size_t slot = (chunk - window) * kChunk;  // the chunk's place in open_rows_
                    if (first) {
                        for (std::size_t i = begin; i < end; ++i) full_search(i);
                    } else {
                        const std::size_t opened = this->hamerly_filter(begin, end, upper, lower, leaders,
                                                                        open + slot, evaluations, skips);
                        std::size_t kept = 0;
                        for (std::size_t o = 0; o < opened; ++o) {
                            const std::size_t i = open[slot + o];
                            const auto [centre, half_radius] = search().search_ball(i, upper, evaluations);
                            const std::size_t reach = reach_of(centre, half_radius);
                            if (searched_in_full(reach)) {
                                full_search(i);
                            } else {
                                open[slot + kept] = i;
                                open_reach[slot + kept] = static_cast<std::uint8_t>(reach);
                                open_centre[slot + kept] = static_cast<std::uint32_t>(centre);
                                ++kept;
                            }
                        }
                        open_count[chunk] = kept;
                    }
                    // Full search: nearest (lowest index on ties) and second nearest.
                    changed += this->search_batch(batch, upper, lower, evaluations);
                }
                if (first) continue;
                // Pass 2: the open points grouped by (own centroid, annuli reached): a
                // counting sort, in parallel (each thread counts and places the points of
                // its chunks, the same chunks both times), in point order within a group
                // (the grouping decides only which points share a kernel call); grouped_
                // holds them as rows of the block (i − from), as the kernel reads points_.
                const auto key = [&](std::size_t o) {
                    return static_cast<std::size_t>(open_centre[o]) * levels + open_reach[o];
                };
                std::size_t* mine = thread_counts.data() + static_cast<std::size_t>(omp_get_thread_num()) * groups;
                std::fill(mine, mine + groups, 0);
#pragma omp for schedule(static)
                for (std::size_t chunk = window; chunk < window_end; ++chunk)
                    for (std::size_t o = (chunk - window) * kChunk; o < (chunk - window) * kChunk + open_count[chunk]; ++o)
                        ++mine[key(o)];
#pragma omp single
                {
                    const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
                    std::size_t placed = 0;
                    for (std::size_t g = 0; g < groups; ++g) {
                        group_start[g] = placed;
                        for (std::size_t t = 0; t < team; ++t) {
                            const std::size_t count = thread_counts[t * groups + g];
                            thread_counts[t * groups + g] = placed;  // where thread t's points of g go
                            placed += count;
                        }
                    }
                    group_start[groups] = placed;
                    guard.run([&] { grouped_.resize(placed); });
                }
                if (guard.failed()) continue;  // every thread sees it after the single's barrier
#pragma omp for schedule(static)
                for (std::size_t chunk = window; chunk < window_end; ++chunk)
                    for (std::size_t o = (chunk - window) * kChunk; o < (chunk - window) * kChunk + open_count[chunk]; ++o)
                        grouped_[mine[key(o)]++] = open[o] - from;

                // Pass 3: per own centroid a and ball, the ball's centroids (a and the
                // reached annuli, in index order so that the kernel's first minimum is the
                // lowest index) against the group's points.
#pragma omp for schedule(dynamic, 1)
                for (std::size_t a = 0; a < k; ++a) {
                    if (guard.failed() || this->stop_now() || group_start[a * levels] == group_start[(a + 1) * levels])
                        continue;
                    const std::uint32_t* by_index = by_index_.data() + a * (inner_ + 1);
                    const std::uint8_t* place = by_index_place_.data() + a * (inner_ + 1);
                    // a's points, ordered by the annuli they reach, in segments of at least
                    // a tile of the kernel: each segment searched with the ball its last
                    // (largest) member needs, a superset of the others' balls.
                    std::size_t g_begin = group_start[a * levels];
                    for (std::size_t reach = 0; reach < levels; ++reach) {
                        const std::size_t g_end = group_start[a * levels + reach + 1];
                        const bool last = g_end == group_start[(a + 1) * levels];
                        if (g_end == g_begin || (g_end - g_begin < kSegment && !last)) continue;
                        const bool ready = guard.run([&] {
                            ball.clear();
                            for (std::size_t q = 0; q <= inner_; ++q)
                                if (place[q] < edge_[reach] + 1) ball.push_back(by_index[q]);
                            ball_centroids.resize(ball.size() * d);
                        });
                        if (!ready) break;
                        const std::size_t members = ball.size();  // edge_[reach] + 1
                        for (std::size_t q = 0; q < members; ++q)
                            std::copy_n(this->centroids_.row(ball[q]), d, ball_centroids.data() + q * d);
                        // Each point then takes what its own ball gives: the first annulus
                        // its ball leaves out bounds every centroid beyond it (the segment's
                        // extra centroids included, so the winner and the bounds are those of
                        // its own ball), and its count is its own ball's (lanes computed past
                        // it are not counted, as a tile's padding is not): the same results and
                        // statistics however the points were grouped (windows, ranks).
                        std::size_t level = static_cast<std::size_t>(
                            std::upper_bound(group_start.begin() + a * levels, group_start.begin() + (a + 1) * levels,
                                             g_begin) - (group_start.begin() + a * levels)) - 1;
                        for (std::size_t s = g_begin; s < g_end; s += kChunk) {
                            const std::size_t m = std::min(kChunk, g_end - s);
                            nearest_two(points, d, ball_centroids.data(), members, grouped_.data() + s, m,
                                        nearest.data(), best.data(), second.data(), scratch.data());
                            for (std::size_t p = 0; p < m; ++p) {
                                while (s + p >= group_start[a * levels + level + 1]) ++level;
                                const std::size_t i = grouped_[s + p] + from;
                                const std::size_t own_members = edge_[level] + 1;
                                evaluations += own_members;
                                const T outside_half = level < annuli ? annulus_min_[a * annuli + level] : inf;
                                const T best_upper = bounds.upper(std::sqrt(best[p]));
                                const T outside =
                                    outside_half == inf ? inf : bounds.shrink(T(2) * outside_half, upper[i]);
                                if (!bounds.separated(best_upper, outside)) {
                                    full_search(i);  // the nearest may lie beyond the annuli taken
                                    continue;
                                }
                                const std::size_t label = ball[static_cast<std::size_t>(nearest[p])];
                                upper[i] = best_upper;
                                lower[i] = std::min(outside, second[p] == inf ? inf : bounds.lower(std::sqrt(second[p])));
                                if (own_members < k) {
                                    ++skips;
                                    if (status) status[i] = PointStatus::Skipped;
                                }
                                const std::size_t old_label = static_cast<std::size_t>(labels[i]);
                                changed += label != old_label;
                                labels[i] = static_cast<std::int32_t>(label);
                                search().ball_searched(i, old_label, a, label);
                            }
                        }
                        g_begin = g_end;
                        if (last) break;
                    }
                }
            }
            if (!guard.failed()) changed += this->search_batch(batch, upper, lower, evaluations);
        }
        guard.rethrow();
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

    Search& search() { return static_cast<Search&>(*this); }

    // How many annuli of `centre`'s row reach into a ball of half radius
    // `half_radius` around it. The bounds grow with f (each is the least of its
    // annulus and all beyond), so counting those within is finding the first beyond.
    std::size_t reach_of(std::size_t centre, T half_radius) const {
        const std::size_t annuli = this->annuli();
        const T* annulus_min = annulus_min_.data() + centre * annuli;
        std::size_t reach = 0;
        for (std::size_t f = 0; f < annuli; ++f) reach += !(annulus_min[f] > half_radius);
        return reach;
    }
    // A ball past the inner annuli, or holding at least ¾ of the k − 1 others, is
    // searched in full by the vector kernel, faster than taking the annuli one by one.
    bool searched_in_full(std::size_t reach) const {
        return edge_[reach] >= (3 * (this->k_ - 1) + 3) / 4 || edge_[reach] > inner_;
    }
    std::size_t annuli() const { return edge_.size() - 1; }

    // Centroid a's row of the others (row[b]: squared distance, the thread's
    // scratch), partitioned into annuli: every entry of annulus f is at most as far
    // from a as every entry of f + 1. Squared distances order the row as distances
    // do; only each annulus' least one is made a bound (half the lower bound of the
    // distance, as cc_half_ holds), which then bounds every annulus beyond it too.
    // The last iteration's inner lists are kept when the new distances still order
    // them (refresh_row); else the row is partitioned again (rebuild_row). Which
    // annulus an entry falls in only decides how much a search evaluates, never
    // its result.
    void partition_row(std::size_t a, T* row) {
        if (this->k_ < 2) return;  // no others: nothing to partition
        if (!ring_ready_[a] || !refresh_row(a, row)) {
            rebuild_row(a, row);
            ring_ready_[a] = 1;
            // The ball's centroids in index order, for the search: a (place 0) and
            // the ring's entries (place q + 1 for ring entry q).
            const std::uint32_t* ring = ring_.data() + a * inner_;
            std::pair<std::uint32_t, std::uint8_t> entries[kInnerEntries + 1];
            entries[0] = {static_cast<std::uint32_t>(a), 0};
            for (std::size_t q = 0; q < inner_; ++q) entries[q + 1] = {ring[q], static_cast<std::uint8_t>(q + 1)};
            std::sort(entries, entries + inner_ + 1);
            for (std::size_t q = 0; q <= inner_; ++q) {
                by_index_[a * (inner_ + 1) + q] = entries[q].first;
                by_index_place_[a * (inner_ + 1) + q] = entries[q].second;
            }
        }
    }

    // Keeps row a's inner lists while the fresh distances leave them nearly in
    // order: the entries before the last inner annulus no farther than every
    // entry after them. Each annulus then takes as its bound the least distance
    // of it and all beyond it (exact: every entry of an annulus and beyond is at
    // least that far), so order inside those first entries may lapse, costing a
    // few distances at most. Returns true if kept; else leaves the row as it found
    // it and returns false.
    bool refresh_row(std::size_t a, T* row) {
        const std::size_t k = this->k_, annuli = this->annuli();
        const bool has_rest = k - 1 > inner_;
        const std::size_t inner_annuli = has_rest ? annuli - 1 : annuli;
        const std::size_t settled = edge_[inner_annuli - 1];  // entries before the last inner annulus
        const T inf = std::numeric_limits<T>::infinity();
        const std::uint32_t* ring = ring_.data() + a * inner_;
        T annulus_least[kInnerEntries + 1], kept[kInnerEntries];  // (at most inner_ + 1 annuli)
        for (std::size_t f = 0; f < inner_annuli; ++f) {
            T lo = inf;
            for (std::size_t p = edge_[f]; p < edge_[f + 1]; ++p) {
                kept[p] = row[ring[p]];
                lo = std::min(lo, kept[p]);
            }
            annulus_least[f] = lo;
        }
        if (has_rest) {  // the rest's least: the row with the inner entries and a itself masked
            for (std::size_t p = 0; p < inner_; ++p) row[ring[p]] = inf;
            row[a] = inf;
            annulus_least[annuli - 1] = CpuSolver<T>::least(row, k);
        }
        T farthest_settled = -inf;
        for (std::size_t p = 0; p < settled; ++p) farthest_settled = std::max(farthest_settled, kept[p]);
        for (std::size_t f = annuli - 1; f-- > 0;) annulus_least[f] = std::min(annulus_least[f], annulus_least[f + 1]);
        if (annulus_least[inner_annuli - 1] < farthest_settled) {
            if (has_rest) {
                for (std::size_t p = 0; p < inner_; ++p) row[ring[p]] = kept[p];
                row[a] = T(0);
            }
            return false;
        }
        const BoundArithmetic<T> bounds(this->d_);
        T* annulus_min = annulus_min_.data() + a * annuli;
        for (std::size_t f = 0; f < annuli; ++f)
            annulus_min[f] = annulus_least[f] == inf ? inf : bounds.lower(std::sqrt(annulus_least[f])) / T(2);
        return true;
    }

    // Partitions row a afresh (ties by index, so the same on every run).
    // Rows longer than kInnerEntries: one pass splits off the entries within the
    // row's threshold (chosen at the previous build to hold about 2·kInnerEntries
    // of them, since centroids move little between iterations), and only those
    // are partitioned further; the rest form the last annulus, whose least
    // member the pass finds. When too few fall within the threshold, the row is
    // split by rank instead and the threshold chosen again. The threshold only
    // decides how much work the partition takes, never which annulus an entry is in.
    void rebuild_row(std::size_t a, const T* row) {
        const std::size_t k = this->k_, annuli = this->annuli();
        const std::size_t others = k - 1, inner = inner_, buffer = 2 * kInnerEntries;
        const bool has_rest = others > inner;
        const T inf = std::numeric_limits<T>::infinity();
        const BoundArithmetic<T> bounds(this->d_);
        using Entry = std::pair<T, std::uint32_t>;
        thread_local std::vector<Entry> entries;
        entries.resize(others);
        std::size_t near = others;  // entries [0, near) are all nearer than [near, others)
        T rest_min = inf;
        if (has_rest) {
            const T threshold = threshold_[a];
            std::size_t low = 0, high = others;
            for (std::size_t j = 0; j < k; ++j) {
                if (j == a) continue;
                const Entry entry{row[j], static_cast<std::uint32_t>(j)};
                if (entry.first <= threshold) {
                    entries[low++] = entry;
                } else {
                    entries[--high] = entry;
                    rest_min = std::min(rest_min, entry.first);
                }
            }
            near = low;
            if (near < inner) {  // too few within: split by rank, choose the threshold again
                if (others > buffer) {
                    std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(buffer),
                                     entries.end());
                    near = buffer;
                    rest_min = entries[buffer].first;
                } else {
                    near = others;
                    rest_min = inf;
                }
                T largest = -inf;
                for (std::size_t p = 0; p < near; ++p) largest = std::max(largest, entries[p].first);
                threshold_[a] = largest;
            } else if (near > 2 * buffer) {  // too many within: lower the threshold for next time
                std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(buffer),
                                 entries.begin() + static_cast<std::ptrdiff_t>(near));
                threshold_[a] = entries[buffer].first;
            }
            // The rest's least member: the least of the near entries past `inner`, or beyond.
            if (near > inner) {
                std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(inner),
                                 entries.begin() + static_cast<std::ptrdiff_t>(near));
                rest_min = std::min(rest_min, entries[inner].first);
            }
        } else {
            std::size_t e = 0;
            for (std::size_t j = 0; j < k; ++j)
                if (j != a) entries[e++] = {row[j], static_cast<std::uint32_t>(j)};
        }
        // The inner annuli, from the outermost in: each nth_element splits off one.
        const std::size_t inner_annuli = has_rest ? annuli - 1 : annuli;
        for (std::size_t f = inner_annuli - 1; f >= 1; --f)
            std::nth_element(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(edge_[f]),
                             entries.begin() + static_cast<std::ptrdiff_t>(edge_[f + 1]));
        const auto half_lower = [&](T squared) { return squared == inf ? inf : bounds.lower(std::sqrt(squared)) / T(2); };
        T* annulus_min = annulus_min_.data() + a * annuli;
        for (std::size_t f = 0; f < inner_annuli; ++f) annulus_min[f] = half_lower(entries[edge_[f]].first);
        if (has_rest) annulus_min[annuli - 1] = half_lower(rest_min);
        std::uint32_t* ring = ring_.data() + a * inner;
        for (std::size_t p = 0; p < inner; ++p) ring[p] = entries[p].second;
    }

    std::vector<T> upper_, lower_;        // per point: to the own centroid, to every other
    std::size_t inner_ = 0;               // entries of a row's inner annuli: min(k − 1, kInnerEntries)
    std::vector<std::size_t> edge_;       // annulus boundaries in a row: 0, 1, 2, 4, 8, ..., inner_, k − 1
    std::vector<std::uint32_t> ring_;     // k × inner_: each centroid's inner others, annulus by annulus
    std::vector<std::uint32_t> by_index_;     // k × (inner_ + 1): each row's centroid and ring entries by index
    std::vector<std::uint8_t> by_index_place_;  // and their places: 0 for the row's centroid, q + 1 for ring entry q
    std::vector<unsigned char> ring_ready_;  // per centroid: its ring_ row was partitioned (refresh_row may keep it)
    std::vector<T> annulus_min_;          // k × annuli: half the distance to the nearest member of each annulus and beyond
    std::vector<T> threshold_;            // per centroid: the squared distance that splits its row (rebuild_row)
    std::vector<std::size_t> open_rows_;  // per slot of a window: the points Hamerly's test left open, chunk by chunk
    std::vector<std::uint8_t> open_reach_;  // and how many annuli their balls reach
    std::vector<std::uint32_t> open_centre_;  // and the centroid their balls are centred on
    std::vector<std::size_t> grouped_;    // the open points grouped by own centroid and reach (rows of the block)
    typename CpuSolver<T>::ShiftLeaders leaders_;  // this step's centroid moves (from its first block)
    bool building_ = false;               // this step's assignment is a full search that builds the bounds
};

}  // namespace kms::cpu
