// Seeding: plain k-means++ against the bounded (a tree of boxes) k-means++ and k-means‖
// over seeds, on one generated data set. Per method and seed one JSON line:
// seeding wall and CPU time, distances, whether the centroids are bitwise plain
// k-means++'s, a hash of them, and Lloyd's final inertia from them (to convergence by an exact
// solver: Lloyd's result, bitwise, whichever runs it).
//
//   bench_seeding [--generate SPEC] [--k K] [--seeds S] [--threads T]
//                 [--methods plain,bounded,parallel,greedy,greedy-bounded] [--lloyd on|off]
//                 [--solver NAME] [--oversampling L] [--rounds R]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/solver.hpp"

namespace {

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
}

// FNV-1a of the centres' bytes: equal centres across builds, threads and machines show as equal hashes.
unsigned long long centres_hash(const kms::Matrix<double>& centres) {
    unsigned long long hash = 14695981039346656037ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(centres.data());
    for (std::size_t i = 0; i < centres.rows() * centres.cols() * sizeof(double); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
    return hash;
}

bool same(const kms::Matrix<double>& a, const kms::Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), a.rows() * a.cols() * sizeof(double)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string spec = "blobs:n=1000000,k=100,d=2", methods = "plain,bounded,parallel", solver = "hamerly";
    std::size_t k = 1000;
    int seeds = 10, threads = 0, rounds = 5;
    double oversampling = 2.0;
    bool lloyd = true;
    for (int a = 1; a + 1 < argc; a += 2) {
        const std::string name = argv[a], value = argv[a + 1];
        if (name == "--generate") spec = value;
        else if (name == "--k") k = std::stoul(value);
        else if (name == "--seeds") seeds = std::stoi(value);
        else if (name == "--threads") threads = std::stoi(value);
        else if (name == "--methods") methods = value;
        else if (name == "--lloyd") lloyd = value == "on";
        else if (name == "--solver") solver = value;
        else if (name == "--oversampling") oversampling = std::stod(value);
        else if (name == "--rounds") rounds = std::stoi(value);
        else {
            std::fprintf(stderr, "unknown option %s\n", name.c_str());
            return 2;
        }
    }
    try {
        const auto data = std::make_shared<const kms::Matrix<double>>(kms::generate_dataset(spec, 1).points);
        for (int s = 0; s < seeds; ++s) {
            kms::Matrix<double> plain;
            for (const std::string& method : split(methods)) {
                kms::InitOptions init;
                init.seed = static_cast<std::uint64_t>(s);
                init.threads = threads;
                init.method = method == "parallel"                             ? kms::InitMethod::KMeansParallel
                              : method.rfind("greedy", 0) == 0                 ? kms::InitMethod::GreedyKMeansPlusPlus
                                                                               : kms::InitMethod::KMeansPlusPlus;
                init.bounds = method == "plain" || method == "greedy" ? kms::SeedingBounds::Off : kms::SeedingBounds::On;
                init.oversampling = oversampling;
                init.parallel_rounds = rounds;
                kms::InitStats stats;
                init.stats = &stats;
                const double cpu0 = cpu_seconds();
                const auto wall0 = std::chrono::steady_clock::now();
                kms::Matrix<double> centres = kms::initialize_centroids(*data, k, init, spec);
                const double wall_ms =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
                const double cpu_ms = 1e3 * (cpu_seconds() - cpu0);
                if (method == "plain" || method == "greedy") plain = centres;
                const bool identical = plain.rows() > 0 && same(plain, centres);

                double inertia = -1.0;
                int iterations = 0;
                if (lloyd) {
                    kms::FitOptions fit;
                    fit.k = k;
                    fit.solver.algorithm = *kms::parse_algorithm(solver);
                    fit.solver.backend = kms::Backend::OpenMP;
                    fit.solver.threads = threads;
                    fit.init.method = kms::InitMethod::File;
                    fit.init.given = std::make_shared<const kms::Matrix<double>>(centres);
                    const kms::FitResult result = kms::fit(data, fit, nullptr, {}, spec);
                    inertia = result.inertia;
                    iterations = result.iterations;
                }
                std::printf("{\"type\":\"seeding\",\"data\":\"%s\",\"n\":%zu,\"d\":%zu,\"k\":%zu,\"threads\":%d,"
                            "\"method\":\"%s\",\"seed\":%d,\"init_ms\":%.3f,\"init_cpu_ms\":%.3f,"
                            "\"point_centroid_distances\":%llu,\"centroid_centroid_distances\":%llu,"
                            "\"candidates\":%llu,\"rounds\":%d,\"same_as_plain\":%s,\"centres_hash\":\"%016llx\","
                            "\"lloyd_iterations\":%d,\"inertia\":%.17g}\n",
                            spec.c_str(), data->rows(), data->cols(), k, threads, method.c_str(), s, wall_ms, cpu_ms,
                            static_cast<unsigned long long>(stats.point_centroid_distances),
                            static_cast<unsigned long long>(stats.centroid_centroid_distances),
                            static_cast<unsigned long long>(stats.candidates), stats.rounds,
                            identical ? "true" : "false", centres_hash(centres), iterations, inertia);
                std::fflush(stdout);
            }
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_seeding: %s\n", error.what());
        return 1;
    }
    return 0;
}
