#pragma once
// Machine-readable run reports: one JSON object per iteration, one summary.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kms/fit.hpp"
#include "kms/solver.hpp"
#include "kms/spectral.hpp"
#include "kms/stats.hpp"
#include "kms/sweep.hpp"

namespace kms {

struct RunSummary {
    std::string solver;          // SolverConfig::describe() of the solver that ran
    std::string solver_choice;   // --solver auto: what it chose and why; empty otherwise
    std::string data;            // dataset name
    std::size_t n = 0, d = 0, k = 0;
    int iterations = 0;
    bool converged = false;      // stopped by a convergence test, not by max iterations
    StopReason stop_reason = StopReason::NotStopped;
    double inertia = 0.0;        // of the final labels and centroids
    double total_time_ms = 0.0;  // sum of step times (every restart)
    std::uint64_t seed = 0;      // of the first restart
    int n_init = 1;
    int best_restart = 0;        // index into restarts of the run kept
    std::vector<RestartResult> restarts;
    std::string init;            // the seeding method (to_string(InitMethod)); its cost is restarts[best_restart].init
    std::vector<int> devices;    // --devices: the devices that held rows, in rank order; empty otherwise
};

// The summary of a fit of `n` × `d` points named `data`.
RunSummary summarize(const FitResult& result, const FitOptions& options, const std::string& data, std::size_t n,
                     std::size_t d);

// One line on what a seeding cost, for people (the CLI's table report, the studio's
// status bar): "k-means++ with bounds: 12.3 ms, 1.69e+07 point distances (1.7 % of n·k),
// 5e+05 centre distances"; k-means‖ adds its candidates and rounds.
std::string describe_seeding(std::string_view method, const InitStats& init, std::size_t n, std::size_t k);

std::string to_json(const IterationStats& stats);   // one line, no trailing newline
// The same with "restart": R first, for fits with several restarts.
std::string to_json(const IterationStats& stats, int restart);
std::string to_json(const RunSummary& summary);     // one line, no trailing newline
// A sweep (kms/sweep.hpp): one line per level, {"type":"level","k":K,"inertia",
// "iterations","stop_reason","seed","start" (the init method, or "merged" for a
// hierarchy level seeded from the level above),"fit_ms","scores_ms", then the
// score fields of scores_json_fields without the inertia}; and the summary
// {"type":"sweep_summary","data","n","d","k_range","hierarchy","solver","levels",
// "cancelled","elbow_k","elbow_reason","best_silhouette_k","best_calinski_harabasz_k",
// "best_davies_bouldin_k","total_time_ms"} (a k is null when there is none).
std::string to_json(const SweepLevel& level, const SweepOptions& options);
std::string to_json(const SweepResult& result, const SweepOptions& options, const std::string& data, std::size_t n,
                    std::size_t d);
// The summary of a spectral run of `data` (kmeans-cli spectral): the phases' times,
// the eigenvalues, the eigengap, sigma, k_c; `extra_fields` (without braces, e.g.
// "ari":..) are appended inside the object.
std::string to_json(const SpectralResult& result, const std::string& data, const std::string& extra_fields = {});
std::string json_escape(const std::string& text);
// Shortest text that parses back to the same double (JSON has no NaN: null).
std::string json_number(double value);

}  // namespace kms
