#pragma once
// Clustering quality scores, computed as scikit-learn computes them
// (sklearn.metrics: silhouette_score / silhouette_samples, calinski_harabasz_score,
// davies_bouldin_score, adjusted_rand_score, normalized_mutual_info_score), plus
// the inertia and Fränti's centroid index.
//
// Labels are any int32 values (negative, non-contiguous): like scikit-learn's
// LabelEncoder they are mapped to 0..k-1 in increasing order of value.
// Every long call takes ScoreOptions::stop and throws kms::Error("... cancelled")
// soon after a stop request (the GUI runs these in a worker thread).
// Accumulation is in double for float and double data.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/matrix.hpp"

namespace kms {

struct ScoreOptions {
    int threads = 0;          // OpenMP threads; 0 = OpenMP's default
    std::stop_token stop;     // a stop request aborts with kms::Error("... cancelled")
};

// scikit-learn's LabelEncoder: classes sorted increasingly, codes index them.
struct LabelEncoding {
    std::vector<std::int32_t> codes;     // one per point, in [0, k)
    std::vector<std::int32_t> classes;   // the distinct labels, increasing: classes[code] = original label
    std::vector<std::uint64_t> counts;   // points per code
    std::size_t k() const noexcept { return classes.size(); }
};
LabelEncoding encode_labels(std::span<const std::int32_t> labels);

// scikit-learn's check_number_of_labels: throws kms::Error unless
// 2 <= n_labels <= n_samples - 1 (silhouette, Calinski–Harabasz, Davies–Bouldin).
void check_number_of_labels(std::size_t n_labels, std::size_t n_samples);

// Mean of each label's points, row = code of encode_labels(labels).
template <typename T>
Matrix<double> label_means(const Matrix<T>& points, std::span<const std::int32_t> labels,
                           const ScoreOptions& options = {});

// Σ ||x_i - centroids[labels[i]]||²: labels index the rows of centroids directly
// (a label outside [0, centroids.rows()) is an error naming the point).
template <typename T>
double inertia(const Matrix<T>& points, std::span<const std::int32_t> labels, const Matrix<double>& centroids,
               const ScoreOptions& options = {});

template <typename T>
double calinski_harabasz(const Matrix<T>& points, std::span<const std::int32_t> labels,
                         const ScoreOptions& options = {});

template <typename T>
double davies_bouldin(const Matrix<T>& points, std::span<const std::int32_t> labels,
                      const ScoreOptions& options = {});

struct SilhouetteResult {
    double score = 0.0;            // mean of values
    // Sampled: std(values, ddof=1) / sqrt(m), the standard error of the mean of the
    // sample's values; exact: 0.
    double standard_error = 0.0;
    std::vector<double> values;    // s(i) of every scored point (all points, or the sample in sample order)
    std::vector<std::uint64_t> indices;  // sampled: the point (row) of each value; exact: empty
    bool sampled = false;
};

// Exact silhouette, O(n²·d) time, O(n + k) extra memory (no distance matrix).
// Singleton clusters have s(i) = 0 (scikit-learn's nan_to_num), as do points with a = b = 0.
template <typename T>
SilhouetteResult silhouette(const Matrix<T>& points, std::span<const std::int32_t> labels,
                            const ScoreOptions& options = {});

// scikit-learn's silhouette_score(sample_size=m): the exact silhouette of a random
// subset of m points (without replacement; distances among the subset only).
// The subset is silhouette_sample_indices(n, m, seed). m >= n scores a permutation of all points.
template <typename T>
SilhouetteResult silhouette_sampled(const Matrix<T>& points, std::span<const std::int32_t> labels,
                                    std::size_t sample_size, std::uint64_t seed, const ScoreOptions& options = {});
std::vector<std::uint64_t> silhouette_sample_indices(std::size_t n, std::size_t sample_size, std::uint64_t seed);

// Rows `indices` of points / labels (the subset a sampled silhouette scores).
template <typename T>
Matrix<T> select_rows(const Matrix<T>& points, std::span<const std::uint64_t> indices);
std::vector<std::int32_t> select_labels(std::span<const std::int32_t> labels, std::span<const std::uint64_t> indices);

// Against a ground truth (labels may be any int32, the two lists the same length).
double adjusted_rand_index(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted);
double normalized_mutual_info(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted);  // arithmetic mean
// Fränti & Rezaei's centroid index: each centroid of one set maps to its nearest in
// the other; CI = max(orphans of `truth` when `predicted` maps onto it, orphans of
// `predicted` when `truth` maps onto it). 0 = every cluster found.
int centroid_index(const Matrix<double>& predicted, const Matrix<double>& truth);

// All scores at once (CLI `score`, `run --scores`, the GUI's live panel).
enum class SilhouetteMode { None, Exact, Sampled };

struct ScoreSettings {
    SilhouetteMode silhouette = SilhouetteMode::Exact;
    std::size_t sample_size = 0;   // SilhouetteMode::Sampled
    std::uint64_t seed = 0;        // SilhouetteMode::Sampled
    ScoreOptions options;
    // Computes the exact silhouette (of all points, or of the sample); empty = the
    // CPU one. The CLI sets kms::gpu_silhouette here for --backend cuda.
    std::function<SilhouetteResult(const Matrix<double>&, std::span<const std::int32_t>, std::stop_token)>
        exact_silhouette;
};

// Up to this many points `run --scores` (and a sweep's scores) compute the exact
// silhouette; beyond, a sample of this many (kms::run_score_settings, kms/backends.hpp).
inline constexpr std::size_t kRunScoresExactLimit = 20000;
// The silhouette mode `text` names: exact | none | sampled (on kRunScoresExactLimit
// points) | sampled:N, set in `settings`; kms::UsageError naming `option` otherwise.
void parse_silhouette_mode(const std::string& option, const std::string& text, ScoreSettings& settings);

struct ScoreInputs {
    const Matrix<double>* points = nullptr;          // required
    std::span<const std::int32_t> labels;            // required, one per point
    const Matrix<double>* centroids = nullptr;       // for inertia and CI; null = label means
    std::span<const std::int32_t> truth_labels;      // empty = no ARI/NMI
    const Matrix<double>* truth_centroids = nullptr; // null = no CI
    std::string source;                              // the points' file, for messages (may be empty)
};

struct Scores {
    static constexpr double none = std::numeric_limits<double>::quiet_NaN();
    double silhouette = none;                  // NaN when not computed or undefined
    double silhouette_standard_error = none;   // sampled only
    std::size_t silhouette_points = 0;         // points scored (n, or the sample size)
    double calinski_harabasz = none;
    double davies_bouldin = none;
    double inertia = none;
    double ari = none;
    double nmi = none;
    std::optional<int> centroid_index;
    std::vector<std::string> notes;            // why a score is missing (e.g. one cluster)
    SilhouetteResult silhouette_detail;        // per-point values for the GUI's plot
};

// Undefined scores (e.g. one cluster) are NaN with the reason in notes; input
// errors (sizes that do not match, bad centroid labels) and cancellation throw.
Scores compute_scores(const ScoreInputs& inputs, const ScoreSettings& settings);

// JSON fields, without braces: "silhouette":x,"calinski_harabasz":...,"davies_bouldin",
// "inertia" (unless with_inertia is false: a run summary has its own), then "ari",
// "nmi" / "centroid_index" when computed; sampled adds "silhouette_standard_error" and
// "silhouette_sample_size"; NaN (undefined) is null.
std::string scores_json_fields(const Scores& scores, bool with_inertia = true);
// Human-readable lines "name  value".
std::string scores_table(const Scores& scores);

}  // namespace kms
