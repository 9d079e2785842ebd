#pragma once
// The back-end registry: each device (seq, omp, cuda, ...) registers how to make
// its solvers, which algorithms and kernel variants it has, whether it can run
// here (with the reason when not), and, optionally, its own initialiser and
// silhouette. Clients ask the registry; none tests "is this CUDA?" itself.
//
// Sequential and OpenMP are always registered (core). The CUDA back end registers
// itself when a program calls kms::register_cuda_backend() (gpu/, kms/cuda_backend.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/algorithms.hpp"
#include "kms/device_matrix.hpp"
#include "kms/eigen.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"
#include "kms/scores.hpp"
#include "kms/solver.hpp"

namespace kms {

// What --solver auto ran, and why (choose_solver()).
struct SolverChoice {
    Algorithm algorithm = Algorithm::Lloyd;
    std::string reason;  // empty when the algorithm was given, not chosen
};

// Each point's nearest centroid and the inertia of those labels (kms::assign()).
struct Assignment {
    std::vector<std::int32_t> labels;
    double inertia = 0.0;
};

struct BackendAvailability {
    bool available = false;
    std::string reason;   // why not, for error messages and greyed-out GUI entries
};

struct BackendEntry {
    Backend backend = Backend::Sequential;
    std::string label;                      // for people: "OpenMP threads", "CUDA"
    // Its solvers come from the solver registry (register_solver(), kms/algorithms.hpp).
    // A back end that builds its own instead (a stand-in in a test) lists them here and
    // sets make_solver; has() then reads this list.
    std::vector<Algorithm> algorithms;
    std::vector<KernelVariant> variants;    // besides Auto; empty when it has none
    bool uses_threads = false;              // --threads applies
    bool uses_block_size = false;           // --block-size applies
    bool device_labels = false;             // its solvers expose device_labels() (CUDA–GL interop)
    // Its solvers read float host data in place (Solver::set_data(Matrix<float>));
    // fit() widens float data to double once for the others.
    bool reads_host_float = false;
    std::function<BackendAvailability()> availability;
    // Optional: how many devices it sees (back ends of devices: --devices all).
    std::function<int()> device_count;
    // Optional: builds a solver of an algorithm in `algorithms` (the registry checks that first).
    std::function<std::unique_ptr<Solver>(const SolverConfig&)> make_solver;
    // Optional: each point's nearest centroid with the engine's distance in the
    // configuration's precision (ties to the lowest index) and the inertia (Σ w·distance
    // with `weights`, n of them), without a solver: any k, also k > n. Without it,
    // assign() relabels with the back end's Lloyd solver (k <= n) or a back end that has one.
    std::function<Assignment(const Matrix<double>& points, const Matrix<double>& centroids, const SolverConfig& config,
                             const double* weights)>
        assign;
    std::function<Assignment(const Matrix<float>& points, const Matrix<double>& centroids, const SolverConfig& config,
                             const double* weights)>
        assign_float;
    // Optional: --solver auto's rule for this back end: an algorithm in `algorithms`
    // for n points, d coordinates, k clusters, and why (a short phrase). None: Lloyd.
    std::function<SolverChoice(std::size_t n, std::size_t d, std::size_t k)> choose_algorithm;
    // Optional: --solver auto's candidates to time on the run's own data, where speed
    // depends on the data's structure more than on n, d and k (the GPU). fit() runs
    // each a few steps from the first restart's centroids and keeps the fastest; all
    // are exact, so the choice changes the time, never the result.
    std::function<std::vector<Algorithm>(std::size_t n, std::size_t d, std::size_t k)> race_candidates;
    // Optional: initial centroids on the device, equal to kms::initialize_centroids().
    std::function<Matrix<double>(const Matrix<double>& points, std::size_t k, const InitOptions& init,
                                 const std::string& source_name, const SolverConfig& config)>
        initialize;
    // Optional: initial centroids from points in device memory (back ends whose
    // solvers take device data), equal to kms::initialize_centroids() of those values.
    std::function<Matrix<double>(const DeviceMatrix& points, std::size_t k, const InitOptions& init,
                                 const std::string& source_name, const SolverConfig& config)>
        initialize_device;
    // Optional: the exact silhouette on the device, equal to kms::silhouette().
    std::function<SilhouetteResult(const Matrix<double>& points, std::span<const std::int32_t> labels,
                                   std::stop_token stop, const SolverConfig& config)>
        silhouette;
    // Optional: the `count` smallest eigenpairs of a dense symmetric matrix (spectral
    // clustering's Laplacian). The CPU entries have LAPACK's dsyevr when the build found
    // LAPACKE; a device's eigensolver (cuSOLVER's syevd) plugs in here. Without one,
    // spectral_cluster() runs the CPU's and says so (kms/spectral.hpp).
    std::function<EigenPairs(const Matrix<double>& symmetric, std::size_t count, const SolverConfig& config)>
        smallest_eigenpairs;

