// Per-iteration time of every CPU (and, where available, CUDA) solver on
// generated blobs: median step time over a fixed number of iterations.
//
// usage: bench_solvers [n=1000000] [d=2] [k=100] [iterations=10] [threads=0] [backends=seq,omp]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/gpu_backends.hpp"

using namespace kms;

namespace {
// Every iteration's time and work, as the fit layer reports them.
struct Recorder : FitObserver {
    std::vector<double> times, assign, update;
    double work = 0.0, skips = 0.0;
    void iteration_done(int, const IterationStats& s, const Solver&) override {
        times.push_back(s.time_total_ms);
        assign.push_back(s.time_assign_ms + s.time_bounds_ms);
        update.push_back(s.time_update_ms);
        work += static_cast<double>(s.point_centroid_distances);
        skips += static_cast<double>(s.bound_skips);
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
    try {
        register_gpu_backends();
        const Dataset data = generate_dataset("blobs:n=" + std::to_string(n) + ",k=" + std::to_string(k) +
                                                  ",d=" + std::to_string(d),
                                              7);
        auto points = std::make_shared<const Matrix<double>>(data.points);
        std::printf("n=%zu d=%zu k=%zu, %d iterations, threads=%d\n", n, d, k, iterations, threads);
        std::printf("%-28s %12s %12s %12s %10s %10s %10s\n", "solver", "median_ms", "first_ms", "dist/(n*k)", "skips",
                "assign_ms", "update_ms");
        std::stringstream list(backends);
        for (std::string backend_name; std::getline(list, backend_name, ',');) {
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
            for (Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Hamerly})
                for (Precision precision : {Precision::F64, Precision::F32}) {
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
                    fit(points, options, &recorder);
                    const std::vector<double>& times = recorder.times;
                    const double work = recorder.work / static_cast<double>(n * k);
                    const double skips = recorder.skips / static_cast<double>(n);
                    const double first = times.front();
                    const auto median = [](std::vector<double> v) {
                        std::sort(v.begin(), v.end());
                        return v[v.size() / 2];
                    };
                    std::printf("%-28s %12.2f %12.2f %11.1f%% %9.1f%% %10.2f %10.2f\n", config.describe().c_str(),
                                median(times), first, 100.0 * work / static_cast<double>(times.size()),
                                100.0 * skips / static_cast<double>(times.size()), median(recorder.assign),
                                median(recorder.update));
                    std::fflush(stdout);
                }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_solvers: %s\n", e.what());
        return 1;
    }
    return 0;
}
