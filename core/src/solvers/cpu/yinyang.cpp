// Yinyang (Ding, Zhao, Shen, Musuvathi & Mytkowicz, ICML 2015). The centroids are
// split once into t ≈ k/10 groups by a short k-means over the initial centroids
// (form_centroid_groups(), shared with the CUDA solver).
// Each point keeps an upper bound to its own centroid, one lower bound per group
// (to the group's nearest member other than the own centroid) and a global lower
// bound (the least of those). A point passes three filters in turn: the global
// one rules out every other centroid at once (with Hamerly's half distance from
// the own centroid to its nearest other one as a second test), the group one a
// whole group, the local one a single member (the group's previous bound less
// the member's own move).
//
// Group bounds are kept lazily: a point that the global filter settles leaves its
// group bounds as they were, stamped with the assignment they belong to; drift_
// holds, for each recent assignment and group, a certain upper bound of how far
// the group's centroids have moved since. The bounds are brought up to date only
// when they are read, so a settled point costs what a Hamerly point costs instead
// of t bound updates.
//
// Out of core the bounds stay in memory (n·(t + 2) values and the stamps) while each
// step assigns the file's blocks in turn: what a step decides once (whether it builds the
// bounds; the groups' moves, the half distances, the blocks) is decided at its first
// block, and the drift ring moves on after its last.
#include "cpu_backend.hpp"
#include "cpu_solver.hpp"

namespace kms::cpu {
namespace {

// Assignments a point's group bounds may lag behind: the rows of the drift ring.
constexpr std::uint32_t kDriftHistory = 16;
// Points per work item: the first assignment searches a chunk one group at a time.
constexpr std::size_t kChunk = 1024;

template <typename T>
class YinyangSolver final : public CpuSolver<T> {
public:
    using CpuSolver<T>::CpuSolver;

protected:
    void allocate_bounds() override {
        form_groups(this->initial_);
        const std::size_t n = this->n_, t = groups();
        upper_.assign(n, T(0));
        global_.assign(n, T(0));
        this->assign_zeroed(lower_, n * t);
        stamp_.assign(n, 0);
        drift_.assign(std::size_t{kDriftHistory} * t, T(0));
        group_shift_.assign(t, T(0));
    }

