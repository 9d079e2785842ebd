// The CPU's package update on the device (package_update.hpp). No floating-point
// atomics; every sum has one fixed order, the CPU's.
#include <algorithm>

#include "cuda_device.hpp"
#include "kernels/package_update.hpp"

namespace kms::cuda {

namespace {

constexpr long long kSubPackage = 256;  // the CPU update's sub-package (cpu_solver.hpp)

// The sorted path's units: packages, or (few clusters: a package's walk per cluster
// too long for one thread) sub-packages. bounds[u·k + c], u ≤ units: the first sorted
// position of cluster c at or after local row u·unit_rows (each cluster's positions
// hold its rows in increasing order: the sort is stable), so cluster c's rows in unit
// u are the positions [bounds[u·k + c], bounds[(u + 1)·k + c]).
__global__ void unit_bounds_kernel(const std::int32_t* __restrict__ index, const long long* __restrict__ offsets,
                                   int k, long long units, long long unit_rows, long long* bounds) {
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e > units * k + k - 1) return;
    const long long u = e / k;
    const int c = static_cast<int>(e - u * k);
    const long long target = u * unit_rows;
    long long lo = offsets[c], hi = offsets[c + 1];
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (index[mid] < target) lo = mid + 1;
        else hi = mid;
    }
    bounds[e] = lo;
}

// One thread per (group of Group units, cluster, coordinate) walks the cluster's rows
// in those units, in index order (one run of sorted positions): w·(x − old) (w = 1
// unweighted) added in T to a sum that starts at 0 (the CPU's sub-package row; see
// cpu_solver.hpp on why 0 + v is v there), widened into the unit's double sum, and
// restarted, where the sub-package changes; coordinate 0 also counts the rows and
// (weighted, Group = 1) adds their weights in double, in order. Rows are gathered
// eight at a time (the last batch predicated), their additions kept in order, across
// unit boundaries: a unit of a few rows (k large) costs no pipeline restart.
// Group > 1 (units are packages, unweighted): the thread also makes the package
// tree's first log2(Group) levels over its group, in the tree's order — a binary
// counter: unit i's sum (0 where the cluster has no rows there) is added as the
// right child into the pending left node of each level where i has a 1 bit; a group
// cut short by the last package is closed from its lowest pending node up, as the
// tree's missing siblings leave it — and writes only the group's node, so the tree
// kernels skip those levels and read Group times fewer sums (k·d large: the package
// sums are as large as the data).
template <typename T, typename Count, int Group>
__global__ void unit_walk_kernel(const T* __restrict__ points, int d, const T* __restrict__ previous,
                                 const std::int32_t* __restrict__ index, const long long* __restrict__ bounds,
                                 const T* __restrict__ weights, int k, long long units, long long unit_rows,
                                 double* sums, Count* counts, double* weight_sums) {
    constexpr int kLevels = Group == 1 ? 1 : Group == 2 ? 2 : Group == 4 ? 3 : Group == 8 ? 4 : Group == 16 ? 5
                          : Group == 32 ? 6 : 7;
    static_assert(1 << (kLevels - 1) == Group, "Group: a power of two up to 64");
    const long long groups = (units + Group - 1) / Group;
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= groups * k * d) return;
    const long long gc = e / d;  // group·k + c
    const int j = static_cast<int>(e - gc * d);
    const int c = static_cast<int>(gc % k);
    const long long first = gc / k * Group;
    const int count = static_cast<int>(min(static_cast<long long>(Group), units - first));
    const long long begin = bounds[first * k + c], end = bounds[(first + count) * k + c];
    const T old = previous[static_cast<long long>(c) * d + j];
    const bool weigh = weights != nullptr && j == 0;
    double pending[kLevels];
    int pushed = 0;  // units closed
    const auto push = [&](double carry) {
#pragma unroll
        for (int l = 0; l < kLevels; ++l) {  // constant bounds: pending stays in registers
            if (((pushed >> l) & 1) == 0) {
                pending[l] = carry;
                break;
            }
            carry = pending[l] + carry;
        }
        ++pushed;
    };
    double total = 0.0, weight = 0.0;
    T sum = T(0);
    long long sub_end = 0, unit_end = (first + 1) * unit_rows;  // rows: the current sub-package's and unit's ends
    const auto add = [&](long long row, T v, T w) {
        if (row >= sub_end) {
            total += static_cast<double>(sum);
            sum = T(0);
            sub_end = (row / kSubPackage + 1) * kSubPackage;
            for (; row >= unit_end; unit_end += unit_rows) {
                push(total);
                total = 0.0;
            }
        }
        sum = sum + v;
        if (weigh) weight += static_cast<double>(w);
    };
    for (long long q = begin; q < end; q += 8) {
        long long row[8];
        T v[8], w[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) row[r] = q + r < end ? index[q + r] : -1;
#pragma unroll
        for (int r = 0; r < 8; ++r) v[r] = row[r] >= 0 ? points[row[r] * d + j] - old : T(0);
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            w[r] = weights && row[r] >= 0 ? weights[row[r]] : T(0);
            if (weights) v[r] = w[r] * v[r];
        }
#pragma unroll
        for (int r = 0; r < 8; ++r)
            if (row[r] >= 0) add(row[r], v[r], w[r]);
    }
    push(total + static_cast<double>(sum));
    while (pushed < count) push(0.0);  // the units after the cluster's last row here
    double node = 0.0;
    bool started = false;
