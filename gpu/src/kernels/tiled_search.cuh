#pragma once
// The register-tiled nearest-centroid search, shared by Lloyd's assignment (every
// point) and Hamerly's (the points its bounds could not settle, as a list).
//
// GEMM-like blocking, but each distance is still Σ_j (x_j − c_j)² summed over j in
// order (kms::squared_distance()'s arithmetic, no FMA): a block takes 64 points × 64
// centroids at a time and each thread owns 4 points × 4 centroids. Two ways to feed
// the registers:
//   Staged (cuda-shared): the block stages chunks of kSearchChunkD coordinates of both
//     tiles through shared memory;
//   direct (cuda-global): each thread reads its own rows from global memory through
//     L1, 16 bytes per load where every row is 16-byte aligned.
// Candidates are merged by (distance, index), so the result is the lowest index
// among the smallest, as a sequential scan finds it; with Second, the second
// smallest distance too (Hamerly's lower bound), which does not depend on order.
// Included by .cu files only.
#include <algorithm>
#include <cstdint>

#include "cuda_common.hpp"
#include "cuda_device.hpp"

namespace kms::cuda {

constexpr int kSearchPoints = 64, kSearchCentroids = 64, kSearchChunkD = 16;

// The rows a tiled search visits: rows 0..n-1, or the *list_count indices of a list
// (its first ones, or with from_end its last ones: list[n-1], list[n-2], ...).
struct TiledRows {
    long long n;                          // rows (without a list), or the list's capacity
    const std::int32_t* list;             // nullable: the point indices to search
    const unsigned long long* list_count; // with list: how many it holds (device memory)
    bool from_end;
};

template <typename T>
__device__ __forceinline__ void load4(const T* p, T out[4]) {
    if constexpr (sizeof(T) == 4) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(p));
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
        const double2 v0 = __ldg(reinterpret_cast<const double2*>(p)), v1 = __ldg(reinterpret_cast<const double2*>(p + 2));
        out[0] = v0.x, out[1] = v0.y, out[2] = v1.x, out[3] = v1.y;
    }
}

template <typename T>
__device__ __forceinline__ void load4_shared(const T* p, T out[4]) {
    if constexpr (sizeof(T) == 4) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
        const double2 v0 = *reinterpret_cast<const double2*>(p), v1 = *reinterpret_cast<const double2*>(p + 2);
        out[0] = v0.x, out[1] = v0.y, out[2] = v1.x, out[3] = v1.y;
    }
}

template <typename T>
struct Nearest {
    T best;
    int best_c;
    T second;
};

// One butterfly step of a candidate merge: this thread's candidates and those of the
// thread `offset` lanes away. The nearest by (distance, index), so the lowest index
// among the smallest, as a sequential scan finds it; with Second, the second smallest
// of the union: the smaller of the two seconds and the larger of the two nearest.
// lanes_mask: the lanes that merge together (all of the warp unless given).
template <typename T, bool Second>
__device__ __forceinline__ void merge_with_lane(T& best, int& best_c, T& second, int offset,
                                                unsigned lanes_mask = 0xffffffffu) {
    const T other = __shfl_xor_sync(lanes_mask, best, offset);
    const int other_c = __shfl_xor_sync(lanes_mask, best_c, offset);
    if constexpr (Second) {
        const T other_second = __shfl_xor_sync(lanes_mask, second, offset);
        const T larger_best = other < best ? best : other;
        const T s = second < other_second ? second : other_second;
        second = larger_best < s ? larger_best : s;
    }
    if (other < best || (other == best && other_c < best_c)) {
        best = other;
        best_c = other_c;
    }
}

