// k-means++'s nearest-centre masses kept with a tree of boxes over the points
// (bounded_nearest.hpp: the rule, and why the result is the plain pass's bits).
#include "bounded_nearest.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "kms/region_guard.hpp"
#include "seeding.hpp"

namespace kms::seeding {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
using Pair = double __attribute__((vector_size(16)));  // two lanes, lane-wise IEEE operations

// Points a leaf holds (n = 10^6 × 2 blobs, k = 1000, 1 thread: 16 was 6 % slower, 64 and 128 the same).
constexpr std::size_t kLeaf = 32;
// The Morton key: 24 bits over the (up to) 8 widest dimensions, sorted in two
// passes of 12 bits (32 bits in four of 8: 13 % slower to build, no faster to walk).
constexpr std::size_t kKeyBits = 24, kKeyDimensions = 8, kDigitBits = 12;

// The 16 low bits of x spread to the even bits of the result (half a 2-d Morton key).
inline std::uint64_t spread_bits(std::uint32_t x) {
    std::uint64_t v = x & 0xFFFFu;
    v = (v | v << 8) & 0x00FF00FFu;
    v = (v | v << 4) & 0x0F0F0F0Fu;
    v = (v | v << 2) & 0x33333333u;
    v = (v | v << 1) & 0x55555555u;
    return v;
}

// Work below this many points runs on one thread: a parallel region costs more
// than it saves there (on a busy machine each waits for a thread the OS has put aside).
constexpr std::size_t kParallelPoints = 1 << 17;

}  // namespace

template <typename T>
BoundedNearest<T>::BoundedNearest(const Matrix<T>& points, int threads, const double* sample_weight,
                                  std::stop_token stop, std::string source_name)
    : points_(points),
      n_(points.rows()),
      d_(points.cols()),
      threads_(threads),
      weight_(sample_weight),
      stop_(std::move(stop), std::move(source_name)),
      nearest_(n_, kInfinity),
      block_sums_((n_ + kBlockSize - 1) / kBlockSize, 0.0),
      sub_sums_((n_ + kSubBlockSize - 1) / kSubBlockSize, 0.0) {}

