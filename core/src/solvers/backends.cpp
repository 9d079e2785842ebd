// The back-end registry (kms/backends.hpp).
#include "kms/backends.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "cpu/cpu_backend.hpp"
#include "kms/error.hpp"

namespace kms {

namespace {
struct Registry {
    std::mutex mutex;
    std::map<Backend, BackendEntry> entries;
    Registry() {
        for (Backend backend : {Backend::Sequential, Backend::OpenMP})
            entries.emplace(backend, cpu::backend_entry(backend));
    }
};
Registry& registry() {
    static Registry instance;
    return instance;
}

std::string unavailable_reason(Backend backend) {
    return "this program was built without the " + std::string(to_string(backend)) +
           " back end (no CUDA compiler was found when it was configured, or it does not register it)";
}
}  // namespace

bool BackendEntry::has(Algorithm algorithm) const {
    if (!algorithms.empty() || make_solver)
        return std::find(algorithms.begin(), algorithms.end(), algorithm) != algorithms.end();
    return algorithm != Algorithm::Auto && registered_solver(algorithm, backend) != nullptr;
}

void register_backend(BackendEntry entry) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.entries.insert_or_assign(entry.backend, std::move(entry));
}

const BackendEntry* find_backend(Backend backend) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    const auto it = r.entries.find(backend);
    return it == r.entries.end() ? nullptr : &it->second;  // std::map: entries never move
}

std::vector<Backend> all_backends() { return {Backend::Sequential, Backend::OpenMP, Backend::Cuda}; }

BackendAvailability backend_availability(Backend backend) {
    const BackendEntry* entry = find_backend(backend);
    if (!entry) return {false, unavailable_reason(backend)};
    return entry->availability();
}

namespace {
// The registered, available entry for `config`, or kms::Error saying why not.
const BackendEntry& usable_entry(const SolverConfig& config) {
    const BackendEntry* entry = find_backend(config.backend);
    const BackendAvailability availability = backend_availability(config.backend);
    if (!entry || !availability.available)
        throw Error("back end " + config.backend_name() + " is unavailable: " + availability.reason);
    return *entry;
}
}  // namespace

std::unique_ptr<Solver> make_solver(const SolverConfig& config) {
    config.validate();
    const BackendEntry& entry = usable_entry(config);
    if (config.algorithm == Algorithm::Auto)
        throw Error("--solver auto is chosen from the data's n, d and k: resolve it with resolve_solver() "
                    "before making a solver (fit() does)");
    if (!entry.has(config.algorithm))
        throw Error("back end " + config.backend_name() + " has no " + std::string(to_string(config.algorithm)) +
                    " solver");
    if (config.variant != KernelVariant::Auto &&
        std::find(entry.variants.begin(), entry.variants.end(), config.variant) == entry.variants.end())
        throw Error("back end " + std::string(to_string(config.backend)) + " has no kernel variant " +
                    std::string(to_string(config.variant)));
    return entry.make_solver ? entry.make_solver(config) : registered_solver(config.algorithm, config.backend)(config);
}

SolverChoice choose_solver(const SolverConfig& config, std::size_t n, std::size_t d, std::size_t k) {
    if (config.algorithm != Algorithm::Auto) return {config.algorithm, {}};
    const BackendEntry& entry = usable_entry(config);
    if (config.stream_chunk > 0)
        return {Algorithm::Lloyd, "lloyd: auto has no rule for streamed points (--stream-chunk); --solver hamerly, "
                                  "yinyang and exponion stream too, and pay where Lloyd's assignment outlasts the copy"};
    const std::string shape = " (n = " + std::to_string(n) + ", d = " + std::to_string(d) + ", k = " + std::to_string(k) + ")";
    if (!entry.choose_algorithm)
        return {Algorithm::Lloyd, "lloyd: back end " + config.backend_name() + " has no rule for auto" + shape};
    SolverChoice choice = entry.choose_algorithm(n, d, k);
    if (!entry.has(choice.algorithm))  // a rule naming what its back end lacks is a bug, not a choice
        throw Error("back end " + config.backend_name() + " chose " + std::string(to_string(choice.algorithm)) +
                    " for auto, which it has no solver for");
    choice.reason = std::string(to_string(choice.algorithm)) + ": " + choice.reason + shape;
    return choice;
}