    // Rows [window_first_, window_first_ + window_rows_): every row, or (out of core) the
    // block in points_.
    std::uint64_t assign(IterationStats& stats) override {
        const std::size_t from = this->window_first_, to = from + this->window_rows_;
        const std::size_t d = this->d_, k = this->k_, t = groups();
        const auto bounds_start = Clock::now();
        if (from == 0) {
            building_ = !this->bounds_valid_;
            if (!building_) start_bounded_step(stats);
        }
        if (building_) return first_assignment(stats, from, to);
        const BoundArithmetic<T> bounds(d);
        const T inf = std::numeric_limits<T>::infinity();
        const T* points = this->points_;  // row i at (i − from)
        const T* c = this->centroids_.data();
        const T* shift = this->shift_upper_.data();
        std::int32_t* labels = this->labels_.data();
        PointStatus* status = this->config_.record_point_status ? this->status_.data() : nullptr;
        const T* nearest_half = this->nearest_half_.data();
        const auto& leaders = leaders_;
        const std::uint32_t now = assignment_;
        stats.time_bounds_ms += elapsed_ms(bounds_start);

        const auto assign_start = Clock::now();
        std::uint64_t changed = 0, evaluations = 0, skips = 0, group_skips = 0;
        const std::size_t chunks = (to - from + kChunk - 1) / kChunk;
        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) \
    reduction(+ : changed, evaluations, skips, group_skips)
        {
            // Per examined group: its nearest member and its second least member bound.
            std::vector<T> second, local, distances;
            std::vector<std::size_t> nearest_member, examined_groups;
            guard.run([&] {
                second.resize(t);
                nearest_member.resize(t);
                local.resize(largest_group_);
                distances.resize(block_stride(largest_group_, d));
                examined_groups.reserve(t);
            });
#pragma omp for schedule(dynamic, 1)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                if (guard.failed() || this->stop_now()) continue;  // cancelled: step() restores the last iteration
                const std::size_t chunk_begin = from + chunk * kChunk, chunk_end = std::min(to, chunk_begin + kChunk);
                for (std::size_t i = chunk_begin; i < chunk_end; ++i) {
                    const T* x = points + (i - from) * d;
                    T* lower = lower_.data() + i * t;
                    const std::size_t own = static_cast<std::size_t>(labels[i]);
                    const std::uint32_t age = now - stamp_[i];
                    const T* drift = drift_.data() + (stamp_[i] % kDriftHistory) * t;
                    // Group g's bound at the previous assignment (from its stamp), and now.
                    auto previous_bound = [&](std::size_t g) {
                        return age == 1 ? lower[g] : bounds.shrink(lower[g], drift[g]);
                    };
                    // Settled by the global filter: the label stays. Bounds about to
                    // fall out of the drift ring are written now.
                    auto settle = [&](T u, T global) {
                        upper_[i] = u;
                        global_[i] = global;
                        if (age >= kDriftHistory) {
                            for (std::size_t g = 0; g < t; ++g)
                                lower[g] = bounds.shrink(previous_bound(g), group_shift_[g]);
                            stamp_[i] = now;
                        }
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                    };

                    T u = bounds.grow(upper_[i], shift[own]);
                    const T global = bounds.shrink(global_[i], leaders.other_than(own));
                    const T limit = std::max(global, nearest_half[own]);
                    std::uint64_t point_evaluations = 0;
                    if (bounds.separated(u, limit)) {
                        settle(u, global);
                        continue;
                    }
                    // Tighten the upper bound with one distance and test again.
                    const T own_distance = squared_distance(x, c + own * d, d);
                    point_evaluations = 1;
                    u = bounds.upper(std::sqrt(own_distance));
                    if (bounds.separated(u, limit)) {
                        ++evaluations;
                        settle(u, global);
                        continue;
                    }

                    // One pass over the groups: each bound brought up to date and
                    // written back, and the groups it does not rule out examined.
                    const T own_lower = bounds.lower(std::sqrt(own_distance));
                    T best = own_distance;
                    std::size_t label = own;
                    examined_groups.clear();
                    for (std::size_t g = 0; g < t; ++g) {
                        const T previous = previous_bound(g);
                        lower[g] = bounds.shrink(previous, group_shift_[g]);
                        if (bounds.separated(u, lower[g])) continue;  // the group filter
                        examined_groups.push_back(g);
                        // The group's two least member bounds, to leave the final label
                        // out of its new bound: computed members kept as squared
                        // distances (one square root per group, not per member),
                        // members the local filter ruled out as bounds.
                        T computed_first = inf, computed_second = inf, ruled_first = inf, ruled_second = inf;
                        std::size_t computed_member = k, ruled_member = k;
                        const std::size_t first = group_begin_[g], size = group_begin_[g + 1] - first;
                        auto take = [&](std::size_t j, T distance) {
                            if (distance < best || (distance == best && j < label)) {
                                best = distance;
                                label = j;
                                u = bounds.upper(std::sqrt(distance));
                            }
                            if (distance < computed_first) {
                                computed_second = computed_first;
                                computed_first = distance;
                                computed_member = j;
                            } else if (distance < computed_second) {
                                computed_second = distance;
                            }
                        };
                        // The local filter: the group's previous bound less each member's own move.
                        std::size_t open = 0;
                        for (std::size_t p = 0; p < size; ++p) {
                            const std::size_t j = members_[first + p];
                            local[p] = bounds.shrink(previous, shift[j]);
                            open += j != own && !bounds.separated(u, local[p]);
                        }
                        if (4 * open >= size) {
                            // Most members open: the whole group at once with the vector
                            // kernel (cheaper than filtering them one by one).
                            block_distances(x, d, blocks_.data() + block_offset_[g], block_stride(size, d), size,
                                            distances.data());
                            point_evaluations += size;
                            for (std::size_t p = 0; p < size; ++p) take(members_[first + p], distances[p]);
                        } else {
                            for (std::size_t p = 0; p < size; ++p) {
                                const std::size_t j = members_[first + p];
                                if (j == own) {
                                    take(j, own_distance);
                                } else if (bounds.separated(u, local[p])) {
                                    if (local[p] < ruled_first) {
                                        ruled_second = ruled_first;
                                        ruled_first = local[p];
                                        ruled_member = j;
                                    } else if (local[p] < ruled_second) {
                                        ruled_second = local[p];
                                    }
                                } else {
                                    ++point_evaluations;
                                    take(j, squared_distance(x, c + j * d, d));
                                }
                            }
                        }
                        // lower(sqrt(·)) is monotone: the least computed bound is that of the least distance.
                        const T first_computed = computed_first == inf ? inf : bounds.lower(std::sqrt(computed_first));
                        const T second_computed = computed_second == inf ? inf : bounds.lower(std::sqrt(computed_second));
                        if (first_computed <= ruled_first) {
                            lower[g] = first_computed;
                            nearest_member[g] = computed_member;
                            second[g] = std::min(second_computed, ruled_first);
                        } else {
                            lower[g] = ruled_first;
                            nearest_member[g] = ruled_member;
                            second[g] = std::min(ruled_second, first_computed);
                        }
                    }
                    group_skips += t - examined_groups.size();

                    // New group bounds: each leaves out the final label; the old label,
                    // if it was left, counts in its group.
                    bool own_group_examined = false;
                    for (std::size_t g : examined_groups) {
                        if (nearest_member[g] == label) lower[g] = second[g];
                        own_group_examined = own_group_examined || g == group_of_[own];
                    }
                    if (label != own && !own_group_examined)
                        lower[group_of_[own]] = std::min(lower[group_of_[own]], own_lower);
                    T new_global = inf;
                    for (std::size_t g = 0; g < t; ++g) new_global = std::min(new_global, lower[g]);
                    stamp_[i] = now;
                    upper_[i] = u;
                    global_[i] = new_global;
                    evaluations += point_evaluations;
                    if (point_evaluations < k) {
                        ++skips;
                        if (status) status[i] = PointStatus::Skipped;
                    }
                    changed += label != own;
                    labels[i] = static_cast<std::int32_t>(label);
                }
            }
        }
        guard.rethrow();
        // After the step's last block: every stamp's drift now reaches this assignment;
        // this one's starts at zero.
        if (to == this->n_) {
            for (std::uint32_t row = 0; row < kDriftHistory; ++row) {
                T* drift = drift_.data() + std::size_t{row} * t;
                if (row == now % kDriftHistory) std::fill(drift, drift + t, T(0));
                else
                    for (std::size_t g = 0; g < t; ++g) drift[g] = bounds.grow(drift[g], group_shift_[g]);
            }
        }
        stats.group_skips += group_skips;
        stats.groups = static_cast<std::uint32_t>(t);
        return this->finish_bounded_assignment(stats, changed, evaluations, skips, assign_start);
    }

private:
    std::size_t groups() const { return group_begin_.empty() ? 0 : group_begin_.size() - 1; }

