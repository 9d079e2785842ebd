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
#include "kms/generate.hpp"
#include "kms/init.hpp"

using namespace kms;

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const std::size_t d = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2;
    const std::size_t k = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 100;
    const int iterations = argc > 4 ? std::atoi(argv[4]) : 10;
    const int threads = argc > 5 ? std::atoi(argv[5]) : 0;
    const std::string backends = argc > 6 ? argv[6] : "seq,omp";
    try {
        const Dataset data = generate_dataset("blobs:n=" + std::to_string(n) + ",k=" + std::to_string(k) +
                                                  ",d=" + std::to_string(d),
                                              7);
        InitOptions init;
        init.method = InitMethod::Random;
        init.seed = 7;
        const Matrix<double> initial = initialize_centroids(data.points, k, init);
        auto points = std::make_shared<const Matrix<double>>(data.points);
        std::printf("n=%zu d=%zu k=%zu, %d iterations, threads=%d\n", n, d, k, iterations, threads);
        std::printf("%-28s %12s %12s %12s %10s\n", "solver", "median_ms", "first_ms", "dist/(n*k)", "skips");
        std::stringstream list(backends);
        for (std::string backend_name; std::getline(list, backend_name, ',');) {
            const auto backend = parse_backend(backend_name);
            if (!backend) {
                std::fprintf(stderr, "unknown back end %s\n", backend_name.c_str());
                return 2;
            }
            if (!backend_availability(*backend).available) {
                std::printf("%-28s unavailable: %s\n", backend_name.c_str(),
                            backend_availability(*backend).reason.c_str());
                continue;
            }
            for (Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Elkan, Algorithm::Hamerly})
                for (Precision precision : {Precision::F64, Precision::F32}) {
                    SolverConfig config;
                    config.algorithm = algorithm;
                    config.backend = *backend;
                    config.precision = precision;
                    config.threads = threads;
                    config.tol = 0.0;
                    config.max_iterations = iterations;
                    auto solver = make_solver(config);
                    solver->set_data(points);
                    solver->set_initial_centroids(initial);
                    std::vector<double> times;
                    double work = 0.0, skips = 0.0, first = 0.0;
                    for (int i = 0; i < iterations && !solver->converged(); ++i) {
                        const IterationStats s = solver->step();
                        if (i == 0) first = s.time_total_ms;
                        times.push_back(s.time_total_ms);
                        work += static_cast<double>(s.point_centroid_distances) / static_cast<double>(n * k);
                        skips += static_cast<double>(s.bound_skips) / static_cast<double>(n);
                    }
                    std::sort(times.begin(), times.end());
                    std::printf("%-28s %12.2f %12.2f %11.1f%% %9.1f%%\n", config.describe().c_str(),
                                times[times.size() / 2], first, 100.0 * work / static_cast<double>(times.size()),
                                100.0 * skips / static_cast<double>(times.size()));
                    std::fflush(stdout);
                }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_solvers: %s\n", e.what());
        return 1;
    }
    return 0;
}
