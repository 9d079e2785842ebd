#pragma once
// Internals of the CUDA back end shared by its .cu files: error checks, device
// buffers, the per-iteration counters and the launch geometry. The kernel
// launchers are declared beside their kernels, in kernels/*.hpp.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kms/error.hpp"
#include "kms/short_number.hpp"

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
            // The sizes and what helps, not only the CUDA error (issue 39).
            std::size_t free_bytes = 0, total_bytes = 0;
            const bool known = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
            (void)cudaGetLastError();
            const auto mib = [](double bytes) { return short_number(bytes / 1048576.0) + " MiB"; };
            throw Error(std::string("CUDA: cannot allocate ") + mib(double(count) * sizeof(T)) +
                        " of device memory for " + what + " (" + cudaGetErrorString(status) + ")" +
                        (known ? "; the device has " + mib(double(free_bytes)) + " free of " + mib(double(total_bytes))
                               : std::string()) +
                        ": --stream-chunk streams the points from the host (Lloyd, Hamerly, Yinyang, Exponion), --devices spreads them over "
                        "GPUs, --precision f32 halves them");
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

// Page-locked host memory for the copies that overlap kernels (streamed points):
// allocated here (cudaHostAlloc), or the caller's memory registered in place
// (cudaHostRegister, released before the caller frees it). Failure is a
// kms::Error naming what and how much.
class PinnedHostMemory {
public:
    PinnedHostMemory() = default;
    PinnedHostMemory(const PinnedHostMemory&) = delete;
    PinnedHostMemory& operator=(const PinnedHostMemory&) = delete;
    ~PinnedHostMemory() { release(); }

    void allocate(std::size_t bytes, const char* what) {
        release();
        void* raw = nullptr;
        const cudaError_t status = cudaHostAlloc(&raw, bytes, cudaHostAllocDefault);
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            throw Error(std::string("CUDA: cannot allocate ") + std::to_string(bytes >> 20) +
                        " MiB of page-locked host memory for " + what + ": " + cudaGetErrorString(status));
        }
        ptr_ = raw;
        allocated_ = true;
    }
    void register_memory(const void* address, std::size_t bytes, const char* what) {
        release();
        const cudaError_t status = cudaHostRegister(const_cast<void*>(address), bytes, cudaHostRegisterDefault);
        if (status == cudaErrorHostMemoryAlreadyRegistered) {  // another solver's (several blocks of one array)
            (void)cudaGetLastError();
            ptr_ = const_cast<void*>(address);
            return;
        }
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            throw Error(std::string("CUDA: cannot page-lock ") + std::to_string(bytes >> 20) + " MiB of host memory for " +
                        what + ": " + cudaGetErrorString(status));
        }
        ptr_ = const_cast<void*>(address);
        registered_ = true;
    }
    void release() noexcept {
        if (ptr_ && allocated_) cudaFreeHost(ptr_);
        if (ptr_ && registered_) cudaHostUnregister(ptr_);
        ptr_ = nullptr;
        allocated_ = registered_ = false;
    }
    void* get() const noexcept { return ptr_; }

private:
    void* ptr_ = nullptr;
    bool allocated_ = false, registered_ = false;  // neither: registered by another owner
};

// Where a search over all k centroids runs register-tiled (kernels/tiled_search.cuh)
// rather than a thread per point (or per warp) walking every centroid row: from 33
// centroids on.
inline bool tiled_search_pays(int k) { return k > 32; }

// Integer counters written by the kernels (integer atomics: order-independent).
struct DeviceCounters {
    unsigned long long point_centroid_distances;
    unsigned long long centroid_centroid_distances;
    unsigned long long bound_skips;
    unsigned long long labels_changed;
    // Lloyd's GEMM filter: the points whose label it certified; those it could not
    // (verified exactly) as two lists: those with a list of candidates (two from the
    // filter, or the list pass's), and those that need all k distances; and the
    // points the list pass went over.
    unsigned long long gemm_certified;
    unsigned long long gemm_listed;
    unsigned long long gemm_full_searches;
    unsigned long long gemm_pending;
    // Yinyang: (point, group) pairs its group filter ruled out whole.
    unsigned long long group_skips;
    // Shallot: walked points whose ball was centred on their tracked second.
    unsigned long long second_centred;
};

// What every assignment kernel reads and writes (the first fields of LloydArgs and
// BoundedArgs): the points, the centroids, each point's label and status, the counters.
template <typename T>
struct AssignArgs {
    const T* points;
    long long n;
    int d;
    const T* centroids;
    int k;
    std::int32_t* labels;
    std::uint8_t* status;  // nullable: the bounds view's per-point status
    DeviceCounters* counters;
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
// block partials runs it; see kernels/small_update.hpp). next == nullptr: no update.
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

}  // namespace kms::cuda
