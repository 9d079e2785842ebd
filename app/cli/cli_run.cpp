// kmeans-cli run: cluster a file or generated data through the fit layer, print
// one statistics record per iteration (table or JSON lines) and a summary, write
// labels and centroids.
#include <cstdio>
#include <unistd.h>
#include <memory>
#include <optional>
#include <string>

#include "cli_data.hpp"
#include "cmd_score.hpp"
#include "commands.hpp"
#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"
#include "kms/report.hpp"
#include "signal_stop.hpp"
#if KMS_HAVE_MPI
#include "mpi_communicator.hpp"
#endif

namespace kms::cli {

namespace {

constexpr OptionSpec kRunInputOptions[] = {  // also sweep's: run_input_option_table()
    {"--weights", "PATH", "", "sample weights: one non-negative finite number per line, one line per point\n"
                              "(scikit-learn's sample_weight: weighted means, inertia and initialisation)"},
};

constexpr OptionSpec kRunOutputOptions[] = {
    {"--inertia", "", "", "compute the inertia after every iteration (costs one pass)"},
    {"--report", "FORMAT", "table", "table | json (JSON lines: one object per iteration, then a summary)"},
    {"--labels-out", "PATH", "", "write the final labels, one 0-based integer per line"},
    {"--centroids-out", "PATH", "", "write the final centroids as CSV, one row per centroid (--geo: latitude,\n"
                                     "longitude in degrees)"},
    {"--scores", "", "", "add quality scores to the summary (silhouette, calinski_harabasz,\n"
                         "davies_bouldin, inertia; ari, nmi, centroid_index with ground truth);\n"
                         "the silhouette is exact up to 20000 points, else sampled on 20000"},
    {"--help", "", "", "this text"},
};

void print_help() {
    std::printf("usage: kmeans-cli run (--input PATH | --generate SPEC) --k K [options]\n\n%s%s%s%s%s%s",
                options_help(data_option_table()).c_str(), options_help(kRunInputOptions).c_str(),
                options_help(out_of_core_option_table()).c_str(),
                options_help(geo_option_table()).c_str(), options_help(fit_option_table()).c_str(),
                options_help(kRunOutputOptions).c_str());
    std::printf("\nUnder mpirun/mpiexec each rank reads only its block of rows of an --input file (.npy by\n"
                "offset, text by byte ranges) or makes only its rows of --generate data (all of it with\n"
                "--geo) and solves it; rank 0 prints the report and writes the outputs (with --scores it\n"
                "also reads every row, which the scores take). Labels and centroids are bitwise those of one\n"
                "process. With --backend cuda the ranks of a machine spread over its GPUs (local rank mod\n"
                "devices; --device N pins one); with --devices each rank drives several (--devices all: the\n"
                "machine's GPUs shared out among its ranks; a list: those, on every rank), its block split\n"
                "again over them, still bitwise one device. Out of core, each rank reads its block a block\n"
                "at a time.\n"
                "See docs/scale-out.md.\n");
}

void print_table_header() {
    std::printf("%5s %10s %10s %10s %10s %14s %10s %10s %10s %12s %6s %14s\n", "iter", "assign_ms", "bounds_ms",
                "update_ms", "total_ms", "distances", "cc_dist", "skips", "changed", "max_shift", "empty",
                "inertia");
}

void print_table_row(const IterationStats& s) {
    std::printf("%5d %10.3f %10.3f %10.3f %10.3f %14llu %10llu %10llu %10llu %12.6g %6d %14.8g\n", s.iteration,
                s.time_assign_ms, s.time_bounds_ms, s.time_update_ms, s.time_total_ms,
                static_cast<unsigned long long>(s.point_centroid_distances),
                static_cast<unsigned long long>(s.centroid_centroid_distances),
                static_cast<unsigned long long>(s.bound_skips), static_cast<unsigned long long>(s.labels_changed),
                s.max_shift, s.empty_clusters, s.inertia);
}

// Prints every iteration as it comes: a table (its header once the run has
// started, so a refused run prints nothing on stdout) or JSON lines.
class PrintingObserver : public FitObserver {
public:
    PrintingObserver(bool json, int n_init, std::string header) : json_(json), n_init_(n_init), header_(std::move(header)) {}

