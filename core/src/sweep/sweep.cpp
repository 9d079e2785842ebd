// The k-sweep (kms/sweep.hpp): fits through kms::fit, scores through
// kms::compute_scores; this file only orders the levels, merges centroids for the
// hierarchy and picks the suggested k.
#include "kms/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>

#include "kms/error.hpp"

namespace kms {

std::vector<std::size_t> KRange::values() const {
    std::vector<std::size_t> ks;
    for (std::size_t k = first; k <= last; k += step) {
        ks.push_back(k);
        if (last - k < step) break;  // no overflow past SIZE_MAX
    }
    return ks;
}

KRange parse_k_range(std::string_view text, std::string_view option) {
    const std::string name(option);
    const auto bad = [&](const std::string& reason) {
        return UsageError("option " + name + ": '" + std::string(text) + "': " + reason);
    };
    std::vector<std::size_t> parts;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t colon = text.find(':', begin);
        const std::string_view part = text.substr(begin, colon == std::string_view::npos ? colon : colon - begin);
        std::size_t value = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (part.empty() || error != std::errc() || end != part.data() + part.size())
            throw bad("'" + std::string(part) + "' is not a whole number (expected FIRST:LAST[:STEP], e.g. 2:10)");
        parts.push_back(value);
        if (colon == std::string_view::npos) break;
        begin = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) throw bad("expected FIRST:LAST[:STEP], e.g. 2:10 or 2:20:2");
    KRange range{parts[0], parts[1], parts.size() == 3 ? parts[2] : 1};
    if (range.first < 1) throw bad("k starts at 1 or more");
    if (range.last < range.first) throw bad("the last k is smaller than the first");
    if (range.step < 1) throw bad("the step must be at least 1");
    if ((range.last - range.first) / range.step + 1 > kMaxSweepLevels)
        throw bad("more than " + std::to_string(kMaxSweepLevels) + " values of k");
    return range;
}

std::string levels_csv_text(const SweepResult& result) {
    if (result.levels.empty()) throw Error("no level was fitted: no levels file to write");
    std::string text;
    for (const SweepLevel& level : result.levels) text += (text.empty() ? "k=" : ",k=") + std::to_string(level.k);
    text += '\n';
    const std::size_t n = result.levels.front().fit.labels.size();
    text.reserve(text.size() + n * result.levels.size() * 3);
    char buffer[16];
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t l = 0; l < result.levels.size(); ++l) {
            if (l > 0) text += ',';
            const auto end = std::to_chars(buffer, buffer + sizeof buffer, result.levels[l].fit.labels[i]).ptr;
            text.append(buffer, end);
        }
        text += '\n';
    }
    return text;
}

void merge_closest_centroids(Matrix<double>& centroids, std::vector<double>& sizes) {
    const std::size_t k = centroids.rows(), d = centroids.cols();
    if (k < 2 || sizes.size() != k) throw Error("merge_closest_centroids: needs 2 or more centroids and one size each");
    std::size_t best_i = 0, best_j = 1;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = i + 1; j < k; ++j) {
            double distance = 0.0;
            for (std::size_t c = 0; c < d; ++c) {
                const double delta = centroids(i, c) - centroids(j, c);
                distance += delta * delta;
            }
            if (distance < best) {  // strict: ties keep the first pair found, the lowest (i, j)
                best = distance;
                best_i = i;
                best_j = j;
            }
        }
    const double wi = sizes[best_i], wj = sizes[best_j], total = wi + wj;
    for (std::size_t c = 0; c < d; ++c)
        centroids(best_i, c) = total > 0 ? (wi * centroids(best_i, c) + wj * centroids(best_j, c)) / total
                                         : 0.5 * (centroids(best_i, c) + centroids(best_j, c));
    sizes[best_i] = total;
    Matrix<double> merged(k - 1, d);
    for (std::size_t row = 0, out = 0; row < k; ++row) {
        if (row == best_j) continue;
        for (std::size_t c = 0; c < d; ++c) merged(out, c) = centroids(row, c);
        ++out;
    }
    centroids = std::move(merged);
    sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(best_j));
}

KChoice kneedle_elbow(const std::vector<std::size_t>& k, const std::vector<double>& y) {
    if (k.size() != y.size() || k.size() < 3) return {std::nullopt, "fewer than 3 values of k"};
    for (const double value : y)
        if (!std::isfinite(value)) return {std::nullopt, "an inertia is not a finite number"};
    const auto [low, high] = std::minmax_element(y.begin(), y.end());
    const double span_y = *high - *low, span_k = static_cast<double>(k.back() - k.front());
    if (!(span_y > 0) || !(span_k > 0)) return {std::nullopt, "the inertia is the same for every k"};
    // Normalised to [0, 1]; the chord joins the first and the last point.
    const double first = (y.front() - *low) / span_y, last = (y.back() - *low) / span_y;
    double best = -1.0;
    std::size_t best_index = 0;
    for (std::size_t i = 0; i < k.size(); ++i) {
        const double x = static_cast<double>(k[i] - k.front()) / span_k;
        const double below_chord = first + (last - first) * x - (y[i] - *low) / span_y;
        if (below_chord > best) {
            best = below_chord;
            best_index = i;
        }
    }
    if (best < kKneedleMinimum)
        return {std::nullopt, "no elbow: the inertia curve is nearly straight (largest normalised distance below the "
                              "chord " + std::to_string(best) + " < " + std::to_string(kKneedleMinimum) + ")"};
    return {k[best_index], "kneedle: largest normalised distance below the chord, " + std::to_string(best)};
}

