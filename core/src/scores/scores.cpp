// Quality scores other than the silhouette (scores_silhouette.cpp): label
// encoding, inertia, Calinski–Harabasz, Davies–Bouldin, ARI, NMI, centroid index,
// and the all-in-one compute_scores() with its JSON / table output.
// Each formula follows scikit-learn 1.2's sklearn/metrics/cluster source step by
// step (same special cases, same order of divisions) so the results agree to
// rounding.
#include "kms/scores.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <new>
#include <numeric>
#include <sstream>

#include "kms/distance.hpp"
#include "kms/error.hpp"
#include "kms/short_number.hpp"

namespace kms {

namespace {

constexpr std::size_t kBlockPoints = 16384;  // points per work unit: a stop request is seen within one block

int thread_count(const ScoreOptions& options) {
    return options.threads > 0 ? options.threads : omp_get_max_threads();
}

void require_same_length(std::size_t points, std::size_t labels) {
    if (points != labels)
        throw Error("labels do not match the points: " + std::to_string(labels) + " labels for " +
                    std::to_string(points) + " points");
}

// Runs body(begin, end, thread) over blocks of points on `threads` threads
// (static schedule: a given thread count always splits the same way), and throws
// "<what> cancelled" if a stop was requested.
template <typename Body>
void for_blocks(std::size_t n, const ScoreOptions& options, const char* what, Body&& body) {
    const std::size_t blocks = (n + kBlockPoints - 1) / kBlockPoints;
    std::atomic<bool> cancelled{false};
#pragma omp parallel for schedule(static) num_threads(thread_count(options))
    for (std::size_t block = 0; block < blocks; ++block) {
        if (cancelled.load(std::memory_order_relaxed)) continue;
        if (options.stop.stop_requested()) {
            cancelled.store(true, std::memory_order_relaxed);
            continue;
        }
        const std::size_t begin = block * kBlockPoints;
        body(begin, std::min(n, begin + kBlockPoints), omp_get_thread_num());
    }
    if (cancelled.load()) throw Error(std::string(what) + " cancelled");
}

// Per-code means (two passes: the second corrects the first one's rounding, so
// a cluster of identical points has exactly that point as its mean, which makes
// the "intra-cluster dispersion is 0" cases exact).
template <typename T>
Matrix<double> encoded_means(const Matrix<T>& points, const LabelEncoding& encoding, const ScoreOptions& options) {
    const std::size_t d = points.cols(), k = encoding.k(), n = points.rows();
    const int threads = thread_count(options);
    auto per_thread_sums = [&](auto&& value_of) {
        std::vector<Matrix<double>> partial(static_cast<std::size_t>(threads), Matrix<double>(k, d, 0.0));
        for_blocks(n, options, "scores", [&](std::size_t begin, std::size_t end, int thread) {
            Matrix<double>& sums = partial[static_cast<std::size_t>(thread)];
            for (std::size_t i = begin; i < end; ++i) {
                double* row = sums.row(static_cast<std::size_t>(encoding.codes[i]));
                for (std::size_t j = 0; j < d; ++j) row[j] += value_of(i, j);
            }
        });
        Matrix<double> total(k, d, 0.0);
        for (const Matrix<double>& sums : partial)
            for (std::size_t v = 0; v < total.size(); ++v) total.data()[v] += sums.data()[v];
        return total;
    };
    Matrix<double> means = per_thread_sums([&](std::size_t i, std::size_t j) { return double(points(i, j)); });
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t j = 0; j < d; ++j) means(c, j) /= double(encoding.counts[c]);
    const Matrix<double> residual = per_thread_sums([&](std::size_t i, std::size_t j) {
        return double(points(i, j)) - means(static_cast<std::size_t>(encoding.codes[i]), j);
    });
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t j = 0; j < d; ++j) means(c, j) += residual(c, j) / double(encoding.counts[c]);
    return means;
}

double euclidean(const double* a, const double* b, std::size_t d) { return std::sqrt(squared_distance(a, b, d)); }

}  // namespace