    void restart_started(int restart, std::uint64_t seed, const Matrix<double>&) override {
        if (!json_ && restart == 0) {
            std::fputs(header_.c_str(), stdout);
            print_table_header();
        }
        if (json_ || n_init_ == 1) return;
        std::printf("# restart %d, seed %llu\n", restart, static_cast<unsigned long long>(seed));
    }
    void iteration_done(int restart, const IterationStats& stats, const Solver&) override {
        if (!json_) print_table_row(stats);
        else if (n_init_ > 1) std::printf("%s\n", to_json(stats, restart).c_str());
        else std::printf("%s\n", to_json(stats).c_str());
        std::fflush(stdout);
    }
    void restart_done(const RestartResult& r) override {
        if (json_ || n_init_ == 1) return;
        std::printf("# restart %d: %d iterations (%s), inertia %.10g\n", r.restart, r.iterations,
                    std::string(to_string(r.stop_reason)).c_str(), r.inertia);
    }

private:
    bool json_;
    int n_init_;
    std::string header_;
};

int run(const Args& args) {
    const ParsedOptions options(
        args, {data_option_table(), kRunInputOptions, out_of_core_option_table(), geo_option_table(), fit_option_table(),
               kRunOutputOptions});
    if (options.has("--help")) {
        print_help();
        return 0;
    }
    FitOptions fit_options = fit_options_from(options);
    fit_options.solver.compute_inertia = options.has("--inertia");
    // Started by mpirun/mpiexec: each rank solves its block of rows; rank 0 prints and writes.
    if (const int ranks = launcher_world_size(); ranks > 1) {
#if KMS_HAVE_MPI
        fit_options.ranks = mpi_world();
        // A CUDA back end: the ranks of one machine spread over its GPUs (unless --device names one);
        // --devices all: each takes its share of them (every rank the same number).
        if (const BackendEntry* entry = find_backend(fit_options.solver.backend);
            entry && entry->device_count && !options.has("--device"))
            if (const int count = entry->device_count(); count > 0) {
                const int local = launcher_local_rank(), locals = launcher_local_size();
                fit_options.solver.cuda_device = local % count;
                if (options.get("--devices") == "all") {
                    const int share = std::max(1, count / locals);
                    fit_options.devices.clear();
                    for (int j = 0; j < share; ++j) fit_options.devices.push_back((local * share + j) % count);
                }
            }
        if (!fit_options.devices.empty() && !mpi_world_serialized())
            throw UsageError("--devices under MPI ranks needs an MPI library with MPI_THREAD_SERIALIZED (a device "
                             "thread of each rank calls MPI); this one gives less: one GPU per rank (no --devices)");
#else
        throw Error("kmeans-cli was started by an MPI launcher as one of " + std::to_string(ranks) +
                    " ranks, but was built without MPI (Debian: libopenmpi-dev): each rank would run the whole job");
#endif
    }
    const bool root = !fit_options.ranks || fit_options.ranks->rank() == 0;
    const std::string report = options.get("--report");
    // Every destination checked before any work: a run that cannot write its results does not start.
    agreed(fit_options.ranks.get(), [&] {
        if (report != "table" && report != "json") throw UsageError("--report must be table or json");
        if (root)  // rank 0 writes the outputs
            for (const char* option : {"--labels-out", "--centroids-out"})
                if (options.has(option)) check_output_path(options.get(option));
    });

    const SignalStop& signals = signal_stop();
    const std::uint64_t seed = fit_options.init.seed;
    // A .npy larger than the memory limit (or --out-of-core on) is read a block at a
    // time on every pass; otherwise ranks read only their block of the --input file
    // (or generate only its rows).
    std::optional<OutOfCorePlan> out_of_core;
    agreed(fit_options.ranks.get(), [&] { out_of_core = plan_out_of_core(options, fit_options); });
    CliData loaded;
    if (!out_of_core) agreed(fit_options.ranks.get(), [&] { loaded = load_cli_block(options, seed, fit_options); });
    else loaded.weights = load_cli_weights(options, out_of_core->source->rows(), fit_options.ranks.get());
    // --scores over ranks: rank 0 alone also reads every row (and the truth of generated
    // data), which the scores take; the other ranks keep their blocks only. Agreed, so
    // that a failure there stops every rank.
    std::optional<CliData> scored;
    if (options.has("--scores") && loaded.block)
        agreed(fit_options.ranks.get(), [&] {
            if (root) scored = load_cli_data(options, seed);
        });
    const Dataset& data = loaded.data;
    const auto& points = loaded.points;
    const std::string data_name = out_of_core ? out_of_core->source->name() : data.name;
    const std::size_t data_rows = out_of_core ? out_of_core->source->rows() : loaded.rows();
    const std::size_t data_cols = out_of_core ? out_of_core->source->cols() : points->cols();
    fit_options.sample_weight = loaded.weights;
    // The weights' range (kms/fit.hpp), named by their file (fit() checks it too, naming the
    // data; out of core only fit(), on its pass over the file).
    if (loaded.weights && !loaded.block && !out_of_core)
        check_weight_range(*points, loaded.weights.get(), fit_options.solver.precision, options.get("--weights"));
    // --geo: the projection of the loaded table, or of the .npy read out of core.
    const GeoProjection* geo = out_of_core && out_of_core->geo ? &out_of_core->geo->projection
                               : loaded.geo                     ? &loaded.geo->projection
                                                                : nullptr;
    project_geo_initial_centroids(geo, fit_options);  // --geo --init FILE: degrees, as the outputs

    const bool json = report == "json";
    const std::string header = "# data " + data_name + ": n = " + std::to_string(data_rows) +
                               ", d = " + std::to_string(data_cols) + "; k = " + std::to_string(fit_options.k) +
                               "; solver " + fit_options.solver.describe() + "; init " + options.get("--init") +
                               (fit_options.sample_weight ? "; weights " + options.get("--weights") : "") +
                               ", seed " + std::to_string(seed) +
                               (fit_options.n_init > 1 ? ", " + std::to_string(fit_options.n_init) + " restarts" : "") +
                               "\n" +
                               (geo ? "# geo: " + geo->describe() + "; " + geo->reason + "\n" : "") +
                               (out_of_core ? "# " + out_of_core->describe() + "\n" : "");
    PrintingObserver observer(json, fit_options.n_init, header);
    // --solver auto out of core: the plan's choice, whose bounds fit in the memory limit.
    if (out_of_core && out_of_core->solver_choice) fit_options.solver.algorithm = out_of_core->solver_choice->algorithm;
    FitResult result =
        out_of_core  ? fit(out_of_core->source, out_of_core->buffer_bytes, fit_options, root ? &observer : nullptr,
                           signals.token())
        : loaded.block ? fit_block(points, loaded.global_rows, loaded.first_row, fit_options,
                                   root ? &observer : nullptr, data.name)
                       : fit(points, fit_options, root ? &observer : nullptr, signals.token(), data.name);
    if (out_of_core && out_of_core->solver_choice) result.solver_choice = out_of_core->solver_choice->reason;
    if (!root) return signals.exit_status();  // rank 0 reports and writes the whole data set's results
    const RunSummary summary = summarize(result, fit_options, data_name, data_rows, data_cols);

    // Geographic runs report and write their centroids in degrees.
    Matrix<double> centroids_out = result.centroids;
    if (geo && result.iterations > 0) centroids_out = geo->to_degrees(result.centroids);

    std::optional<Scores> scores;
    if (options.has("--scores") && result.iterations > 0 && !signals.exit_status())
        scores = run_scores(scored ? *scored->points : *points, result.labels, result.centroids,
                            scored ? scored->data : data, fit_options.solver, seed);
    if (!json) {
        std::printf("# %s after %d iterations (%s); inertia %.10g; %.3f ms in steps\n",
                    summary.converged ? "converged" : "stopped", summary.iterations,
                    std::string(to_string(summary.stop_reason)).c_str(), summary.inertia, summary.total_time_ms);
        if (!result.solver_choice.empty()) std::printf("# solver auto chose %s\n", result.solver_choice.c_str());
        if (!result.restarts.empty() && !fit_options.init.given && fit_options.init.method != InitMethod::File)
            std::printf("# seeded by %s\n", describe_seeding(summary.init, result.restarts[result.best_restart].init,
                                                             summary.n, summary.k).c_str());
        if (fit_options.n_init > 1)
            std::printf("# kept restart %d (seed %llu) of %d\n", result.best_restart,
                        static_cast<unsigned long long>(result.restarts[result.best_restart].seed), fit_options.n_init);
        if (scores) print_run_scores_table(*scores);
        if (geo && result.iterations > 0)
            for (std::size_t c = 0; c < centroids_out.rows(); ++c)
                std::printf("# centroid %zu: latitude %.6f, longitude %.6f\n", c, centroids_out(c, 0), centroids_out(c, 1));
    } else {
        std::string line = to_json(summary);
        if (scores) line.insert(line.size() - 1, "," + scores_json_fields(*scores, false));  // inside the summary object
        if (out_of_core)
            line.insert(line.size() - 1, ",\"out_of_core\":{\"buffer_bytes\":" +
                                             std::to_string(out_of_core->buffer_bytes) + ",\"memory_limit_bytes\":" +
                                             std::to_string(out_of_core->memory_limit) + ",\"automatic\":" +
                                             (out_of_core->automatic ? "true" : "false") + "}");
        if (geo && result.iterations > 0)
            line.insert(line.size() - 1, ",\"geo_projection\":\"" + json_escape(geo->describe()) +
                                             "\",\"centroids_degrees\":" + geo_centroids_json(centroids_out));
        std::printf("%s\n", line.c_str());
    }

    // Cancelled: the outputs of the last completed iteration, if there was one.
    // All outputs or none.
    if (result.iterations > 0) {
        std::vector<std::pair<std::string, std::string>> outputs;
        if (options.has("--labels-out")) outputs.emplace_back(options.get("--labels-out"), labels_text(result.labels));
        if (options.has("--centroids-out"))
            outputs.emplace_back(options.get("--centroids-out"), centroids_csv_text(centroids_out));
        write_files_atomically(outputs);
    }
    return signals.exit_status();
}

}  // namespace

OptionTable run_input_option_table() { return kRunInputOptions; }

int cmd_run(const Args& args) { return run_command("run", args, run); }

}  // namespace kms::cli