#pragma unroll
    for (int l = 0; l < kLevels; ++l)
        if ((count >> l) & 1) {
            node = started ? pending[l] + node : pending[l];
            started = true;
        }
    const long long out = first * k + c;
    sums[out * d + j] = node;
    if (j == 0) {
        counts[out] = static_cast<Count>(end - begin);
        if (weights) weight_sums[out] = weight;
    }
}

// Σ values[t·stride] for t in [first, last), added in t order in double: eight loads
// in flight, then their additions in order (the same bits as a plain loop).
template <typename T>
__device__ __forceinline__ double sum_in_order(const T* __restrict__ values, long long stride, long long first,
                                               long long last) {
    double sum = 0.0;
    long long t = first;
    for (; t + 8 <= last; t += 8) {
        T v[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) v[r] = values[(t + r) * stride];
#pragma unroll
        for (int r = 0; r < 8; ++r) sum += static_cast<double>(v[r]);
    }
    for (; t < last; ++t) sum += static_cast<double>(values[t * stride]);
    return sum;
}

// Moderate k·d, unweighted (the rounds path, no sort): one block per package, each
// warp one sub-package at a time, its per-cluster sums in T in shared memory. A
// warp takes its sub-package's rows 32 at a time; each label's leader lane adds its
// rows' deviations in rounds, lane order (= row order), so each (cluster,
// coordinate) sum sees its rows in index order, as the CPU's sub-package row does;
// the labels' leaders add in the same rounds. Rounds per 32 rows: the most rows any
// one label has among them (2-3 at k = 100 on shuffled data, 32 on sorted data).
// After each batch of sub-packages (one per warp) the block widens them and adds
// them to the package's double sums in sub-package order. Rows are read once, in
// order; the sorted path's label sort and gathers are gone.
//
// A package is one block's, so a block walks all of its package's rows: the more
// warps it has (sub-packages at once), the sooner; with fewer packages than the
// device has multiprocessors (a small data set split over several devices) that
// walk is the whole update's time. So such a block takes as many warps as shared
// memory holds, up to 16 (8 where a thread's rows need more registers than 16
// warps leave it: past d = 8, or d = 5..8 in double). Float rows of d ≤ 4: 16 warps in
// blocks two of which share a multiprocessor (rounds_min_blocks). Else, with a package
// or more per multiprocessor, 8: measured faster than one 16-warp block a
// multiprocessor (4·10^8 × 4-D, k = 100, H100: 2.12 against
// 2.30 ms with 1024 packages a device, 7.99 against 8.59 ms with 256 on one;
// 10^7 × 2-D, k = 100: 0.198 against 0.210 ms), but only where two 8-warp blocks
// fit a multiprocessor's shared memory: else a multiprocessor runs one block, and
// 16 warps are faster (10^6 × 2-D, k = 1000, 120 KB a block: 0.072 against 0.085 ms).
constexpr int kRoundsMaxD = 8;
__host__ __device__ constexpr int rounds_max_warps(int max_d, std::size_t element_size) {
    return max_d > 8 || (max_d > 4 && element_size > 4) ? 8 : 16;
}
// Float rows of d ≤ 4 fit 64 registers a thread without spilling, so two 16-warp
// blocks share a multiprocessor where shared memory allows: 32 warps, against 16
// for two 8-warp blocks (H100, update: 10^7 × 2-D, k = 100, 0.150 → 0.130 ms; 1-D
// 0.142 → 0.119; 4-D 0.181 → 0.175; 10^6 points level). Double rows spill there.
__host__ __device__ constexpr int rounds_min_blocks(int max_d, std::size_t element_size) {
    return max_d <= 4 && element_size == 4 ? 2 : 1;
}
// Where the path applies: two warps' sums fit in this much (fixed, so that the
// choice of path, and with it the bits of a default one-device run, never
// depends on the device).
constexpr std::size_t kRoundsMaxShared = 96 * 1024;

struct RoundsShape {
    int warps = 0;  // 0: the path does not apply
    std::size_t shared_bytes = 0;
};

std::size_t rounds_bytes(int k, int d, std::size_t element_size, int warps) {
    const std::size_t kd = static_cast<std::size_t>(k) * d;
    return kd * sizeof(double) + k * sizeof(long long) + warps * (kd * element_size + k * sizeof(int));
}

// Whether the path applies (warps = 2), or, given the device's shared memory per
// block (`device_shared`), the most warps a block can have.
RoundsShape rounds_shape(int k, int d, std::size_t element_size, std::size_t device_shared = kRoundsMaxShared,
                         int most_warps = 16) {
    if (d > kRoundsMaxD || rounds_bytes(k, d, element_size, 2) > kRoundsMaxShared) return {};
    for (int warps = std::min(most_warps, rounds_max_warps(d <= 4 ? 4 : kRoundsMaxD, element_size));
         warps >= 2; warps /= 2) {
        const std::size_t bytes = rounds_bytes(k, d, element_size, warps);
        if (bytes <= std::max(device_shared, kRoundsMaxShared) || warps == 2) return {warps, bytes};
    }
    return {};
}

// The largest of the warp's values (every lane gets it). sm_80 has an instruction for
// it; the PTX kept for older GPUs (CMAKE_CUDA_ARCHITECTURES' default includes 75) folds
// by shuffles.
__device__ __forceinline__ int warp_max(int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, value);
#else
    for (int offset = 16; offset > 0; offset >>= 1) value = max(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
#endif
}

