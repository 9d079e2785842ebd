// k-means++'s nearest-centre masses kept with the triangle inequality
// (bounded_nearest.hpp: the rule, and why the result is the plain pass's bits).
#include "bounded_nearest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "seeding.hpp"

namespace kms::seeding {
namespace {

constexpr double kTiny = 0x1p-900, kHuge = 0x1p900;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The D a skip test uses: an upper bound of D where the relative error bound
// holds; +infinity (never skipped: F·inf > any distance is false) elsewhere.
inline double tested(double nearest) {
    return nearest < kTiny ? kTiny : (nearest <= kHuge ? nearest : kInfinity);
}

// Work below this many points runs on one thread: a parallel region costs more
// than it saves there (every round opens a few; on a busy machine each waits for
// a thread the OS has put aside).
constexpr std::size_t kParallelPoints = 1 << 17;

constexpr std::uint32_t kGone = 0xFFFFFFFFu;  // a point marked for removal from its cluster
constexpr std::size_t kNone = ~std::size_t{0};

// A D's band: its binary exponent (D >= 0: its bits order as its value, so the band
// is monotone in D). Every D of band < b is below ceiling(b - 1). (Exponent halved:
// bands of a factor 4, 14 % slower at n = 10^6 × 2, k = 1000: longer suffixes scanned.)
constexpr unsigned kBandShift = 52;
constexpr std::uint64_t kBands = std::uint64_t{1} << (63 - kBandShift);
inline std::uint64_t band(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits >> kBandShift;
}
inline double ceiling(std::uint64_t b) {  // the least double of band b + 1 (+inf past the last)
    if (b + 1 >= kBands) return kInfinity;
    const std::uint64_t bits = (b + 1) << kBandShift;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Stable counting sort by band of `distance` (a stop leaves `changes` unsorted).
template <typename Change>
void order_by_band(std::vector<Change>& changes, StopPoll& stop) {
    const std::size_t count = changes.size();
    if (count < 2) return;
    std::uint64_t low = band(changes[0].distance), high = low;
    for (std::size_t c = 0; c < count && !stop.stopped(c); ++c) {
        low = std::min(low, band(changes[c].distance));
        high = std::max(high, band(changes[c].distance));
    }
    std::vector<std::size_t> start(high - low + 2, 0);
    for (std::size_t c = 0; c < count && !stop.stopped(c); ++c) ++start[band(changes[c].distance) - low + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    std::vector<Change> sorted(count);
    for (std::size_t c = 0; c < count; ++c) {
        if (stop.stopped(c)) return;
        sorted[start[band(changes[c].distance) - low]++] = changes[c];
    }
    changes = std::move(sorted);
}

}  // namespace

template <typename T>
void BoundedNearest<T>::Cluster::reserve(std::size_t count, std::size_t d) {
    nearest.reserve(nearest.size() + count);
    point.reserve(point.size() + count);
    coordinates.reserve(coordinates.size() + count * d);
}

template <typename T>
void BoundedNearest<T>::Cluster::push(double d_value, std::uint32_t p, const T* row, std::size_t d) {
    nearest.push_back(d_value);
    point.push_back(p);
    const std::size_t at = coordinates.size();
    coordinates.resize(at + d);
    T* out = coordinates.data() + at;
    for (std::size_t j = 0; j < d; ++j) out[j] = row[j];
    radius = std::max(radius, tested(d_value));
}

template <typename T>
void BoundedNearest<T>::Cluster::keep_unmarked(std::size_t from, std::size_t d, StopPoll& stop) {
    std::size_t keep = from;
    double largest = from > 0 ? tested(ceiling(band(nearest[from - 1]))) : 0.0;  // bounds the untouched prefix
    for (std::size_t at = from; at < point.size(); ++at) {
        if (stop.stopped(at - from)) return;
        if (point[at] == kGone) continue;
        if (keep != at) {
            nearest[keep] = nearest[at];
            point[keep] = point[at];
            for (std::size_t j = 0; j < d; ++j) coordinates[keep * d + j] = coordinates[at * d + j];
        }
        largest = std::max(largest, tested(nearest[keep]));
        ++keep;
    }
    nearest.resize(keep);
    point.resize(keep);
    coordinates.resize(keep * d);
    radius = std::min(radius, largest);
}

template <typename T>
BoundedNearest<T>::BoundedNearest(const Matrix<T>& points, int threads, const double* sample_weight,
                                  std::stop_token stop, std::string source_name)
    : points_(points),
      n_(points.rows()),
      d_(points.cols()),
      threads_(threads),
      weight_(sample_weight),
      stop_(std::move(stop), std::move(source_name)),
      factor_(4.0 * (1.0 + 8.0 * static_cast<double>(d_ + 2) * 0x1p-53)),
      nearest_(n_, kInfinity),
      owner_(n_, 0),
      block_sums_((n_ + kBlockSize - 1) / kBlockSize, 0.0),
      sub_sums_((n_ + kSubBlockSize - 1) / kSubBlockSize, 0.0) {}

template <typename T>
void BoundedNearest<T>::add_centre(const double* centre) {
    const std::size_t q = clusters_.size();
    std::vector<Change> changes;
    bool known = false;
    for (Candidate& candidate : candidates_)
        if (std::memcmp(candidate.row.data(), centre, d_ * sizeof(double)) == 0) {
            changes = std::move(candidate.changes);
            known = true;
            break;
        }
    candidates_.clear();
    if (q > 0 && !known) changes = changes_for(centre);
    centre_rows_.insert(centre_rows_.end(), centre, centre + d_);
    clusters_.emplace_back();
    if (q == 0) first_centre();
    else apply(q, changes);
}

template <typename T>
void BoundedNearest<T>::first_centre() {
    const double* centre = centre_row(0);
    const auto blocks = static_cast<std::int64_t>(block_sums_.size());
#pragma omp parallel for num_threads(threads_) schedule(static) if (blocks > 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
        if (stop_.poll()) continue;  // a block is kBlockSize (= StopPoll::kPollPoints) points
        const std::size_t begin = static_cast<std::size_t>(b) * kBlockSize;
        const std::size_t end = std::min(n_, begin + kBlockSize);
        for (std::size_t i = begin; i < end; ++i) {
            const double s = widened_squared_distance(points_.row(i), centre, d_);
            nearest_[i] = s < nearest_[i] ? s : nearest_[i];  // branch-free: a minsd
        }
        block_sums_[static_cast<std::size_t>(b)] =
            block_sum(nearest_.data(), weight_, begin, end, sub_sums_.data() + begin / kSubBlockSize);
    }
    stop_.throw_if_stopped();
    point_distances_ += n_;
    total_ = 0.0;
    for (double sum : block_sums_) total_ += sum;
    // Every point, in increasing band of D.
    std::vector<Change> order(n_);
    for (std::size_t i = 0; i < n_ && !stop_.stopped(i); ++i) order[i] = {static_cast<std::uint32_t>(i), 0, i, nearest_[i]};
    order_by_band(order, stop_);
    stop_.throw_if_stopped();
    Cluster& all = clusters_[0];
    all.reserve(n_, d_);
    for (std::size_t i = 0; i < n_ && !stop_.stopped(i); ++i)
        all.push(order[i].distance, order[i].point, points_.row(order[i].point), d_);
    stop_.throw_if_stopped();
}

template <typename T>
std::size_t BoundedNearest<T>::suffix(const Cluster& cluster, double between) const {
    // The lowest band b such that every D of a band below b is surely skipped
    // (between > F·tested(ceiling(b - 1)): tested and F· are monotone).
    std::uint64_t b = std::min<std::uint64_t>(band(between) + 1, kBands - 1);
    while (b > 0 && !(between > factor_ * tested(ceiling(b - 1)))) --b;
    // (the cluster is in increasing band: the first of band >= b, by bisection)
    return static_cast<std::size_t>(
        std::partition_point(cluster.nearest.begin(), cluster.nearest.end(), [&](double value) { return band(value) < b; }) -
        cluster.nearest.begin());
}

template <typename T>
std::vector<typename BoundedNearest<T>::Change> BoundedNearest<T>::changes_for(const double* row) {
    const std::size_t q = clusters_.size();
    std::vector<double> between(q);
#pragma omp parallel for num_threads(threads_) schedule(static) if (q * d_ > kParallelPoints)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(q); ++j)
        between[static_cast<std::size_t>(j)] = widened_squared_distance(centre_row(static_cast<std::size_t>(j)), row, d_);
    centre_distances_ += q;
    std::vector<Visit> visited;
    std::size_t work = 0;
    for (std::size_t j = 0; j < q; ++j)
        if (clusters_[j].size() > 0 && !(between[j] > factor_ * clusters_[j].radius)) {
            visited.push_back({static_cast<std::uint32_t>(j), suffix(clusters_[j], between[j])});
            work += clusters_[j].size() - visited.back().from;
        }
    std::vector<Change> changes;
    std::uint64_t computed = 0;
    RegionGuard guard;
#pragma omp parallel num_threads(threads_) reduction(+ : computed) if (work > kParallelPoints)
    {
        std::vector<Change> mine;
#pragma omp for schedule(dynamic, 1) nowait
        for (std::int64_t v = 0; v < static_cast<std::int64_t>(visited.size()); ++v) {
            const Visit& visit = visited[static_cast<std::size_t>(v)];
            const Cluster& cluster = clusters_[visit.centre];
            const double limit = between[visit.centre];
            for (std::size_t at = visit.from; at < cluster.size(); ++at) {
                if (guard.failed() || stop_.stopped(at - visit.from)) break;
                const double nearest = cluster.nearest[at];
                if (limit > factor_ * tested(nearest)) continue;
                const double s = widened_squared_distance(cluster.coordinates.data() + at * d_, row, d_);
                ++computed;
                if (s < nearest && !guard.run([&] { mine.push_back({cluster.point[at], visit.centre, at, s}); })) break;
            }
        }
#pragma omp critical(kms_bounded_changes)
        guard.run([&] { changes.insert(changes.end(), mine.begin(), mine.end()); });
    }
    guard.rethrow();
    stop_.throw_if_stopped();
    point_distances_ += computed;
    order_by_band(changes, stop_);
    stop_.throw_if_stopped();
    return changes;
}

template <typename T>
void BoundedNearest<T>::apply(std::size_t new_centre, const std::vector<Change>& changes,
                              std::vector<std::uint32_t>* later) {
    Cluster& mine = clusters_[new_centre];  // new: empty
    std::vector<std::uint32_t> own;
    std::vector<std::uint32_t>& moved = later ? *later : own;
    const std::size_t count = changes.size(), base = moved.size();
    moved.resize(base + count);
    mine.nearest.resize(count);
    mine.point.resize(count);
    mine.coordinates.resize(count * d_);
    double radius = 0.0;
    // In increasing band: the new cluster is in order. Every change writes its own slots
    // (in chunks of kPollPoints changes, each after a poll).
    const auto chunks = static_cast<std::int64_t>((count + StopPoll::kPollPoints - 1) / StopPoll::kPollPoints);
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(max : radius) if (count > kParallelPoints / 4)
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        if (stop_.poll()) continue;
        const std::size_t begin = static_cast<std::size_t>(chunk) * StopPoll::kPollPoints;
        for (std::size_t c = begin; c < std::min(count, begin + StopPoll::kPollPoints); ++c) {
            const Change& change = changes[c];
            nearest_[change.point] = change.distance;
            Cluster& from = clusters_[change.from];
            mine.nearest[c] = change.distance;
            mine.point[c] = change.point;
            const T* row = from.coordinates.data() + change.at * d_;
            for (std::size_t j = 0; j < d_; ++j) mine.coordinates[c * d_ + j] = row[j];
            from.point[change.at] = kGone;
            moved[base + c] = change.point;
            radius = std::max(radius, tested(change.distance));
        }
    }
    stop_.throw_if_stopped();
    mine.radius = radius;
    drop_moved(changes);
    if (!later) refresh_sums(moved);
}

template <typename T>
void BoundedNearest<T>::drop_moved(const std::vector<Change>& changes) {
    // Only the clusters that lost points, each from its first lost one: the rest is as it was.
    std::vector<std::size_t> first(clusters_.size(), kNone);
    std::vector<std::uint32_t> losers;
    for (const Change& change : changes) {
        std::size_t& at = first[change.from];
        if (at == kNone) losers.push_back(change.from);
        at = std::min(at, change.at);
    }
    std::size_t work = 0;
    for (std::uint32_t j : losers) work += clusters_[j].size() - first[j];
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) if (work > kParallelPoints)
    for (std::int64_t l = 0; l < static_cast<std::int64_t>(losers.size()); ++l) {
        const std::uint32_t j = losers[static_cast<std::size_t>(l)];
        clusters_[j].keep_unmarked(first[j], d_, stop_);
    }
    stop_.throw_if_stopped();
}