LabelEncoding encode_labels(std::span<const std::int32_t> labels) {
    LabelEncoding encoding;
    encoding.classes.assign(labels.begin(), labels.end());
    std::sort(encoding.classes.begin(), encoding.classes.end());
    encoding.classes.erase(std::unique(encoding.classes.begin(), encoding.classes.end()), encoding.classes.end());
    encoding.counts.assign(encoding.classes.size(), 0);
    encoding.codes.resize(labels.size());
    // Few distinct labels spanning a small range (the usual 0..k-1): a lookup table.
    const bool dense = !encoding.classes.empty() &&
                       std::int64_t(encoding.classes.back()) - encoding.classes.front() < std::int64_t(4 * labels.size() + 1024);
    std::vector<std::int32_t> table;
    if (dense) {
        table.assign(std::size_t(std::int64_t(encoding.classes.back()) - encoding.classes.front() + 1), -1);
        for (std::size_t c = 0; c < encoding.classes.size(); ++c)
            table[std::size_t(std::int64_t(encoding.classes[c]) - encoding.classes.front())] = std::int32_t(c);
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::int32_t code =
            dense ? table[std::size_t(std::int64_t(labels[i]) - encoding.classes.front())]
                  : std::int32_t(std::lower_bound(encoding.classes.begin(), encoding.classes.end(), labels[i]) -
                                 encoding.classes.begin());
        encoding.codes[i] = code;
        ++encoding.counts[std::size_t(code)];
    }
    return encoding;
}

void check_number_of_labels(std::size_t n_labels, std::size_t n_samples) {
    if (!(1 < n_labels && n_labels < n_samples))
        throw Error("Number of labels is " + std::to_string(n_labels) +
                    ". Valid values are 2 to n_samples - 1 (inclusive) (n_samples is " + std::to_string(n_samples) +
                    ")");
}

template <typename T>
Matrix<double> label_means(const Matrix<T>& points, std::span<const std::int32_t> labels, const ScoreOptions& options) {
    require_same_length(points.rows(), labels.size());
    return encoded_means(points, encode_labels(labels), options);
}

template <typename T>
double inertia(const Matrix<T>& points, std::span<const std::int32_t> labels, const Matrix<double>& centroids,
               const ScoreOptions& options) {
    require_same_length(points.rows(), labels.size());
    const std::size_t n = points.rows(), d = points.cols(), k = centroids.rows();
    if (k > 0 && centroids.cols() != d)
        throw Error("centroids have " + std::to_string(centroids.cols()) + " coordinates, the points " +
                    std::to_string(d));
    for (std::size_t i = 0; i < n; ++i)
        if (labels[i] < 0 || std::size_t(labels[i]) >= k)
            throw Error("label " + std::to_string(labels[i]) + " of point " + std::to_string(i) +
                        " (0-based) names no centroid: there are " + std::to_string(k) + " centroids");
    const std::size_t blocks = (n + kBlockPoints - 1) / kBlockPoints;
    std::vector<double> block_sums(blocks, 0.0);  // summed in block order: the same result for any thread count
    for_blocks(n, options, "inertia", [&](std::size_t begin, std::size_t end, int) {
        double sum = 0.0;
        for (std::size_t i = begin; i < end; ++i) {
            const double* c = centroids.row(std::size_t(labels[i]));
            for (std::size_t j = 0; j < d; ++j) {
                const double diff = double(points(i, j)) - c[j];
                sum += diff * diff;
            }
        }
        block_sums[begin / kBlockPoints] = sum;
    });
    return std::accumulate(block_sums.begin(), block_sums.end(), 0.0);
}