// MaxD ≤ 4 is d itself: d ≤ 4 is compiled for each d, so that no lane issues the loads,
// shuffles and additions of coordinates it lacks (10^7 × 2-D, k = 100: 0.187 → 0.150 ms).
template <typename T, int MaxD>
__global__ void __launch_bounds__(rounds_max_warps(MaxD, sizeof(T)) * 32, rounds_min_blocks(MaxD, sizeof(T)))
    package_rounds_kernel(const T* __restrict__ points, long long n, int runtime_d, const T* __restrict__ previous,
                          const std::int32_t* __restrict__ labels, int k, PackageGeometry g, int warps,
                          double* package_sums, long long* package_counts) {
    const int d = MaxD <= 4 ? MaxD : runtime_d;
    // Rows of this many 32-row groups are loaded before any of them is added.
    constexpr int kGroups = MaxD <= 4 ? 8 : MaxD <= 8 ? 4 : 2;
    extern __shared__ __align__(16) unsigned char rounds_raw[];
    const int kd = k * d;
    double* package = reinterpret_cast<double*>(rounds_raw);
    long long* package_count = reinterpret_cast<long long*>(package + kd);
    T* warp_sums = reinterpret_cast<T*>(package_count + k);
    int* warp_counts = reinterpret_cast<int*>(warp_sums + static_cast<long long>(warps) * kd);
    for (int e = threadIdx.x; e < kd; e += blockDim.x) package[e] = 0.0;
    for (int e = threadIdx.x; e < k; e += blockDim.x) package_count[e] = 0;
    for (int e = threadIdx.x; e < warps * kd; e += blockDim.x) warp_sums[e] = T(0);
    for (int e = threadIdx.x; e < warps * k; e += blockDim.x) warp_counts[e] = 0;
    __syncthreads();
    const long long local = blockIdx.x;  // the block starts on a package: local rows
    const long long row_begin = local * g.package_size, row_end = min(n, row_begin + g.package_size);
    const long long subs = (row_end - row_begin + kSubPackage - 1) / kSubPackage;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const unsigned lanes_below = (1u << lane) - 1u;
    T* my_sums = warp_sums + static_cast<long long>(warp) * kd;
    int* my_counts = warp_counts + warp * k;
    for (long long batch = 0; batch < subs; batch += warps) {
        const long long sub = batch + warp;
        if (warp < warps && sub < subs) {
            const long long sub_begin = row_begin + sub * kSubPackage, sub_end = min(row_end, sub_begin + kSubPackage);
            for (int g0 = 0; g0 < 8; g0 += kGroups) {
                int label[kGroups];
                T x[kGroups][MaxD];
#pragma unroll
                for (int q = 0; q < kGroups; ++q) {
                    const long long row = sub_begin + (g0 + q) * 32 + lane;
                    const bool valid = row < sub_end;
                    label[q] = valid ? labels[row] : -1;
#pragma unroll
                    for (int j = 0; j < MaxD; ++j)
                        if (j < d) x[q][j] = valid ? points[row * d + j] : T(0);
                }
#pragma unroll
                for (int q = 0; q < kGroups; ++q) {
                    // Each label's lowest lane (its leader) takes the running sum and adds
                    // its peers' deviations, fetched by shuffle, in lane order: a run of
                    // equal labels (sorted or spatially ordered data: all 32 lanes) costs
                    // register additions, not a shared-memory round trip each.
                    const bool valid = label[q] >= 0;
                    T deviation[MaxD];
#pragma unroll
                    for (int j = 0; j < MaxD; ++j)
                        if (j < d) deviation[j] = valid ? x[q][j] - previous[static_cast<long long>(label[q]) * d + j] : T(0);
                    const unsigned peers = __match_any_sync(0xffffffffu, label[q]);
                    const bool leader = valid && (peers & lanes_below) == 0;
                    const int members = __popc(peers);
                    const int rounds = warp_max(leader ? members : 0);
                    T sum[MaxD];
                    T* shared_sum = my_sums + (leader ? label[q] * d : 0);
#pragma unroll
                    for (int j = 0; j < MaxD; ++j)
                        if (j < d) sum[j] = leader ? shared_sum[j] : T(0);
                    unsigned rest = peers;
                    for (int r = 0; r < rounds; ++r) {
                        const int source = rest ? __ffs(static_cast<int>(rest)) - 1 : lane;
                        rest &= rest - 1u;
#pragma unroll
                        for (int j = 0; j < MaxD; ++j)
                            if (j < d) {
                                const T v = __shfl_sync(0xffffffffu, deviation[j], source);
                                if (leader && r < members) sum[j] = sum[j] + v;
                            }
                    }
                    if (leader) {
#pragma unroll
                        for (int j = 0; j < MaxD; ++j)
                            if (j < d) shared_sum[j] = sum[j];
                        my_counts[label[q]] += members;
                    }
                    __syncwarp();  // the next group's leader of a label may be another lane
                }
            }
        }
        __syncthreads();
        // The batch's sub-packages, in order, into the package (then back to +0).
        const int in_batch = static_cast<int>(min(static_cast<long long>(warps), subs - batch));
        for (int e = threadIdx.x; e < kd; e += blockDim.x) {
            double sum = package[e];
            for (int w = 0; w < in_batch; ++w) {
                sum += static_cast<double>(warp_sums[w * kd + e]);
                warp_sums[w * kd + e] = T(0);
            }
            package[e] = sum;
        }
        for (int e = threadIdx.x; e < k; e += blockDim.x) {
            long long count = package_count[e];
            for (int w = 0; w < in_batch; ++w) {
                count += warp_counts[w * k + e];
                warp_counts[w * k + e] = 0;
            }
            package_count[e] = count;
        }
        __syncthreads();
    }
    for (int e = threadIdx.x; e < kd; e += blockDim.x) package_sums[local * kd + e] = package[e];
    for (int e = threadIdx.x; e < k; e += blockDim.x) package_counts[local * k + e] = package_count[e];
}