template <typename T>
void BoundedNearest<T>::build() {
    const std::size_t n = n_, d = d_;
    // The widest dimensions (of the finite values), each quantised to `bits` bits.
    std::vector<double> lo(d, kInfinity), hi(d, -kInfinity);
    const T* values = points_.data();
    for (std::size_t i = 0; i < n && !stop_.stopped(i); ++i)
        for (std::size_t j = 0; j < d; ++j) {
            const double v = static_cast<double>(values[i * d + j]);
            if (v < lo[j]) lo[j] = v;
            if (v > hi[j]) hi[j] = v;
        }
    stop_.throw_if_stopped();
    std::vector<std::size_t> dims(d);
    for (std::size_t j = 0; j < d; ++j) dims[j] = j;
    const auto range = [&](std::size_t j) { return hi[j] >= lo[j] ? hi[j] - lo[j] : 0.0; };
    std::stable_sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return range(a) > range(b); });
    dims.resize(std::min(d, kKeyDimensions));
    const std::size_t bits = kKeyBits / dims.size();
    const double top = static_cast<double>((std::uint64_t{1} << bits) - 1);
    std::vector<double> scale(dims.size(), 0.0);
    for (std::size_t m = 0; m < dims.size(); ++m) {
        const double r = range(dims[m]);
        if (r > 0.0 && std::isfinite(r)) scale[m] = (top + 1.0) / r;
    }
    // (key << 32 | row), sorted by key in stable passes: ties stay in row order.
    LargeBuffer<std::uint64_t> keyed_buffer(n), sorted_buffer(n);  // (not zeroed: written before read)
    std::uint64_t* keyed = keyed_buffer.data();
    std::uint64_t* sorted = sorted_buffer.data();
    const auto count = static_cast<std::int64_t>(n);
    const auto quantised = [&](std::size_t i, std::size_t m) -> std::uint32_t {
        const double v = (static_cast<double>(points_(i, dims[m])) - lo[dims[m]]) * scale[m];
        return v >= 0.0 ? static_cast<std::uint32_t>(std::min(v, top)) : 0;  // NaN: 0
    };
    if (dims.size() == 2) {
#pragma omp parallel for num_threads(threads_) schedule(static) if (n > kParallelPoints)
        for (std::int64_t ii = 0; ii < count; ++ii) {
            const auto i = static_cast<std::size_t>(ii);
            keyed[i] = (spread_bits(quantised(i, 0)) << 1 | spread_bits(quantised(i, 1))) << 32 | i;
        }
    } else {
#pragma omp parallel for num_threads(threads_) schedule(static) if (n > kParallelPoints)
        for (std::int64_t ii = 0; ii < count; ++ii) {
            const auto i = static_cast<std::size_t>(ii);
            std::uint32_t q[kKeyDimensions];
            for (std::size_t m = 0; m < dims.size(); ++m) q[m] = quantised(i, m);
            std::uint64_t key = 0;
            for (std::size_t b = bits; b-- > 0;)
                for (std::size_t m = 0; m < dims.size(); ++m) key = key << 1 | ((q[m] >> b) & 1u);
            keyed[i] = key << 32 | i;
        }
    }
    for (std::size_t shift = 32; shift < 32 + kKeyBits; shift += kDigitBits) {
        constexpr std::uint64_t kMask = (std::uint64_t{1} << kDigitBits) - 1;
        std::vector<std::size_t> start(kMask + 2, 0);
        for (std::size_t i = 0; i < n; ++i) ++start[((keyed[i] >> shift) & kMask) + 1];
        for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
        for (std::size_t i = 0; i < n; ++i) sorted[start[(keyed[i] >> shift) & kMask]++] = keyed[i];
        std::swap(keyed, sorted);
    }
    row_.resize(n);
    coordinates_.resize(n * d);
    // The rows are read in random order: each asked for a few rows ahead.
    constexpr std::size_t kAhead = 16;
#pragma omp parallel for num_threads(threads_) schedule(static) if (n > kParallelPoints)
    for (std::int64_t pp = 0; pp < count; ++pp) {
        const auto p = static_cast<std::size_t>(pp);
        if (p + kAhead < n) __builtin_prefetch(points_.row(static_cast<std::uint32_t>(keyed[p + kAhead])));
        row_[p] = static_cast<std::uint32_t>(keyed[p]);
        const T* from = points_.row(row_[p]);
        for (std::size_t j = 0; j < d; ++j) coordinates_[p * d + j] = from[j];  // (std::copy: a memmove call a row)
    }

    // The tree: leaves of kLeaf points in that order, boxes from below.
    const std::size_t leaves = std::max<std::size_t>(1, (n + kLeaf - 1) / kLeaf);
    slots_ = std::bit_ceil(leaves);
    depth_ = static_cast<std::size_t>(std::countr_zero(slots_));
    begin_.assign(2 * slots_, static_cast<std::uint32_t>(n));
    end_.assign(2 * slots_, static_cast<std::uint32_t>(n));
    low_.assign(2 * slots_ * d, kInfinity);
    high_.assign(2 * slots_ * d, -kInfinity);
    largest_.assign(2 * slots_, -kInfinity);
    for (std::size_t l = 0; l < leaves; ++l) {
        const std::size_t node = slots_ + l, begin = std::min(n, l * kLeaf), end = std::min(n, begin + kLeaf);
        begin_[node] = static_cast<std::uint32_t>(begin);
        end_[node] = static_cast<std::uint32_t>(end);
        for (std::size_t j = 0; j < d; ++j) {  // (min and max without branches: the same values)
            double low = kInfinity, high = -kInfinity;
            for (std::size_t p = begin; p < end; ++p) {
                const double v = static_cast<double>(coordinates_[p * d + j]);
                low = v < low ? v : low;
                high = v > high ? v : high;
            }
            low_[node * d + j] = low;
            high_[node * d + j] = high;
        }
    }
    for (std::size_t v = slots_ - 1; v >= 1; --v) {
        const std::size_t a = 2 * v, b = 2 * v + 1;
        begin_[v] = begin_[a];
        end_[v] = end_[b] > begin_[b] ? end_[b] : end_[a];
        for (std::size_t j = 0; j < d; ++j) {
            low_[v * d + j] = std::min(low_[a * d + j], low_[b * d + j]);
            high_[v * d + j] = std::max(high_[a * d + j], high_[b * d + j]);
        }
    }
}