template <typename T>
double calinski_harabasz(const Matrix<T>& points, std::span<const std::int32_t> labels, const ScoreOptions& options) {
    require_same_length(points.rows(), labels.size());
    const LabelEncoding encoding = encode_labels(labels);
    const std::size_t n = points.rows(), d = points.cols(), k = encoding.k();
    check_number_of_labels(k, n);
    const Matrix<double> means = encoded_means(points, encoding, options);

    std::vector<double> overall(d, 0.0);
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t j = 0; j < d; ++j) overall[j] += double(encoding.counts[c]) * means(c, j);
    for (double& v : overall) v /= double(n);

    double extra_disp = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
        double sq = 0.0;
        for (std::size_t j = 0; j < d; ++j) sq += (means(c, j) - overall[j]) * (means(c, j) - overall[j]);
        extra_disp += double(encoding.counts[c]) * sq;
    }
    const std::size_t blocks = (n + kBlockPoints - 1) / kBlockPoints;
    std::vector<double> block_sums(blocks, 0.0);
    for_blocks(n, options, "Calinski-Harabasz score", [&](std::size_t begin, std::size_t end, int) {
        double sum = 0.0;
        for (std::size_t i = begin; i < end; ++i) {
            const double* mean = means.row(std::size_t(encoding.codes[i]));
            for (std::size_t j = 0; j < d; ++j) {
                const double diff = double(points(i, j)) - mean[j];
                sum += diff * diff;
            }
        }
        block_sums[begin / kBlockPoints] = sum;
    });
    const double intra_disp = std::accumulate(block_sums.begin(), block_sums.end(), 0.0);
    // scikit-learn: 1.0 when every cluster is a single repeated point.
    if (intra_disp == 0.0) return 1.0;
    return extra_disp * double(n - k) / (intra_disp * (double(k) - 1.0));
}

template <typename T>
double davies_bouldin(const Matrix<T>& points, std::span<const std::int32_t> labels, const ScoreOptions& options) {
    require_same_length(points.rows(), labels.size());
    const LabelEncoding encoding = encode_labels(labels);
    const std::size_t n = points.rows(), d = points.cols(), k = encoding.k();
    check_number_of_labels(k, n);
    const Matrix<double> centroids = encoded_means(points, encoding, options);

    // intra[c] = mean distance of cluster c's points to its centroid.
    const int threads = thread_count(options);
    std::vector<std::vector<double>> partial(std::size_t(threads), std::vector<double>(k, 0.0));
    for_blocks(n, options, "Davies-Bouldin score", [&](std::size_t begin, std::size_t end, int thread) {
        std::vector<double>& sums = partial[std::size_t(thread)];
        std::vector<double> x(d);
        for (std::size_t i = begin; i < end; ++i) {
            for (std::size_t j = 0; j < d; ++j) x[j] = double(points(i, j));
            const std::size_t c = std::size_t(encoding.codes[i]);
            sums[c] += euclidean(x.data(), centroids.row(c), d);
        }
    });
    std::vector<double> intra(k, 0.0);
    for (const std::vector<double>& sums : partial)
        for (std::size_t c = 0; c < k; ++c) intra[c] += sums[c];
    for (std::size_t c = 0; c < k; ++c) intra[c] /= double(encoding.counts[c]);

    // np.allclose(x, 0): every |x| <= 1e-8 (atol; rtol·0 adds nothing).
    const auto all_near_zero = [](auto begin, auto end) {
        return std::all_of(begin, end, [](double v) { return std::abs(v) <= 1e-8; });
    };
    Matrix<double> centroid_distances(k, k, 0.0);
    for (std::size_t a = 0; a < k; ++a)
        for (std::size_t b = 0; b < k; ++b)
            if (a != b) centroid_distances(a, b) = euclidean(centroids.row(a), centroids.row(b), d);
    if (all_near_zero(intra.begin(), intra.end()) ||
        all_near_zero(centroid_distances.values().begin(), centroid_distances.values().end()))
        return 0.0;

    double score_sum = 0.0;
    for (std::size_t a = 0; a < k; ++a) {
        double worst = -std::numeric_limits<double>::infinity();
        for (std::size_t b = 0; b < k; ++b) {
            // scikit-learn replaces zero centroid distances (the diagonal, coincident
            // centroids) by inf, so those pairs contribute 0.
            const double distance = centroid_distances(a, b);
            const double ratio = distance == 0.0 ? (intra[a] + intra[b]) / std::numeric_limits<double>::infinity()
                                                 : (intra[a] + intra[b]) / distance;
            worst = std::max(worst, ratio);
        }
        score_sum += worst;
    }
    return score_sum / double(k);
}