// k ≤ 8, k·d ≤ 64, unweighted (the direct path, no sort): one thread per
// (sub-package, coordinate) keeps the k sums in registers and walks the rows in
// order, adding x − old to its label's sum and +0 to the others (a sum that starts
// at +0 and adds +0 is unchanged: the CPU's skipped rows); per (cluster,
// coordinate) the additions are the sorted path's, in the same order.
template <typename T, int K>
__global__ void sub_package_sums_registers_kernel(const T* __restrict__ points, long long n, int d,
                                                  const T* __restrict__ previous,
                                                  const std::int32_t* __restrict__ labels, long long sub_packages,
                                                  T* sub_sums, int* sub_counts) {
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= sub_packages * d) return;
    const long long sub = e / d;
    const int j = static_cast<int>(e - sub * d);
    T old[K], sum[K];
    int count[K];
#pragma unroll
    for (int c = 0; c < K; ++c) {
        old[c] = previous[static_cast<long long>(c) * d + j];
        sum[c] = T(0);
        count[c] = 0;
    }
    const long long begin = sub * kSubPackage, end = min(n, begin + kSubPackage);
#pragma unroll 4
    for (long long i = begin; i < end; ++i) {
        const int label = labels[i];
        const T x = points[i * d + j];
#pragma unroll
        for (int c = 0; c < K; ++c) {
            const bool mine = label == c;
            sum[c] = sum[c] + (mine ? x - old[c] : T(0));
            count[c] += mine;
        }
    }
#pragma unroll
    for (int c = 0; c < K; ++c) {
        sub_sums[(sub * K + c) * d + j] = sum[c];
        if (j == 0) sub_counts[sub * K + c] = count[c];
    }
}

// Few clusters past the rounds path's rows (the rows path, no sort; 2026-12-07): one
// thread per (sub-package, coordinate) walks its 256 rows in order and adds x − old
// to its label's sum in T, the k sums in shared memory in a column of its own (no
// other thread touches them: no barrier, no atomics), as the CPU's sub-package row
// does, so per (cluster, coordinate) the same additions in the same order.
// Neighbouring threads take neighbouring coordinates of the same row, so each row is
// read once, whole and coalesced (a thread per sub-package at d = 2 read rows 2 KB
// apart: package_update.hpp's note); the next kRowsBatch rows' labels and
// coordinates are loaded while this batch is added. Each sub-package's coordinate-0
// thread counts its rows per cluster (a column of ints per sub-package of the block,
// after the sums). The sums go out in T, all k (+0 where a cluster has no row there:
// +0 changes no package sum), and direct_package_fold_kernel adds them per package.
constexpr int kRowsThreads = 128;
constexpr int kRowsBatch = 8;
__host__ __device__ constexpr int rows_count_columns(int d) { return kRowsThreads / d + 2; }
std::size_t rows_bytes(int k, int d, std::size_t element_size) {
    return static_cast<std::size_t>(k) * (kRowsThreads * element_size + rows_count_columns(d) * sizeof(int));
}
template <typename T>
__global__ void __launch_bounds__(kRowsThreads)
    sub_package_sums_shared_kernel(const T* __restrict__ points, long long n, int d, const T* __restrict__ previous,
                                   const std::int32_t* __restrict__ labels, int k, long long sub_packages,
                                   T* __restrict__ sub_sums, int* __restrict__ sub_counts) {
    extern __shared__ __align__(16) unsigned char rows_raw[];
    const long long first_e = static_cast<long long>(blockIdx.x) * kRowsThreads;
    const long long e = first_e + threadIdx.x;
    if (e >= sub_packages * d) return;
    const long long sub = e / d;
    const int j = static_cast<int>(e - sub * d);
    T* sums = reinterpret_cast<T*>(rows_raw) + threadIdx.x;  // sums[c · kRowsThreads]
    const int columns = rows_count_columns(d);
    int* counts = reinterpret_cast<int*>(reinterpret_cast<T*>(rows_raw) + static_cast<long long>(k) * kRowsThreads) +
                  (sub - first_e / d);  // counts[c · columns], j = 0 only
    const bool counter = j == 0;
    for (int c = 0; c < k; ++c) {
        sums[c * kRowsThreads] = T(0);
        if (counter) counts[c * columns] = 0;
    }
    const long long begin = sub * kSubPackage, end = min(n, begin + kSubPackage);
    const T* column = points + j;
    int label[kRowsBatch];
    T x[kRowsBatch];
#pragma unroll
    for (int r = 0; r < kRowsBatch; ++r) {
        const long long row = begin + r;
        label[r] = row < end ? labels[row] : -1;
        x[r] = row < end ? column[row * d] : T(0);
    }
    for (long long i = begin; i < end; i += kRowsBatch) {
        int next_label[kRowsBatch];
        T next_x[kRowsBatch];
#pragma unroll
        for (int r = 0; r < kRowsBatch; ++r) {
            const long long row = i + kRowsBatch + r;
            next_label[r] = row < end ? labels[row] : -1;
            next_x[r] = row < end ? column[row * d] : T(0);
        }
#pragma unroll
        for (int r = 0; r < kRowsBatch; ++r) {
            const int c = label[r];
            if (c >= 0) {
                const T v = x[r] - __ldg(previous + static_cast<long long>(c) * d + j);
                sums[c * kRowsThreads] = sums[c * kRowsThreads] + v;
                if (counter) counts[c * columns] += 1;
            }
        }
#pragma unroll
        for (int r = 0; r < kRowsBatch; ++r) {
            label[r] = next_label[r];
            x[r] = next_x[r];
        }
    }
    for (int c = 0; c < k; ++c) {
        sub_sums[(sub * k + c) * d + j] = sums[c * kRowsThreads];
        if (counter) sub_counts[sub * k + c] = counts[c * columns];
    }
}

