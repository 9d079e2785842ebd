// kmeans-cli sweep: one fit per k of a range (kms/sweep.hpp) with inertia and
// scores, an elbow suggestion and the best k of each score; --hierarchy merges
// downwards from the largest k; --levels-out writes every level's labels.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli_data.hpp"
#include "cmd_score.hpp"
#include "commands.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"
#include "kms/report.hpp"
#include "kms/sweep.hpp"
#include "signal_stop.hpp"

namespace kms::cli {

namespace {

constexpr OptionSpec kSweepOptions[] = {
    {"--k-range", "FIRST:LAST[:STEP]", "", "the values of k, e.g. 2:10 or 2:40:2 (required)"},
    {"--hierarchy", "", "", "fit the largest k, then seed each smaller k from the level above by\n"
                            "merging its closest centroids (size-weighted) and refine it (Rombaut)"},
    {"--scores", "MODE", "auto", "silhouette per k: auto (exact up to 20000 points, else sampled on 20000,\n"
                                 "as run --scores) | exact | sampled | sampled:N | none (CH and DB always)"},
    {"--report", "FORMAT", "table", "table | json (JSON lines: one object per k, then a summary)"},
    {"--levels-out", "PATH", "", "CSV: header k=..., then one row per point with its label at every k"},
    {"--help", "", "", "this text"},
};

void print_help() {
    std::printf("usage: kmeans-cli sweep (--input PATH | --generate SPEC) --k-range FIRST:LAST[:STEP] [options]\n\n"
                "Fits every k of the range with the run options below (--k excepted) and reports\n"
                "inertia, silhouette, Calinski-Harabasz, Davies-Bouldin, iterations and time per k,\n"
                "the elbow (kneedle rule on inertia against k) and the best k of each score\n"
                "(docs/sweep.md).\n\n%s%s%s%s%s",
                options_help(data_option_table()).c_str(), options_help(run_input_option_table()).c_str(),
                options_help(geo_option_table()).c_str(), options_help(fit_option_table()).c_str(),
                options_help(kSweepOptions).c_str());
}

std::string number_or_dash(double value, const char* format) {
    if (!std::isfinite(value)) return "-";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

// Prints each level as it is done: a table row or a JSON line.
class PrintingSweepObserver : public SweepObserver {
public:
    PrintingSweepObserver(bool json, const SweepOptions& options, std::string header)
        : json_(json), options_(options), header_(std::move(header)) {}

    void level_started(std::size_t index, std::size_t, std::size_t) override {
        if (json_ || index > 0) return;
        std::fputs(header_.c_str(), stdout);
        std::printf("%6s %16s %11s %14s %10s %6s %-14s %10s %10s\n", "k", "inertia", "silhouette", "calinski_h",
                    "davies_b", "iter", "stop", "fit_ms", "scores_ms");
        std::fflush(stdout);
    }
    void level_done(std::size_t, std::size_t, const SweepLevel& level) override {
        if (json_) {
            std::printf("%s\n", to_json(level, options_).c_str());
        } else {
            std::printf("%6zu %16.10g %11s %14s %10s %6d %-14s %10.3f %10.3f\n", level.k, level.fit.inertia,
                        number_or_dash(level.scores.silhouette, "%.6f").c_str(),
                        number_or_dash(level.scores.calinski_harabasz, "%.6g").c_str(),
                        number_or_dash(level.scores.davies_bouldin, "%.6f").c_str(), level.fit.iterations,
                        std::string(to_string(level.fit.stop_reason)).c_str(), level.fit_ms, level.scores_ms);
        }
        std::fflush(stdout);
    }

private:
    bool json_;
    const SweepOptions& options_;
    std::string header_;
};

void print_choice(const char* what, const KChoice& choice) {
    if (choice.k) std::printf("# %s: k = %zu%s%s\n", what, *choice.k, choice.reason.empty() ? "" : " (",
                              choice.reason.empty() ? "" : (choice.reason + ")").c_str());
    else std::printf("# %s: none (%s)\n", what, choice.reason.c_str());
}

int sweep_command(const Args& args) {
    const ParsedOptions options(
        args, {data_option_table(), run_input_option_table(), geo_option_table(), fit_option_table(), kSweepOptions});
    if (options.has("--help")) {
        print_help();
        return 0;
    }
    if (options.has("--k")) throw UsageError("a sweep takes --k-range FIRST:LAST[:STEP], not --k");
    if (!options.has("--k-range")) throw UsageError("option --k-range FIRST:LAST[:STEP] is required");
    SweepOptions sweep_options;
    sweep_options.range = parse_k_range(options.get("--k-range"));
    sweep_options.hierarchy = options.has("--hierarchy");
    sweep_options.fit = fit_options_from(options, false);
    sweep_options.fit.k = sweep_options.range.last;  // validated as the largest k would be
    sweep_options.fit.validate();
    const std::string report = options.get("--report");
    if (report != "table" && report != "json") throw UsageError("--report must be table or json");
    const std::string scores_mode = options.get("--scores");
    ScoreSettings mode_only;
    if (scores_mode != "auto") parse_silhouette_mode("--scores", scores_mode, mode_only);
    if (options.has("--levels-out")) check_output_path(options.get("--levels-out"));

    const SignalStop& signals = signal_stop();
    const std::uint64_t seed = sweep_options.fit.init.seed;
    CliData loaded = load_cli_data(options, seed);
    const Dataset& data = loaded.data;
    const auto& points = loaded.points;
    sweep_options.fit.sample_weight = loaded.weights;
    if (loaded.weights)  // the weights' range, named by their file (kms/fit.hpp)
        check_weight_range(*points, loaded.weights.get(), sweep_options.fit.solver.precision, options.get("--weights"));

    // The scores of run --scores, with the silhouette mode asked for.
    sweep_options.score_settings = run_score_settings(points->rows(), sweep_options.fit.solver, seed);
    if (scores_mode != "auto") {
        sweep_options.score_settings.silhouette = mode_only.silhouette;
        sweep_options.score_settings.sample_size = mode_only.sample_size;
    }

    const bool json = report == "json";
    const KRange& range = sweep_options.range;
    const std::string header = "# data " + data.name + ": n = " + std::to_string(points->rows()) + ", d = " +
                               std::to_string(points->cols()) + "; k " + std::to_string(range.first) + ".." +
                               std::to_string(range.last) + " step " + std::to_string(range.step) +
                               (sweep_options.hierarchy ? " (hierarchy: largest k first)" : "") + "; solver " +
                               sweep_options.fit.solver.describe() + "; init " + options.get("--init") + ", seed " +
                               std::to_string(seed) + "\n" +
                               (loaded.geo ? "# geo: " + loaded.geo->projection.describe() + "\n" : "");
    PrintingSweepObserver observer(json, sweep_options, header);
    const SweepResult result = sweep(points, sweep_options, &observer, signals.token(), data.name);

    if (json) {
        std::printf("%s\n", to_json(result, sweep_options, data.name, points->rows(), points->cols()).c_str());
    } else {
        if (result.cancelled) std::printf("# cancelled after %zu levels\n", result.levels.size());
        print_choice("elbow (kneedle on inertia)", result.elbow);
        print_choice("best silhouette", result.best_silhouette);
        print_choice("best calinski_harabasz", result.best_calinski_harabasz);
        print_choice("best davies_bouldin (lowest)", result.best_davies_bouldin);
    }
    // Cancelled: the levels finished before the signal.
    if (options.has("--levels-out") && !result.levels.empty())
        write_files_atomically({{options.get("--levels-out"), levels_csv_text(result)}});
    return signals.exit_status();
}

}  // namespace

int cmd_sweep(const Args& args) { return run_command("sweep", args, sweep_command); }

}  // namespace kms::cli
