#pragma once
// A k-sweep: one fit per k of a range, each scored (silhouette, Calinski–Harabasz,
// Davies–Bouldin), with an elbow suggestion (the kneedle rule on inertia against k)
// and the best k of each score. With `hierarchy`, Rombaut's generalisation
// hierarchy: the largest k is fitted as usual, each smaller level starts from the
// level above with its closest centroids merged (size-weighted means) and is
// refined by a fit from those centroids. Every fit goes through kms::fit, so a
// plain sweep's level k is bit for bit `kmeans-cli run --k k` with the same options.
// Used by `kmeans-cli sweep` and the studio's elbow chart; docs/sweep.md.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "kms/fit.hpp"
#include "kms/matrix.hpp"
#include "kms/scores.hpp"

namespace kms {

// first:last[:step], first >= 1, last >= first, step >= 1.
struct KRange {
    std::size_t first = 2, last = 2, step = 1;
    std::vector<std::size_t> values() const;  // first, first + step, ... <= last
};
// "2:10" or "2:20:2". Throws kms::UsageError naming `option` and the reason
// (not numbers, 0, last < first, step 0, more than kMaxSweepLevels values).
KRange parse_k_range(std::string_view text, std::string_view option = "--k-range");
inline constexpr std::size_t kMaxSweepLevels = 10000;

struct SweepOptions {
    FitOptions fit;            // every level's fit (k is set per level; n_init applies to the top
                               // level only with `hierarchy`: the others start from merged centroids)
    KRange range;
    bool hierarchy = false;
    bool scores = true;        // silhouette / CH / DB per level (settings below)
    ScoreSettings score_settings;  // its options.stop is replaced by sweep()'s stop token
};

struct SweepLevel {
    std::size_t k = 0;
    FitResult fit;             // labels, centroids, initial centroids, inertia, iterations
    Scores scores;             // NaN everywhere when not computed
    double fit_ms = 0.0;       // wall time of the fit (initialisation and every step)
    double scores_ms = 0.0;    // wall time of the scores
};

// One suggestion and why (the reason is shown when there is none).
struct KChoice {
    std::optional<std::size_t> k;
    std::string reason;
};

struct SweepResult {
    std::vector<SweepLevel> levels;   // completed levels, increasing k
    bool cancelled = false;           // a stop request ended it: `levels` are those finished before
    KChoice elbow;                    // kneedle on inertia
    KChoice best_silhouette, best_calinski_harabasz, best_davies_bouldin;
};

class SweepObserver {
public:
    virtual ~SweepObserver() = default;
    // Before level `index` (0-based, in fitting order) of `count` starts.
    virtual void level_started(std::size_t /*index*/, std::size_t /*count*/, std::size_t /*k*/) {}
    virtual void level_done(std::size_t /*index*/, std::size_t /*count*/, const SweepLevel& /*level*/) {}
};

// Throws kms::InputError naming `source_name` when the range's largest k exceeds
// the points, kms::UsageError for bad options. A stop request ends the sweep after
// the step in progress; the level it interrupted is dropped.
SweepResult sweep(std::shared_ptr<const Matrix<double>> points, const SweepOptions& options,
                  SweepObserver* observer = nullptr, std::stop_token stop = {},
                  const std::string& source_name = "data");

// The levels file: a header "k=K1,k=K2,..." (increasing k), then one row per point
// with its label at every level. Throws kms::Error when there is no level.
std::string levels_csv_text(const SweepResult& result);

// Rombaut's merge: the two closest centroids (squared Euclidean distance; ties to
// the lowest pair (i, j), i < j) become their size-weighted mean at row i; row j
// is removed and `sizes` follows (sizes[i] += sizes[j]). Two empty clusters merge
// to their midpoint. Needs at least 2 rows and sizes.size() == rows.
void merge_closest_centroids(Matrix<double>& centroids, std::vector<double>& sizes);

// The kneedle rule (Satopää et al. 2011) for a decreasing curve: k and y are
// normalised to [0, 1], the elbow is the k farthest below the chord from the first
// to the last point (ties: the smallest k). None with fewer than 3 points, a
// non-finite value, a flat curve, or when that largest distance is below
// kKneedleMinimum (a nearly straight curve has no elbow).
inline constexpr double kKneedleMinimum = 0.05;
KChoice kneedle_elbow(const std::vector<std::size_t>& k, const std::vector<double>& y);

// The k of the largest (or smallest) finite value; ties: the smallest k.
KChoice best_k(const std::vector<std::size_t>& k, const std::vector<double>& values, bool larger_is_better);

}  // namespace kms