// The direct path's package sums: each package's sub-packages in order, widened, in double.
template <typename T>
__global__ void direct_package_fold_kernel(const T* __restrict__ sub_sums, const int* __restrict__ sub_counts, int k,
                                           int d, long long sub_packages, PackageGeometry g, double* package_sums,
                                           long long* package_counts) {
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long kd = static_cast<long long>(k) * d;
    if (e >= g.local_packages() * kd) return;
    const long long local = e / kd, item = e - local * kd;
    const int c = static_cast<int>(item / d);
    const int j = static_cast<int>(item - static_cast<long long>(c) * d);
    // The block starts on a package, so its local sub-packages are aligned as the global ones.
    const long long per_package = g.package_size / kSubPackage;
    const long long first = local * per_package, last = min(sub_packages, first + per_package);
    const double sum = sum_in_order(sub_sums + item, kd, first, last);
    long long count = 0;  // integers: any order
    if (j == 0)
        for (long long t = first; t < last; ++t) count += sub_counts[t * k + c];
    package_sums[e] = sum;
    if (j == 0) package_counts[local * k + c] = count;
}

// Up to kTreeLevelsPerLaunch consecutive levels of the tree in one launch (a launch
// saved is ~2 µs of a step on the H100; 256 packages make 8 levels). Level l (stride s·2^l) adds node y + s·2^l
// into y for its nodes y; nodes are local indices, level l's are first[l] +
// 2·s·2^l·i for i < count[l]. Every node of a higher level is a node of level 0 too, so
// a thread takes one level-0 node x and one item: unless x is added into another node
// within these levels (it is the right child of one), it makes x's value after the last
// of them from its subtree's packages, level by level in the tree's order (the same
// additions in the same order as one level per launch).
constexpr int kTreeLevelsPerLaunch = 4;

struct TreeLevels {
    long long first[kTreeLevelsPerLaunch] = {}, count[kTreeLevelsPerLaunch] = {};
    long long stride = 1;      // level 0's, a power of two
    int stride_log = 0;        // log2(stride)
    long long packages = 0;    // local packages: the positions that hold a value
    int levels = 0;
    __device__ bool is_node(int l, long long y) const {
        const int spacing_log = stride_log + l + 1;  // nodes of level l are 2·stride·2^l apart
        const long long offset = y - first[l];
        return offset >= 0 && (offset & ((1ll << spacing_log) - 1)) == 0 && (offset >> spacing_log) < count[l];
    }
};

template <class V>
__device__ void tree_levels_item(V* v, long long width, long long item, long long x, const TreeLevels& t) {
#pragma unroll
    for (int l = 0; l < kTreeLevelsPerLaunch; ++l)  // constant bounds: t's arrays stay in registers
        if (l < t.levels && t.is_node(l, x - (t.stride << l))) return;  // added into its left sibling
    constexpr int kLeaves = 1 << kTreeLevelsPerLaunch;
    const int leaves = 1 << t.levels;
    V value[kLeaves];
#pragma unroll
    for (int i = 0; i < kLeaves; ++i) {
        const long long y = x + i * t.stride;
        value[i] = i < leaves && y < t.packages ? v[y * width + item] : V(0);
    }
#pragma unroll
    for (int l = 0; l < kTreeLevelsPerLaunch; ++l) {
        if (l >= t.levels) break;
        const int half = 1 << l;
#pragma unroll
        for (int i = 0; i < kLeaves; i += 2 * half)
            if (i < leaves && t.is_node(l, x + i * t.stride)) value[i] = value[i] + value[i + half];
    }
    v[x * width + item] = value[0];
}

__global__ void package_tree_levels_kernel(double* sums, long long* counts, double* weights, long long kd, int k,
                                           TreeLevels t) {
    const long long width = kd + k + (weights ? k : 0);
    const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= t.count[0] * width) return;
    const long long op = e / width, item = e - op * width;
    const long long x = t.first[0] + op * 2 * t.stride;
    if (item < kd) tree_levels_item(sums, kd, item, x, t);
    else if (item < kd + k) tree_levels_item(counts, static_cast<long long>(k), item - kd, x, t);
    else tree_levels_item(weights, static_cast<long long>(k), item - kd - k, x, t);
}