template <typename T>
void BoundedNearest<T>::add_centre(const double* centre) {
    const auto q = static_cast<std::uint32_t>(centres_);
    std::vector<Change> changes;
    bool known = false;
    for (Candidate& candidate : candidates_)
        if (std::memcmp(candidate.row.data(), centre, d_ * sizeof(double)) == 0) {
            changes = std::move(candidate.changes);
            known = true;
            break;
        }
    candidates_.clear();
    ++centres_;
    if (q == 0) return first_centre(centre);
    if (known) apply_known(q, changes);
    else walk(centre, q, true, changes);
    refresh_sums(changes);
}

template <typename T>
void BoundedNearest<T>::first_centre(const double* centre) {
    build();
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
    near_.resize(n_);
    owner_at_.assign(n_, 0);
    dirty_.assign((sub_sums_.size() + 7) / 8 * 8, 0);  // 0 between calls
    // D in tree order from the tree's copy of the rows (the same values and terms:
    // the same bits as nearest_[row_[p]], read in order instead of at random).
    const auto points = static_cast<std::int64_t>(n_);
#pragma omp parallel for num_threads(threads_) schedule(static) if (n_ > kParallelPoints)
    for (std::int64_t pp = 0; pp < points; ++pp) {
        const auto p = static_cast<std::size_t>(pp);
        const double s = widened_squared_distance(coordinates_.data() + p * d_, centre, d_);
        near_[p] = s < kInfinity ? s : kInfinity;  // as nearest_ from +infinity
    }
    for (std::size_t l = slots_; l < 2 * slots_; ++l) largest_[l] = leaf_largest(l);
    update_above(depth_);
}

template <typename T>
double BoundedNearest<T>::leaf_largest(std::size_t node) const {
    double largest = -kInfinity;
    for (std::size_t p = begin_[node]; p < end_[node]; ++p) largest = std::max(largest, near_[p]);
    return largest;
}

template <typename T>
void BoundedNearest<T>::update_above(std::size_t depth) {
    for (std::size_t level = depth; level-- > 0;)
        for (std::size_t v = std::size_t{1} << level; v < std::size_t{2} << level; ++v)
            largest_[v] = std::max(largest_[2 * v], largest_[2 * v + 1]);
}

template <typename T>
template <bool Far>
double BoundedNearest<T>::box_distance(std::size_t node, const double* centre) const {
    // kms::squared_distance's order, each term no larger (Far: no smaller) than a
    // point's of the box: rounding is monotone (the header).
    const double* lo = low_.data() + node * d_;
    const double* hi = high_.data() + node * d_;
    double sum = 0.0;
    for (std::size_t j = 0; j < d_; ++j) {
        const double x = centre[j];
        const double t = Far ? std::max(x - lo[j], hi[j] - x) : (x < lo[j] ? lo[j] - x : (x > hi[j] ? x - hi[j] : 0.0));
        sum += t * t;
    }
    return sum;
}

