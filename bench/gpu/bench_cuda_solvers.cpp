// Per-iteration time of the CUDA solvers on the workloads, data resident
// on the device, fixed initial centroids, CUDA-event times, medians; with the
// memory and FP32 floors measured in the same run. Rerun everything on a CUDA
// machine with docs/lab/device-scripts/device_bench.sh (or this program alone).
//
//   bench_cuda_solvers [--quick] [--iterations N] [--json FILE] [--only W] [--config SUBSTRING]
//   bench_cuda_solvers --init [--quick]   (initialisation: GPU vs CPU, 10^7 2-D points, k = 5 and 100)
//   bench_cuda_solvers --ceilings         (the measured ceilings alone, one JSON line: scripts/bench.sh reads it)
//
// unsett%: points the Lloyd cuda-shared GEMM filter could not certify and that were
// labelled by exact distances (two candidates or all k), in % of n (median of steps 2..).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_floor.hpp"
#include "kms/backends.hpp"
#include "kms/gpu_backends.hpp"
#include "kms/cuda_init.hpp"
#include "kms/init.hpp"
#include "kms/random.hpp"
#include "kms/solver.hpp"

namespace {

struct Workload {
    std::string name;
    std::size_t n, d, k;
};

struct Result {
    std::string workload, config;
    double median_ms, assign_ms, update_ms, bounds_ms, skip_fraction, distance_fraction, set_data_ms, floor_ms,
        unsettled_fraction;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Gaussian blobs around k centres in [0, 100)^d, counter-based (the same for any thread count).
std::shared_ptr<kms::Matrix<double>> blobs(const Workload& w, std::uint64_t seed) {
    auto points = std::make_shared<kms::Matrix<double>>(w.n, w.d);
    std::vector<double> centre(w.k * w.d);
    for (std::size_t e = 0; e < centre.size(); ++e) centre[e] = 100.0 * kms::random_uniform(seed, 1, e);
    double* out = points->data();
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < static_cast<long long>(w.n); ++i) {
        const std::size_t c = static_cast<std::size_t>(i) % w.k;
        for (std::size_t j = 0; j < w.d; ++j) {
            const std::uint64_t counter = static_cast<std::uint64_t>(i) * w.d + j;
            const double u1 = kms::random_uniform(seed, 2, counter) + 1e-300;
            const double u2 = kms::random_uniform(seed, 3, counter);
            const double g = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
            out[static_cast<std::size_t>(i) * w.d + j] = centre[c * w.d + j] + 4.0 * g;
        }
    }
    return points;
}

kms::Matrix<double> spread_rows(const kms::Matrix<double>& points, std::size_t k) {
    kms::Matrix<double> c(k, points.cols());
    for (std::size_t r = 0; r < k; ++r) {
        const std::size_t row = (r * 7919 + 13) % points.rows();  // not the blob order: real work for the bounds
        for (std::size_t j = 0; j < points.cols(); ++j) c(r, j) = points(row, j);
    }
    return c;
}

// Wall time of the GPU initialiser (points copied to the device inside, as a caller
// pays it) and of the CPU initialiser with all host threads, median of `repeats`,
// on 10^7 2-D blobs; every GPU result is checked against the CPU's (bitwise).
int run_init_bench(bool quick) {
    const Workload w{"10Mx2", std::size_t{10'000'000} / (quick ? 100 : 1), 2, 5};
    const auto points = blobs(w, 2026);
    constexpr int repeats = 3;
    std::printf("== initialisation, n=%zu d=%zu, median of %d (ms, wall); CPU: %d threads\n", w.n, w.d, repeats,
                omp_get_max_threads());
    std::printf("%-18s %5s %10s %10s %8s %s\n", "method", "k", "gpu ms", "cpu ms", "cpu/gpu", "gpu == cpu");
    (void)kms::cuda_initialize_centroids(*points, 2, kms::InitOptions{});  // context creation outside the numbers
    auto time_ms = [](auto&& call) {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    int mismatches = 0;
    for (std::size_t k : {std::size_t{5}, std::size_t{100}})
        for (kms::InitMethod method :
             {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::Maximin, kms::InitMethod::GreedyKMeansPlusPlus}) {
            kms::InitOptions options;
            options.method = method;
            options.seed = 11;
            std::vector<double> gpu_ms, cpu_ms;
            kms::Matrix<double> gpu, cpu;
            // Greedy k-means++ is delegated to the CPU initialiser: timed once, as the CPU.
            const bool on_gpu = method != kms::InitMethod::GreedyKMeansPlusPlus;
            for (int r = 0; r < repeats; ++r) {
                if (on_gpu) gpu_ms.push_back(time_ms([&] { gpu = kms::cuda_initialize_centroids(*points, k, options); }));
                cpu_ms.push_back(time_ms([&] { cpu = kms::initialize_centroids(*points, k, options); }));
            }
            const double c = median(cpu_ms);
            const std::string name(kms::to_string(method));
            if (!on_gpu) {
                std::printf("%-18s %5zu %10s %10.2f %8s (delegated to the CPU initialiser)\n", name.c_str(), k, "cpu",
                            c, "-");
            } else {
                const bool same = gpu == cpu;
                mismatches += same ? 0 : 1;
                const double g = median(gpu_ms);
                std::printf("%-18s %5zu %10.2f %10.2f %8.1f %s\n", name.c_str(), k, g, c, c / g, same ? "yes" : "NO");
            }
            std::fflush(stdout);
        }
    return mismatches == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int iterations = 20;
    bool init = false, ceilings_only = false;
    std::string json_path, only, config_filter;
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--quick")) quick = true;
        else if (!std::strcmp(argv[a], "--init")) init = true;
        else if (!std::strcmp(argv[a], "--ceilings")) ceilings_only = true;
        else if (!std::strcmp(argv[a], "--iterations") && a + 1 < argc) iterations = std::atoi(argv[++a]);
        else if (!std::strcmp(argv[a], "--json") && a + 1 < argc) json_path = argv[++a];
        else if (!std::strcmp(argv[a], "--only") && a + 1 < argc) only = argv[++a];
        else if (!std::strcmp(argv[a], "--config") && a + 1 < argc) config_filter = argv[++a];
        else {
            std::fprintf(stderr,
                         "usage: %s [--quick] [--iterations N] [--json FILE] [--only NAME] [--config SUBSTRING] | --init "
                         "[--quick]\n",
                         argv[0]);
            return 2;
        }
    }
    const kms::BackendAvailability availability = (kms::register_gpu_backends(), kms::backend_availability(kms::Backend::Cuda));
    if (!availability.available) {
        std::fprintf(stderr, "no CUDA device: %s\n", availability.reason.c_str());
        return 1;
    }
    if (init) return run_init_bench(quick);
    if (ceilings_only) {
        const bench::Ceilings c = bench::measure_ceilings();
        double pinned_ms = 0;
        const double pinned = bench::host_to_device_gbs(std::size_t{800} << 20, true, &pinned_ms);
        std::printf("{\"copy_gbs\":%.2f,\"fp32_tflops\":%.3f,\"fp64_tflops\":%.3f,\"h2d_pinned_gbs\":%.2f}\n",
                    c.copy_bandwidth_gbs, c.fp32_tflops, c.fp64_tflops, pinned);
        return 0;
    }
    const std::size_t scale = quick ? 100 : 1;
    std::vector<Workload> workloads = {{"10Mx2_k5", 10'000'000 / scale, 2, 5},
                                       {"50Mx4_k4", 50'000'000 / scale, 4, 4},
                                       {"500kx200_k128", 500'000 / scale, 200, 128},
                                       {"1Mx2_k1000", 1'000'000 / scale, 2, 1000}};

    const bench::Ceilings ceilings = bench::measure_ceilings();
    std::printf("ceilings: device-to-device copy %.0f GB/s (read+write), FP32 FMA %.1f TFLOP/s\n",
                ceilings.copy_bandwidth_gbs, ceilings.fp32_tflops);
    double h2d_pinned_ms = 0, h2d_pageable_ms = 0;
    const std::size_t h2d_bytes = std::size_t{800} << 20;
    const double pinned = bench::host_to_device_gbs(h2d_bytes, true, &h2d_pinned_ms);
    const double pageable = bench::host_to_device_gbs(h2d_bytes, false, &h2d_pageable_ms);
    std::printf("host-to-device 800 MiB: pinned %.1f GB/s (%.1f ms), pageable %.1f GB/s (%.1f ms)\n", pinned,
                h2d_pinned_ms, pageable, h2d_pageable_ms);

    std::vector<Result> results;
    for (const Workload& w : workloads) {
        if (!only.empty() && w.name != only) continue;
        const auto points = blobs(w, 2026);
        const kms::Matrix<double> start = spread_rows(*points, w.k);
        const double bytes = static_cast<double>(w.n) * (w.d + 1) * 4.0;
        const double memory_floor_ms = bytes / (ceilings.copy_bandwidth_gbs * 1e9) * 1e3;
        const double flop_floor_ms =
            2.0 * static_cast<double>(w.n) * w.k * w.d / (ceilings.fp32_tflops * 1e12) * 1e3;
        const double floor_ms = std::max(memory_floor_ms, flop_floor_ms);
        std::printf("\n== %s: n=%zu d=%zu k=%zu; memory floor %.4f ms (n(d+1)4 B), FP32 floor %.4f ms (2nkd)\n",
                    w.name.c_str(), w.n, w.d, w.k, memory_floor_ms, flop_floor_ms);
        std::printf("%-34s %10s %9s %9s %9s %7s %8s %9s %8s %8s\n", "config", "median ms", "assign", "update",
                    "bounds", "skip%", "dist%", "set_data", "x floor", "unsett%");

        struct Config {
            kms::Algorithm algorithm;
            kms::KernelVariant variant;
            kms::Precision precision;
            int block;
        };
        std::vector<Config> configs;
        for (kms::KernelVariant b : {kms::KernelVariant::Global, kms::KernelVariant::Shared})
            for (int block : {0, 64, 256, 1024})
                configs.push_back({kms::Algorithm::Lloyd, b, kms::Precision::F32, block});
        for (kms::Precision p : {kms::Precision::F32, kms::Precision::F64})
            for (const kms::AlgorithmInfo& info : kms::registered_algorithms())  // every solver on CUDA (kms/algorithms.hpp)
                for (kms::KernelVariant b : {kms::KernelVariant::Global, kms::KernelVariant::Shared})
                    if (kms::registered_solver(info.algorithm, kms::Backend::Cuda) &&
                        !(info.algorithm == kms::Algorithm::Lloyd && p == kms::Precision::F32))
                        configs.push_back({info.algorithm, b, p, 0});

        for (const Config& cfg : configs) {
            kms::SolverConfig config;
            config.algorithm = cfg.algorithm;
            config.backend = kms::Backend::Cuda;
            config.variant = cfg.variant;
            config.precision = cfg.precision;
            config.cuda_block_size = cfg.block;
            config.max_iterations = 1 << 20;
            config.tol = 0.0;
            std::string name = config.describe() + (cfg.block ? "/b" + std::to_string(cfg.block) : "/bauto");
            if (!config_filter.empty() && name.find(config_filter) == std::string::npos) continue;
            try {
                // A kernel benchmark: it steps past convergence on purpose (every sample
                // times the same kernels), which the fit layer's loop never does.
                auto solver = kms::make_solver(config);
                const auto t0 = std::chrono::steady_clock::now();
                solver->set_data(points);
                const double set_data_ms =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                solver->set_initial_centroids(start);
                std::vector<double> total, assign, update, bounds, skips, dists, unsettled;
                for (int it = 1; it <= iterations; ++it) {
                    const kms::IterationStats s = solver->step();
                    if (it == 1) continue;  // the first step of Elkan/Hamerly is a full search that builds the bounds
                    total.push_back(s.time_total_ms);
                    assign.push_back(s.time_assign_ms);
                    update.push_back(s.time_update_ms);
                    bounds.push_back(s.time_bounds_ms);
                    skips.push_back(static_cast<double>(s.bound_skips) / static_cast<double>(w.n));
                    unsettled.push_back(static_cast<double>(s.verified_points) / static_cast<double>(w.n));
                    dists.push_back(static_cast<double>(s.point_centroid_distances) /
                                    (static_cast<double>(w.n) * static_cast<double>(w.k)));
                }
                Result r{w.name, name, median(total), median(assign), median(update), median(bounds),
                         median(skips), median(dists), set_data_ms, floor_ms, median(unsettled)};
                std::printf("%-34s %10.4f %9.4f %9.4f %9.4f %7.1f %8.1f %9.1f %8.2f %8.3f\n", name.c_str(),
                            r.median_ms, r.assign_ms, r.update_ms, r.bounds_ms, 100 * r.skip_fraction,
                            100 * r.distance_fraction, r.set_data_ms, r.median_ms / floor_ms, 100 * r.unsettled_fraction);
                results.push_back(r);
            } catch (const std::exception& e) {
                std::printf("%-34s failed: %s\n", name.c_str(), e.what());
            }
            std::fflush(stdout);
        }
    }
    if (!json_path.empty()) {
        std::ofstream json(json_path);
        json << "{\"copy_bandwidth_gbs\": " << ceilings.copy_bandwidth_gbs << ", \"fp32_tflops\": " << ceilings.fp32_tflops
             << ", \"h2d_pinned_gbs\": " << pinned << ", \"h2d_pageable_gbs\": " << pageable << ", \"results\": [\n";
        for (std::size_t i = 0; i < results.size(); ++i) {
            const Result& r = results[i];
            json << "  {\"workload\": \"" << r.workload << "\", \"config\": \"" << r.config << "\", \"median_ms\": "
                 << r.median_ms << ", \"assign_ms\": " << r.assign_ms << ", \"update_ms\": " << r.update_ms
                 << ", \"bounds_ms\": " << r.bounds_ms << ", \"skip_fraction\": " << r.skip_fraction
                 << ", \"distance_fraction\": " << r.distance_fraction << ", \"set_data_ms\": " << r.set_data_ms
                 << ", \"floor_ms\": " << r.floor_ms << ", \"unsettled_fraction\": " << r.unsettled_fraction << "}"
                 << (i + 1 < results.size() ? "," : "") << "\n";
        }
        json << "]}\n";
    }
    return 0;
}