template <typename T>
Matrix<T> select_rows(const Matrix<T>& points, std::span<const std::uint64_t> indices) {
    Matrix<T> subset(indices.size(), points.cols());
    for (std::size_t r = 0; r < indices.size(); ++r) {
        if (indices[r] >= points.rows())
            throw Error("row " + std::to_string(indices[r]) + " is out of range (" + std::to_string(points.rows()) +
                        " rows)");
        std::copy_n(points.row(indices[r]), points.cols(), subset.row(r));
    }
    return subset;
}

std::vector<std::int32_t> select_labels(std::span<const std::int32_t> labels, std::span<const std::uint64_t> indices) {
    std::vector<std::int32_t> subset(indices.size());
    for (std::size_t r = 0; r < indices.size(); ++r) {
        if (indices[r] >= labels.size())
            throw Error("row " + std::to_string(indices[r]) + " is out of range (" + std::to_string(labels.size()) +
                        " labels)");
        subset[r] = labels[indices[r]];
    }
    return subset;
}

namespace {

// The nonzero cells of the contingency table, row-major (truth code, predicted code).
struct Contingency {
    LabelEncoding truth, predicted;
    std::vector<std::uint64_t> cell_truth, cell_predicted, cell_count;
};

Contingency contingency_table(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted) {
    if (truth.size() != predicted.size())
        throw Error("the true and predicted labels differ in length: " + std::to_string(truth.size()) + " vs " +
                    std::to_string(predicted.size()));
    Contingency table;
    table.truth = encode_labels(truth);
    table.predicted = encode_labels(predicted);
    const std::uint64_t kp = table.predicted.k();
    std::vector<std::uint64_t> keys(truth.size());
    for (std::size_t i = 0; i < truth.size(); ++i)
        keys[i] = std::uint64_t(table.truth.codes[i]) * kp + std::uint64_t(table.predicted.codes[i]);
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t j = i;
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        table.cell_truth.push_back(keys[i] / kp);
        table.cell_predicted.push_back(keys[i] % kp);
        table.cell_count.push_back(j - i);
        i = j;
    }
    return table;
}

// scikit-learn's entropy(labels), natural logarithm.
double label_entropy(const std::vector<std::uint64_t>& counts) {
    if (counts.size() <= 1) return 0.0;
    double total = 0.0;
    for (std::uint64_t c : counts) total += double(c);
    const double log_total = std::log(total);
    double sum = 0.0;
    for (std::uint64_t c : counts) sum += (double(c) / total) * (std::log(double(c)) - log_total);
    return -sum;
}

}  // namespace

double adjusted_rand_index(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted) {
    const Contingency table = contingency_table(truth, predicted);
    using Wide = __int128;  // Python's integers do not overflow; n² · n² needs 128 bits beyond n ≈ 55 000
    const Wide n = Wide(truth.size());
    Wide sum_squares = 0, truth_squares = 0, predicted_squares = 0;
    for (std::uint64_t c : table.cell_count) sum_squares += Wide(c) * Wide(c);
    for (std::uint64_t c : table.truth.counts) truth_squares += Wide(c) * Wide(c);
    for (std::uint64_t c : table.predicted.counts) predicted_squares += Wide(c) * Wide(c);
    // scikit-learn's pair_confusion_matrix.
    const Wide tp = sum_squares - n;
    const Wide fp = predicted_squares - sum_squares;
    const Wide fn = truth_squares - sum_squares;
    const Wide tn = n * n - fp - fn - sum_squares;
    if (fn == 0 && fp == 0) return 1.0;
    const double numerator = double(tp * tn - fn * fp);
    const double denominator = double((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn));
    return 2.0 * numerator / denominator;
}

