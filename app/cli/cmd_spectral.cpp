// kmeans-cli spectral: spectral clustering through k-means representatives
// (kms/spectral.hpp, docs/spectral.md): print each phase as it finishes and a
// summary (table or one JSON object), write each point's label.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"
#include "kms/report.hpp"
#include "kms/scores.hpp"
#include "kms/spectral.hpp"

namespace kms::cli {

namespace {

constexpr OptionSpec kSpectralOutputOptions[] = {
    {"--labels-out", "PATH", "", "write each point's cluster, one 0-based integer per line (required)"},
    {"--report", "FORMAT", "table", "table | json (one summary object: phase times, eigenvalues, eigengap,\n"
                                    "sigma, k)"},
    {"--help", "", "", "this text"},
};

void print_help(const std::vector<OptionSpec>& fit_specs) {
    std::printf("usage: kmeans-cli spectral (--input PATH | --generate SPEC) --k K|auto --labels-out PATH [options]\n\n"
                "Spectral clustering of k-means representatives (docs/spectral.md).\n\n%s%s\n"
                "The representatives' k-means:\n%s%s",
                options_help(data_option_table()).c_str(), options_help(spectral_option_table()).c_str(),
                options_help(fit_specs).c_str(), options_help(kSpectralOutputOptions).c_str());
}

std::string eigenvalue_list(const SpectralResult& r) {
    std::string text;
    const std::size_t shown = std::min(r.eigen.values.size(), SpectralOptions::kReportedEigenvalues);
    for (std::size_t i = 0; i < shown; ++i) {
        char value[32];
        std::snprintf(value, sizeof value, "%s%.4g", i ? " " : "", r.eigen.values[i]);
        text += value;
    }
    return text;
}

int spectral(const Args& args) {
    const std::vector<OptionSpec> fit_specs = fit_options_without_k();
    const ParsedOptions options(args, {data_option_table(), spectral_option_table(), fit_specs, kSpectralOutputOptions});
    if (options.has("--help")) {
        print_help(fit_specs);
        return 0;
    }
    if (options.has("--input") == options.has("--generate"))
        throw UsageError("give exactly one of --input PATH and --generate SPEC");
    if (!options.has("--labels-out")) throw UsageError("option --labels-out PATH is required");
    const SpectralOptions spectral_options = spectral_options_from(options);
    const std::string report = options.get("--report");
    if (report != "table" && report != "json") throw UsageError("--report must be table or json");
    check_output_path(options.get("--labels-out"));

    const SignalStop& signals = signal_stop();
    LoadOptions load_options;
    load_options.cancel = signals.token();
    const std::uint64_t seed = spectral_options.kmeans.init.seed;
    Dataset data = options.has("--input") ? load_dataset(options.get("--input"), load_options)
                                          : generate_dataset(options.get("--generate"), seed, signals.token());
    auto points = std::make_shared<const Matrix<double>>(std::move(data.points));

    const bool json = report == "json";
    const auto progress = [json](SpectralPhase phase, const SpectralResult& r) {
        if (json) return;
        switch (phase) {
            case SpectralPhase::Representatives:
                std::printf("# representatives: %zu by %s, %d iterations (%s), %.1f ms\n", r.representatives,
                            r.representative_fit.solver.describe().c_str(), r.representative_fit.iterations,
                            std::string(to_string(r.representative_fit.stop_reason)).c_str(),
                            r.times.representatives_ms);
                break;
            case SpectralPhase::Similarity:
                std::printf("# similarity: %s graph, sigma %.6g (%s), %.1f ms\n",
                            r.neighbours ? (std::to_string(r.neighbours) + "-nearest-neighbour").c_str() : "full",
                            r.sigma, r.sigma_rule.c_str(), r.times.similarity_ms);
                break;
            case SpectralPhase::Eigensolver:
                std::printf("# eigensolver: %s, %.1f ms; eigenvalues %s\n", r.eigen.method.c_str(),
                            r.times.eigensolver_ms, eigenvalue_list(r).c_str());
                if (!r.eigensolver_note.empty()) std::printf("# note: %s\n", r.eigensolver_note.c_str());
                std::printf("# k = %zu%s; eigengap %.6g (ratio %.6g)\n", r.clusters,
                            r.clusters_chosen ? " (auto: largest eigengap ratio)" : "", r.eigengap, r.eigengap_ratio);
                break;
            case SpectralPhase::FinalKMeans:
                std::printf("# final k-means of the embedding: %zu restarts, inertia %.6g, %.1f ms\n",
                            r.final_fit.restarts.size(), r.final_fit.inertia, r.times.final_kmeans_ms);
                break;
            case SpectralPhase::Labelling: break;
        }
        std::fflush(stdout);
    };
    if (!json) {
        std::printf("# data %s: n = %zu, d = %zu\n", data.name.c_str(), points->rows(), points->cols());
        std::fflush(stdout);  // a pipe reader sees the run start before the representatives' k-means ends
    }
    const SpectralResult result = spectral_cluster(points, spectral_options, progress, signals.token(), data.name);

    std::string extra;
    double ari = std::nan(""), nmi = std::nan("");
    if (!result.cancelled && data.truth_labels.size() == result.labels.size()) {
        ari = adjusted_rand_index(data.truth_labels, result.labels);
        nmi = normalized_mutual_info(data.truth_labels, result.labels);
        extra = "\"ari\":" + json_number(ari) + ",\"nmi\":" + json_number(nmi);
    }
    if (json) {
        std::printf("%s\n", to_json(result, data.name, extra).c_str());
    } else {
        const SpectralTimes& t = result.times;
        std::printf("# %s: k = %zu; time %.1f ms (representatives %.1f, similarity %.1f, eigensolver %.1f, final "
                    "k-means %.1f, labelling %.1f)\n",
                    result.cancelled ? "cancelled" : "done", result.clusters, t.total_ms(), t.representatives_ms,
                    t.similarity_ms, t.eigensolver_ms, t.final_kmeans_ms, t.labelling_ms);
        if (!extra.empty()) std::printf("# against the ground truth: ari %.6f, nmi %.6f\n", ari, nmi);
    }
    if (!result.cancelled) write_files_atomically({{options.get("--labels-out"), labels_text(result.labels)}});
    return signals.exit_status();
}

}  // namespace

int cmd_spectral(const Args& args) { return run_command("spectral", args, spectral); }

}  // namespace kms::cli
