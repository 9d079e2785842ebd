#pragma once
// The one solver interface shared by every algorithm and back end (sequential,
// OpenMP, CUDA), so the GUI, the CLI and the tests drive them alike.
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "kms/matrix.hpp"
#include "kms/stats.hpp"

namespace kms {

// A k-means algorithm, by its name (--solver, reports, Python's solver=). The exact
// solvers register themselves, each beside its code (kms/algorithms.hpp lists them):
// every one gives Lloyd's labels and centroids bit for bit; they differ only in speed.
// Auto is a request, not an algorithm: the fit layer resolves it from n, d, k and the
// back end (choose_solver() in kms/backends.hpp).
class Algorithm {
public:
    constexpr Algorithm() = default;  // Lloyd
    // `name` must outlive every copy: a literal, or a registered name (parse_algorithm()).
    constexpr explicit Algorithm(std::string_view name) : name_(name) {}
    constexpr std::string_view name() const { return name_; }
    friend constexpr bool operator==(Algorithm, Algorithm) = default;
    friend constexpr auto operator<=>(Algorithm, Algorithm) = default;

    // Handles for code that asks for one solver in particular (a rule, a test); lists
    // of every solver come from the registry (registered_algorithms()), never from these.
    static const Algorithm Lloyd, Elkan, Hamerly, Yinyang, Exponion, Auto;

private:
    std::string_view name_ = "lloyd";
};
inline constexpr Algorithm Algorithm::Lloyd{"lloyd"};
inline constexpr Algorithm Algorithm::Elkan{"elkan"};
inline constexpr Algorithm Algorithm::Hamerly{"hamerly"};
inline constexpr Algorithm Algorithm::Yinyang{"yinyang"};
inline constexpr Algorithm Algorithm::Exponion{"exponion"};
inline constexpr Algorithm Algorithm::Auto{"auto"};
// The device a solver runs on; back ends register themselves in kms/backends.hpp.
enum class Backend { Sequential, OpenMP, Cuda };
// Which CUDA kernels: global memory, or centroids staged in shared memory. Auto
// picks per shape (shared for Lloyd with k >= 64 or k > 32 and d >= 16, and for
// Hamerly with k > 32; global elsewhere).
enum class KernelVariant { Auto, Global, Shared };
enum class Precision { F32, F64 };
enum class EmptyClusterPolicy { Keep, Farthest };
// Where the OpenMP back end's threads run: none = wherever the OS puts them;
// compact = filling each core's hardware threads before the next core;
// spread = one thread per physical core first, then their second hardware threads.
enum class ThreadBinding { None, Compact, Spread };
enum class StopReason { NotStopped, NoLabelChange, Tolerance, MaxIterations, Cancelled };

// Names used on the command line, in reports and in the GUI.
std::string_view to_string(Algorithm);
std::string_view to_string(Backend);
std::string_view to_string(KernelVariant);
std::string_view to_string(Precision);
std::string_view to_string(EmptyClusterPolicy);
std::string_view to_string(ThreadBinding);
std::string_view to_string(StopReason);
// Parse a name; std::nullopt if unknown (callers turn that into an error naming the option).
// Algorithms: "auto" or a registered solver's name (kms/algorithms.hpp).
std::optional<Algorithm> parse_algorithm(std::string_view);
// A back-end spelling: a device name (seq, omp, cuda), or a device with its kernel
// variant as scripts have always written it (cuda-global, cuda-shared).
struct BackendSpec {
    Backend backend;
    KernelVariant variant;
};
std::optional<BackendSpec> parse_backend(std::string_view);
std::optional<KernelVariant> parse_kernel_variant(std::string_view);
std::optional<Precision> parse_precision(std::string_view);
std::optional<EmptyClusterPolicy> parse_empty_policy(std::string_view);
std::optional<ThreadBinding> parse_thread_binding(std::string_view);

struct SolverConfig {
    Algorithm algorithm = Algorithm::Lloyd;
    Backend backend = Backend::Sequential;
    Precision precision = Precision::F64;
    int threads = 0;                   // OpenMP threads; 0 = OpenMP's default
    ThreadBinding binding = ThreadBinding::None;  // OpenMP thread placement
    int packages = 0;                  // CPU update: packages of the two-step reduction; 0 = automatic
    int max_iterations = 300;
    double tol = 1e-4;                 // scikit-learn's meaning: relative to the mean feature variance
    EmptyClusterPolicy empty_policy = EmptyClusterPolicy::Keep;
    bool compute_inertia = false;      // fill IterationStats::inertia each step
    bool record_point_status = false;  // keep per-point skipped/recomputed flags (GUI bounds view)
    KernelVariant variant = KernelVariant::Auto;  // CUDA kernel variant
    // Lloyd's certified GEMM assignment (--gemm-filter): approximate distances by a GEMM,
    // labels its error bound proves kept, the rest searched exactly (labels unchanged).
    // CUDA, shared variant, d >= 16, k >= 64: int8 tensor cores; CPU, d >= 16, k >= 32:
    // an FMA micro-kernel in the solver's precision (core/src/solvers/cpu/gemm_assign.hpp).
    bool gemm_filter = true;
    int cuda_block_size = 0;           // CUDA threads per block; 0 = automatic
    int cuda_device = 0;
    // CUDA Lloyd, host data: stream the points from page-locked host memory in chunks
    // of this many rows (rounded up to whole update packages), each chunk's copy
    // overlapping the previous chunk's assignment. 0 = only when the points do not fit
    // on the device. Streamed runs sum in the CPU's package tree: the CPU's bits.
    long long stream_chunk = 0;