    // What a bounded step decides once, before its first row: the groups' largest moves,
    // the centroids' half distances (Hamerly's second test, which lets the global filter
    // settle as many points as Hamerly does), the shift leaders, the groups' blocks, the
    // assignment's number.
    void start_bounded_step(IterationStats& stats) {
        const std::size_t t = groups();
        const T* shift = this->shift_upper_.data();
        for (std::size_t g = 0; g < t; ++g) {
            T largest = T(0);
            for (std::size_t p = group_begin_[g]; p < group_begin_[g + 1]; ++p)
                largest = std::max(largest, shift[members_[p]]);
            group_shift_[g] = largest;
        }
        stats.centroid_centroid_distances += this->centroid_rows([](std::size_t, T*) {});
        leaders_ = this->shift_leaders();
        build_blocks();
        ++assignment_;
    }

    // Rows [from, to) against every centroid, one group at a time with the vector
    // kernel: the label (lowest index on ties), the upper bound and all group bounds
    // (the step's first block also resets the stamps and the drift ring).
    std::uint64_t first_assignment(IterationStats& stats, std::size_t from, std::size_t to) {
        const auto start = Clock::now();
        const std::size_t d = this->d_, k = this->k_, t = groups();
        const BoundArithmetic<T> bounds(d);
        const T inf = std::numeric_limits<T>::infinity();
        if (from == 0) {
            // Centroids in group order, so each group is one contiguous block for the kernel.
            grouped_.resize(k * d);
            for (std::size_t p = 0; p < k; ++p)
                std::copy_n(this->centroids_.row(members_[p]), d, grouped_.data() + p * d);
            std::fill(stamp_.begin(), stamp_.end(), assignment_);
            std::fill(drift_.begin(), drift_.end(), T(0));
        }
        std::int32_t* labels = this->labels_.data();

        std::uint64_t changed = 0;
        const std::size_t chunks = (to - from + kChunk - 1) / kChunk;
        RegionGuard guard;
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1) reduction(+ : changed)
        {
            std::vector<T> scratch, best, second, label_distance, label_second;
            std::vector<std::size_t> rows, label_group;
            std::vector<std::int32_t> nearest, label;
            guard.run([&] {
                scratch.resize(kernel_scratch_size(d));
                for (auto* v : {&best, &second, &label_distance, &label_second}) v->resize(kChunk);
                for (auto* v : {&rows, &label_group}) v->resize(kChunk);
                for (auto* v : {&nearest, &label}) v->resize(kChunk);
            });
#pragma omp for schedule(dynamic, 1)
            for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
                if (guard.failed() || this->stop_now()) continue;
                const std::size_t begin = from + chunk * kChunk, m = std::min(to, begin + kChunk) - begin;
                // (the kernel's rows: in points_, which holds rows from `from` on)
                std::iota(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(m), begin - from);
                for (std::size_t g = 0; g < t; ++g) {
                    const std::size_t first = group_begin_[g], size = group_begin_[g + 1] - first;
                    nearest_two(this->points_, d, grouped_.data() + first * d, size, rows.data(), m, nearest.data(),
                                best.data(), second.data(), scratch.data());
                    for (std::size_t s = 0; s < m; ++s) {
                        const std::size_t i = begin + s;
                        const auto j = static_cast<std::int32_t>(members_[first + static_cast<std::size_t>(nearest[s])]);
                        lower_[i * t + g] = bounds.lower(std::sqrt(best[s]));
                        if (g == 0 || best[s] < label_distance[s] || (best[s] == label_distance[s] && j < label[s])) {
                            label[s] = j;
                            label_distance[s] = best[s];
                            label_second[s] = second[s];
                            label_group[s] = g;
                        }
                    }
                }
                for (std::size_t s = 0; s < m; ++s) {
                    const std::size_t i = begin + s;
                    T* lower = lower_.data() + i * t;
                    // The label's own group: its second nearest member.
                    lower[label_group[s]] = label_second[s] == inf ? inf : bounds.lower(std::sqrt(label_second[s]));
                    upper_[i] = bounds.upper(std::sqrt(label_distance[s]));
                    global_[i] = *std::min_element(lower, lower + t);
                    changed += labels[i] != label[s];
                    labels[i] = label[s];
                }
            }
        }
        guard.rethrow();
        stats.groups = static_cast<std::uint32_t>(t);  // every group searched: no group skips yet
        return this->finish_bounded_assignment(stats, changed, static_cast<std::uint64_t>(to - from) * k, 0, start);
    }

    // Each group's centroids coordinate-major, for block_distances().
    void build_blocks() {
        const std::size_t d = this->d_, t = groups();
        for (std::size_t g = 0; g < t; ++g) {
            const std::size_t first = group_begin_[g], size = group_begin_[g + 1] - first;
            const std::size_t stride = block_stride(size, d);
            T* block = blocks_.data() + block_offset_[g];
            for (std::size_t p = 0; p < size; ++p) {
                const T* centroid = this->centroids_.row(members_[first + p]);
                for (std::size_t coordinate = 0; coordinate < d; ++coordinate) block[coordinate * stride + p] = centroid[coordinate];
            }
        }
    }

    // The groups every back end forms (form_centroid_groups()), and their blocks.
    void form_groups(const Matrix<double>& centroids) {
        CentroidGroups formed = form_centroid_groups(centroids, this->n_);
        members_ = std::move(formed.members);
        group_begin_ = std::move(formed.begin);
        group_of_ = std::move(formed.group_of);
        // Block storage: stride × d per group, padding lanes zero.
        block_offset_.assign(groups(), 0);
        largest_group_ = 0;
        std::size_t total = 0;
        for (std::size_t g = 0; g < groups(); ++g) {
            const std::size_t size = group_begin_[g + 1] - group_begin_[g];
            largest_group_ = std::max(largest_group_, size);
            block_offset_[g] = total;
            total += block_stride(size, centroids.cols()) * centroids.cols();
        }
        blocks_.assign(total, T(0));
    }

    std::vector<std::size_t> members_;      // centroid indices, group by group
    std::vector<std::size_t> group_begin_;  // group g is members_[group_begin_[g], group_begin_[g + 1])
    std::vector<std::size_t> group_of_;     // per centroid: its group
    std::vector<T> grouped_;                // centroids in members_ order (first assignment)
    std::vector<T> blocks_;                 // each group's centroids coordinate-major (block_distances)
    std::vector<std::size_t> block_offset_; // per group: where its block starts in blocks_
    std::size_t largest_group_ = 0;
    std::vector<T> upper_;                  // per point: to the own centroid
    std::vector<T> global_;                 // per point: to every other centroid
    std::vector<T> lower_;                  // n × t: to each group's members other than the own centroid
    std::vector<std::uint32_t> stamp_;      // per point: the assignment its group bounds belong to
    std::vector<T> drift_;                  // kDriftHistory × t: group moves since each recent assignment
    std::vector<T> group_shift_;            // per group: its largest move in the last update
    std::uint32_t assignment_ = 0;          // assignments since the bounds were last rebuilt
    typename CpuSolver<T>::ShiftLeaders leaders_;  // this step's (start_bounded_step)
    bool building_ = false;                 // this step's assignment is a full search that builds the bounds
};

}  // namespace

}  // namespace kms::cpu

KMS_SOLVER_REGISTRATION(yinyang_cpu) {
    kms::cpu::register_cpu_solver({kms::Algorithm::Yinyang, "a lower bound per group of centroids", 2015,
                                   "Yinyang's global, group and local filters"},
                                  kms::cpu::make_in_precision<kms::cpu::YinyangSolver>,
                                  // upper, global and the stamp (4 bytes), and a group bound per ~10 centroids
                                  {.streams_points = true, .bounds_per_point = 3, .centroids_per_bound = 10});
}