    // Whether it can build `algorithm` (`algorithms`, or the solver registry's factories).
    bool has(Algorithm algorithm) const;
};

// Adds a back end, or replaces the entry registered for the same Backend.
void register_backend(BackendEntry entry);
// nullptr when nothing is registered for `backend` (e.g. CUDA in a CPU-only program).
const BackendEntry* find_backend(Backend backend);
// Every Backend value, registered or not, with its entry (nullptr if none), in enum order.
std::vector<Backend> all_backends();

// Whether a back end can run here; the reason when not (not built, no driver, no device).
BackendAvailability backend_availability(Backend backend);

// A solver for any configuration: validates it, then throws kms::Error naming the
// back end when it is unavailable or lacks the algorithm, and for Algorithm::Auto
// (which needs the data's shape: resolve_solver() first, as fit() does).
std::unique_ptr<Solver> make_solver(const SolverConfig& config);

// --solver auto: the solver for n points of d coordinates and k clusters by the
// back end's rule (BackendEntry::choose_algorithm; the CPU's is derived in
// docs/solvers.md from measurements), and why, in a sentence for reports. Every candidate is
// exact, so the choice changes the time, never the result; the same inputs give
// the same choice. A configuration that names an algorithm keeps it.
SolverChoice choose_solver(const SolverConfig& config, std::size_t n, std::size_t d, std::size_t k);
// `config` with Auto replaced by choose_solver()'s algorithm (what fit() runs).
SolverConfig resolve_solver(const SolverConfig& config, std::size_t n, std::size_t d, std::size_t k);
// --solver auto out of core (fit() of a RowSource; the CLI's memory plan): the back end's
// rule's choice (`rule`, choose_solver()) where it reads the file by blocks
// (SolverTraits::streams_points) and its bounds, which stay in memory, take at most
// `bound_bytes` a row (SolverTraits::bound_bytes; the most: no limit); else Hamerly where that
// reads by blocks and fits, else Lloyd; the reason says which and why.
SolverChoice out_of_core_choice(const SolverChoice& rule, const SolverConfig& config, std::size_t k,
                                std::uint64_t bound_bytes = UINT64_MAX);

// Initial centroids where the configuration runs: the back end's own initialiser
// when it has one and is available, else kms::initialize_centroids (same result).
Matrix<double> initialize_centroids_for(const SolverConfig& config, const Matrix<double>& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name = "data");

// Float host points: the centroids their values widened to double give (on a back
// end with its own initialiser, from a widened copy).
Matrix<double> initialize_centroids_for(const SolverConfig& config, const Matrix<float>& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name = "data");

// The same for points in device memory: the back end's initialize_device; kms::Error
// for a back end without one.
Matrix<double> initialize_centroids_for(const SolverConfig& config, const DeviceMatrix& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name = "data");

// The exact silhouette where the configuration runs (the CPU's when its back end has none).
SilhouetteResult silhouette_for(const SolverConfig& config, const Matrix<double>& points,
                                std::span<const std::int32_t> labels, std::stop_token stop = {});

// The scores of `kmeans-cli run --scores` and `sweep`: the silhouette exact up to
// kRunScoresExactLimit points, else sampled on that many (seed `seed`), computed
// where `config` runs (silhouette_for: the GPU for CUDA runs) when that back end is available.
ScoreSettings run_score_settings(std::size_t n, const SolverConfig& config, std::uint64_t seed);

}  // namespace kms