template <typename T>
void BoundedNearest<T>::add_centres(const std::vector<std::vector<double>>& centres) {
    candidates_.clear();
    if (centres.empty()) return;
    std::size_t first = 0;
    if (clusters_.empty()) {
        add_centre(centres[0].data());
        first = 1;
    }
    const std::size_t q = clusters_.size(), m = centres.size() - first;
    if (m == 0) return;
    if (q < m) {
        // Few centres beside many new ones (the first round): their clusters are too
        // wide for the batch search to skip much, so the new centres go in one by one
        // (each point still ends on its nearest, ties to the earlier), the block sums
        // once at the end.
        std::vector<std::uint32_t> moved;
        for (std::size_t c = first; c < centres.size(); ++c) {
            const std::vector<Change> changes = changes_for(centres[c].data());
            centre_rows_.insert(centre_rows_.end(), centres[c].begin(), centres[c].end());
            clusters_.emplace_back();
            apply(clusters_.size() - 1, changes, &moved);
        }
        refresh_sums(moved);
        return;
    }
    // Per old centre, the new ones that might take its points, nearest first.
    std::vector<std::vector<std::pair<double, std::uint32_t>>> near(q);
    std::uint64_t between = 0;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 16) reduction(+ : between) if (q * m * d_ > kParallelPoints)
    for (std::int64_t jj = 0; jj < static_cast<std::int64_t>(q); ++jj) {
        const auto j = static_cast<std::size_t>(jj);
        if (clusters_[j].size() == 0) continue;
        const double radius = clusters_[j].radius;
        for (std::size_t c = 0; c < m; ++c) {
            const double s = widened_squared_distance(centre_row(j), centres[first + c].data(), d_);
            if (!(s > factor_ * radius)) near[j].push_back({std::isnan(s) ? -kInfinity : s, static_cast<std::uint32_t>(c)});
        }
        between += m;
        std::sort(near[j].begin(), near[j].end());
    }
    centre_distances_ += between;
    for (std::size_t c = 0; c < m; ++c) centre_rows_.insert(centre_rows_.end(), centres[first + c].begin(), centres[first + c].end());
    clusters_.resize(q + m);

    // Each old cluster's suffix that the nearest new centre could reach.
    std::vector<std::size_t> from(q, 0);
    std::size_t work = 0;
    for (std::size_t j = 0; j < q; ++j) {
        const Cluster& cluster = clusters_[j];
        from[j] = cluster.size();
        if (near[j].empty()) continue;
        from[j] = suffix(cluster, near[j].front().first);
        work += cluster.size() - from[j];
    }
    std::vector<Change> moved;  // `from` and `at`: where it was; `distance`: its new D
    std::uint64_t computed = 0;
    RegionGuard guard;
