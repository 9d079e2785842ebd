// Exponion (Newling & Fleuret, ICML 2016): Hamerly's bounds (an upper bound to
// the own centroid a, one lower bound to all the others); when they fail, only
// the ball of radius R = 2u + s(a) around a is searched (u: the tightened upper
// bound, s(a): the distance from a to its nearest other centroid). A centroid j
// outside the ball is at least |a j| − u > u from x, so it can be neither the
// nearest nor closer than that to x, which gives the new lower bound. The ball's
// members come from a's row of the other centroids partitioned into annuli of
// the 1, 1, 2, 4, 8, ... nearest (O(k) per row with nth_element, instead of a
// sort): the search takes whole annuli, at most twice the ball.
// Statistics: a point whose search evaluated fewer than k centroids counts as a
// bound skip (its full search was avoided), as in Elkan.
#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

// Points per work item: bounds first, then one vector full search for the
// chunk's points whose ball holds nearly every centroid.
constexpr std::size_t kChunk = 2048;
// Annuli double up to this many centroids; beyond, one annulus holds the rest, so
// partitioning a row costs one pass over it plus the inner annuli's small ones.
constexpr std::size_t kInnerEntries = 32;

template <typename T>
class ExponionSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        const std::size_t k = this->k_;
        upper_.assign(this->n_, T(0));
        lower_.assign(this->n_, T(0));
        // Annulus f of a row holds its entries [edge_[f], edge_[f + 1]): the 1, 1, 2, 4, ... nearest of
        // the k − 1 others up to kInnerEntries, then all the rest (a ball that large is searched in full).
        edge_.assign(1, 0);
        for (std::size_t size = 1; edge_.back() < std::min(k - 1, kInnerEntries); size = edge_.size() == 2 ? 1 : size * 2)
            edge_.push_back(std::min(k - 1, edge_.back() + size));
        if (edge_.back() < k - 1) edge_.push_back(k - 1);
        ring_.assign(k * (k - 1), 0);
        annulus_min_.assign(k * annuli(), T(0));
        threshold_.clear();
    }

    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t n = this->n_, d = this->d_, k = this->k_;
        const BoundArithmetic<T> bounds(d);
        const T* points = this->points_;
        const T* c = this->centroids_.data();
        std::int32_t* labels = this->labels_.data();
        PointStatus* status = this->config_.record_point_status ? this->status_.data() : nullptr;

        const auto bounds_start = Clock::now();
        const bool first = !this->bounds_valid_;
        typename CpuSolver<T>::ShiftLeaders leaders;
        if (!first) {
            leaders = this->shift_leaders();
            threshold_.resize(k, -std::numeric_limits<T>::infinity());  // -inf: none yet
            stats.centroid_centroid_distances +=
                this->centroid_rows([this](std::size_t a, const T* row) { partition_row(a, row); });
        }
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0;
        const T inf = std::numeric_limits<T>::infinity();
        const T* nearest_half = this->nearest_half_.data();
        const T* shift = this->shift_upper_.data();
        const std::size_t annuli = this->annuli();
        // A ball holding at least this many of the k − 1 others is searched in full
        // by the vector kernel, which is faster than taking the annuli one by one.
        const std::size_t full_search_from = (3 * (k - 1) + 3) / 4;
        const std::size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed, evaluations, skips)
        {
            typename CpuSolver<T>::FullSearchBatch batch(kChunk, d);
            // A ball's centroids, coordinate-major, and their distances (block_distances).
            std::vector<T> block(block_stride(k) * d), distances(block_stride(k));
#pragma omp for schedule(dynamic, 1)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                if (this->stop_now()) continue;  // cancelled: step() restores the last iteration
                const std::size_t chunk_end = std::min(n, (chunk + 1) * kChunk);
                for (std::size_t i = chunk * kChunk; i < chunk_end; ++i) {
                    if (first) {
                        batch.add(i);
                        continue;
                    }
                    const std::size_t a = static_cast<std::size_t>(labels[i]);
                    upper_[i] = bounds.grow(upper_[i], shift[a]);
                    lower_[i] = bounds.shrink(lower_[i], leaders.other_than(a));
                    const T limit = std::max(lower_[i], nearest_half[a]);
                    if (bounds.separated(upper_[i], limit)) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                        continue;
                    }
                    const T* x = points + i * d;
                    const T own_distance = squared_distance(x, c + a * d, d);
                    ++evaluations;
                    const T u = bounds.upper(std::sqrt(own_distance));
                    upper_[i] = u;
                    if (bounds.separated(u, limit)) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                        continue;
                    }

                    // The annuli that reach into the ball (centroid distances are
                    // stored halved: compare with R / 2).
                    const T half_radius = u + nearest_half[a];
                    const T* annulus_min = annulus_min_.data() + a * annuli;
                    std::size_t reach = 0;
                    while (reach < annuli && !(annulus_min[reach] > half_radius)) ++reach;
                    if (edge_[reach] >= full_search_from) {
                        batch.add(i);
                        continue;
                    }
                    // Annulus by annulus, until the rest is provably farther than the
                    // best so far (normally right after the ball's last annulus).
                    T best_distance = own_distance, second_distance = inf, outside = inf;
                    std::size_t label = a;
                    T best_upper = u;
                    const std::uint32_t* row = ring_.data() + a * (k - 1);
                    std::uint64_t point_evaluations = 1;
                    for (std::size_t f = 0; f < annuli;) {
                        if (f >= reach) {
                            const T beyond = bounds.shrink(T(2) * annulus_min[f], u);
                            if (bounds.separated(best_upper, beyond)) {
                                outside = beyond;
                                break;
                            }
                        }
                        // The ball's annuli at once, then one more at a time: their
                        // centroids gathered coordinate-major for the vector kernel.
                        const std::size_t next = f < reach ? reach : f + 1;
                        const std::size_t begin = edge_[f], count = edge_[next] - begin;
                        const std::size_t stride = block_stride(count);
                        // Lanes past `count` keep whatever finite coordinates an earlier
                        // gather left (the buffer starts zeroed): computed, never read.
                        for (std::size_t q = 0; q < count; ++q) {
                            const T* centroid = c + row[begin + q] * d;
                            for (std::size_t t = 0; t < d; ++t) block[t * stride + q] = centroid[t];
                        }
                        block_distances(x, d, block.data(), stride, count, distances.data());
                        point_evaluations += count;
                        for (std::size_t q = 0; q < count; ++q) {
                            const std::size_t j = row[begin + q];
                            const T distance = distances[q];
                            if (distance < best_distance || (distance == best_distance && j < label)) {
                                second_distance = best_distance;
                                best_distance = distance;
                                label = j;
                                best_upper = bounds.upper(std::sqrt(distance));
                            } else if (distance < second_distance) {
                                second_distance = distance;
                            }
                        }
                        f = next;
                    }
                    upper_[i] = best_upper;
                    lower_[i] = std::min(outside, second_distance == inf ? inf : bounds.lower(std::sqrt(second_distance)));
                    evaluations += point_evaluations - 1;  // the own distance is counted above
                    if (point_evaluations < k) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                    }
                    changed += label != a;
                    labels[i] = static_cast<std::int32_t>(label);
                }
                // Full search: nearest (lowest index on ties) and second nearest.
                changed += this->search_batch(batch, upper_.data(), lower_.data(), evaluations);
            }
        }
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::size_t annuli() const { return edge_.size() - 1; }

    // Centroid a's row of the others (row[b]: squared distance), partitioned into
    // annuli: every entry of annulus f is at most as far from a as every entry of
    // f + 1 (ties by index, so the partition is the same on every run). Squared
    // distances order the row as distances do; only each annulus' least one is
    // made a bound (half the lower bound of the distance, as cc_half_ holds).
    //
    // Rows longer than kInnerEntries: one pass splits off the entries within the
    // row's threshold (chosen at the previous build to hold about 2·kInnerEntries
    // of them, since centroids move little between iterations), and only those
    // are partitioned further; the rest form the last annulus, whose least
    // member the pass finds. When too few fall within the threshold, the row is
    // split by rank instead and the threshold chosen again. The threshold only
    // decides how much work the partition takes, never which annulus an entry is in.
    void partition_row(std::size_t a, const T* row) {
        const std::size_t k = this->k_, annuli = this->annuli();
        if (k < 2) return;  // no others: nothing to partition
        const std::size_t others = k - 1, inner = std::min(others, kInnerEntries), buffer = 2 * kInnerEntries;
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
        std::uint32_t* ring = ring_.data() + a * others;
        for (std::size_t p = 0; p < others; ++p) ring[p] = entries[p].second;
    }

    std::vector<T> upper_, lower_;        // per point: to the own centroid, to every other
    std::vector<std::size_t> edge_;       // annulus boundaries in a row: 0, 1, 2, 4, 8, ..., k − 1
    std::vector<std::uint32_t> ring_;     // k × (k − 1): each centroid's others, annulus by annulus
    std::vector<T> annulus_min_;          // k × annuli: half the distance to each annulus' nearest member
    std::vector<T> threshold_;            // per centroid: the squared distance that splits its row (partition_row)
};

}  // namespace

std::unique_ptr<Solver> make_exponion(const SolverConfig& config) { return make_in_precision<ExponionSolver>(config); }

}  // namespace kms::cpu