double normalized_mutual_info(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted) {
    const Contingency table = contingency_table(truth, predicted);
    const std::size_t classes = table.truth.k(), clusters = table.predicted.k();
    // No split on either side (or no data): a perfect match.
    if ((classes == 1 && clusters == 1) || (classes == 0 && clusters == 0)) return 1.0;

    // scikit-learn's mutual_info_score on the contingency table.
    double mi = 0.0;
    if (classes > 1 && clusters > 1) {
        double total = 0.0;
        for (std::uint64_t c : table.cell_count) total += double(c);
        const double log_total = std::log(total);
        const double log_sums = std::log(total) + std::log(total);  // log(pi.sum()) + log(pj.sum())
        const double eps = std::numeric_limits<double>::epsilon();
        for (std::size_t cell = 0; cell < table.cell_count.size(); ++cell) {
            const double count = double(table.cell_count[cell]);
            const double p = count / total;
            const std::int64_t outer = std::int64_t(table.truth.counts[table.cell_truth[cell]]) *
                                       std::int64_t(table.predicted.counts[table.cell_predicted[cell]]);
            const double log_outer = -std::log(double(outer)) + log_sums;
            double term = p * (std::log(count) - log_total) + p * log_outer;
            if (std::abs(term) < eps) term = 0.0;
            mi += term;
        }
        mi = std::max(mi, 0.0);
    }
    if (mi == 0.0) return 0.0;
    const double h_true = label_entropy(table.truth.counts);
    const double h_pred = label_entropy(table.predicted.counts);
    return mi / ((h_true + h_pred) / 2.0);
}

int centroid_index(const Matrix<double>& predicted, const Matrix<double>& truth) {
    if (predicted.rows() == 0 || truth.rows() == 0) throw Error("centroid index: a centroid set is empty");
    if (predicted.cols() != truth.cols())
        throw Error("centroid index: predicted centroids have " + std::to_string(predicted.cols()) +
                    " coordinates, true centroids " + std::to_string(truth.cols()));
    const std::size_t d = predicted.cols();
    // Orphans of `to` when every centroid of `from` maps to its nearest in `to`.
    auto orphans = [d](const Matrix<double>& from, const Matrix<double>& to) {
        std::vector<bool> mapped(to.rows(), false);
        for (std::size_t a = 0; a < from.rows(); ++a) {
            std::size_t nearest = 0;
            double best = squared_distance(from.row(a), to.row(0), d);
            for (std::size_t b = 1; b < to.rows(); ++b) {
                const double dist = squared_distance(from.row(a), to.row(b), d);
                if (dist < best) best = dist, nearest = b;
            }
            mapped[nearest] = true;
        }
        return int(std::count(mapped.begin(), mapped.end(), false));
    };
    return std::max(orphans(predicted, truth), orphans(truth, predicted));
}