template <typename T>
__global__ void __launch_bounds__(256) package_inertia_kernel(const T* points, long long n, int d, const T* centroids,
                                                              const std::int32_t* labels, const double* weights,
                                                              PackageGeometry g, double* out) {
    __shared__ double scratch[32];
    const long long package = g.package_begin + blockIdx.x;
    const long long begin = max(0ll, package * g.package_size - g.first_row);
    const long long end = min(n, (package + 1) * g.package_size - g.first_row);
    double sum = 0.0;
    for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
        if (labels[i] < 0) continue;
        const double distance = static_cast<double>(
            exact_squared_distance(points + i * d, centroids + static_cast<long long>(labels[i]) * d, d));
        sum += weights ? weights[i] * distance : distance;
    }
    const double total = block_sum_fixed(sum, scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

}  // namespace

namespace {
bool direct_package_path(int k, int d, bool weighted) { return !weighted && k <= 8 && k * d <= 64; }
// The rounds path where it measured fastest: d ≤ 4, and d ≤ 8 in float (H200, 10^6
// points, --devices 0, the update: d = 8, k = 100, float 0.093 ms against the sorted
// walk's 0.117, double 0.172 against 0.142; d = 16, k = 100: float 0.201 against 0.135).
bool rounds_package_path(int k, int d, bool weighted, std::size_t element_size) {
    return !weighted && !direct_package_path(k, d, weighted) && (d <= 4 || (d <= 8 && element_size == 4)) &&
           rounds_shape(k, d, element_size).warps > 0;
}
// The rows path: few clusters, unweighted, where neither of the above applies and the
// block's sums fit in 96 KB (fixed, so that the path never depends on the device).
// Past kRowsMaxK clusters the sorted walk (the rows path's sub-package sums, written
// and read back, are k/128 of the points' bytes).
constexpr int kRowsMaxK = 32;
constexpr std::size_t kRowsMaxShared = 96 * 1024;
bool rows_package_path(int k, int d, bool weighted, std::size_t element_size) {
    return !weighted && !direct_package_path(k, d, weighted) && !rounds_package_path(k, d, weighted, element_size) &&
           k <= kRowsMaxK && rows_bytes(k, d, element_size) <= kRowsMaxShared;
}
// The sorted path walks sub-packages, then folds them per package, where a package's
// rows of a cluster are more than a sub-package on average and a walk per (package,
// cluster, coordinate) would leave few threads (10^6 points, k = 10, the update:
// d = 16, 0.127 against 0.163 ms; d = 128, 313 600 package walks, 0.315 against
// 0.295); unweighted (a package's weight is summed along its rows in order). Of the
// data set's packages, so that every chunk of a block takes the same way (the
// workspace is sized for it).
bool sub_package_walk(const PackageGeometry& g, int k, int d, bool weighted) {
    return !weighted && g.package_size / k >= kSubPackage && g.packages * k * d < (1ll << 18);
}
// Packages per thread of the package walk: the most (up to 64) that leave 2^19
// threads or more (two waves of an H200), on groups that the tree keeps whole inside
// this block (it starts on a group and ends on one or on the last package); 1 for
// weighted runs. (10^6 × 128, k = 1000, f32, H200: an experiment build's walk under
// --devices 0, 0.91 ms with 16 packages a thread against 1.29 with one; this walk, 32
// packages a thread, 0.40 ms by default.)
int walk_group(const PackageGeometry& g, int k, int d, bool weighted) {
    if (weighted) return 1;
    int group = 1;
    while (group < 64) {
        const int next = 2 * group;
        if (g.package_begin % next != 0 || (g.package_end % next != 0 && g.package_end != g.packages)) break;
        if ((g.local_packages() + next - 1) / next * k * d < (1ll << 19)) break;
        group = next;
    }
    return group;
}
}  // namespace

bool one_device_package_update(int k, int d, std::size_t element_size) {
    // Where the rounds path applies (k > 8, d ≤ 4 or d ≤ 8 in float): measured at least
    // as fast as the device's own update there. Elsewhere (every shape, issue 42) the
    // step time against the own update is not measured yet with the rows path.
    return k > 8 && rounds_package_path(k, d, false, element_size);
}

bool unsorted_package_sums(int k, int d, bool weighted, std::size_t element_size) {
    return direct_package_path(k, d, weighted) || rounds_package_path(k, d, weighted, element_size) ||
           rows_package_path(k, d, weighted, element_size);
}

void prepare_package_workspace(PackageWorkspace& w, long long n, int k, int d, std::size_t element_size,
                               const PackageGeometry& g, bool weighted) {
    const std::size_t local = static_cast<std::size_t>(g.local_packages());
    const long long sub_packages = (n + kSubPackage - 1) / kSubPackage;
    w.package_sums.allocate(local * k * d, "the package sums");
    w.package_counts.allocate(local * k, "the package counts");
    w.package_inertia.allocate(local, "the package inertia");
    if (unsorted_package_sums(k, d, weighted, element_size)) {
        if (!rounds_package_path(k, d, weighted, element_size)) {  // per-sub-package sums and counts (T)
            w.sub_sums.allocate(static_cast<std::size_t>(sub_packages) * k * d * element_size,
                                    "the sub-package sums");
            w.sub_counts.allocate(static_cast<std::size_t>(sub_packages) * k, "the sub-package counts");
        }
        return;
    }
    // The sorted path: each unit's first sorted position per cluster; sub-packages'
    // sums (double) and counts where they are walked.
    const bool subs = sub_package_walk(g, k, d, weighted);
    const long long units = subs ? sub_packages : g.local_packages();
    w.bounds.allocate(static_cast<std::size_t>(units + 1) * k, "the update's unit bounds");
    if (subs) {
        w.sub_sums.allocate(static_cast<std::size_t>(sub_packages) * k * d * sizeof(double), "the sub-package sums");
        w.sub_counts.allocate(static_cast<std::size_t>(sub_packages) * k, "the sub-package counts");
    }
    if (weighted) w.package_weights.allocate(local * k, "the package weights");
}