    std::string describe() const;      // e.g. "hamerly/omp/f32", "lloyd/cuda-shared/f32"
    std::string backend_name() const;  // "omp", "cuda", "cuda-global", ...
    // Throws kms::UsageError naming the option for a value no back end accepts
    // (the one check every client and every back end relies on).
    void validate() const;
};

// Per-point outcome of the last assignment, for the bounds view.
enum class PointStatus : std::uint8_t { Recomputed = 0, Skipped = 1 };

struct DeviceMatrix;  // kms/device_matrix.hpp
struct RowPartition;  // kms/communicator.hpp
class RowSource;     // kms/row_source.hpp

class Solver {
public:
    virtual ~Solver() = default;

    virtual const SolverConfig& config() const = 0;

    // The data, shared (never copied for double solvers). Resets the run.
    virtual void set_data(std::shared_ptr<const Matrix<double>> points) = 0;
    // Float data (a float32 NumPy array): the same run as set_data() of those
    // values widened to double. Read in place where the solver can (the CPU's
    // float solvers); the default converts once to double.
    virtual void set_data(std::shared_ptr<const Matrix<float>> points);
    // The data in a device's memory (kms/device_matrix.hpp), read in place where its
    // element type is the solver's precision (converted once on the device
    // otherwise); the same run as set_data() of those values. Resets the run.
    // Back ends without device data (the CPU ones) throw kms::Error.
    virtual void set_device_data(std::shared_ptr<const DeviceMatrix> points);
    // This solver holds one block of a partitioned data set (kms/communicator.hpp):
    // set before the data; the data given to set_data() is then the block's rows
    // (none is allowed) and every rank runs the same calls in the same order. The
    // labels are the block's; centroids, inertia, statistics and the stop decision
    // are the whole data set's, bit for bit those of one solver on all the rows.
    // Back ends that cannot throw kms::Error.
    virtual void set_partition(const RowPartition& partition);
    // Out of core (kms/row_source.hpp): rows [first_row, first_row + rows) of
    // `source` (all of them; with set_partition, set before, this rank's block), read
    // a block of whole update packages at a time into two buffers of at most
    // `buffer_bytes` together (one read while the other is worked on), on every pass
    // a step, the inertia and the final relabel make. Labels, centroids and
    // statistics are bitwise those of set_data() of the loaded rows (as a double
    // matrix). Resets the run. Back ends and algorithms that cannot (the bounded
    // solvers keep per-point bounds; the farthest-point relocation reads every row)
    // throw kms::UsageError.
    virtual void set_row_source(std::shared_ptr<const RowSource> source, std::size_t first_row, std::size_t rows,
                                std::size_t buffer_bytes);
    // The memory the solver reads the points from (host or device address), for
    // tests and reports; nullptr where a back end does not say.
    virtual const void* data_address() const { return nullptr; }
    // k × d initial centroids. Resets the run to iteration 0 with these centroids.
    virtual void set_initial_centroids(const Matrix<double>& centroids) = 0;
    // Back to iteration 0 with the same initial centroids.
    virtual void reset() = 0;
    // scikit-learn's sample_weight: n non-negative finite numbers (the fit layer
    // checks them), shared; nullptr: every point weighs 1 (the unweighted path,
    // unchanged). Set after set_data(), which clears them. Resets the run.
    virtual void set_sample_weight(std::shared_ptr<const std::vector<double>> weights) = 0;

