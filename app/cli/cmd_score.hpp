#pragma once
// The scores `kmeans-cli run --scores` prints with its summary (cmd_score.cpp).
#include <cstdint>
#include <span>
#include <string>

#include "kms/dataset.hpp"
#include "kms/scores.hpp"
#include "kms/solver.hpp"

namespace kms::cli {

// Up to this many points the silhouette is exact; beyond, sampled on this many.
constexpr std::size_t kRunScoresExactLimit = 20000;

// The settings of `run --scores`: the silhouette exact up to kRunScoresExactLimit
// points, else sampled on that many (seed `seed`), on the back end of `config`
// when it has its own (the GPU for CUDA runs).
ScoreSettings run_score_settings(std::size_t n, const SolverConfig& config, std::uint64_t seed);
// The silhouette mode of `option`: exact | none | sampled (on kRunScoresExactLimit
// points) | sampled:N; kms::UsageError naming the option otherwise.
void parse_silhouette_mode(const std::string& option, const std::string& text, ScoreSettings& settings);

// Scores of a finished run: inertia and centroid index against `centroids`, ARI/NMI
// and CI against the data's ground truth where it has one; the silhouette on the
// back end of `config` (the GPU for CUDA runs). Undefined scores are NaN (k = 1) with a note on stderr.
Scores run_scores(const Matrix<double>& points, std::span<const std::int32_t> labels, const Matrix<double>& centroids,
                  const Dataset& truth, const SolverConfig& config, std::uint64_t seed);
// "# name  value" lines for the table report.
void print_run_scores_table(const Scores& scores);

}  // namespace kms::cli
