// JSON run reports (one object per iteration, one summary), hand-written to
// keep the engine free of dependencies.
#include "kms/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "kms/scores.hpp"

namespace kms {

std::string json_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size() + 2);
    for (const unsigned char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                    out += buffer;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out;
}

std::string json_number(double value) {
    if (!std::isfinite(value)) return "null";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

namespace {
class JsonObject {
public:
    JsonObject& field(const char* key, const std::string& raw_value) {
        text_ += first_ ? "{" : ",";
        first_ = false;
        text_ += '"';
        text_ += key;
        text_ += "\":";
        text_ += raw_value;
        return *this;
    }
    JsonObject& number(const char* key, double value) { return field(key, json_number(value)); }
    JsonObject& integer(const char* key, long long value) { return field(key, std::to_string(value)); }
    JsonObject& boolean(const char* key, bool value) { return field(key, value ? "true" : "false"); }
    JsonObject& string(const char* key, const std::string& value) {
        return field(key, "\"" + json_escape(value) + "\"");
    }
    std::string str() const { return first_ ? "{}" : text_ + "}"; }

private:
    std::string text_;
    bool first_ = true;
};
}  // namespace

namespace {
std::string iteration_json(JsonObject object, const IterationStats& s) {
    object
        .integer("iteration", s.iteration)
        .number("time_assign_ms", s.time_assign_ms)
        .number("time_bounds_ms", s.time_bounds_ms)
        .number("time_update_ms", s.time_update_ms)
        .number("time_total_ms", s.time_total_ms)
        .integer("point_centroid_distances", static_cast<long long>(s.point_centroid_distances))
        .integer("centroid_centroid_distances", static_cast<long long>(s.centroid_centroid_distances))
        .integer("bound_skips", static_cast<long long>(s.bound_skips))
        .integer("group_skips", static_cast<long long>(s.group_skips))
        .integer("second_centred", static_cast<long long>(s.second_centred))
        .integer("stable_points", static_cast<long long>(s.stable_points))
        .integer("neighbour_clusters", static_cast<long long>(s.neighbour_clusters))
        .integer("labels_changed", static_cast<long long>(s.labels_changed))
        .integer("verified_points", static_cast<long long>(s.verified_points))
        .integer("gemm_certified", static_cast<long long>(s.gemm_certified))
        .integer("gemm_listed", static_cast<long long>(s.gemm_listed))
        .number("max_shift", s.max_shift)
        .number("mean_shift", s.mean_shift)
        .number("shift_sq_total", s.shift_sq_total)
        .integer("empty_clusters", s.empty_clusters)
        .number("inertia", s.inertia);
    if (s.streamed_bytes > 0) object.integer("streamed_bytes", static_cast<long long>(s.streamed_bytes));
    return object.str();
}
}  // namespace

std::string to_json(const IterationStats& s) { return iteration_json(JsonObject().string("type", "iteration"), s); }
std::string to_json(const IterationStats& s, int restart) {
    return iteration_json(JsonObject().string("type", "iteration").integer("restart", restart), s);
}

RunSummary summarize(const FitResult& result, const FitOptions& options, const std::string& data, std::size_t n,
                     std::size_t d) {
    RunSummary summary;
    summary.solver = result.solver.describe();
    summary.solver_choice = result.solver_choice;
    summary.data = data;
    summary.n = n;
    summary.d = d;
    summary.k = options.k;
    summary.iterations = result.iterations;
    summary.stop_reason = result.stop_reason;
    summary.converged = result.converged();
    summary.inertia = result.inertia;
    summary.total_time_ms = result.total_time_ms;
    summary.seed = options.init.seed;
    summary.n_init = options.n_init;
    summary.best_restart = result.best_restart;
    summary.restarts = result.restarts;
    summary.init = std::string(to_string(options.init.method));
    summary.devices.assign(options.devices.begin(),
                           options.devices.begin() + static_cast<std::ptrdiff_t>(std::min(options.devices.size(),
                                                                                           result.devices_used)));
    return summary;
}


namespace {
std::string restarts_json(const std::vector<RestartResult>& restarts) {
    std::string text = "[";
    for (const RestartResult& r : restarts) {
        if (text.size() > 1) text += ",";
        text += JsonObject()
                    .integer("restart", r.restart)
                    .integer("seed", static_cast<long long>(r.seed))
                    .integer("iterations", r.iterations)
                    .string("stop_reason", std::string(to_string(r.stop_reason)))
                    .number("inertia", r.inertia)
                    .number("time_ms", r.time_ms)
                    .number("init_time_ms", r.init.time_ms)
                    .integer("init_point_centroid_distances", static_cast<long long>(r.init.point_centroid_distances))
                    .str();
    }
    return text + "]";
}
}  // namespace

std::string describe_seeding(std::string_view method, const InitStats& init, std::size_t n, std::size_t k) {
    char text[320];
    const double all = static_cast<double>(n) * static_cast<double>(k);
    int length = std::snprintf(text, sizeof text, "%.*s%s: %.3g ms, %.3g point distances (%.3g %% of n·k)",
                               static_cast<int>(method.size()), method.data(), init.bounded ? " with bounds" : "",
                               init.time_ms, static_cast<double>(init.point_centroid_distances),
                               all > 0.0 ? 100.0 * static_cast<double>(init.point_centroid_distances) / all : 0.0);
    if (init.centroid_centroid_distances > 0 && length > 0 && static_cast<std::size_t>(length) < sizeof text)
        length += std::snprintf(text + length, sizeof text - static_cast<std::size_t>(length), ", %.3g centre distances",
                                static_cast<double>(init.centroid_centroid_distances));
    if (init.candidates > 0 && length > 0 && static_cast<std::size_t>(length) < sizeof text)
        std::snprintf(text + length, sizeof text - static_cast<std::size_t>(length), ", %llu candidates in %d rounds",
                      static_cast<unsigned long long>(init.candidates), init.rounds);
    return text;
}

std::string to_json(const RunSummary& s) {
    JsonObject summary;
    summary
        .string("type", "summary")
        .string("solver", s.solver)
        .string("data", s.data)
        .integer("n", static_cast<long long>(s.n))
        .integer("d", static_cast<long long>(s.d))
        .integer("k", static_cast<long long>(s.k))
        .integer("iterations", s.iterations)
        .boolean("converged", s.converged)
        .string("stop_reason", std::string(to_string(s.stop_reason)))
        .number("inertia", s.inertia)
        .number("total_time_ms", s.total_time_ms)
        .integer("seed", static_cast<long long>(s.seed));
    if (!s.restarts.empty()) {  // the kept restart's seeding
        const InitStats& init = s.restarts[static_cast<std::size_t>(s.best_restart)].init;
        JsonObject seeding;
        seeding.string("method", s.init)
            .boolean("bounds", init.bounded)
            .number("time_ms", init.time_ms)
            .integer("point_centroid_distances", static_cast<long long>(init.point_centroid_distances))
            .integer("centroid_centroid_distances", static_cast<long long>(init.centroid_centroid_distances));
        if (init.candidates > 0) seeding.integer("candidates", static_cast<long long>(init.candidates)).integer("rounds", init.rounds);
        summary.field("init", seeding.str());
    }
    if (!s.solver_choice.empty()) summary.string("solver_choice", s.solver_choice);
    if (!s.devices.empty()) {
        std::string list = "[";
        for (int device : s.devices) list += (list.size() > 1 ? "," : "") + std::to_string(device);
        summary.field("devices", list + "]");
    }
    // Restarts only when there were several: a single run's summary stays as it was.
    if (s.n_init > 1)
        summary.integer("n_init", s.n_init).integer("best_restart", s.best_restart).field("restarts", restarts_json(s.restarts));
    return summary.str();
}

std::string to_json(const SweepLevel& level, const SweepOptions& options) {
    const bool merged = options.hierarchy && level.k != options.range.values().back();
    const RestartResult* kept =
        level.fit.restarts.empty() ? nullptr : &level.fit.restarts[static_cast<std::size_t>(level.fit.best_restart)];
    std::string line = JsonObject()
                           .string("type", "level")
                           .integer("k", static_cast<long long>(level.k))
                           .number("inertia", level.fit.inertia)
                           .integer("iterations", level.fit.iterations)
                           .string("stop_reason", std::string(to_string(level.fit.stop_reason)))
                           .integer("seed", static_cast<long long>(kept ? kept->seed : options.fit.init.seed))
                           .string("start", merged ? "merged" : std::string(to_string(options.fit.init.method)))
                           .number("fit_ms", level.fit_ms)
                           .number("scores_ms", level.scores_ms)
                           .str();
    if (options.scores) line.insert(line.size() - 1, "," + scores_json_fields(level.scores, false));
    return line;
}

std::string to_json(const SweepResult& result, const SweepOptions& options, const std::string& data, std::size_t n,
                    std::size_t d) {
    const auto k_or_null = [](const KChoice& choice) {
        return choice.k ? std::to_string(*choice.k) : std::string("null");
    };
    double total_ms = 0.0;
    for (const SweepLevel& level : result.levels) total_ms += level.fit_ms + level.scores_ms;
    const KRange& range = options.range;
    return JsonObject()
        .string("type", "sweep_summary")
        .string("data", data)
        .integer("n", static_cast<long long>(n))
        .integer("d", static_cast<long long>(d))
        .string("k_range", std::to_string(range.first) + ":" + std::to_string(range.last) + ":" + std::to_string(range.step))
        .boolean("hierarchy", options.hierarchy)
        .string("solver", options.fit.solver.describe())
        .integer("levels", static_cast<long long>(result.levels.size()))
        .boolean("cancelled", result.cancelled)
        .field("elbow_k", k_or_null(result.elbow))
        .string("elbow_reason", result.elbow.reason)
        .field("best_silhouette_k", k_or_null(result.best_silhouette))
        .field("best_calinski_harabasz_k", k_or_null(result.best_calinski_harabasz))
        .field("best_davies_bouldin_k", k_or_null(result.best_davies_bouldin))
        .number("total_time_ms", total_ms)
        .str();
}

}  // namespace kms