#pragma omp parallel num_threads(threads_) reduction(+ : computed) if (work > kParallelPoints)
    {
        std::vector<Change> mine;
#pragma omp for schedule(dynamic, 1) nowait
        for (std::int64_t jj = 0; jj < static_cast<std::int64_t>(q); ++jj) {
            const auto j = static_cast<std::size_t>(jj);
            const Cluster& cluster = clusters_[j];
            for (std::size_t at = from[j]; at < cluster.size(); ++at) {
                if (guard.failed() || stop_.stopped(at - from[j])) break;
                const double nearest = cluster.nearest[at];
                const double limit = factor_ * tested(nearest);  // from the old centre: valid for every new one
                const T* row = cluster.coordinates.data() + at * d_;
                double best = nearest;
                std::size_t taker = m;
                for (const auto& [distance, c] : near[j]) {
                    if (distance > limit) break;
                    const double s = widened_squared_distance(row, centres[first + c].data(), d_);
                    ++computed;
                    if (s < best) {
                        best = s;
                        taker = c;
                    }
                }
                if (taker < m) {
                    const std::uint32_t i = cluster.point[at];
                    owner_[i] = static_cast<std::uint32_t>(q + taker);
                    if (!guard.run([&] { mine.push_back({i, static_cast<std::uint32_t>(j), at, best}); })) break;
                }
            }
        }
#pragma omp critical(kms_bounded_moved)
        guard.run([&] { moved.insert(moved.end(), mine.begin(), mine.end()); });
    }
    guard.rethrow();
    stop_.throw_if_stopped();
    point_distances_ += computed;
    // Into the new clusters in increasing band, then the old clusters drop them.
    order_by_band(moved, stop_);
    stop_.throw_if_stopped();
    std::vector<std::uint32_t> points;
    points.reserve(moved.size());
    for (std::size_t c = 0; c < moved.size() && !stop_.stopped(c); ++c) {
        const Change& move = moved[c];
        nearest_[move.point] = move.distance;
        clusters_[owner_[move.point]].push(move.distance, move.point,
                                           clusters_[move.from].coordinates.data() + move.at * d_, d_);
        points.push_back(move.point);
    }
    stop_.throw_if_stopped();
    for (const Change& move : moved) clusters_[move.from].point[move.at] = kGone;
    drop_moved(moved);
    refresh_sums(points);
}