// finish(i, nearest) → 1 when point i's label changed; called once per point by one
// thread. The changed labels are added to *changed_counter, and k distances per
// point searched to *distance_counter when given. A Finish with
// kRecordsDistances also gets finish.record(i, c, distance) for every pair.
template <typename T, bool Staged, bool Second, class Finish>
__global__ void __launch_bounds__(256)
    tiled_search_kernel(const T* __restrict__ points, int d, const T* __restrict__ centroids, int k, TiledRows rows,
                        bool vector_rows /* vector_rows_possible() of both arrays */, Finish finish,
                        unsigned long long* changed_counter, unsigned long long* distance_counter = nullptr) {
    __shared__ __align__(16) T xs[Staged ? kSearchChunkD : 1][kSearchPoints];
    __shared__ __align__(16) T cs[Staged ? kSearchChunkD : 1][kSearchCentroids];
    __shared__ unsigned long long uscratch[32];
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;  // centroid group, point group
    const long long count = rows.list ? static_cast<long long>(*rows.list_count) : rows.n;
    if (static_cast<long long>(blockIdx.x) * kSearchPoints >= count) return;  // no tile: nothing to count either
    const bool points_resident = Staged && d <= kSearchChunkD;
    unsigned long long changed = 0, searched = 0;
    // Blocks stride over the point tiles (a list's length is known only on the device).
    for (long long tile0 = static_cast<long long>(blockIdx.x) * kSearchPoints; tile0 < count;
         tile0 += static_cast<long long>(gridDim.x) * kSearchPoints) {
        auto row_of = [&](long long p) -> long long {  // p < count
            if (!rows.list) return p;
            return static_cast<long long>(rows.list[rows.from_end ? rows.n - 1 - p : p]);
        };
        T best[4], second[4];
        int best_c[4];
        long long my_points[4];  // this thread's 4 points (−1 past the end)
        const T* my_rows[4];     // direct: their rows (the last valid one past the end)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            best[r] = infinity_of<T>();
            second[r] = infinity_of<T>();
            best_c[r] = 0;
            const long long p = tile0 + ty * 4 + r;
            my_points[r] = p < count ? row_of(p) : -1;
            my_rows[r] = points + row_of(p < count ? p : count - 1) * d;
        }
        auto load_points = [&](int j0, int width) {
            for (int e = threadIdx.x; e < kSearchPoints * width; e += blockDim.x) {
                const int p = e / width, j = e - p * width;
                const long long at = tile0 + p;
                xs[j][p] = at < count ? points[row_of(at) * d + j0 + j] : T(0);
            }
        };
        if (points_resident) {
            __syncthreads();  // the previous tile's readers are done
            load_points(0, d);
        }
        for (int c0 = 0; c0 < k; c0 += kSearchCentroids) {
            T acc[4][4];
#pragma unroll
            for (int r = 0; r < 4; ++r)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[r][q] = T(0);
            if constexpr (Staged) {
                for (int j0 = 0; j0 < d; j0 += kSearchChunkD) {
                    const int width = min(kSearchChunkD, d - j0);
                    __syncthreads();
                    if (!points_resident) load_points(j0, width);
                    for (int e = threadIdx.x; e < kSearchCentroids * width; e += blockDim.x) {
                        const int c = e / width, j = e - c * width;
                        const int centroid = c0 + c;
                        cs[j][c] = centroid < k ? centroids[static_cast<long long>(centroid) * d + j0 + j] : T(0);
                    }
                    __syncthreads();
#pragma unroll 4
                    for (int j = 0; j < width; ++j) {
                        T xv[4], cv[4];
                        load4_shared(&xs[j][ty * 4], xv);
                        load4_shared(&cs[j][tx * 4], cv);
#pragma unroll
                        for (int r = 0; r < 4; ++r)
#pragma unroll
                            for (int q = 0; q < 4; ++q) acc[r][q] = sq_step(acc[r][q], xv[r], cv[q]);
                    }
                }
            } else {
                const T* my_centroids[4];
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    my_centroids[q] = centroids + static_cast<long long>(min(c0 + tx * 4 + q, k - 1)) * d;
                if (vector_rows) {  // d % 4 == 0, rows 16-byte aligned: 4 coordinates per load
                    for (int j = 0; j < d; j += 4) {
                        T xv[4][4], cv[4][4];
#pragma unroll
                        for (int r = 0; r < 4; ++r) load4(my_rows[r] + j, xv[r]);
#pragma unroll
                        for (int q = 0; q < 4; ++q) load4(my_centroids[q] + j, cv[q]);
#pragma unroll
                        for (int jj = 0; jj < 4; ++jj)
#pragma unroll
                            for (int r = 0; r < 4; ++r)
#pragma unroll
                                for (int q = 0; q < 4; ++q) acc[r][q] = sq_step(acc[r][q], xv[r][jj], cv[q][jj]);
                    }
                } else {
#pragma unroll 2
                    for (int j = 0; j < d; ++j) {
                        T xv[4], cv[4];
#pragma unroll
                        for (int r = 0; r < 4; ++r) xv[r] = __ldg(my_rows[r] + j);
#pragma unroll
                        for (int q = 0; q < 4; ++q) cv[q] = __ldg(my_centroids[q] + j);
#pragma unroll
                        for (int r = 0; r < 4; ++r)
#pragma unroll
                            for (int q = 0; q < 4; ++q) acc[r][q] = sq_step(acc[r][q], xv[r], cv[q]);
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < 4; ++r)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int c = c0 + tx * 4 + q;
                    if (c >= k) continue;
                    if constexpr (Finish::kRecordsDistances)
                        if (my_points[r] >= 0) finish.record(my_points[r], c, acc[r][q]);
                    if (acc[r][q] < best[r]) {
                        if constexpr (Second) second[r] = best[r];
                        best[r] = acc[r][q];
                        best_c[r] = c;
                    } else if (Second && acc[r][q] < second[r]) {
                        second[r] = acc[r][q];
                    }
                }
        }
        // Merge across the 16 threads of a point group.
#pragma unroll
        for (int r = 0; r < 4; ++r)
            for (int offset = 8; offset > 0; offset >>= 1) merge_with_lane<T, Second>(best[r], best_c[r], second[r], offset);
        if (tx == 0)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                if (my_points[r] >= 0) {
                    changed += finish(my_points[r], Nearest<T>{best[r], best_c[r], second[r]});
                    ++searched;
                }
    }
    block_count_add(changed, changed_counter, uscratch);
    if (distance_counter) block_count_add(searched * static_cast<unsigned long long>(k), distance_counter, uscratch);
}

