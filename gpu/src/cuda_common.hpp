#pragma once
// Internals of the CUDA back end shared by its .cu files: error checks, device
// buffers, the per-iteration counters and the kernel launchers.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kms/error.hpp"

namespace kms::cuda {

// Throws kms::Error("CUDA: <what>: <cudaGetErrorString>") on failure.
void check(cudaError_t status, const char* what);
#define KMS_CUDA_CHECK(call) ::kms::cuda::check((call), #call)
// After a kernel launch: a bad configuration shows up here.
#define KMS_CUDA_LAUNCH_CHECK(what) ::kms::cuda::check(cudaGetLastError(), what)

// Owning device allocation of `count` elements. Allocation failure (out of
// device memory) is a kms::Error naming what was being allocated.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        swap(other);
        return *this;
    }
    ~DeviceBuffer() { release(); }

    void allocate(std::size_t count, const char* what) {
        if (count == count_ && ptr_) return;
        release();
        if (count == 0) return;
        void* raw = nullptr;
        const cudaError_t status = cudaMalloc(&raw, count * sizeof(T));
        if (status != cudaSuccess) {
            (void)cudaGetLastError();  // clear the (non-sticky) allocation error
            throw Error(std::string("CUDA: cannot allocate ") + std::to_string(count * sizeof(T) >> 20) +
                        " MiB of device memory for " + what + ": " + cudaGetErrorString(status));
        }
        ptr_ = static_cast<T*>(raw);
        count_ = count;
    }
    void release() noexcept {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }
    T* get() const noexcept { return ptr_; }
    std::size_t size() const noexcept { return count_; }
    explicit operator bool() const noexcept { return ptr_ != nullptr; }

private:
    void swap(DeviceBuffer& other) noexcept {
        std::swap(ptr_, other.ptr_);
        std::swap(count_, other.count_);
    }
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

// Integer counters written by the kernels (integer atomics: order-independent).
struct DeviceCounters {
    unsigned long long point_centroid_distances;
    unsigned long long centroid_centroid_distances;
    unsigned long long bound_skips;
    unsigned long long labels_changed;
    unsigned long long gemm_unsettled;      // Lloyd GEMM filter: points it could not certify (verified exactly)
    unsigned long long gemm_full_searches;  // ... of which needed all k exact distances (not just two candidates)
};

// Shift statistics of one update, reduced on the device in a fixed order.
struct DeviceShiftStats {
    double max_shift;
    double sum_shift;
    double shift_sq_total;
    int empty_clusters;
    int top_mover;
};

// What one iteration copies back: a few scalars.
struct DeviceIterationRecord {
    DeviceCounters counters;
    DeviceShiftStats shifts;
    double inertia;
};

// ---------------------------------------------------------------------------
// Launch geometry shared by every kernel that feeds the centroid update, so the
// fused Lloyd kernel and the stand-alone accumulation visit points in the same
// order and give bitwise-identical sums.
struct Geometry {
    int block = 256;    // threads per block (config.cuda_block_size or automatic)
    int grid = 1;       // blocks of the grid-stride kernels
    int sm_count = 1;
    std::size_t shared_limit = 48 * 1024;  // opt-in dynamic shared memory per block
};

// Resident blocks per multiprocessor of the fused Lloyd kernel at this block size:
// the grid-stride kernels launch one full wave (sm_count × this), so the sum order
// depends only on the device and the block size.
int update_blocks_per_sm(int block);
// The same for the small (k, d) path in T: the fused Lloyd kernel that runs this
// shape. Every kernel that writes small-path partials (Lloyd global and shared,
// the Elkan/Hamerly sums) uses this grid, so they all sum in one order.
template <typename T>
int small_blocks_per_sm(int k, int d, int block);

// The small-(k, d) fused update keeps per-thread sums in registers or shared memory.
// Returns the template variant index, or -1 when (k, d) needs the general path.
int small_update_variant(int k, int d);
// Doubles per block partial of the small path: k·(d+1).
__host__ __device__ inline std::size_t small_partial_width(int k, int d) { return static_cast<std::size_t>(k) * (d + 1); }

// Where the small-path update writes (the last block of the kernel that wrote the
// block partials runs it; see cuda_small_update.hpp). next == nullptr: no update.
template <typename T>
struct SmallUpdate {
    T* next;                     // k × d new centroids
    double* sums;                // k × d
    long long* counts;           // k
    T* shift_upper;              // k
    double* shift_exact;         // k
    DeviceShiftStats* stats;
    unsigned* ticket;            // blocks done; 0 between launches
};

template <typename T>
struct LloydArgs {
    const T* points;
    long long n;
    int d;
    const T* centroids;
    int k;
    std::int32_t* labels;
    std::uint8_t* status;        // nullable
    DeviceCounters* counters;
    double* block_partials;      // non-null: fuse the small-path accumulation
    SmallUpdate<T> update;       // with block_partials: also the whole update (last block)
};

