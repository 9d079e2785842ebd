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
    struct Solver {
        SolverFactory make;
        SolverTraits traits;
    };
    std::map<Backend, Solver> solvers;  // one per back end it runs on
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
    it->second.solvers.insert_or_assign(backend, Registered::Solver{std::move(make), traits});
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

namespace {
// A copy of what `algorithm` registered for `backend`; empty (no factory, all traits false) when nothing.
Registered::Solver registered_on(Algorithm algorithm, Backend backend) {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    const auto it = t.algorithms.find(algorithm.name());
    if (it == t.algorithms.end()) return {};
    const auto solver = it->second.solvers.find(backend);
    return solver == it->second.solvers.end() ? Registered::Solver{} : solver->second;
}
}  // namespace

SolverFactory registered_solver(Algorithm algorithm, Backend backend) { return registered_on(algorithm, backend).make; }

SolverTraits solver_traits(Algorithm algorithm, Backend backend) { return registered_on(algorithm, backend).traits; }

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