// Low d (d ≤ kLowDMaxD): a 4 × 4 register tile holds too little work per shared or
// global load and per barrier (at 2-D, k = 100 the tiled kernel ran 4× over its own
// instruction count). Here every centroid is resident in shared memory for the whole
// block; `lanes` neighbouring threads (a power of two, low_d_lanes()) share
// kLowDPoints points and each scans every lanes-th centroid for them: per pair only
// the d differences, squares and sums (the same arithmetic: the first square is
// 0 + diff² exactly) and the comparison. A strict < in index order, then a merge by
// (distance, index), keeps the lowest index among the smallest, as the tiled merge
// does; the second smallest is merged as there. More lanes a point at large k keep
// short lists busy (a list of 5 % of 10^6 points at k = 1000 left most multiprocessors
// idle with one thread a point).
constexpr int kLowDMaxD = 4, kLowDPoints = 4, kLowDThreads = 256;
constexpr std::size_t kLowDMaxSharedBytes = 48 * 1024;  // no opt-in needed

template <typename T>
bool low_d_search_applies(int d, int k) {
    return d <= kLowDMaxD && static_cast<std::size_t>(k) * d * sizeof(T) <= kLowDMaxSharedBytes;
}

// Threads a point: at least 64 centroids each, at most 16 threads.
inline int low_d_lanes(int k) {
    int lanes = 1;
    while (lanes < 16 && k / (2 * lanes) >= 64) lanes *= 2;
    return lanes;
}