// Lloyd assignment (labels, changed count, distance count); with
// args.block_partials set it also writes the small-path block partial sums.
template <typename T>
void launch_lloyd(const LloydArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);

// Lower-bound storage of Elkan's n × k bounds: half (scaled by a power of two) for
// float data, float for double data; always rounded down, so still certain.
template <typename T>
struct ElkanLowerStorage;
template <>
struct ElkanLowerStorage<float> {
    using type = unsigned short;  // raw half bits
};
template <>
struct ElkanLowerStorage<double> {
    using type = float;
};

template <typename T>
struct BoundedArgs {
    const T* points;
    long long n;
    int d;
    const T* centroids;
    int k;
    std::int32_t* labels;
    std::uint8_t* status;              // nullable
    DeviceCounters* counters;
    T* upper;                          // n
    T* lower;                          // n (Hamerly)
    typename ElkanLowerStorage<T>::type* lower_k;  // n × k (Elkan)
    std::int32_t* stamp;               // n: cumulative-shift row the bounds were last written at
    const double* cumulative_shift;    // rows × (k + 1): Σ shift upper bounds per centroid, [k] = Σ max
    int now;                           // the row of the current centroids
    bool first;                        // full search that builds the bounds
    const T* nearest_half;             // k
    const T* cc_half;                  // k × k (Elkan)
    float lower_scale;                 // Elkan float: stored = value · scale (power of two)
};

template <typename T>
void launch_hamerly(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);
template <typename T>
void launch_elkan(const BoundedArgs<T>& args, bool shared_variant, const Geometry& geometry, cudaStream_t stream);

// Half distances between centroids as certain lower bounds (nearest_half, and the
// full matrix when cc_half is non-null).
template <typename T>
void launch_centroid_separations(const T* centroids, int k, int d, T* nearest_half, T* cc_half, cudaStream_t stream);

// ---------------------------------------------------------------------------
// The update. Sums and counts per cluster end in double (sums k × d, counts k).
struct UpdateWorkspace {
    DeviceBuffer<double> block_partials;   // small path: grid × k·(d+1)
    DeviceBuffer<unsigned> ticket;         // small path: blocks that wrote their partial (0 between launches)
    DeviceBuffer<double> sums;             // k × d
    DeviceBuffer<long long> counts;        // k
    // General path (label sort):
    DeviceBuffer<std::int32_t> keys_sorted, index, index_sorted;
    DeviceBuffer<long long> offsets;       // k + 1
    DeviceBuffer<long long> piece_offsets; // k + 1
    DeviceBuffer<double> piece_sums;       // max pieces × d
    DeviceBuffer<unsigned char> sort_temp;
    std::size_t sort_temp_bytes = 0;
};

void prepare_update_workspace(UpdateWorkspace& workspace, long long n, int k, int d, const Geometry& geometry);

// The small (k, d) path of Elkan/Hamerly: block partials from the labels, in the
// fused Lloyd kernel's point order, and the whole update by the last block (Lloyd
// does both inside its assignment kernel).
template <typename T>
void launch_small_sums_update(const T* points, long long n, int d, const std::int32_t* labels, int k,
                              const T* previous, const SmallUpdate<T>& update, UpdateWorkspace& workspace,
                              const Geometry& geometry, cudaStream_t stream);

// Sums and counts from the labels, general path (k > 8 or d > 4).
template <typename T>
void launch_accumulate(const T* points, long long n, int d, const std::int32_t* labels, int k,
                       UpdateWorkspace& workspace, cudaStream_t stream);

// New centroids (into `next`, unless !recompute: then `next` is already final) from
// the sums, the Keep policy for empty clusters, per-centroid shifts (exact squared
// in double, certain upper bounds in T), and the fixed-order shift statistics.
template <typename T>
void launch_apply_update(const T* previous, T* next, int k, int d, UpdateWorkspace& workspace,
                         T* shift_upper, DeviceShiftStats* shift_stats, double* shift_exact, bool recompute,
                         cudaStream_t stream);

// Append a row to the cumulative shift table: row[c] = prev[c] + shift_upper[c]
// (rounded up), row[k] = prev[k] + max shift (rounded up).
template <typename T>
void launch_cumulative_row(double* table, int row, int k, const T* shift_upper, cudaStream_t stream);

// Squared distance of every point to its labelled centroid (T arithmetic), for
// the Farthest empty-cluster policy.
template <typename T>
void launch_label_distances(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                            T* out, cudaStream_t stream);

// Σ ||x − c(label)||² in double, fixed-order reduction, into *result.
template <typename T>
void launch_inertia(const T* points, long long n, int d, const T* centroids, const std::int32_t* labels,
                    double* block_scratch, double* result, const Geometry& geometry, cudaStream_t stream);
}  // namespace kms::cuda