KChoice best_k(const std::vector<std::size_t>& k, const std::vector<double>& values, bool larger_is_better) {
    std::optional<std::size_t> best_index;
    for (std::size_t i = 0; i < k.size() && i < values.size(); ++i) {
        if (!std::isfinite(values[i])) continue;
        if (!best_index || (larger_is_better ? values[i] > values[*best_index] : values[i] < values[*best_index]))
            best_index = i;
    }
    if (!best_index) return {std::nullopt, "not computed or undefined for every k"};
    return {k[*best_index], ""};
}

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// Each cluster's size: its points, or their summed weights.
std::vector<double> cluster_sizes(const FitResult& fit, std::size_t k, const std::vector<double>* weights) {
    std::vector<double> sizes(k, 0.0);
    for (std::size_t i = 0; i < fit.labels.size(); ++i)
        sizes[static_cast<std::size_t>(fit.labels[i])] += weights ? (*weights)[i] : 1.0;
    return sizes;
}

}  // namespace

SweepResult sweep(std::shared_ptr<const Matrix<double>> points, const SweepOptions& options, SweepObserver* observer,
                  std::stop_token stop, const std::string& source_name) {
    std::vector<std::size_t> ks = options.range.values();
    if (ks.empty()) throw UsageError("option --k-range: no value of k");
    if (ks.back() > points->rows())
        throw InputError::whole(source_name, "--k-range asks for k = " + std::to_string(ks.back()) + " but there are " +
                                                 std::to_string(points->rows()) + " points");
    if (options.hierarchy) std::reverse(ks.begin(), ks.end());  // the largest k first, then merge downwards
    if (!options.hierarchy && options.fit.init.method == InitMethod::File && ks.size() > 1)
        throw UsageError("--init PATH holds the centroids of one k: a sweep over several k takes random, kmeans++, "
                         "greedy-kmeans++ or maximin (with --hierarchy a file of the largest k's centroids)");

    SweepResult result;
    Matrix<double> merged;  // hierarchy: the next level's start
    std::vector<double> merged_sizes;
    for (std::size_t index = 0; index < ks.size() && !stop.stop_requested(); ++index) {
        const std::size_t k = ks[index];
        if (observer) observer->level_started(index, ks.size(), k);
        FitOptions fit_options = options.fit;
        fit_options.k = k;
        if (options.hierarchy && index > 0) {
            fit_options.n_init = 1;
            fit_options.init.method = InitMethod::File;
            fit_options.init.path.clear();
            fit_options.init.given = std::make_shared<const Matrix<double>>(merged);
        }
        SweepLevel level;
        level.k = k;
        const auto fit_start = std::chrono::steady_clock::now();
        level.fit = fit(points, fit_options, nullptr, stop, source_name);
        level.fit_ms = elapsed_ms(fit_start);
        if (level.fit.stop_reason == StopReason::Cancelled) break;

        if (options.scores) {
            ScoreSettings settings = options.score_settings;
            settings.options.stop = stop;
            ScoreInputs inputs;
            inputs.points = points.get();
            inputs.labels = level.fit.labels;
            inputs.centroids = &level.fit.centroids;
            const auto scores_start = std::chrono::steady_clock::now();
            try {
                level.scores = compute_scores(inputs, settings);
            } catch (const Error&) {
                if (stop.stop_requested()) break;  // cancelled while scoring: the level is dropped
                throw;
            }
            level.scores_ms = elapsed_ms(scores_start);
        }
        level.scores.inertia = level.fit.inertia;

        if (options.hierarchy && index + 1 < ks.size()) {
            merged = level.fit.centroids;
            merged_sizes = cluster_sizes(level.fit, k, options.fit.sample_weight.get());
            while (merged.rows() > ks[index + 1]) merge_closest_centroids(merged, merged_sizes);
        }
        if (observer) observer->level_done(index, ks.size(), level);
        result.levels.push_back(std::move(level));
    }
    result.cancelled = result.levels.size() < ks.size();
    std::sort(result.levels.begin(), result.levels.end(),
              [](const SweepLevel& a, const SweepLevel& b) { return a.k < b.k; });

    std::vector<std::size_t> done_k;
    std::vector<double> inertia, silhouette, ch, db;
    for (const SweepLevel& level : result.levels) {
        done_k.push_back(level.k);
        inertia.push_back(level.fit.inertia);
        silhouette.push_back(level.scores.silhouette);
        ch.push_back(level.scores.calinski_harabasz);
        db.push_back(level.scores.davies_bouldin);
    }
    result.elbow = kneedle_elbow(done_k, inertia);
    result.best_silhouette = best_k(done_k, silhouette, true);
    result.best_calinski_harabasz = best_k(done_k, ch, true);
    result.best_davies_bouldin = best_k(done_k, db, false);
    return result;
}

}  // namespace kms
