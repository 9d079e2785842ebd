// kmeans-cli generate: write a generated data set (and its ground truth) to files.
//
// Files are written to a temporary name beside the target and renamed over it
// when complete, so a failed or interrupted run never leaves a half-written file
// (kms::OutputFile and its writers, kms/io.hpp: shortest round-trip text for each
// double, so loading the file gives back exactly the generated values).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"

namespace kms::cli {
namespace {

void print_help() {
    std::printf(
        "usage: kmeans-cli generate --generate SPEC --out PATH [options]\n"
        "\n"
        "Writes a seeded synthetic data set; the same SPEC and seed give the same bits on\n"
        "every machine and for any thread count.\n"
        "\n"
        "  --generate SPEC      NAME or NAME:key=value,... (generators below)\n"
        "  --seed S             random seed, an unsigned 64-bit integer (default 0)\n"
        "  --out PATH           the points: CSV (first line '# kmeans-studio generate SPEC seed S';\n"
        "                       geo-cities: then the header 'latitude,longitude')\n"
        "                       or NumPy .npy float64 (n × d)\n"
        "  --format csv|npy     format of --out (default: npy if PATH ends in .npy, else csv)\n"
        "  --labels-out PATH    ground-truth labels, 0-based: one per line, or int32 .npy if\n"
        "                       PATH ends in .npy (error for generators without truth)\n"
        "  --centroids-out PATH ground-truth centres as CSV, one per line (where defined)\n"
        "  --help               this text\n"
        "\n"
        "Exit status: 0 written, 1 bad spec or write failure, 2 bad command line.\n"
        "\n"
        "Generators:\n%s",
        generator_help().c_str());
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string header_comment(const std::string& spec, std::uint64_t seed, const std::string& what = {}) {
    return "# kmeans-studio generate " + spec + " seed " + std::to_string(seed) + what + "\n";
}

constexpr OptionSpec kGenerateOptions[] = {
    {"--generate", "SPEC", "", ""}, {"--seed", "S", "0", ""},          {"--out", "PATH", "", ""},
    {"--format", "F", "", ""},      {"--labels-out", "PATH", "", ""}, {"--centroids-out", "PATH", "", ""},
    {"--help", "", "", ""}};

int generate(const Args& args) {
    const ParsedOptions options(args, {kGenerateOptions});
    if (options.has("--help")) {
        print_help();
        return 0;
    }
    if (!options.has("--generate")) throw UsageError("option --generate SPEC is required");
    if (!options.has("--out")) throw UsageError("option --out PATH is required");
    const std::string spec = options.get("--generate");
    const std::string out = options.get("--out");
    const auto seed = options.number<std::uint64_t>("--seed");
    const std::string format = options.get("--format", ends_with(out, ".npy") ? "npy" : "csv");
    if (format != "csv" && format != "npy")
        throw UsageError("option --format: '" + format + "' is not csv or npy");
    for (const char* option : {"--out", "--labels-out", "--centroids-out"})
        if (options.has(option) && options.get(option).empty()) throw UsageError(std::string("option ") + option + " needs a path");

    // Every destination checked before the work; all files written, then all committed.
    std::vector<std::string> outputs{out};
    for (const char* option : {"--labels-out", "--centroids-out"})
        if (options.has(option)) outputs.push_back(options.get(option));
    for (const std::string& path : outputs) check_output_path(path);
    const SignalStop& signals = signal_stop();

    // Ctrl-C / SIGTERM stop the generation (and its allocation) as they stop the writing.
    Dataset data;
    try {
        data = generate_dataset(spec, seed, signals.token());
    } catch (const Cancelled& cancelled) {
        std::fprintf(stderr, "kmeans-cli generate: %s\n", cancelled.what());
        return signals.exit_status();
    }
    if (options.has("--labels-out") && data.truth_labels.empty())
        throw InputError::whole(spec, "this generator has no ground-truth labels for --labels-out");
    if (options.has("--centroids-out") && data.truth_centroids.rows() == 0)
        throw InputError::whole(spec, "this generator has no ground-truth centres for --centroids-out");

    // Geographic generators' CSV names its columns, so run --geo finds them.
    const std::string columns = spec.rfind("geo-", 0) == 0 ? "latitude,longitude\n" : "";
    std::vector<std::unique_ptr<OutputFile>> files;
    try {
        files.push_back(std::make_unique<OutputFile>(out));
        if (format == "npy") write_npy(*files.back(), data.points, signals.token());
        else write_csv(*files.back(), data.points, header_comment(spec, seed) + columns, signals.token());
        if (options.has("--labels-out")) {
            files.push_back(std::make_unique<OutputFile>(options.get("--labels-out")));
            write_labels(*files.back(), data.truth_labels, signals.token());
        }
        if (options.has("--centroids-out")) {
            files.push_back(std::make_unique<OutputFile>(options.get("--centroids-out")));
            write_csv(*files.back(), data.truth_centroids, header_comment(spec, seed, " (true centres)") + columns,
                      signals.token());
        }
    } catch (const Cancelled& cancelled) {
        std::fprintf(stderr, "kmeans-cli generate: %s\n", cancelled.what());
        return signals.exit_status();  // the unfinished files are removed with `files`
    }
    for (auto& file : files) file->commit();
    std::printf("wrote %s: %zu points × %zu (%s)\n", out.c_str(), data.n(), data.d(), data.name.c_str());
    return 0;
}

}  // namespace

int cmd_generate(const Args& args) { return run_command("generate", args, generate); }

}  // namespace kms::cli