template <typename T>
double BoundedNearest<T>::visit(std::size_t node, Walk& walk) {
    double& largest = largest_[node];
    if (begin_[node] == end_[node] || stop_.stopped(walk.polls++)) return largest;
    ++walk.boxes;
    if (box_distance<false>(node, walk.centre) >= largest) return largest;  // (not a number: searched)
    if (node < slots_) {
        const double a = visit(2 * node, walk), b = visit(2 * node + 1, walk);
        if (walk.apply) largest = std::max(a, b);
        return largest;
    }
    bool changed = false;
    for (std::size_t p = begin_[node]; p < end_[node]; ++p) {
        const double s = widened_squared_distance(coordinates_.data() + p * d_, walk.centre, d_);
        if (!(s < near_[p])) continue;
        if (walk.apply) {
            near_[p] = s;
            owner_at_[p] = walk.index;
            nearest_[row_[p]] = s;
        }
        if (walk.changes) walk.changes->push_back({row_[p], static_cast<std::uint32_t>(p), s});
        else dirty_[row_[p] / kSubBlockSize] = 1;
        changed = true;
    }
    walk.points += end_[node] - begin_[node];
    if (changed && walk.apply) largest = leaf_largest(node);
    return largest;
}

template <typename T>
std::vector<std::size_t> BoundedNearest<T>::shares(std::size_t& depth) const {
    // The subtrees at a depth with a few per thread (none: one thread).
    depth = std::min<std::size_t>(
        depth_, static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(std::max(1, threads_)) * 8u - 1u)));
    std::vector<std::size_t> nodes;
    if (threads_ > 1)
        for (std::size_t v = std::size_t{1} << depth; v < std::size_t{2} << depth; ++v)
            if (begin_[v] != end_[v]) nodes.push_back(v);
    return nodes;
}

template <typename T>
void BoundedNearest<T>::walk(const double* centre, std::uint32_t number, bool apply, std::vector<Change>& changes) {
    // One thread: from the root. Several, where the subtrees the centre reaches hold
    // enough points: those subtrees are shared out (a point's result depends only
    // on the centre, not on who walks it).
    std::size_t depth = 0;
    const std::vector<std::size_t> nodes = shares(depth);
    std::size_t work = 0;
    for (std::size_t v : nodes)
        if (!(box_distance<false>(v, centre) >= largest_[v])) work += end_[v] - begin_[v];
    std::uint64_t points = 0, boxes = 0;
    if (work <= kParallelPoints) {
        // (applied by one thread: its points' sub-blocks marked, the changes not listed)
        Walk one{centre, number, apply, apply ? nullptr : &changes};
        visit(1, one);
        points = one.points;
        boxes = one.boxes;
    } else {
        std::vector<std::vector<Change>> found(nodes.size());
        RegionGuard guard;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1) reduction(+ : points, boxes)
        for (std::int64_t t = 0; t < static_cast<std::int64_t>(nodes.size()); ++t) {
            Walk one{centre, number, apply, &found[static_cast<std::size_t>(t)]};
            if (!guard.failed()) guard.run([&] { visit(nodes[static_cast<std::size_t>(t)], one); });
            points += one.points;
            boxes += one.boxes;
        }
        guard.rethrow();
        for (const std::vector<Change>& part : found) changes.insert(changes.end(), part.begin(), part.end());
        if (apply) update_above(depth);
    }
    stop_.throw_if_stopped();
    point_distances_ += points;
    box_distances_ += boxes;
}