    // One iteration: assign every point, then update the centroids. Throws
    // kms::Error if there is no data or no centroids.
    virtual IterationStats step() = 0;
    // Relabel against the current centroids without moving them (what
    // scikit-learn does after stopping on tol/max-iter, so labels match centroids).
    // Returns the number of labels that changed.
    virtual std::uint64_t finalize_labels() = 0;

    // Lets a long step end early: when `stop` is requested during step(), a solver
    // that supports it throws kms::Cancelled and keeps the last completed iteration
    // (labels, centroids, iteration count). Others finish the step (CUDA steps take
    // milliseconds) and the fit layer stops before the next.
    virtual void set_stop_token(std::stop_token /*stop*/) {}

    virtual int iteration() const = 0;                       // steps done since reset
    virtual bool converged() const = 0;                      // stop_reason() != NotStopped
    virtual StopReason stop_reason() const = 0;
    virtual const std::vector<std::int32_t>& labels() const = 0;   // -1 before the first step
    virtual Matrix<double> centroids() const = 0;                  // current, k × d
    virtual const std::vector<PointStatus>& point_status() const = 0;  // empty unless recorded
    // Σ w(x)·||x - c(label(x))||² for the current labels and centroids (double
    // accumulation; w = 1 without sample weights).
    virtual double inertia() const = 0;

    // CUDA back ends: the device copy of the labels / point status (n entries),
    // valid until the next step or reset, for rendering without a host copy.
    // nullptr for CPU back ends.
    virtual const std::int32_t* device_labels() const { return nullptr; }
    virtual const PointStatus* device_point_status() const { return nullptr; }
};

// The stopping rule every back end applies after a step (scikit-learn's order:
// unchanged labels first, then Σ shift² ≤ tol·mean variance, then max iterations).
StopReason evaluate_stop(const SolverConfig& config, const IterationStats& stats, double tol_absolute);
// tol × the mean over features of the data's variance (scikit-learn's _tolerance).
double absolute_tolerance(const Matrix<double>& points, double tol);
double absolute_tolerance(const Matrix<float>& points, double tol);  // the same, on the values widened
// The same of a partitioned data set, from each rank's block (a collective call):
// the sums run through the ranks in row order, so the result is that of all rows.
double absolute_tolerance(const Matrix<double>& block, double tol, const RowPartition& partition);
double absolute_tolerance(const Matrix<float>& block, double tol, const RowPartition& partition);
// The same of rows [first_row, first_row + rows) of a RowSource (out of core), read
// `block_rows` at a time as doubles in two passes; with `partition` (may be null) the
// collective call above. Bitwise the value of the loaded rows.
double absolute_tolerance(const RowSource& source, std::size_t first_row, std::size_t rows, double tol,
                          const RowPartition* partition, std::size_t block_rows);

// Most OpenMP threads a solver accepts: beyond it, thread start-up alone costs
// more than any run (and libgomp's stacks run out), so it is refused as bad usage.
int max_threads();

}  // namespace kms