namespace {
Scores scores_in_memory(const ScoreInputs& inputs, const ScoreSettings& settings) {
    const Matrix<double>& points = *inputs.points;
    require_same_length(points.rows(), inputs.labels.size());
    if (!inputs.truth_labels.empty() && inputs.truth_labels.size() != inputs.labels.size())
        throw Error("true labels do not match the points: " + std::to_string(inputs.truth_labels.size()) +
                    " true labels for " + std::to_string(points.rows()) + " points");
    Scores scores;
    const ScoreOptions& options = settings.options;
    const LabelEncoding encoding = encode_labels(inputs.labels);
    const std::size_t n = points.rows(), k = encoding.k();
    const bool defined = 1 < k && k < n;
    if (!defined) {
        try {
            check_number_of_labels(k, n);
        } catch (const Error& e) {
            scores.notes.push_back(std::string("silhouette, Calinski-Harabasz and Davies-Bouldin are undefined: ") +
                                   e.what());
        }
    }

    // Inertia against the given centroids (labels index them) or the label means.
    if (inputs.centroids) {
        scores.inertia = inertia(points, inputs.labels, *inputs.centroids, options);
    } else if (n > 0) {
        const Matrix<double> means = encoded_means(points, encoding, options);
        scores.inertia = inertia(points, std::span<const std::int32_t>(encoding.codes), means, options);
    } else {
        scores.inertia = 0.0;
    }

    if (defined) {
        scores.calinski_harabasz = calinski_harabasz(points, inputs.labels, options);
        scores.davies_bouldin = davies_bouldin(points, inputs.labels, options);
    }

    if (settings.silhouette != SilhouetteMode::None) {
        const auto exact = [&](const Matrix<double>& subset, std::span<const std::int32_t> subset_labels) {
            if (settings.exact_silhouette) return settings.exact_silhouette(subset, subset_labels, options.stop);
            return silhouette(subset, subset_labels, options);
        };
        SilhouetteResult result;
        bool have = false;
        if (settings.silhouette == SilhouetteMode::Exact) {
            if (defined) {
                result = exact(points, inputs.labels);
                have = true;
            }
        } else {
            if (settings.sample_size == 0) throw Error("silhouette sample size must be at least 1");
            std::vector<std::uint64_t> indices = silhouette_sample_indices(n, settings.sample_size, settings.seed);
            const Matrix<double> subset = select_rows(points, indices);
            const std::vector<std::int32_t> subset_labels = select_labels(inputs.labels, indices);
            const std::size_t subset_k = encode_labels(subset_labels).k();
            if (1 < subset_k && subset_k < subset.rows()) {
                result = exact(subset, subset_labels);
                double sum_sq = 0.0;
                for (double v : result.values) sum_sq += (v - result.score) * (v - result.score);
                const double m = double(result.values.size());
                result.standard_error = std::sqrt(sum_sq / (m - 1.0)) / std::sqrt(m);
                result.indices = std::move(indices);
                result.sampled = true;
                have = true;
            } else {
                try {
                    check_number_of_labels(subset_k, subset.rows());
                } catch (const Error& e) {
                    scores.notes.push_back(std::string("sampled silhouette is undefined for this sample: ") + e.what());
                }
            }
        }
        if (have) {
            scores.silhouette = result.score;
            scores.silhouette_points = result.values.size();
            if (result.sampled) scores.silhouette_standard_error = result.standard_error;
            scores.silhouette_detail = std::move(result);
        }
    }

    if (!inputs.truth_labels.empty()) {
        scores.ari = adjusted_rand_index(inputs.truth_labels, inputs.labels);
        scores.nmi = normalized_mutual_info(inputs.truth_labels, inputs.labels);
    }
    if (inputs.truth_centroids) {
        const Matrix<double> predicted = inputs.centroids ? *inputs.centroids : encoded_means(points, encoding, options);
        scores.centroid_index = centroid_index(predicted, *inputs.truth_centroids);
    }
    return scores;
}
}  // namespace

Scores compute_scores(const ScoreInputs& inputs, const ScoreSettings& settings) {
    if (!inputs.points) throw Error("compute_scores: no points");
    try {
        return scores_in_memory(inputs, settings);
    } catch (const std::bad_alloc&) {
        // Beside the points the scores keep arrays of one value a point (the labels coded
        // 0..k-1, the silhouette's values, a sample's rows): name the sizes, as the loaders
        // and fit() do, and what needs less.
        const std::size_t n = inputs.points->rows(), d = inputs.points->cols();
        const bool exact_silhouette = settings.silhouette == SilhouetteMode::Exact;
        throw Error((inputs.source.empty() ? std::string() : inputs.source + ": ") + "not enough memory to score " +
                    std::to_string(n) + " points × " + std::to_string(d) +
                    " coordinates (beside the points' " + short_number(double(n) * double(d) * 8.0 / 1048576.0) +
                    " MiB, arrays of one value a point, " + short_number(double(n) * 8.0 / 1048576.0) + " MiB each" +
                    (exact_silhouette ? "; --silhouette sampled:N or none needs less)" : ")"));
    }
}