SolverConfig resolve_solver(const SolverConfig& config, std::size_t n, std::size_t d, std::size_t k) {
    SolverConfig resolved = config;
    resolved.algorithm = choose_solver(config, n, d, k).algorithm;
    return resolved;
}

SolverChoice out_of_core_choice(const SolverChoice& rule, const SolverConfig& config, std::size_t k,
                                std::uint64_t bound_bytes) {
    const auto streams = [&](Algorithm a) {
        return registered_solver(a, config.backend) && solver_traits(a, config.backend).streams_points;
    };
    const auto fits = [&](Algorithm a) {
        return solver_traits(a, config.backend).bound_bytes(k, config.precision) <= bound_bytes;
    };
    // A bounded choice that cannot run is replaced by Hamerly, which prunes too (what the
    // rule says bounds save, Hamerly's two a row save most of).
    Algorithm pick = rule.algorithm;
    if (!streams(pick) || !fits(pick))
        pick = pick != Algorithm::Lloyd && streams(Algorithm::Hamerly) && fits(Algorithm::Hamerly) ? Algorithm::Hamerly
                                                                                                : Algorithm::Lloyd;
    std::string why = ")";
    if (pick != rule.algorithm)
        why = !streams(rule.algorithm)
                  ? "; it does not read the file by blocks, " + std::string(to_string(pick)) + " does)"
                  : "; its bounds, " + std::to_string(solver_traits(rule.algorithm, config.backend)
                                                          .bound_bytes(k, config.precision)) +
                        " bytes a row, do not fit the memory limit, " + std::string(to_string(pick)) + "'s do)";
    return {pick, std::string(to_string(pick)) + " (out of core; the back end's rule: " + rule.reason + why};
}

Matrix<double> initialize_centroids_for(const SolverConfig& config, const Matrix<double>& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name) {
    const BackendEntry& entry = usable_entry(config);
    if (entry.initialize) return entry.initialize(points, k, init, source_name, config);
    InitOptions options = init;
    if (options.threads == 0 && entry.uses_threads) options.threads = config.threads;
    return initialize_centroids(points, k, options, source_name);
}

Matrix<double> initialize_centroids_for(const SolverConfig& config, const Matrix<float>& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name) {
    const BackendEntry& entry = usable_entry(config);
    if (entry.initialize) return entry.initialize(points.cast<double>(), k, init, source_name, config);
    InitOptions options = init;
    if (options.threads == 0 && entry.uses_threads) options.threads = config.threads;
    return initialize_centroids(points, k, options, source_name);
}

Matrix<double> initialize_centroids_for(const SolverConfig& config, const DeviceMatrix& points, std::size_t k,
                                        const InitOptions& init, const std::string& source_name) {
    const BackendEntry& entry = usable_entry(config);
    if (!entry.initialize_device)
        throw Error("the " + config.backend_name() + " back end cannot seed from device data; device arrays "
                    "(CuPy, PyTorch CUDA tensors) need --backend cuda");
    return entry.initialize_device(points, k, init, source_name, config);
}

SilhouetteResult silhouette_for(const SolverConfig& config, const Matrix<double>& points,
                                std::span<const std::int32_t> labels, std::stop_token stop) {
    const BackendEntry& entry = usable_entry(config);
    if (entry.silhouette) return entry.silhouette(points, labels, stop, config);
    ScoreOptions options;
    options.threads = entry.uses_threads ? config.threads : 1;
    options.stop = stop;
    return silhouette(points, labels, options);
}

ScoreSettings run_score_settings(std::size_t n, const SolverConfig& config, std::uint64_t seed) {
    ScoreSettings settings;
    settings.options.threads = config.threads;
    settings.seed = seed;
    if (n > kRunScoresExactLimit) {
        settings.silhouette = SilhouetteMode::Sampled;
        settings.sample_size = kRunScoresExactLimit;
    }
    // The silhouette where the run ran (the GPU's for CUDA runs).
    if (backend_availability(config.backend).available)
        settings.exact_silhouette = [config](const Matrix<double>& p, std::span<const std::int32_t> l,
                                             std::stop_token stop) { return silhouette_for(config, p, l, stop); };
    return settings;
}

}  // namespace kms