template <typename T>
void launch_package_sums(const T* points, long long n, int d, const std::int32_t* labels, const T* previous, int k,
                         const T* weights, UpdateWorkspace& sorted, PackageWorkspace& w, const PackageGeometry& g,
                         cudaStream_t stream) {
    w.tree_stride = 1;
    if (rounds_package_path(k, d, weights != nullptr, sizeof(T))) {
        int device = 0, device_shared = 0, multiprocessor_shared = 0, multiprocessors = 0;
        KMS_CUDA_CHECK(cudaGetDevice(&device));
        KMS_CUDA_CHECK(cudaDeviceGetAttribute(&device_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        KMS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessor_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                              device));
        KMS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        // Two 16-warp blocks a multiprocessor where registers and shared memory allow;
        // else 8 warps only where two such blocks share a multiprocessor.
        const auto two_fit = [&](int warps) {
            return 2 * rounds_bytes(k, d, sizeof(T), warps) <= static_cast<std::size_t>(multiprocessor_shared);
        };
        const bool sixteen_twice = rounds_min_blocks(d, sizeof(T)) == 2 && two_fit(16);
        const bool eight = !sixteen_twice && g.local_packages() >= multiprocessors && two_fit(8);
        const RoundsShape shape = rounds_shape(k, d, sizeof(T), static_cast<std::size_t>(device_shared), eight ? 8 : 16);
        const auto launch = [&](auto kernel) {
            KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(shape.shared_bytes)));
            kernel<<<static_cast<unsigned>(g.local_packages()), shape.warps * 32, shape.shared_bytes, stream>>>(
                points, n, d, previous, labels, k, g, shape.warps, w.package_sums.get(), w.package_counts.get());
        };
        switch (d) {
            case 1: launch(package_rounds_kernel<T, 1>); break;
            case 2: launch(package_rounds_kernel<T, 2>); break;
            case 3: launch(package_rounds_kernel<T, 3>); break;
            case 4: launch(package_rounds_kernel<T, 4>); break;
            default: launch(package_rounds_kernel<T, kRoundsMaxD>);
        }
        KMS_CUDA_LAUNCH_CHECK("package sum kernel (rounds)");
        return;
    }
    if (rows_package_path(k, d, weights != nullptr, sizeof(T))) {
        const long long sub_packages = (n + kSubPackage - 1) / kSubPackage;
        T* sub_sums = reinterpret_cast<T*>(w.sub_sums.get());
        const std::size_t bytes = rows_bytes(k, d, sizeof(T));
        KMS_CUDA_CHECK(cudaFuncSetAttribute(sub_package_sums_shared_kernel<T>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        sub_package_sums_shared_kernel<T><<<blocks_for(sub_packages * d, kRowsThreads), kRowsThreads, bytes, stream>>>(
            points, n, d, previous, labels, k, sub_packages, sub_sums, w.sub_counts.get());
        KMS_CUDA_LAUNCH_CHECK("sub-package sum kernel (rows)");
        direct_package_fold_kernel<T><<<blocks_for(g.local_packages() * k * d, 256), 256, 0, stream>>>(
            sub_sums, w.sub_counts.get(), k, d, sub_packages, g, w.package_sums.get(), w.package_counts.get());
        KMS_CUDA_LAUNCH_CHECK("package sum kernel (rows)");
        return;
    }
    if (direct_package_path(k, d, weights != nullptr)) {
        const long long sub_packages = (n + kSubPackage - 1) / kSubPackage;
        T* sub_sums = reinterpret_cast<T*>(w.sub_sums.get());
        const auto registers = [&](auto kernel) {
            kernel<<<blocks_for(sub_packages * d, 256), 256, 0, stream>>>(points, n, d, previous, labels, sub_packages,
                                                                         sub_sums, w.sub_counts.get());
        };
        switch (k) {
            case 1: registers(sub_package_sums_registers_kernel<T, 1>); break;
            case 2: registers(sub_package_sums_registers_kernel<T, 2>); break;
            case 3: registers(sub_package_sums_registers_kernel<T, 3>); break;
            case 4: registers(sub_package_sums_registers_kernel<T, 4>); break;
            case 5: registers(sub_package_sums_registers_kernel<T, 5>); break;
            case 6: registers(sub_package_sums_registers_kernel<T, 6>); break;
            case 7: registers(sub_package_sums_registers_kernel<T, 7>); break;
            default: registers(sub_package_sums_registers_kernel<T, 8>); break;
        }
        KMS_CUDA_LAUNCH_CHECK("sub-package sum kernel (direct)");
        const long long folds = g.local_packages() * k * d;
        direct_package_fold_kernel<T><<<blocks_for(folds, 256), 256, 0, stream>>>(
            sub_sums, w.sub_counts.get(), k, d, sub_packages, g, w.package_sums.get(), w.package_counts.get());
        KMS_CUDA_LAUNCH_CHECK("package sum kernel (direct)");
        return;
    }
    launch_sort_labels(labels, n, k, sorted, stream);
    const bool subs = sub_package_walk(g, k, d, weights != nullptr);
    const long long sub_packages = (n + kSubPackage - 1) / kSubPackage;
    const long long units = subs ? sub_packages : g.local_packages();
    unit_bounds_kernel<<<blocks_for((units + 1) * k, 256), 256, 0, stream>>>(
        sorted.index_sorted.get(), sorted.offsets.get(), k, units, subs ? kSubPackage : g.package_size,
        w.bounds.get());
    KMS_CUDA_LAUNCH_CHECK("unit bounds kernel");
    if (!subs) {
        const int group = walk_group(g, k, d, weights != nullptr);
        w.tree_stride = group;
        const auto walk = [&](auto kernel) {
            kernel<<<blocks_for((units + group - 1) / group * k * d, 256), 256, 0, stream>>>(
                points, d, previous, sorted.index_sorted.get(), w.bounds.get(), weights, k, units, g.package_size,
                w.package_sums.get(), w.package_counts.get(), weights ? w.package_weights.get() : nullptr);
        };
        switch (group) {
            case 1: walk(unit_walk_kernel<T, long long, 1>); break;
            case 2: walk(unit_walk_kernel<T, long long, 2>); break;
            case 4: walk(unit_walk_kernel<T, long long, 4>); break;
            case 8: walk(unit_walk_kernel<T, long long, 8>); break;
            case 16: walk(unit_walk_kernel<T, long long, 16>); break;
            case 32: walk(unit_walk_kernel<T, long long, 32>); break;
            default: walk(unit_walk_kernel<T, long long, 64>); break;
        }
        KMS_CUDA_LAUNCH_CHECK("package walk kernel");
        return;
    }
    double* sub_sums = reinterpret_cast<double*>(w.sub_sums.get());
    unit_walk_kernel<T, int, 1><<<blocks_for(units * k * d, 256), 256, 0, stream>>>(
        points, d, previous, sorted.index_sorted.get(), w.bounds.get(), nullptr, k, units, kSubPackage, sub_sums,
        w.sub_counts.get(), nullptr);
    KMS_CUDA_LAUNCH_CHECK("sub-package walk kernel");
    direct_package_fold_kernel<double><<<blocks_for(g.local_packages() * k * d, 256), 256, 0, stream>>>(
        sub_sums, w.sub_counts.get(), k, d, sub_packages, g, w.package_sums.get(), w.package_counts.get());
    KMS_CUDA_LAUNCH_CHECK("package sum kernel (sub-package walks)");
}

void launch_package_tree(PackageWorkspace& w, int k, int d, bool weighted, const std::vector<PackageTreeLevel>& levels,
                         long long package_begin, long long package_end, cudaStream_t stream) {
    const long long kd = static_cast<long long>(k) * d, width = kd + k + (weighted ? k : 0);
    std::size_t i = 0;
    while (i < levels.size() && static_cast<long long>(levels[i].stride) < w.tree_stride) ++i;  // made by the walk
    while (i < levels.size()) {
        TreeLevels t;
        t.stride = static_cast<long long>(levels[i].stride);
        while ((1ll << t.stride_log) < t.stride) ++t.stride_log;
        t.packages = package_end - package_begin;
        // The next levels while their strides double (an empty level is left out of `levels`).
        while (t.levels < kTreeLevelsPerLaunch && i < levels.size() &&
               static_cast<long long>(levels[i].stride) == (t.stride << t.levels)) {
            t.first[t.levels] = static_cast<long long>(levels[i].nodes.front()) - package_begin;
            t.count[t.levels] = static_cast<long long>(levels[i].nodes.size());
            ++t.levels;
            ++i;
        }
        package_tree_levels_kernel<<<blocks_for(t.count[0] * width, 256), 256, 0, stream>>>(
            w.package_sums.get(), w.package_counts.get(), weighted ? w.package_weights.get() : nullptr, kd, k, t);
        KMS_CUDA_LAUNCH_CHECK("package tree kernel");
    }
}

template <typename T>
void launch_package_inertia(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                            const double* weights, PackageWorkspace& w, const PackageGeometry& g, cudaStream_t stream) {
    package_inertia_kernel<T><<<static_cast<unsigned>(g.local_packages()), 256, 0, stream>>>(
        points, n, d, centroids, labels, weights, g, w.package_inertia.get());
    KMS_CUDA_LAUNCH_CHECK("package inertia kernel");
}

#define KMS_INSTANTIATE_PACKAGES(T)                                                                              \
    template void launch_package_sums<T>(const T*, long long, int, const std::int32_t*, const T*, int, const T*,    \
                                         UpdateWorkspace&, PackageWorkspace&, const PackageGeometry&, cudaStream_t); \
    template void launch_package_inertia<T>(const T*, long long, int, const T*, const std::int32_t*, const double*, \
                                            PackageWorkspace&, const PackageGeometry&, cudaStream_t);
KMS_INSTANTIATE_PACKAGES(float)
KMS_INSTANTIATE_PACKAGES(double)

}  // namespace kms::cuda