// A short list (late steps of a bounded solver) leaves a block or two each scanning
// k / lanes centroids in a row, bound by latency: at 10^6 × 2-D, k = 1000, where the
// distance counts put the list under a hundred points, 38 µs a launch, 21 with this
// rule (H100). So while the list's points at twice the lanes still fit the threads the
// device holds at once (`resident`), the lanes double, up to a warp and down to 16
// centroids a lane.
__device__ __forceinline__ int low_d_lanes_for(int lanes, int k, long long count, long long resident) {
    const long long slots_needed = (count + kLowDPoints - 1) / kLowDPoints;
    while (lanes < 32 && k / (2 * lanes) >= 16 && slots_needed * 2 * lanes <= resident) lanes *= 2;
    return lanes;
}

template <typename T, int D, bool Second, class Finish>
__global__ void __launch_bounds__(kLowDThreads)
    low_d_search_kernel(const T* __restrict__ points, const T* __restrict__ centroids, int k, int base_lanes,
                        long long resident, TiledRows rows, Finish finish, unsigned long long* changed_counter,
                        unsigned long long* distance_counter) {
    extern __shared__ __align__(16) unsigned char low_d_raw[];
    T* cs = reinterpret_cast<T*>(low_d_raw);
    __shared__ unsigned long long uscratch[32];
    const long long count = rows.list ? static_cast<long long>(*rows.list_count) : rows.n;
    const int lanes = low_d_lanes_for(base_lanes, k, count, resident);  // the same for every thread
    const int sub = threadIdx.x & (lanes - 1), slot = threadIdx.x / lanes, slots = blockDim.x / lanes;
    const long long span = static_cast<long long>(slots) * kLowDPoints;
    // A block with no points leaves before loading the centroids: a short list (late
    // steps of a bounded solver) would otherwise have every block of the grid load them.
    if (static_cast<long long>(blockIdx.x) * span >= count) return;
    for (int e = threadIdx.x; e < k * D; e += blockDim.x) cs[e] = centroids[e];
    __syncthreads();
    unsigned long long changed = 0, searched = 0;
    for (long long base = static_cast<long long>(blockIdx.x) * span; base < count;
         base += static_cast<long long>(gridDim.x) * span) {
        T x[kLowDPoints][D], best[kLowDPoints], second[kLowDPoints];
        int best_c[kLowDPoints];
        long long row[kLowDPoints];  // −1 past the end
#pragma unroll
        for (int r = 0; r < kLowDPoints; ++r) {
            const long long p = base + slot + static_cast<long long>(r) * slots;
            row[r] = p >= count ? -1 : rows.list ? static_cast<long long>(rows.list[rows.from_end ? rows.n - 1 - p : p]) : p;
#pragma unroll
            for (int j = 0; j < D; ++j) x[r][j] = row[r] >= 0 ? __ldg(points + row[r] * D + j) : T(0);
            best[r] = infinity_of<T>();
            second[r] = infinity_of<T>();
            best_c[r] = k;  // past every index: any candidate of equal distance wins the merge
        }
#pragma unroll 4
        for (int c = sub; c < k; c += lanes) {
            T cv[D];
#pragma unroll
            for (int j = 0; j < D; ++j) cv[j] = cs[c * D + j];
#pragma unroll
            for (int r = 0; r < kLowDPoints; ++r) {
                const T first = sq_diff(x[r][0], cv[0]);
                T dist = sq_mul(first, first);
#pragma unroll
                for (int j = 1; j < D; ++j) dist = sq_step(dist, x[r][j], cv[j]);
                if constexpr (Finish::kRecordsDistances)
                    if (row[r] >= 0) finish.record(row[r], c, dist);
                if (dist < best[r]) {
                    if constexpr (Second) second[r] = best[r];
                    best[r] = dist;
                    best_c[r] = c;
                } else if (Second && dist < second[r]) {
                    second[r] = dist;
                }
            }
        }
        // Merge the lanes' candidates (lanes is uniform, so every thread shuffles).
#pragma unroll
        for (int r = 0; r < kLowDPoints; ++r)
            for (int offset = lanes >> 1; offset > 0; offset >>= 1)
                merge_with_lane<T, Second>(best[r], best_c[r], second[r], offset);
        if (sub == 0)
#pragma unroll
            for (int r = 0; r < kLowDPoints; ++r)
                if (row[r] >= 0) {
                    // No finite candidate (every distance infinite or NaN): centroid 0, as a scan finds it.
                    const int label = best_c[r] < k ? best_c[r] : 0;
                    changed += finish(row[r], Nearest<T>{best[r], label, second[r]});
                    ++searched;
                }
    }
    block_count_add(changed, changed_counter, uscratch);
    if (distance_counter) block_count_add(searched * static_cast<unsigned long long>(k), distance_counter, uscratch);
}

