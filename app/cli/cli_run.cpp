// kmeans-cli run: cluster a file or generated data with any solver, print one
// statistics record per iteration (table or JSON lines) and a summary, write
// labels and centroids.
#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <memory>
#include <string>

#include "cmd_score.hpp"
#include "commands.hpp"
#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/io.hpp"
#include "kms/report.hpp"
#include "options.hpp"

namespace kms::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: kmeans-cli run (--input PATH | --generate SPEC) --k K [options]\n"
    "\n"
    "  --input PATH          data: delimited text (CSV/TSV/spaces), benchmark-set text, NumPy .npy\n"
    "  --generate SPEC       generated data, e.g. blobs:n=100000,k=5,d=2 (see 'kmeans-cli generate --help')\n"
    "  --k K                 number of clusters (1 <= K <= n)\n"
    "  --solver NAME         lloyd | elkan | hamerly                      (default lloyd)\n"
    "  --backend NAME        seq | omp | cuda-global | cuda-shared        (default omp)\n"
    "  --precision P         f32 | f64                                    (default f64)\n"
    "  --init METHOD|PATH    random | kmeans++ | greedy-kmeans++ | maximin, or a centroid file\n"
    "                        (default kmeans++)\n"
    "  --seed S              seed for the generator and the initialisation (default 0)\n"
    "  --max-iter N          iteration limit (default 300)\n"
    "  --tol X               stop when the summed squared centroid shift <= X * mean feature\n"
    "                        variance, as scikit-learn (default 1e-4; 0 = until labels settle)\n"
    "  --threads T           OpenMP threads (default: all cores)\n"
    "  --block-size B        CUDA threads per block: 64, 256, 1024, 0 = automatic (default 0)\n"
    "  --empty POLICY        keep | farthest: what an empty cluster does (default keep)\n"
    "  --inertia             compute the inertia after every iteration (costs one pass)\n"
    "  --report FORMAT       table | json (JSON lines: one object per iteration, then a summary)\n"
    "  --labels-out PATH     write the final labels, one 0-based integer per line\n"
    "  --centroids-out PATH  write the final centroids as CSV, one row per centroid\n"
    "  --scores              add quality scores to the summary (silhouette, calinski_harabasz,\n"
    "                        davies_bouldin, inertia; ari, nmi, centroid_index with ground truth);\n"
    "                        the silhouette is exact up to 20000 points, else sampled on 20000\n";