template <typename T>
double BoundedNearest<T>::sum_of_sub_blocks(std::size_t block) const {
    const std::size_t first = block * (kBlockSize / kSubBlockSize);
    const std::size_t last = std::min(sub_sums_.size(), first + kBlockSize / kSubBlockSize);
    double sum = 0.0;
    for (std::size_t s = first; s < last; ++s) sum += sub_sums_[s];
    return sum;
}

template <typename T>
void BoundedNearest<T>::refresh_sums(const std::vector<std::uint32_t>& moved) {
    const std::size_t blocks = block_sums_.size(), subs = sub_sums_.size();
    // The sub-blocks and blocks with a changed D (listed as met: each is summed alone).
    std::vector<char> dirty(subs, 0), dirty_block(blocks, 0);
    std::vector<std::size_t> whole, rest, changed_blocks;
    for (std::uint32_t i : moved) {
        const std::size_t sub = i / kSubBlockSize, block = i / kBlockSize;
        if (!dirty[sub]) {
            dirty[sub] = 1;
            ((sub + 1) * kSubBlockSize <= n_ ? whole : rest).push_back(sub);
        }
        if (!dirty_block[block]) {
            dirty_block[block] = 1;
            changed_blocks.push_back(block);
        }
    }
    // Whole sub-blocks in the fixed order, 64 (4096 points) a group.
    const auto groups = static_cast<std::int64_t>((whole.size() + 63) / 64);
#pragma omp parallel for num_threads(threads_) schedule(static) if (whole.size() * kSubBlockSize > kParallelPoints)
    for (std::int64_t g = 0; g < groups; ++g) {
        if (stop_.poll()) continue;  // a group is 64 sub-blocks: 4096 points
        const std::size_t first = static_cast<std::size_t>(g) * 64;
        sub_block_sums(nearest_.data(), weight_, whole.data() + first, std::min<std::size_t>(64, whole.size() - first),
                       sub_sums_.data());
    }
    stop_.throw_if_stopped();
    for (std::size_t b : rest)
        sub_sums_[b] = ordered_sum(b * kSubBlockSize, n_, [this](std::size_t i) { return mass(i); });
    for (std::size_t b : changed_blocks) block_sums_[b] = sum_of_sub_blocks(b);
    total_ = 0.0;
    for (double sum : block_sums_) total_ += sum;
}