// Whether the direct search may read 4 coordinates at a time from a row-major T array
// with d columns starting at `base`: d a multiple of 4 and every row 16-byte aligned.
template <typename T>
bool vector_rows_possible(const T* base, int d) {
    return d % 4 == 0 && reinterpret_cast<std::uintptr_t>(base) % 16 == 0;
}

// The search over `rows` of points (n × d) against the k centroids: at low d the
// resident-centroid kernel above (either variant), else staged (cuda-shared) or direct
// (cuda-global). Blocks: one per point tile, at most eight waves' worth when
// the rows are a list whose length only the device knows.
template <typename T, bool Second, class Finish>
void launch_tiled_search(const T* points, int d, const T* centroids, int k, const TiledRows& rows, bool staged,
                         int sm_count, const Finish& finish, unsigned long long* changed_counter,
                         unsigned long long* distance_counter, cudaStream_t stream, const char* what) {
    if (low_d_search_applies<T>(d, k)) {
        // Enough blocks to fill the device a few times over; each loads the centroids once.
        const int lanes = low_d_lanes(k);
        const long long span = static_cast<long long>(kLowDThreads / lanes) * kLowDPoints;
        const long long wanted = std::min<long long>((rows.n + span - 1) / span, 16LL * sm_count);
        const unsigned low_grid = static_cast<unsigned>(std::max<long long>(wanted, 1));
        const std::size_t shared = static_cast<std::size_t>(k) * d * sizeof(T);
        // Threads resident at once: 2048 a multiprocessor on the H100 (1536 on some parts; the
        // lanes rule only tunes speed).
        const long long resident = static_cast<long long>(sm_count) * 2048;
        auto launch = [&](auto kernel) {
            kernel<<<low_grid, kLowDThreads, shared, stream>>>(points, centroids, k, lanes, resident, rows, finish,
                                                               changed_counter, distance_counter);
        };
        switch (d) {
            case 1: launch(low_d_search_kernel<T, 1, Second, Finish>); break;
            case 2: launch(low_d_search_kernel<T, 2, Second, Finish>); break;
            case 3: launch(low_d_search_kernel<T, 3, Second, Finish>); break;
            default: launch(low_d_search_kernel<T, 4, Second, Finish>); break;
        }
        KMS_CUDA_LAUNCH_CHECK(what);
        return;
    }
    long long blocks = (rows.n + kSearchPoints - 1) / kSearchPoints;
    if (rows.list) blocks = std::min<long long>(blocks, 8LL * sm_count);
    const unsigned grid = static_cast<unsigned>(std::max<long long>(blocks, 1));
    const bool vector_rows = vector_rows_possible(points, d) && vector_rows_possible(centroids, d);
    if (staged)
        tiled_search_kernel<T, true, Second><<<grid, 256, 0, stream>>>(points, d, centroids, k, rows, vector_rows, finish,
                                                                      changed_counter, distance_counter);
    else
        tiled_search_kernel<T, false, Second><<<grid, 256, 0, stream>>>(points, d, centroids, k, rows, vector_rows,
                                                                       finish, changed_counter, distance_counter);
    KMS_CUDA_LAUNCH_CHECK(what);
}

}  // namespace kms::cuda