template <typename Enum>
Enum parse_or_usage(std::optional<Enum> parsed, const std::string& option, const std::string& text) {
    if (!parsed) throw UsageError("option " + option + ": unknown value '" + text + "'");
    return *parsed;
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

int run(const Args& args) {
    const Options options(args,
                          {"--input", "--generate", "--k", "--solver", "--backend", "--precision", "--init", "--seed",
                           "--max-iter", "--tol", "--threads", "--block-size", "--empty", "--report", "--labels-out",
                           "--centroids-out"},
                          {"--help", "--inertia", "--scores"});
    if (options.has("--help")) {
        std::fputs(kRunUsage, stdout);
        return 0;
    }
    if (options.has("--input") == options.has("--generate"))
        throw UsageError("give exactly one of --input PATH and --generate SPEC");
    if (!options.has("--k")) throw UsageError("--k K is required");

    const long long k = options.number<long long>("--k", 0);
    const auto seed = options.number<std::uint64_t>("--seed", 0);
    SolverConfig config;
    config.algorithm = parse_or_usage(parse_algorithm(options.get("--solver", "lloyd")), "--solver",
                                      options.get("--solver"));
    config.backend = parse_or_usage(parse_backend(options.get("--backend", "omp")), "--backend",
                                    options.get("--backend"));
    config.precision = parse_or_usage(parse_precision(options.get("--precision", "f64")), "--precision",
                                      options.get("--precision"));
    config.empty_policy = parse_or_usage(parse_empty_policy(options.get("--empty", "keep")), "--empty",
                                         options.get("--empty"));
    config.max_iterations = options.number<int>("--max-iter", 300);
    config.tol = options.number<double>("--tol", 1e-4);
    config.threads = options.number<int>("--threads", 0);
    config.cuda_block_size = options.number<int>("--block-size", 0);
    config.compute_inertia = options.has("--inertia");
    if (config.max_iterations < 1) throw UsageError("--max-iter must be at least 1");
    if (!(config.tol >= 0.0)) throw UsageError("--tol must be >= 0");
    if (config.threads < 0) throw UsageError("--threads must be >= 0");
    if (config.cuda_block_size != 0 && config.cuda_block_size != 64 && config.cuda_block_size != 256 &&
        config.cuda_block_size != 1024 && (config.cuda_block_size < 32 || config.cuda_block_size > 1024 ||
                                           config.cuda_block_size % 32 != 0))
        throw UsageError("--block-size must be 0 or a multiple of 32 between 32 and 1024");
    const std::string report = options.get("--report", "table");
    if (report != "table" && report != "json") throw UsageError("--report must be table or json");

    InitOptions init;
    init.seed = seed;
    init.threads = config.threads;
    const std::string init_text = options.get("--init", "kmeans++");
    if (const auto method = parse_init_method(init_text); method && *method != InitMethod::File) {
        init.method = *method;
    } else if (std::filesystem::exists(init_text)) {
        init.method = InitMethod::File;
        init.path = init_text;
    } else {
        throw UsageError("--init: '" + init_text +
                         "' is neither random, kmeans++, greedy-kmeans++, maximin nor an existing file");
    }

    // Data. Large files show their loading progress on a terminal's stderr.
    LoadOptions load_options;
    if (isatty(fileno(stderr))) {
        load_options.progress = [path = options.get("--input")](std::uint64_t done, std::uint64_t total) {
            if (total < (std::uint64_t{64} << 20)) return;
            std::fprintf(stderr, "\rloading %s: %3.0f %% of %.0f MB", path.c_str(),
                         100.0 * static_cast<double>(done) / static_cast<double>(total),
                         static_cast<double>(total) / 1e6);
            if (done >= total) std::fputc('\n', stderr);
        };
    }
    Dataset data = options.has("--input") ? load_dataset(options.get("--input"), load_options)
                                          : generate_dataset(options.get("--generate"), seed);
    if (k < 1 || static_cast<unsigned long long>(k) > data.n())
        throw InputError::whole(data.name, "k = " + std::to_string(k) + " must be between 1 and the number of points n = " +
                                               std::to_string(data.n()));

    const Matrix<double> initial = initialize_centroids(data.points, static_cast<std::size_t>(k), init, data.name);
    auto points = std::make_shared<const Matrix<double>>(std::move(data.points));
    std::unique_ptr<Solver> solver = make_solver(config);
    solver->set_data(points);
    solver->set_initial_centroids(initial);

    if (report == "table") {
        std::printf("# data %s: n = %zu, d = %zu; k = %lld; solver %s; init %s, seed %llu\n", data.name.c_str(),
                    points->rows(), points->cols(), k, config.describe().c_str(), init_text.c_str(),
                    static_cast<unsigned long long>(seed));
        print_table_header();
    }
    double total_ms = 0.0;
    while (!solver->converged()) {
        const IterationStats stats = solver->step();
        total_ms += stats.time_total_ms;
        if (report == "table") print_table_row(stats);
        else std::printf("%s\n", to_json(stats).c_str());
        std::fflush(stdout);
    }
    // After a stop on tol or max-iter, relabel against the final centroids (as
    // scikit-learn does) so the labels written match the centroids.
    if (solver->stop_reason() != StopReason::NoLabelChange) solver->finalize_labels();

    RunSummary summary;
    summary.solver = config.describe();
    summary.data = data.name;
    summary.n = points->rows();
    summary.d = points->cols();
    summary.k = static_cast<std::size_t>(k);
    summary.iterations = solver->iteration();
    summary.stop_reason = solver->stop_reason();
    summary.converged = summary.stop_reason == StopReason::NoLabelChange || summary.stop_reason == StopReason::Tolerance;
    summary.inertia = solver->inertia();
    summary.total_time_ms = total_ms;
    std::optional<Scores> scores;
    if (options.has("--scores"))
        scores = run_scores(*points, solver->labels(), solver->centroids(), data, config.threads,
                            config.backend == Backend::CudaGlobal || config.backend == Backend::CudaShared, seed);
    if (report == "table") {
        std::printf("# %s after %d iterations (%s); inertia %.10g; %.3f ms in steps\n",
                    summary.converged ? "converged" : "stopped", summary.iterations,
                    std::string(to_string(summary.stop_reason)).c_str(), summary.inertia, total_ms);
        if (scores) print_run_scores_table(*scores);
    } else {
        std::string json = to_json(summary);
        if (scores) json.insert(json.size() - 1, "," + scores_json_fields(*scores, false));  // inside the summary object
        std::printf("%s\n", json.c_str());
    }

    if (options.has("--labels-out")) write_labels(options.get("--labels-out"), solver->labels());
    if (options.has("--centroids-out")) write_centroids_csv(options.get("--centroids-out"), solver->centroids());
    return 0;
}

}  // namespace

int cmd_run(const Args& args) {
    try {
        return run(args);
    } catch (const UsageError& error) {
        std::fprintf(stderr, "kmeans-cli run: %s\n(see 'kmeans-cli run --help')\n", error.what());
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "kmeans-cli run: %s\n", error.what());
        return 1;
    }
}

}  // namespace kms::cli
