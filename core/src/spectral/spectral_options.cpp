// The spectral chain's option table (kms/spectral.hpp).
#include <cmath>
#include <string>

#include "kms/error.hpp"
#include "kms/spectral.hpp"

namespace kms {

namespace {
constexpr OptionSpec kSpectralOptions[] = {
    {"--k", "K|auto", "", "clusters k_c (1 <= K <= R), or auto: the largest eigengap ratio\n"
                          "lambda(k+1) / lambda(k), k = 2 .. 20 (docs/spectral.md)"},
    {"--representatives", "R", "", "k-means representatives (2 <= R <= n; default min(n, 1000)); their k-means\n"
                                   "takes the fit options below, with --solver auto unless given"},
    {"--neighbours", "M", "10", "similarity graph: each representative's M nearest, symmetrised\n"
                                "(0 = the full Gaussian graph)"},
    {"--sigma", "S", "", "Gaussian width (default: the median distance of a representative to its M-th\n"
                         "nearest, M = 7 for the full graph)"},
    {"--final-n-init", "R", "10", "restarts of the k-means on the spectral embedding"},
    {"--rep-weights", "size|none", "size", "the embedding's k-means weighs each representative by its points\n"
                                           "(size: as if all n points were embedded) or not"},
};
}  // namespace

OptionTable spectral_option_table() { return kSpectralOptions; }

std::vector<OptionSpec> fit_options_without_k() {
    std::vector<OptionSpec> specs;
    for (const OptionSpec& spec : fit_option_table())
        if (spec.name != "--k") specs.push_back(spec);
    return specs;
}

SpectralOptions spectral_options_from(const ParsedOptions& parsed) {
    SpectralOptions options;
    options.kmeans = fit_options_from(parsed, false, false);
    // The representatives' k-means has many clusters (R): let the measured rule pick
    // a bounded solver unless one is named.
    if (!parsed.has("--solver")) options.kmeans.solver.algorithm = Algorithm::Auto;
    if (!parsed.has("--k")) throw UsageError("--k K|auto is required");
    if (const std::string k = parsed.get("--k"); k != "auto") {
        const long long value = parse_number<long long>("--k", k);
        if (value < 1) throw UsageError("--k must be at least 1 (or auto)");
        options.clusters = static_cast<std::size_t>(value);
    }
    if (parsed.has("--representatives")) {
        const long long value = parsed.number<long long>("--representatives");
        if (value < 2) throw UsageError("--representatives must be at least 2");
        options.representatives = static_cast<std::size_t>(value);
    }
    const long long neighbours = parsed.number<long long>("--neighbours");
    if (neighbours < 0) throw UsageError("--neighbours must be 0 (full graph) or more");
    options.neighbours = static_cast<std::size_t>(neighbours);
    if (parsed.has("--sigma")) {
        options.sigma = parsed.number<double>("--sigma");
        if (!(options.sigma > 0.0) || !std::isfinite(options.sigma))
            throw UsageError("--sigma must be a positive finite number, got '" + parsed.get("--sigma") + "'");
    }
    options.final_n_init = parsed.number<int>("--final-n-init");
    const std::string weights = parsed.get("--rep-weights");
    if (weights != "size" && weights != "none")
        throw UsageError("option --rep-weights: unknown value '" + weights + "' (expected size or none)");
    options.weight_by_size = weights == "size";
    options.validate();
    return options;
}

}  // namespace kms