namespace {
std::string number_text(double value) {
    if (!std::isfinite(value)) return "null";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}
}  // namespace

std::string scores_json_fields(const Scores& scores, bool with_inertia) {
    std::string out = "\"silhouette\":" + number_text(scores.silhouette);
    if (!std::isnan(scores.silhouette_standard_error))
        out += ",\"silhouette_standard_error\":" + number_text(scores.silhouette_standard_error) +
               ",\"silhouette_sample_size\":" + std::to_string(scores.silhouette_points);
    out += ",\"calinski_harabasz\":" + number_text(scores.calinski_harabasz);
    out += ",\"davies_bouldin\":" + number_text(scores.davies_bouldin);
    if (with_inertia) out += ",\"inertia\":" + number_text(scores.inertia);
    if (!std::isnan(scores.ari)) out += ",\"ari\":" + number_text(scores.ari);
    if (!std::isnan(scores.nmi)) out += ",\"nmi\":" + number_text(scores.nmi);
    if (scores.centroid_index) out += ",\"centroid_index\":" + std::to_string(*scores.centroid_index);
    return out;
}

std::string scores_table(const Scores& scores) {
    std::ostringstream out;
    out.precision(10);
    auto line = [&](const char* name, double value) {
        out << name;
        for (std::size_t pad = std::string_view(name).size(); pad < 20; ++pad) out << ' ';
        if (std::isnan(value)) out << "undefined";
        else out << value;
        out << '\n';
    };
    line("silhouette", scores.silhouette);
    if (!std::isnan(scores.silhouette_standard_error)) {
        out << "  (sampled: " << scores.silhouette_points << " points, standard error "
            << scores.silhouette_standard_error << ")\n";
    }
    line("calinski_harabasz", scores.calinski_harabasz);
    line("davies_bouldin", scores.davies_bouldin);
    line("inertia", scores.inertia);
    if (!std::isnan(scores.ari)) line("ari", scores.ari);
    if (!std::isnan(scores.nmi)) line("nmi", scores.nmi);
    if (scores.centroid_index) out << "centroid_index      " << *scores.centroid_index << '\n';
    return out.str();
}

#define KMS_SCORES_INSTANTIATE(T)                                                                                   \
    template Matrix<double> label_means<T>(const Matrix<T>&, std::span<const std::int32_t>, const ScoreOptions&);    \
    template double inertia<T>(const Matrix<T>&, std::span<const std::int32_t>, const Matrix<double>&,               \
                               const ScoreOptions&);                                                                 \
    template double calinski_harabasz<T>(const Matrix<T>&, std::span<const std::int32_t>, const ScoreOptions&);      \
    template double davies_bouldin<T>(const Matrix<T>&, std::span<const std::int32_t>, const ScoreOptions&);         \
    template Matrix<T> select_rows<T>(const Matrix<T>&, std::span<const std::uint64_t>);
KMS_SCORES_INSTANTIATE(float)
KMS_SCORES_INSTANTIATE(double)
#undef KMS_SCORES_INSTANTIATE

void parse_silhouette_mode(const std::string& option, const std::string& text, ScoreSettings& settings) {
    if (text == "exact") {
        settings.silhouette = SilhouetteMode::Exact;
    } else if (text == "none") {
        settings.silhouette = SilhouetteMode::None;
    } else if (text == "sampled") {
        settings.silhouette = SilhouetteMode::Sampled;
        settings.sample_size = kRunScoresExactLimit;
    } else if (text.rfind("sampled:", 0) == 0) {
        settings.silhouette = SilhouetteMode::Sampled;
        const std::string count = text.substr(8);
        const auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), settings.sample_size);
        if (error != std::errc() || end != count.data() + count.size() || count.empty() || settings.sample_size < 1)
            throw UsageError("option " + option + ": in '" + text + "', N must be a whole number >= 1");
    } else {
        throw UsageError("option " + option + ": '" + text + "' is not exact, sampled, sampled:N or none");
    }
}

}  // namespace kms
