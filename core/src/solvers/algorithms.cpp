// The solver registry (kms/algorithms.hpp).
#include "kms/algorithms.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "kms/error.hpp"

namespace kms {

void register_core_solvers();  // generated: every KMS_SOLVER_REGISTRATION in core/src/solvers

namespace {
struct Registered {
    AlgorithmInfo info;
    std::map<Backend, SolverFactory> factories;
    std::map<Backend, SolverTraits> traits;
};

struct Table {
    std::recursive_mutex mutex;  // recursive: the built-in registrations run under it
    std::map<std::string, Registered, std::less<>> algorithms;  // nodes never move: names stay valid
    bool built_in = false;
};

// The table, with the core's solvers registered on first use (a program that also
// has the GPU's registers them in register_gpu_backends()).
Table& table() {
    static Table instance;
    std::lock_guard lock(instance.mutex);
    if (!instance.built_in) {
        instance.built_in = true;
        register_core_solvers();
    }
    return instance;
}
}  // namespace

void register_algorithm(AlgorithmInfo info) {
    if (info.algorithm == Algorithm::Auto || info.algorithm.name().empty())
        throw Error("'" + std::string(info.algorithm.name()) + "' cannot be registered as an algorithm");
    Table& t = table();
    std::lock_guard lock(t.mutex);
    auto [it, added] = t.algorithms.try_emplace(std::string(info.algorithm.name()));
    info.algorithm = Algorithm(it->first);  // the registry's copy of the name outlives the caller's
    it->second.info = std::move(info);
}

void register_solver(Algorithm algorithm, Backend backend, SolverFactory make, SolverTraits traits) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    const auto it = t.algorithms.find(algorithm.name());
    if (it == t.algorithms.end())
        throw Error("a " + std::string(to_string(backend)) + " solver for " + std::string(algorithm.name()) +
                    ", which is not a registered algorithm");
    it->second.factories.insert_or_assign(backend, std::move(make));
    it->second.traits.insert_or_assign(backend, traits);
}

std::vector<AlgorithmInfo> registered_algorithms() {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    std::vector<AlgorithmInfo> infos;
    for (const auto& [name, registered] : t.algorithms) infos.push_back(registered.info);
    std::stable_sort(infos.begin(), infos.end(),
                     [](const AlgorithmInfo& a, const AlgorithmInfo& b) { return a.published < b.published; });
    return infos;
}

std::optional<AlgorithmInfo> algorithm_info(Algorithm algorithm) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    const auto it = t.algorithms.find(algorithm.name());
    if (it == t.algorithms.end()) return std::nullopt;
    return it->second.info;
}

SolverFactory registered_solver(Algorithm algorithm, Backend backend) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    const auto it = t.algorithms.find(algorithm.name());
    if (it == t.algorithms.end()) return {};
    const auto factory = it->second.factories.find(backend);
    return factory == it->second.factories.end() ? SolverFactory{} : factory->second;
}

SolverTraits solver_traits(Algorithm algorithm, Backend backend) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    const auto it = t.algorithms.find(algorithm.name());
    if (it == t.algorithms.end()) return {};
    const auto traits = it->second.traits.find(backend);
    return traits == it->second.traits.end() ? SolverTraits{} : traits->second;
}

std::string algorithm_names(std::string_view separator) {
    std::string names;
    for (const AlgorithmInfo& info : registered_algorithms())
        names += (names.empty() ? "" : std::string(separator)) + std::string(info.algorithm.name());
    return names;
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
    if (text == Algorithm::Auto.name()) return Algorithm::Auto;
    if (const std::optional<AlgorithmInfo> info = algorithm_info(Algorithm(text))) return info->algorithm;
    return std::nullopt;
}

std::string_view to_string(Algorithm algorithm) { return algorithm.name(); }

}  // namespace kms
