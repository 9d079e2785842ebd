#pragma once
// The solvers as data. Each solver file registers its algorithm (name, one line of
// help, what it can do, what the studio's bounds view shows of it) and its factory
// for each back end it runs on, in a KMS_SOLVER_REGISTRATION block beside its code.
// The CLI's help and errors, the studio's panels, Python, the benchmarks and the
// tests list what is registered: a new exact solver is its CPU file and its CUDA
// file(s), with nothing else to edit.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kms/solver.hpp"

namespace kms {

struct AlgorithmInfo {
    Algorithm algorithm;         // its name: --solver, reports, Python's solver=
    std::string description;     // one line, for --help and the studio's panel
    int published = 0;           // the year of its paper: lists show the solvers in this order
    // What lets it skip a point's full search, for the studio's bounds view (which
    // colours skipped and recomputed points); empty for a solver that searches every
    // point in full, whose bounds view has nothing to show.
    std::string pruning;

    bool prunes() const { return !pruning.empty(); }
};

using SolverFactory = std::function<std::unique_ptr<Solver>(const SolverConfig&)>;

// What one algorithm's solver can do on one back end.
struct SolverTraits {
    // Runs on points read from host memory a block at a time, each step: out of core on
    // the CPU (a file's blocks), --stream-chunk on a CUDA device (host memory's chunks).
    bool streams_points = false;
    // Values of the solver's precision it keeps per point beside the label (its bounds):
    // bounds_per_point, and one more per centroids_per_bound centroids (at least one;
    // 0: none), Yinyang's group bounds. What out of core must keep in memory for every row.
    int bounds_per_point = 0;
    int centroids_per_bound = 0;  // Elkan 1 (k lower bounds), Yinyang 10 (a group bound)

    // The bytes those bounds take per point at k centroids in `precision`.
    std::uint64_t bound_bytes(std::size_t k, Precision precision) const {
        const std::uint64_t per_centroids =
            centroids_per_bound > 0 ? std::max<std::uint64_t>(1, k / static_cast<std::uint64_t>(centroids_per_bound)) : 0;
        return (static_cast<std::uint64_t>(bounds_per_point) + per_centroids) * (precision == Precision::F32 ? 4 : 8);
    }
};

// Adds an algorithm (or replaces the one of the same name).
void register_algorithm(AlgorithmInfo info);
// Its factory on `backend`; the algorithm must be registered first (its CPU file
// registers it, the CUDA file only adds a factory).
void register_solver(Algorithm algorithm, Backend backend, SolverFactory make, SolverTraits traits = {});

// Every registered algorithm, oldest paper first (Auto is not one).
std::vector<AlgorithmInfo> registered_algorithms();
// nullopt for a name nobody registered (and for Auto).
std::optional<AlgorithmInfo> algorithm_info(Algorithm algorithm);
// The factory registered for `algorithm` on `backend`; empty when there is none.
SolverFactory registered_solver(Algorithm algorithm, Backend backend);
// Its traits on `backend`; all false when there is no such solver.
SolverTraits solver_traits(Algorithm algorithm, Backend backend);
// The registered names joined by `separator`, oldest first: "lloyd | elkan | ...".
std::string algorithm_names(std::string_view separator);

}  // namespace kms

// A solver file's registration: KMS_SOLVER_REGISTRATION(lloyd_cpu) { register_... }.
// The build finds every use in core/src/solvers and gpu/src/solvers
// (core/cmake/solver_registrations.cmake) and runs them before the registry is first read,
// so no list of solver files is kept by hand (and the linker cannot drop one).
#define KMS_SOLVER_REGISTRATION(id)       \
    void kms_solver_registration_##id();  \
    void kms_solver_registration_##id()
