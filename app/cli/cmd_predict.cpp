// kmeans-cli predict: label points by their nearest centroid, with the engine's
// distance (ties to the lowest index) in the chosen precision and back end.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "kms/fit.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"
#include "kms/report.hpp"

namespace kms::cli {

namespace {

constexpr OptionSpec kPredictOptions[] = {
    {"--input", "PATH", "", "the points (CSV/text, benchmark format or .npy)"},
    {"--centroids", "PATH", "", "the centroids, one row each (e.g. from 'kmeans-cli run --centroids-out')"},
    {"--labels-out", "PATH", "", "write each point's label (0-based row of the centroids), one per line"},
    {"--report", "FORMAT", "table", "table | json (a summary with the inertia of the points against the centroids)"},
    {"--help", "", "", "this text"},
};

// The fit options that mean something for an assignment.
bool applies_to_predict(std::string_view name) {
    return name == "--backend" || name == "--variant" || name == "--precision" || name == "--threads" ||
           name == "--block-size" || name == "--device";
}

std::vector<OptionSpec> predict_fit_options() {
    std::vector<OptionSpec> specs;
    for (const OptionSpec& spec : fit_option_table())
        if (applies_to_predict(spec.name)) specs.push_back(spec);
    return specs;
}

int predict(const Args& args) {
    const std::vector<OptionSpec> fit_specs = predict_fit_options();
    const ParsedOptions options(args, {kPredictOptions, fit_specs});
    if (options.has("--help")) {
        std::printf("usage: kmeans-cli predict --input PATH --centroids PATH --labels-out PATH [options]\n\n%s%s",
                    options_help(kPredictOptions).c_str(), options_help(fit_specs).c_str());
        return 0;
    }
    for (const char* required : {"--input", "--centroids", "--labels-out"})
        if (!options.has(required)) throw UsageError("option " + std::string(required) + " PATH is required");
    const std::string report = options.get("--report");
    if (report != "table" && report != "json") throw UsageError("--report must be table or json");
    const SolverConfig config = fit_options_from(options, false).solver;
    check_output_path(options.get("--labels-out"));

    const std::string input = options.get("--input"), centroids_path = options.get("--centroids");
    LoadOptions load;
    load.attach_ground_truth = false;
    Dataset data = load_dataset(input, load);
    const Matrix<double> centroids = load_matrix(centroids_path);
    if (centroids.rows() == 0) throw InputError::whole(centroids_path, "no centroids");
    if (centroids.cols() != data.d())
        throw InputError::whole(centroids_path, std::to_string(centroids.cols()) + " coordinates per centroid, but " +
                                                    input + " has " + std::to_string(data.d()));
    const std::size_t n = data.n(), d = data.d();
    auto points = std::make_shared<const Matrix<double>>(std::move(data.points));
    Assignment assignment;
    try {
        assignment = assign(points, centroids, config);
    } catch (const InputError& error) {  // the engine's "the centroids" / "the data": their files
        if (error.source() == "the centroids") throw InputError::whole(centroids_path, error.reason());
        if (error.source() == "the data") throw InputError::whole(input, error.reason());
        throw;
    }

    if (report == "json") {
        std::printf("{\"type\":\"predict\",\"data\":\"%s\",\"centroids\":\"%s\",\"n\":%zu,\"d\":%zu,\"k\":%zu,"
                    "\"backend\":\"%s\",\"precision\":\"%s\",\"inertia\":%s}\n",
                    json_escape(input).c_str(), json_escape(centroids_path).c_str(), n, d, centroids.rows(),
                    config.backend_name().c_str(), std::string(to_string(config.precision)).c_str(),
                    json_number(assignment.inertia).c_str());
    } else {
        std::printf("# %zu points of %s against %zu centroids of %s (%s/%s): inertia %.10g\n", n, input.c_str(),
                    centroids.rows(), centroids_path.c_str(), config.backend_name().c_str(),
                    std::string(to_string(config.precision)).c_str(), assignment.inertia);
    }
    write_labels(options.get("--labels-out"), assignment.labels);
    return 0;
}

}  // namespace

int cmd_predict(const Args& args) { return run_command("predict", args, predict); }

}  // namespace kms::cli