template <typename T>
template <std::size_t Dims>
double BoundedNearest<T>::filter(std::size_t node, std::size_t depth, const std::uint32_t* list, std::size_t size,
                                 Batch& batch) {
    double& largest = largest_[node];
    if (begin_[node] == end_[node] || stop_.stopped(batch.polls++)) return largest;
    const std::size_t d = Dims ? Dims : d_;
    if (node < slots_) {
        // The children's records are read next and lie in other lines of five arrays
        // (a level's nodes side by side): ask for them while this node's centres are
        // filtered, and for the points of leaf children.
        // The grandchildren's too: a node's own filter is often too short to hide a miss.
        for (std::size_t child = 2 * node, count = 2; child < 2 * slots_ && count <= 4; child *= 2, count *= 2) {
            __builtin_prefetch(low_.data() + child * d);
            __builtin_prefetch(high_.data() + child * d);
            __builtin_prefetch(begin_.data() + child);
            __builtin_prefetch(end_.data() + child);
            __builtin_prefetch(largest_.data() + child);
        }
        const std::size_t child = 2 * node;
        if (child >= slots_) {
            __builtin_prefetch(coordinates_.data() + std::size_t{begin_[child]} * d);
            __builtin_prefetch(near_.data() + begin_[child]);
        }
    }
    // The centres that may lower a D of the node: nearer to its box than its largest
    // D, and not beyond the reach of the centre whose farthest point of the box is
    // nearest (Kanungo et al.'s filter: every point is surely nearer to that one).
    // Both distances as box_distance computes them (the same terms in the same
    // order), without its branches: max(lo - x, x - hi, 0) is the near term, as
    // exactly (the unused side is <= 0; a -0 squares to +0).
    std::vector<std::uint32_t>& kept = batch.lists[depth];
    std::vector<double>& lows = batch.lows[depth];
    if (kept.size() < size) {  // (grown, never shrunk: no call a node)
        kept.resize(size);
        lows.resize(size);
    }
    const double* lo = low_.data() + node * d;
    const double* hi = high_.data() + node * d;
    double reach = kInfinity;
    std::size_t count = 0;
    const double* centres = batch.centres;
    std::uint32_t* keep = kept.data();
    double* keep_low = lows.data();
    if constexpr (Dims == 2) {
        // Both dimensions in one register: the same two terms, added as the loop
        // below adds them (0.0 + a + b = a + b exactly), without branches.
        const Pair box_lo = {lo[0], lo[1]}, box_hi = {hi[0], hi[1]}, zero = {0.0, 0.0};
        for (std::size_t i = 0; i < size; ++i) {
            const double* centre = centres + std::size_t{list[i]} * 2;
            const Pair x = {centre[0], centre[1]};
            const Pair below = box_lo - x, above = x - box_hi;
            Pair t = below > above ? below : above;
            t = t > zero ? t : zero;
            const Pair from_lo = x - box_lo, to_hi = box_hi - x;
            const Pair f = from_lo > to_hi ? from_lo : to_hi;
            const Pair tt = t * t, ff = f * f;
            const double low = tt[0] + tt[1], far = ff[0] + ff[1];
            reach = far < reach ? far : reach;  // (not a number: left out)
            keep[count] = list[i];
            keep_low[count] = low;
            count += !(low >= largest);  // (not a number: kept)
        }
    } else {
        for (std::size_t i = 0; i < size; ++i) {
            const double* centre = centres + std::size_t{list[i]} * d;
            double low = 0.0, far = 0.0;
            for (std::size_t j = 0; j < d; ++j) {
                const double x = centre[j];
                const double t = std::max(std::max(lo[j] - x, x - hi[j]), 0.0);
                const double f = std::max(x - lo[j], hi[j] - x);
                low += t * t;
                far += f * f;
            }
            reach = std::min(reach, far);  // (not a number: left out)
            keep[count] = list[i];
            keep_low[count] = low;
            count += !(low >= largest);  // (not a number: kept)
        }
    }
    batch.boxes += size;
    std::size_t left = 0;
    for (std::size_t i = 0; i < count; ++i) {
        kept[left] = kept[i];
        lows[left] = lows[i];
        left += !(lows[i] > reach);
    }
    count = left;
    if (count == 0) return largest;
    if (node < slots_) {
        const double a = filter<Dims>(2 * node, depth + 1, kept.data(), count, batch);
        const double b = filter<Dims>(2 * node + 1, depth + 1, kept.data(), count, batch);
        return largest = std::max(a, b);
    }
    // Each point: the nearest of the centres kept (in increasing number: a tie to the
    // lower), their rows copied together first.
    // A point whose D is at most the kept centres' nearest box distance keeps it
    // (each distance is at least its centre's box distance): no distances for it.
    std::vector<double>& near = batch.near;
    if (near.size() < count * d) near.resize(count * d);
    double nearest_box = kInfinity;
    for (std::size_t c = 0; c < count; ++c) {
        for (std::size_t j = 0; j < d; ++j) near[c * d + j] = batch.centres[std::size_t{kept[c]} * d + j];
        nearest_box = std::min(nearest_box, lows[c]);
    }
    bool changed = false;
    std::uint64_t searched = 0;
    double* near_at = near_.data();
    std::uint32_t* owner_at = owner_at_.data();
    const std::uint32_t* row_at = row_.data();
    double* nearest = nearest_.data();
    char* dirty = dirty_.data();
    const T* coordinates = coordinates_.data();
    const std::uint32_t first = batch.first;
    for (std::size_t p = begin_[node], end = end_[node]; p < end; ++p) {
        double best = near_at[p];
        if (best <= nearest_box) continue;
        ++searched;
        const T* point = coordinates + p * d;
        std::size_t taker = count;
        if constexpr (Dims == 2) {
            const Pair x = {static_cast<double>(point[0]), static_cast<double>(point[1])};
            for (std::size_t c = 0; c < count; ++c) {
                const Pair diff = x - Pair{near[2 * c], near[2 * c + 1]};
                const Pair square = diff * diff;
                const double s = square[0] + square[1];  // widened_squared_distance's value
                taker = s < best ? c : taker;
                best = s < best ? s : best;
            }
        } else {
            for (std::size_t c = 0; c < count; ++c) {
                double s = 0.0;  // widened_squared_distance's terms and order
                for (std::size_t j = 0; j < d; ++j) {
                    const double diff = static_cast<double>(point[j]) - near[c * d + j];
                    s += diff * diff;
                }
                taker = s < best ? c : taker;
                best = s < best ? s : best;
            }
        }
        if (taker == count) continue;
        near_at[p] = best;
        owner_at[p] = first + kept[taker];
        const std::uint32_t row = row_at[p];
        nearest[row] = best;
        std::atomic_ref<char>(dirty[row / kSubBlockSize]).store(1, std::memory_order_relaxed);
        changed = true;
    }
    batch.points += count * searched;
    if (changed) largest = leaf_largest(node);
    return largest;
}