namespace kms {

std::string to_json(const SpectralResult& r, const std::string& data, const std::string& extra_fields) {
    std::string eigenvalues = "[";
    const std::size_t shown = std::min(r.eigen.values.size(), std::max(SpectralOptions::kReportedEigenvalues, r.clusters + 1));
    for (std::size_t i = 0; i < shown; ++i) eigenvalues += (i ? "," : "") + json_number(r.eigen.values[i]);
    eigenvalues += "]";
    const FitResult& reps = r.representative_fit;
    JsonObject summary;
    summary.string("type", "spectral")
        .string("data", data)
        .integer("n", static_cast<long long>(r.n))
        .integer("d", static_cast<long long>(r.d))
        .string("stop_reason", r.cancelled ? "cancelled" : "completed")
        .integer("representatives", static_cast<long long>(r.representatives))
        .string("representatives_solver", reps.solver.describe())
        .integer("representatives_iterations", reps.iterations)
        .string("representatives_stop_reason", std::string(to_string(reps.stop_reason)))
        .number("representatives_inertia", reps.inertia)
        .integer("neighbours", static_cast<long long>(r.neighbours))
        .string("graph", r.neighbours ? "knn-symmetrised" : "full")
        .number("sigma", r.sigma)
        .string("sigma_rule", r.sigma_rule)
        .string("eigensolver", r.eigen.method);
    if (!r.eigensolver_note.empty()) summary.string("eigensolver_note", r.eigensolver_note);
    summary.field("eigenvalues", eigenvalues)
        .integer("k", static_cast<long long>(r.clusters))
        .boolean("k_auto", r.clusters_chosen)
        .number("eigengap", r.eigengap)
        .number("eigengap_ratio", r.eigengap_ratio)
        .integer("final_n_init", static_cast<long long>(r.final_fit.restarts.size()))
        .number("final_inertia", r.final_fit.inertia)
        .number("time_representatives_ms", r.times.representatives_ms)
        .number("time_similarity_ms", r.times.similarity_ms)
        .number("time_eigensolver_ms", r.times.eigensolver_ms)
        .number("time_final_kmeans_ms", r.times.final_kmeans_ms)
        .number("time_labelling_ms", r.times.labelling_ms)
        .number("time_total_ms", r.times.total_ms());
    std::string text = summary.str();
    if (!extra_fields.empty()) text.insert(text.size() - 1, "," + extra_fields);
    return text;
}

}  // namespace kms
