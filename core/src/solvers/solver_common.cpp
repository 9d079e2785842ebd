// Names, the stopping rule and the tolerance: shared by every back end.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <omp.h>

#include "kms/algorithms.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"
#include "kms/solver.hpp"
#include "kms/device_matrix.hpp"

namespace kms {

namespace {
template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(std::string_view text, const std::pair<std::string_view, Enum> (&table)[N]) {
    for (const auto& [name, value] : table)
        if (name == text) return value;
    return std::nullopt;
}

constexpr std::pair<std::string_view, Backend> kBackends[] = {
    {"seq", Backend::Sequential}, {"omp", Backend::OpenMP}, {"cuda", Backend::Cuda}};
constexpr std::pair<std::string_view, KernelVariant> kVariants[] = {
    {"auto", KernelVariant::Auto}, {"global", KernelVariant::Global}, {"shared", KernelVariant::Shared}};
constexpr std::pair<std::string_view, Precision> kPrecisions[] = {{"f32", Precision::F32},
                                                                  {"f64", Precision::F64}};
constexpr std::pair<std::string_view, EmptyClusterPolicy> kEmptyPolicies[] = {
    {"keep", EmptyClusterPolicy::Keep}, {"farthest", EmptyClusterPolicy::Farthest}};
constexpr std::pair<std::string_view, ThreadBinding> kBindings[] = {
    {"none", ThreadBinding::None}, {"compact", ThreadBinding::Compact}, {"spread", ThreadBinding::Spread}};
}  // namespace

std::string_view to_string(Backend value) {
    for (const auto& [name, v] : kBackends)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(KernelVariant value) {
    for (const auto& [name, v] : kVariants)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(Precision value) {
    for (const auto& [name, v] : kPrecisions)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(EmptyClusterPolicy value) {
    for (const auto& [name, v] : kEmptyPolicies)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(ThreadBinding value) {
    for (const auto& [name, v] : kBindings)
        if (v == value) return name;
    return "?";
}
std::string_view to_string(StopReason value) {
    switch (value) {
        case StopReason::NotStopped: return "not-stopped";
        case StopReason::NoLabelChange: return "no-label-change";
        case StopReason::Tolerance: return "tolerance";
        case StopReason::MaxIterations: return "max-iterations";
        case StopReason::Cancelled: return "cancelled";
    }
    return "?";
}

std::optional<BackendSpec> parse_backend(std::string_view text) {
    if (const auto backend = parse_name(text, kBackends)) return BackendSpec{*backend, KernelVariant::Auto};
    // The spellings from before the variant was its own option: cuda-global, cuda-shared.
    const std::size_t dash = text.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const auto backend = parse_name(text.substr(0, dash), kBackends);
    const auto variant = parse_name(text.substr(dash + 1), kVariants);
    if (!backend || *backend != Backend::Cuda || !variant || *variant == KernelVariant::Auto) return std::nullopt;
    return BackendSpec{*backend, *variant};
}
std::optional<KernelVariant> parse_kernel_variant(std::string_view text) { return parse_name(text, kVariants); }
std::optional<Precision> parse_precision(std::string_view text) { return parse_name(text, kPrecisions); }
std::optional<EmptyClusterPolicy> parse_empty_policy(std::string_view text) {
    return parse_name(text, kEmptyPolicies);
}

std::optional<ThreadBinding> parse_thread_binding(std::string_view text) { return parse_name(text, kBindings); }

std::string SolverConfig::backend_name() const {
    std::string name(to_string(backend));
    if (backend == Backend::Cuda && variant != KernelVariant::Auto) name += "-" + std::string(to_string(variant));
    return name;
}

std::string SolverConfig::describe() const {
    return std::string(to_string(algorithm)) + "/" + backend_name() + "/" + std::string(to_string(precision));
}

int max_threads() { return std::max(4, 4 * omp_get_num_procs()); }

void SolverConfig::validate() const {
    if (max_iterations < 1) throw UsageError("--max-iter must be at least 1");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw UsageError("--tol must be a finite number >= 0");
    if (threads < 0) throw UsageError("--threads must be 0 (all cores) or more");
    if (threads > max_threads())
        throw UsageError("--threads " + std::to_string(threads) + " is more than " + std::to_string(max_threads()) +
                         " (4 x the " + std::to_string(omp_get_num_procs()) + " hardware threads)");
    if (cuda_block_size != 0 && (cuda_block_size < 32 || cuda_block_size > 1024 || cuda_block_size % 32 != 0))
        throw UsageError("--block-size must be 0 (automatic) or a multiple of 32 from 32 to 1024, not " +
                         std::to_string(cuda_block_size));
    if (cuda_device < 0) throw UsageError("--device must be >= 0");
    if (packages < 0) throw UsageError("--packages must be 0 (automatic) or more");
    if (binding != ThreadBinding::None && backend != Backend::OpenMP)
        throw UsageError("--bind " + std::string(to_string(binding)) + " places OpenMP threads: it needs --backend omp, not " +
                         std::string(to_string(backend)));
    if (stream_chunk < 0) throw UsageError("--stream-chunk must be 0 (stream only what does not fit) or a number of rows");
    if (stream_chunk > 0 && backend != Backend::Cuda)
        throw UsageError("--stream-chunk streams the points to a CUDA device: it needs --backend cuda, not " +
                         std::string(to_string(backend)));
    if (stream_chunk > 0 && algorithm != Algorithm::Auto) {
        // (A solver with no CUDA factory at all is refused by the back end's own check.)
        if (registered_solver(algorithm, Backend::Cuda) && !solver_traits(algorithm, Backend::Cuda).streams_points)
            throw UsageError("--stream-chunk streams the points of the solvers that keep their per-point state on the "
                             "device beside the chunks, not --solver " + std::string(to_string(algorithm)));
    }
    if (backend != Backend::Cuda && variant != KernelVariant::Auto)
        throw UsageError("--variant " + std::string(to_string(variant)) + " needs a CUDA back end, not " +
                         std::string(to_string(backend)));
}

void Solver::set_device_data(std::shared_ptr<const DeviceMatrix>) {
    throw Error("the " + config().backend_name() + " back end takes host data only; device arrays (CuPy, "
                "PyTorch CUDA tensors) need --backend cuda");
}

StopReason evaluate_stop(const SolverConfig& config, const IterationStats& stats, double tol_absolute) {
    // Iteration 1 compares against "no labels yet", so every label changed.
    if (stats.iteration > 1 && stats.labels_changed == 0) return StopReason::NoLabelChange;
    if (stats.shift_sq_total <= tol_absolute) return StopReason::Tolerance;
    if (stats.iteration >= config.max_iterations) return StopReason::MaxIterations;
    return StopReason::NotStopped;
}

namespace {
template <typename T>
double absolute_tolerance_of(const Matrix<T>& points, double tol) {
    if (tol == 0.0 || points.rows() == 0) return 0.0;
    const std::size_t n = points.rows(), d = points.cols();
    // Two-pass variance per feature (numerically safe), averaged over features.
    double mean_variance = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        double mean = 0.0;
        for (std::size_t i = 0; i < n; ++i) mean += static_cast<double>(points(i, j));
        mean /= static_cast<double>(n);
        double variance = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double diff = static_cast<double>(points(i, j)) - mean;
            variance += diff * diff;
        }
        mean_variance += variance / static_cast<double>(n);
    }
    return tol * (mean_variance / static_cast<double>(d));
}

// Row order across ranks: rank r adds its rows to the running sums it receives
// from rank r - 1, as one loop over all rows would (a chain of broadcasts).
template <typename T>
double partitioned_tolerance_of(const Matrix<T>& block, double tol, const RowPartition& partition) {
    if (tol == 0.0 || partition.global_rows == 0) return 0.0;
    Communicator& comm = *partition.comm;
    const std::size_t n = block.rows(), d = block.cols();
    const auto chain = [&](std::vector<double>& running, auto add_row) {
        for (int r = 0; r < comm.size(); ++r) {
            if (r == comm.rank())
                for (std::size_t j = 0; j < d; ++j)
                    for (std::size_t i = 0; i < n; ++i) add_row(running[j], i, j);
            comm.broadcast(running, r);
        }
    };
    const auto rows = static_cast<double>(partition.global_rows);
    std::vector<double> mean(d, 0.0);
    chain(mean, [&](double& sum, std::size_t i, std::size_t j) { sum += static_cast<double>(block(i, j)); });
    for (double& m : mean) m /= rows;
    std::vector<double> variance(d, 0.0);
    chain(variance, [&](double& sum, std::size_t i, std::size_t j) {
        const double diff = static_cast<double>(block(i, j)) - mean[j];
        sum += diff * diff;
    });
    double mean_variance = 0.0;
    for (std::size_t j = 0; j < d; ++j) mean_variance += variance[j] / rows;
    return tol * (mean_variance / static_cast<double>(d));
}
}  // namespace

double absolute_tolerance(const RowSource& source, std::size_t first_row, std::size_t rows, double tol,
                          const RowPartition* partition, std::size_t block_rows) {
    const std::size_t global = partition ? partition->global_rows : rows, d = source.cols();
    if (tol == 0.0 || global == 0) return 0.0;
    block_rows = std::max<std::size_t>(1, std::min(block_rows, rows));
    std::vector<double> block(block_rows * d);
    // Each feature's running sum takes the rows in order, block after block: the
    // additions of the loaded matrix's loop (kms::absolute_tolerance), in its order.
    const auto pass = [&](std::vector<double>& running, auto add) {
        for (std::size_t start = 0; start < rows; start += block_rows) {
            const std::size_t count = std::min(block_rows, rows - start);
            source.read(first_row + start, count, block.data());
            for (std::size_t j = 0; j < d; ++j)
                for (std::size_t i = 0; i < count; ++i) add(running[j], block[i * d + j], j);
        }
    };
    const auto chain = [&](std::vector<double>& running, auto add) {
        if (!partition) return pass(running, add);
        Communicator& comm = *partition->comm;
        for (int r = 0; r < comm.size(); ++r) {  // rank order = row order (partitioned_tolerance_of)
            // A read that fails on rank r (the file changed) is agreed on before the
            // broadcast: every rank throws, none waits for ever.
            agreed(&comm, [&] {
                if (r == comm.rank()) pass(running, add);
            });
            comm.broadcast(running, r);
        }
    };
    const auto count = static_cast<double>(global);
    std::vector<double> mean(d, 0.0);
    chain(mean, [](double& sum, double x, std::size_t) { sum += x; });
    for (double& m : mean) m /= count;
    std::vector<double> variance(d, 0.0);
    chain(variance, [&](double& sum, double x, std::size_t j) {
        const double diff = x - mean[j];
        sum += diff * diff;
    });
    double mean_variance = 0.0;
    for (std::size_t j = 0; j < d; ++j) mean_variance += variance[j] / count;
    return tol * (mean_variance / static_cast<double>(d));
}

double absolute_tolerance(const Matrix<double>& block, double tol, const RowPartition& partition) {
    return partitioned_tolerance_of(block, tol, partition);
}
double absolute_tolerance(const Matrix<float>& block, double tol, const RowPartition& partition) {
    return partitioned_tolerance_of(block, tol, partition);
}

void Solver::set_row_source(std::shared_ptr<const RowSource>, std::size_t, std::size_t, std::size_t) {
    throw UsageError("out of core (points read from the file a block at a time) runs on the CPU back ends (seq, "
                     "omp), not " + config().backend_name());
}

void Solver::set_partition(const RowPartition&) {
    throw Error("the " + config().backend_name() + " back end cannot run on a block of a partitioned data set");
}

double absolute_tolerance(const Matrix<double>& points, double tol) { return absolute_tolerance_of(points, tol); }
double absolute_tolerance(const Matrix<float>& points, double tol) { return absolute_tolerance_of(points, tol); }

void Solver::set_data(std::shared_ptr<const Matrix<float>> points) {
    if (!points) throw Error("the data set is empty");
    set_data(std::make_shared<const Matrix<double>>(points->template cast<double>()));
}

}  // namespace kms
