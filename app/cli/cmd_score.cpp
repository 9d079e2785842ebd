// kmeans-cli score: quality scores of a labelling (kms/scores.hpp), on the CPU or
// with the silhouette on a CUDA device.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "cmd_score.hpp"
#include "commands.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/scores.hpp"
#include "kms/backends.hpp"
#include "kms/options.hpp"

namespace kms::cli {
namespace {

void print_help() {
    std::printf(
        "usage: kmeans-cli score --input PATH --labels PATH [options]\n"
        "\n"
        "Scores a labelling of a data set as scikit-learn does (silhouette_score,\n"
        "calinski_harabasz_score, davies_bouldin_score, adjusted_rand_score,\n"
        "normalized_mutual_info_score), plus the inertia and the centroid index.\n"
        "\n"
        "  --input PATH             the points (CSV/text, benchmark format or .npy)\n"
        "  --labels PATH            one integer label per point (any integers)\n"
        "  --truth PATH             true labels: adds ari and nmi\n"
        "  --truth-centroids PATH   true centroids: adds centroid_index\n"
        "  --centroids PATH         centroids for the inertia and the centroid index; labels\n"
        "                           must then be 0-based rows of it (default: label means)\n"
        "  --silhouette MODE        exact (default), sampled:N (N random points, scikit-learn's\n"
        "                           sample_size, with a standard error) or none\n"
        "  --backend cpu|cuda       where the silhouette runs (default cpu)\n"
        "  --threads T              OpenMP threads (default: all)\n"
        "  --seed S                 seed of the silhouette sample (default 0)\n"
        "  --report table|json      output (default table); JSON keys: silhouette,\n"
        "                           calinski_harabasz, davies_bouldin, inertia [, ari, nmi]\n"
        "                           [, centroid_index]; undefined scores are null\n"
        "  --help                   this text\n"
        "\n"
        "Exit status: 0 scored, 1 bad input, 2 bad command line.\n");
}

int score(const Args& args) {
    static constexpr OptionSpec kScoreOptions[] = {
        {"--input", "PATH", "", ""},      {"--labels", "PATH", "", ""},     {"--truth", "PATH", "", ""},
        {"--truth-centroids", "PATH", "", ""}, {"--centroids", "PATH", "", ""}, {"--silhouette", "MODE", "exact", ""},
        {"--backend", "cpu|cuda", "cpu", ""}, {"--threads", "T", "0", ""},  {"--seed", "S", "0", ""},
        {"--report", "FORMAT", "table", ""}, {"--help", "", "", ""}};
    const ParsedOptions options(args, {kScoreOptions});
    if (options.has("--help")) {
        print_help();
        return 0;
    }
    if (!options.has("--input")) throw UsageError("option --input PATH is required");
    if (!options.has("--labels")) throw UsageError("option --labels PATH is required");
    const std::string report = options.get("--report");
    if (report != "table" && report != "json") throw UsageError("option --report: '" + report + "' is not table or json");
    const std::string backend = options.get("--backend");
    if (backend != "cpu" && backend != "cuda") throw UsageError("option --backend: '" + backend + "' is not cpu or cuda");

    ScoreSettings settings;
    SolverConfig where;  // the silhouette's back end: the registry's CUDA one, or the CPU
    where.backend = backend == "cuda" ? Backend::Cuda : Backend::OpenMP;
    where.threads = options.number<int>("--threads");
    where.validate();
    settings.options.threads = where.threads;
    settings.options.stop = signal_stop().token();  // the first SIGINT/SIGTERM stops the scores
    settings.seed = options.number<std::uint64_t>("--seed");
    parse_silhouette_mode("--silhouette", options.get("--silhouette"), settings);
    if (backend == "cuda") {
        const BackendAvailability availability = backend_availability(Backend::Cuda);
        if (!availability.available) throw Error("--backend cuda is unavailable: " + availability.reason);
        settings.exact_silhouette = [where](const Matrix<double>& points, std::span<const std::int32_t> labels,
                                            std::stop_token stop) { return silhouette_for(where, points, labels, stop); };
    }

    const std::string input_path = options.get("--input"), labels_path = options.get("--labels");
    LoadOptions load;
    load.cancel = signal_stop().token();
    load.attach_ground_truth = false;  // ground truth only when asked for (--truth, --truth-centroids)
    const Dataset data = load_dataset(input_path, load);
    const std::vector<std::int32_t> labels = load_labels(labels_path);
    if (labels.size() != data.n())
        throw InputError::whole(labels_path, std::to_string(labels.size()) + " labels, but " + input_path + " has " +
                                                 std::to_string(data.n()) + " points");
    std::vector<std::int32_t> truth;
    if (options.has("--truth")) {
        const std::string truth_path = options.get("--truth");
        truth = load_labels(truth_path);
        if (truth.size() != data.n())
            throw InputError::whole(truth_path, std::to_string(truth.size()) + " true labels, but " + input_path +
                                                    " has " + std::to_string(data.n()) + " points");
    }
    Matrix<double> centroids, truth_centroids;
    if (options.has("--centroids")) {
        const std::string path = options.get("--centroids");
        centroids = load_matrix(path);
        if (centroids.cols() != data.d())
            throw InputError::whole(path, std::to_string(centroids.cols()) + " coordinates per centroid, but " +
                                              input_path + " has " + std::to_string(data.d()));
        for (std::size_t i = 0; i < labels.size(); ++i)
            if (labels[i] < 0 || std::size_t(labels[i]) >= centroids.rows())
                throw InputError::whole(labels_path, "label " + std::to_string(labels[i]) + " of point " +
                                                         std::to_string(i + 1) + " is not a row of " + path + " (" +
                                                         std::to_string(centroids.rows()) + " centroids)");
    }
    if (options.has("--truth-centroids")) {
        const std::string path = options.get("--truth-centroids");
        truth_centroids = load_matrix(path);
        if (truth_centroids.rows() == 0) throw InputError::whole(path, "no centroids");
        if (truth_centroids.cols() != data.d())
            throw InputError::whole(path, std::to_string(truth_centroids.cols()) + " coordinates per centroid, but " +
                                              input_path + " has " + std::to_string(data.d()));
    }

    ScoreInputs inputs;
    inputs.points = &data.points;
    inputs.labels = labels;
    inputs.truth_labels = truth;
    if (options.has("--centroids")) inputs.centroids = &centroids;
    if (options.has("--truth-centroids")) inputs.truth_centroids = &truth_centroids;
    inputs.source = input_path;
    const Scores scores = compute_scores(inputs, settings);

    for (const std::string& note : scores.notes) std::fprintf(stderr, "kmeans-cli score: note: %s\n", note.c_str());
    if (report == "json") std::printf("{%s}\n", scores_json_fields(scores).c_str());
    else std::printf("%s", scores_table(scores).c_str());
    return 0;
}

}  // namespace

Scores run_scores(const Matrix<double>& points, std::span<const std::int32_t> labels, const Matrix<double>& centroids,
                  const Dataset& truth, const SolverConfig& config, std::uint64_t seed) {
    const ScoreSettings settings = run_score_settings(points.rows(), config, seed);
    ScoreInputs inputs;
    inputs.points = &points;
    inputs.labels = labels;
    inputs.centroids = &centroids;
    if (truth.truth_labels.size() == points.rows()) inputs.truth_labels = truth.truth_labels;
    if (truth.truth_centroids.rows() > 0 && truth.truth_centroids.cols() == points.cols())
        inputs.truth_centroids = &truth.truth_centroids;
    Scores scores = compute_scores(inputs, settings);
    for (const std::string& note : scores.notes) std::fprintf(stderr, "kmeans-cli run: note: %s\n", note.c_str());
    return scores;
}

void print_run_scores_table(const Scores& scores) {
    const std::string table = scores_table(scores);
    std::size_t begin = 0;
    while (begin < table.size()) {
        const std::size_t end = table.find('\n', begin);
        std::printf("# %s\n", table.substr(begin, end - begin).c_str());
        begin = end == std::string::npos ? table.size() : end + 1;
    }
}

int cmd_score(const Args& args) { return run_command("score", args, score); }

}  // namespace kms::cli
