#pragma once
// The scores `kmeans-cli run --scores` prints with its summary (cmd_score.cpp).
#include <cstdint>
#include <span>
#include <string>

#include "kms/backends.hpp"
#include "kms/dataset.hpp"
#include "kms/scores.hpp"
#include "kms/solver.hpp"

namespace kms::cli {

// run_score_settings, parse_silhouette_mode and kRunScoresExactLimit are the
// engine's (kms/backends.hpp, kms/scores.hpp): the Python module uses them too.

// Scores of a finished run: inertia and centroid index against `centroids`, ARI/NMI
// and CI against the data's ground truth where it has one; the silhouette on the
// back end of `config` (the GPU for CUDA runs). Undefined scores are NaN (k = 1) with a note on stderr.
Scores run_scores(const Matrix<double>& points, std::span<const std::int32_t> labels, const Matrix<double>& centroids,
                  const Dataset& truth, const SolverConfig& config, std::uint64_t seed);
// "# name  value" lines for the table report.
void print_run_scores_table(const Scores& scores);

}  // namespace kms::cli
