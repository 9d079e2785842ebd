// Per-iteration time of every CPU (and, where available, CUDA) solver on
// generated blobs: median step time over a fixed number of iterations.
//
// usage: bench_solvers [n=1000000] [d=2] [k=100] [iterations=10] [threads=0] [backends=seq,omp]
//                      [solvers=every registered one] [precisions=f64,f32] [repeats=1]
//                      [data=blobs|uniform]  (blobs: k Gaussian blobs; uniform: the unit cube)
// cpu_ms: the process's CPU time over the fit (all threads; at threads=1 the one to compare
// on a shared machine, where wall time counts the other users' load).
// Repeats run the whole list again (interleaved, so load changes on a shared
// machine hit every solver alike); each line is one run.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "kms/backends.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/gpu_backends.hpp"

using namespace kms;

namespace {
double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// Every iteration's time and work, as the fit layer reports them.
struct Recorder : FitObserver {
    std::vector<double> times, assign, update;
    double work = 0.0, skips = 0.0, group_skips = 0.0;
    void iteration_done(int, const IterationStats& s, const Solver&) override {
        times.push_back(s.time_total_ms);
        assign.push_back(s.time_assign_ms + s.time_bounds_ms);
        update.push_back(s.time_update_ms);
        work += static_cast<double>(s.point_centroid_distances);
        skips += static_cast<double>(s.bound_skips);
        group_skips += static_cast<double>(s.group_skips);
    }
};
}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const std::size_t d = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2;
    const std::size_t k = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100;
    const int iterations = argc > 4 ? std::atoi(argv[4]) : 10;
    const int threads = argc > 5 ? std::atoi(argv[5]) : 0;
    const std::string backends = argc > 6 ? argv[6] : "seq,omp";
    const std::string solver_names = argc > 7 ? argv[7] : algorithm_names(",");  // kms/algorithms.hpp
    const std::string precision_names = argc > 8 ? argv[8] : "f64,f32";
    const int repeats = argc > 9 ? std::max(1, std::atoi(argv[9])) : 1;
    const auto split = [](const std::string& text) {
        std::vector<std::string> parts;
        std::stringstream list(text);
        for (std::string part; std::getline(list, part, ',');) parts.push_back(part);
        return parts;
    };
    std::vector<Algorithm> algorithms;
    for (const std::string& name : split(solver_names)) {
        const auto algorithm = parse_algorithm(name);
        if (!algorithm) {
            std::fprintf(stderr, "unknown solver %s\n", name.c_str());
            return 2;
        }
        algorithms.push_back(*algorithm);
    }
    std::vector<Precision> precisions;
    for (const std::string& name : split(precision_names)) {
        const auto precision = parse_precision(name);
        if (!precision) {
            std::fprintf(stderr, "unknown precision %s\n", name.c_str());
            return 2;
        }
        precisions.push_back(*precision);
    }
    try {
        register_gpu_backends();
        const std::string shape = argc > 10 ? argv[10] : "blobs";
        if (shape != "blobs" && shape != "uniform") {
            std::fprintf(stderr, "unknown data %s (blobs or uniform)\n", shape.c_str());
            return 2;
        }
        const Dataset data = generate_dataset(shape + ":n=" + std::to_string(n) +
                                                  (shape == "blobs" ? ",k=" + std::to_string(k) : std::string()) +
                                                  ",d=" + std::to_string(d),
                                              7);
        auto points = std::make_shared<const Matrix<double>>(data.points);
        std::printf("n=%zu d=%zu k=%zu, %d iterations, threads=%d, %s data\n", n, d, k, iterations, threads,
                    shape.c_str());
        std::printf("%-28s %12s %12s %12s %10s %10s %10s %10s %10s %10s %6s\n", "solver", "median_ms", "first_ms",
                    "dist/(n*k)", "skips", "assign_ms", "update_ms", "total_ms", "grp_skips", "cpu_ms", "iters");
        for (int repeat = 0; repeat < repeats; ++repeat)
        for (const std::string& backend_name : split(backends)) {
            const auto backend = parse_backend(backend_name);
            if (!backend) {
                std::fprintf(stderr, "unknown back end %s\n", backend_name.c_str());
                return 2;
            }
            const BackendAvailability availability = backend_availability(backend->backend);
            if (!availability.available) {
                std::printf("%-28s unavailable: %s\n", backend_name.c_str(), availability.reason.c_str());
                continue;
            }
            for (Algorithm algorithm : algorithms)
                for (Precision precision : precisions) {
                    FitOptions options;
                    options.k = k;
                    options.init.method = InitMethod::Random;
                    options.init.seed = 7;
                    SolverConfig& config = options.solver;
                    config.algorithm = algorithm;
                    config.backend = backend->backend;
                    config.variant = backend->variant;
                    config.precision = precision;
                    config.threads = threads;
                    config.tol = 0.0;
                    config.max_iterations = iterations;
                    Recorder recorder;
                    const double cpu_start = process_cpu_ms();
                    const FitResult result = fit(points, options, &recorder);
                    const double cpu_ms = process_cpu_ms() - cpu_start;
                    const std::vector<double>& times = recorder.times;
                    const double work = recorder.work / static_cast<double>(n * k);
                    const double skips = recorder.skips / static_cast<double>(n);
                    const double first = times.front();
                    const auto median = [](std::vector<double> v) {
                        std::sort(v.begin(), v.end());
                        return v[v.size() / 2];
                    };
                    // Skips and group skips per point and iteration; group skips over t groups not normalised.
                    std::printf("%-28s %12.2f %12.2f %11.1f%% %9.1f%% %10.2f %10.2f %10.1f %10.2f %10.1f %6zu\n",
                                result.solver.describe().c_str(), median(times), first,
                                100.0 * work / static_cast<double>(times.size()),
                                100.0 * skips / static_cast<double>(times.size()), median(recorder.assign),
                                median(recorder.update), result.total_time_ms,
                                recorder.group_skips / static_cast<double>(n * times.size()), cpu_ms, times.size());
                    std::fflush(stdout);
                }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_solvers: %s\n", e.what());
        return 1;
    }
    return 0;
}