template <typename T>
void BoundedNearest<T>::apply_known(std::uint32_t index, const std::vector<Change>& changes) {
    for (const Change& change : changes) {
        near_[change.at] = change.distance;
        owner_at_[change.at] = index;
        nearest_[change.point] = change.distance;
    }
    // Each changed leaf's largest D, and up its path while that changes something.
    for (std::size_t c = 0; c < changes.size(); ++c) {
        std::size_t node = slots_ + changes[c].at / kLeaf;
        if (c > 0 && node == slots_ + changes[c - 1].at / kLeaf) continue;
        largest_[node] = leaf_largest(node);
        for (node /= 2; node >= 1; node /= 2) {
            const double value = std::max(largest_[2 * node], largest_[2 * node + 1]);
            if (value == largest_[node]) break;
            largest_[node] = value;
        }
    }
}

template <typename T>
void BoundedNearest<T>::add_centres(const std::vector<std::vector<double>>& centres) {
    candidates_.clear();
    if (centres.empty()) return;
    std::size_t first = 0;
    if (centres_ == 0) {
        add_centre(centres[0].data());
        first = 1;
    }
    const std::size_t m = centres.size() - first;
    if (m == 0) return;
    // Each point takes the nearest of them at once (the tree filters the centres
    // down to the few that may take a node's points): one pass with the points' lines
    // at hand, not one walk a centre (k-means‖'s rounds 2.x faster).
    std::vector<double> rows(m * d_);
    for (std::size_t c = 0; c < m; ++c) std::copy(centres[first + c].begin(), centres[first + c].end(), rows.begin() + static_cast<std::ptrdiff_t>(c * d_));
    std::vector<std::uint32_t> all(m);
    for (std::size_t c = 0; c < m; ++c) all[c] = static_cast<std::uint32_t>(c);
    std::size_t depth = 0;
    const std::vector<std::size_t> nodes = shares(depth);
    const auto batch_for = [&] {
        Batch batch{rows.data(), static_cast<std::uint32_t>(centres_), {}, {}, {}};
        batch.lists.resize(depth_ + 1);
        batch.lows.resize(depth_ + 1);
        return batch;
    };
    // The loops unrolled for the common small d (the same terms in the same order).
    const auto run = [&](std::size_t node, std::size_t at, Batch& batch) {
        switch (d_) {
            case 1: filter<1>(node, at, all.data(), m, batch); break;
            case 2: filter<2>(node, at, all.data(), m, batch); break;
            case 3: filter<3>(node, at, all.data(), m, batch); break;
            case 4: filter<4>(node, at, all.data(), m, batch); break;
            default: filter<0>(node, at, all.data(), m, batch); break;
        }
    };
    std::uint64_t points = 0, boxes = 0;
    if (nodes.empty() || n_ <= kParallelPoints) {
        Batch batch = batch_for();
        run(1, 0, batch);
        points = batch.points;
        boxes = batch.boxes;
    } else {
        RegionGuard guard;
#pragma omp parallel num_threads(threads_) reduction(+ : points, boxes)
        {
            std::optional<Batch> batch;  // a thread's scratch lists
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t t = 0; t < static_cast<std::int64_t>(nodes.size()); ++t) {
                if (guard.failed()) continue;
                guard.run([&] {
                    if (!batch) batch = batch_for();
                    run(nodes[static_cast<std::size_t>(t)], depth, *batch);
                });
            }
            if (batch) {
                points += batch->points;
                boxes += batch->boxes;
            }
        }
        guard.rethrow();
        update_above(depth);
    }
    stop_.throw_if_stopped();
    point_distances_ += points;
    box_distances_ += boxes;
    centres_ += m;
    refresh_sums({});
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
void BoundedNearest<T>::refresh_sums(const std::vector<Change>& moved) {
    const std::size_t subs = sub_sums_.size();
    // The sub-blocks with a changed D, in increasing order (read in address order, where
    // they lie close the lines come ahead), and their blocks.
    for (const Change& change : moved) dirty_[change.point / kSubBlockSize] = 1;
    std::vector<std::size_t> whole, changed_blocks;
    bool last = false;  // the last sub-block, cut short
    for (std::size_t s = 0; s < subs; s += 8) {
        std::uint64_t word;
        std::memcpy(&word, dirty_.data() + s, sizeof word);
        if (word == 0) continue;
        for (std::size_t t = s; t < s + 8; ++t) {
            if (!dirty_[t]) continue;
            dirty_[t] = 0;
            if ((t + 1) * kSubBlockSize <= n_) whole.push_back(t);
            else last = true;
            const std::size_t block = t * kSubBlockSize / kBlockSize;
            if (changed_blocks.empty() || changed_blocks.back() != block) changed_blocks.push_back(block);
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
    if (last) sub_sums_[subs - 1] = ordered_sum((subs - 1) * kSubBlockSize, n_, [this](std::size_t i) { return mass(i); });
    // A whole block's sum is its 64 sub-block sums added as a sub-block's 64 masses are.
    constexpr std::size_t kSubs = kBlockSize / kSubBlockSize;
    static_assert(kSubs == kSubBlockSize);
    std::size_t whole_blocks = 0;
    for (std::size_t b : changed_blocks)
        if ((b + 1) * kSubs <= subs) changed_blocks[whole_blocks++] = b;
        else block_sums_[b] = sum_of_sub_blocks(b);
    sub_block_sums(sub_sums_.data(), nullptr, changed_blocks.data(), whole_blocks, block_sums_.data());
    total_ = 0.0;
    for (double sum : block_sums_) total_ += sum;
}

template <typename T>
const std::vector<std::uint32_t>& BoundedNearest<T>::owner() {
    owner_.assign(n_, 0);
    for (std::size_t p = 0; p < row_.size(); ++p) owner_[row_[p]] = owner_at_[p];
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
        const double* centre = candidate.row.data();
        walk(centre, static_cast<std::uint32_t>(centres_), false, candidate.changes);
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
