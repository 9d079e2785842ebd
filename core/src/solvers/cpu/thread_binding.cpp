#include "thread_binding.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>

#include <omp.h>

#include "kms/error.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

namespace kms::cpu {

#if defined(__linux__)
namespace {

// The CPUs the process may use, as it started (before any pinning).
const cpu_set_t& original_mask() {
    static const cpu_set_t mask = [] {
        cpu_set_t m;
        CPU_ZERO(&m);
        if (sched_getaffinity(0, sizeof m, &m) != 0)
            for (int c = 0; c < omp_get_num_procs(); ++c) CPU_SET(c, &m);
        return m;
    }();
    return mask;
}

int read_topology(int cpu, const char* what) {
    std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + what);
    int value = -1;
    if (!(in >> value)) return -1;
    return value;
}

struct Cpu {
    int id, package, core, sibling, core_rank;
};

std::vector<Cpu> topology() {
    std::vector<Cpu> cpus;
    const cpu_set_t& mask = original_mask();
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) cpus.push_back({c, std::max(0, read_topology(c, "physical_package_id")),
                                                 read_topology(c, "core_id"), 0, 0});
    // A CPU without topology files counts as a core of its own.
    for (Cpu& cpu : cpus)
        if (cpu.core < 0) cpu.core = 1'000'000 + cpu.id;
    std::sort(cpus.begin(), cpus.end(),
              [](const Cpu& a, const Cpu& b) { return std::tie(a.package, a.core, a.id) < std::tie(b.package, b.core, b.id); });
    // Hardware-thread index within its core, and the core's rank within its package.
    int rank = -1;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        const bool same_core = i > 0 && cpus[i].package == cpus[i - 1].package && cpus[i].core == cpus[i - 1].core;
        const bool same_package = i > 0 && cpus[i].package == cpus[i - 1].package;
        cpus[i].sibling = same_core ? cpus[i - 1].sibling + 1 : 0;
        rank = same_core ? rank : (same_package ? rank + 1 : 0);
        cpus[i].core_rank = rank;
    }
    return cpus;
}

struct Applied {
    ThreadBinding binding = ThreadBinding::None;
    int threads = 0;
};
thread_local Applied applied;  // per OpenMP master thread: its team is its own

}  // namespace

std::vector<int> binding_order(ThreadBinding binding) {
    if (binding == ThreadBinding::None) return {};
    std::vector<Cpu> cpus = topology();
    if (binding == ThreadBinding::Spread)
        // First hardware thread of every core, cores taken round-robin over packages; then the second ones.
        std::stable_sort(cpus.begin(), cpus.end(), [](const Cpu& a, const Cpu& b) {
            return std::tie(a.sibling, a.core_rank, a.package) < std::tie(b.sibling, b.core_rank, b.package);
        });
    std::vector<int> order;
    for (const Cpu& cpu : cpus) order.push_back(cpu.id);
    return order;
}

void apply_thread_binding(ThreadBinding binding, int threads) {
    if (applied.binding == binding && (binding == ThreadBinding::None || applied.threads == threads)) return;
    const std::vector<int> order = binding_order(binding);
    int failed_cpu = -2, error = 0;
#pragma omp parallel num_threads(threads)
    {
        cpu_set_t mask;
        int cpu = -1;
        if (order.empty()) {
            mask = original_mask();
        } else {
            cpu = order[static_cast<std::size_t>(omp_get_thread_num()) % order.size()];
            CPU_ZERO(&mask);
            CPU_SET(cpu, &mask);
        }
        if (sched_setaffinity(0, sizeof mask, &mask) != 0) {
#pragma omp critical(kms_binding_error)
            {
                failed_cpu = cpu;
                error = errno;
            }
        }
    }
    if (failed_cpu != -2)
        throw Error("--bind " + std::string(to_string(binding)) + ": the system refused to " +
                    (failed_cpu < 0 ? std::string("unpin a thread") : "pin a thread to CPU " + std::to_string(failed_cpu)) +
                    " (" + std::strerror(error) + ")");
    applied = {binding, threads};
}

#else  // not Linux

std::vector<int> binding_order(ThreadBinding) { return {}; }

void apply_thread_binding(ThreadBinding binding, int) {
    if (binding != ThreadBinding::None)
        throw Error("--bind " + std::string(to_string(binding)) + " needs Linux thread affinity");
}

#endif

}  // namespace kms::cpu