template <typename T>
const std::vector<std::uint32_t>& BoundedNearest<T>::owner() {
    for (std::size_t j = 0; j < clusters_.size(); ++j)
        for (std::uint32_t i : clusters_[j].point) owner_[i] = static_cast<std::uint32_t>(j);
    return owner_;
}

template <typename T>
std::size_t BoundedNearest<T>::sample(double u) const {
    return blocked_sample(block_sums_, total_, u, n_, [this](std::size_t i) { return mass(i); });
}

template <typename T>
std::vector<double> BoundedNearest<T>::potentials(const std::vector<std::vector<double>>& rows) {
    candidates_.clear();
    for (const std::vector<double>& row : rows) {
        Candidate candidate;
        candidate.row = row;
        candidate.changes = changes_for(row.data());
        candidates_.push_back(std::move(candidate));
    }
    // A block no candidate point changes sums to its block sum; the others are
    // summed again with the changes, in the same order.
    const std::size_t blocks = block_sums_.size(), count = rows.size();
    struct Task {
        std::size_t candidate, block, from, to;  // changes [from, to) of the candidate lie in the block
    };
    std::vector<Task> tasks;
    std::vector<std::vector<Change>> by_point(count);
    for (std::size_t t = 0; t < count; ++t) {
        by_point[t] = candidates_[t].changes;
        std::sort(by_point[t].begin(), by_point[t].end(), [](const Change& a, const Change& b) { return a.point < b.point; });
        const std::vector<Change>& changes = by_point[t];
        for (std::size_t c = 0; c < changes.size();) {
            const std::size_t block = changes[c].point / kBlockSize;
            std::size_t e = c;
            while (e < changes.size() && changes[e].point / kBlockSize == block) ++e;
            tasks.push_back({t, block, c, e});
            c = e;
        }
    }
    std::vector<double> block_potentials(count * blocks);
    for (std::size_t t = 0; t < count; ++t)
        std::copy(block_sums_.begin(), block_sums_.end(), block_potentials.begin() + static_cast<std::ptrdiff_t>(t * blocks));
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 4) if (tasks.size() > 4)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(tasks.size()); ++k) {
        if (stop_.poll()) continue;  // a task is one block
        const Task& task = tasks[static_cast<std::size_t>(k)];
        const std::vector<Change>& changes = by_point[task.candidate];
        // Sub-blocks with a change summed again in order; the others' sums stand.
        std::size_t next = task.from;
        double sum = 0.0;
        const std::size_t end = std::min(n_, (task.block + 1) * kBlockSize);
        for (std::size_t sub = task.block * kBlockSize; sub < end; sub += kSubBlockSize) {
            const std::size_t sub_end = std::min(end, sub + kSubBlockSize);
            if (!(next < task.to && changes[next].point < sub_end)) {
                sum += sub_sums_[sub / kSubBlockSize];
                continue;
            }
            double part = 0.0;
            for (std::size_t i = sub; i < sub_end; ++i) {
                double nearest = nearest_[i];
                if (next < task.to && changes[next].point == i) nearest = changes[next++].distance;
                part += weight_ ? weight_[i] * nearest : nearest;
            }
            sum += part;
        }
        block_potentials[task.candidate * blocks + task.block] = sum;
    }
    stop_.throw_if_stopped();
    std::vector<double> totals(count, 0.0);
    for (std::size_t t = 0; t < count; ++t)
        for (std::size_t b = 0; b < blocks; ++b) totals[t] += block_potentials[t * blocks + b];
    return totals;
}

template class BoundedNearest<float>;
template class BoundedNearest<double>;

}  // namespace kms::seeding
