// Exact silhouette timings: CPU (OpenMP) and CUDA (float and double), on seeded
// blobs labelled by their true blob. Writes the data for bench/scores_sklearn.py
// so scikit-learn scores exactly the same points. Median of the repeats.
//
// usage: bench_scores [--n 100000] [--k 20] [--d 2] [--threads 0] [--repeats 3]
//                     [--cpu 1] [--gpu 0] [--gpu-n 1000000] [--data-out PREFIX]
//   --data-out PREFIX writes PREFIX.x (n×d float64, raw) and PREFIX.labels (int32, raw)
// Output: one JSON object per measurement, one per line.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "kms/generate.hpp"
#include "kms/gpu_scores.hpp"
#include "kms/scores.hpp"

using namespace kms;

namespace {

std::string cpu_model() {
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

template <typename Run>
std::vector<double> time_runs(int repeats, Run&& run) {
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size() / 2;
    return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

void report(const std::string& what, const std::string& device, std::size_t n, std::size_t d, std::size_t k,
            int threads, const std::vector<double>& seconds, double score) {
    std::string runs;
    for (double s : seconds) runs += (runs.empty() ? "" : ", ") + std::to_string(s);
    std::printf("{\"what\": \"%s\", \"device\": \"%s\", \"n\": %zu, \"d\": %zu, \"k\": %zu, \"threads\": %d, "
                "\"median_s\": %.6f, \"runs_s\": [%s], \"pairs_per_s\": %.4g, \"silhouette\": %.17g}\n",
                what.c_str(), device.c_str(), n, d, k, threads, median(seconds), runs.c_str(),
                double(n) * double(n) / median(seconds), score);
    std::fflush(stdout);
}

Dataset blobs(std::size_t n, std::size_t k, std::size_t d) {
    return generate_dataset("blobs:n=" + std::to_string(n) + ",k=" + std::to_string(k) + ",d=" + std::to_string(d), 11);
}

}  // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> args{{"--n", "100000"}, {"--k", "20"},  {"--d", "2"},
                                            {"--threads", "0"}, {"--repeats", "3"}, {"--cpu", "1"},
                                            {"--gpu", "0"},     {"--gpu-n", "1000000"}, {"--data-out", ""}};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!args.count(argv[i])) {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
        args[argv[i]] = argv[i + 1];
    }
    const std::size_t n = std::stoull(args["--n"]), k = std::stoull(args["--k"]), d = std::stoull(args["--d"]);
    const int threads = std::stoi(args["--threads"]), repeats = std::stoi(args["--repeats"]);
    try {
        const Dataset data = blobs(n, k, d);
        const std::vector<std::int32_t>& labels = data.truth_labels;
        if (!args["--data-out"].empty()) {
            std::ofstream x(args["--data-out"] + ".x", std::ios::binary), l(args["--data-out"] + ".labels", std::ios::binary);
            x.write(reinterpret_cast<const char*>(data.points.data()), std::streamsize(data.points.size() * sizeof(double)));
            l.write(reinterpret_cast<const char*>(labels.data()), std::streamsize(labels.size() * sizeof(std::int32_t)));
        }
        if (args["--cpu"] == "1") {
            ScoreOptions options;
            options.threads = threads;
            const int used = threads > 0 ? threads : omp_get_max_threads();
            double score = 0.0;
            const auto seconds = time_runs(repeats, [&] { score = silhouette(data.points, labels, options).score; });
            report("cpu exact silhouette f64", cpu_model(), n, d, k, used, seconds, score);
            const Matrix<float> as_float = data.points.cast<float>();
            const auto seconds_f = time_runs(repeats, [&] { score = silhouette(as_float, labels, options).score; });
            report("cpu exact silhouette f32", cpu_model(), n, d, k, used, seconds_f, score);
        }
        if (args["--gpu"] == "1") {
            std::string reason;
            if (!gpu_silhouette_available(&reason)) {
                std::printf("{\"what\": \"gpu\", \"unavailable\": \"%s\"}\n", reason.c_str());
                return 0;
            }
            const std::string device = gpu_device_description(0);
            gpu_silhouette(data.points.cast<float>(), labels);  // warm-up: context, module load
            for (std::size_t size : {n, std::size_t(std::stoull(args["--gpu-n"]))}) {
                const Dataset big = size == n ? data : blobs(size, k, d);
                const Matrix<float> as_float = big.points.cast<float>();
                double score = 0.0;
                const auto seconds_f = time_runs(repeats, [&] { score = gpu_silhouette(as_float, big.truth_labels).score; });
                report("gpu exact silhouette f32 (end to end)", device, size, d, k, 0, seconds_f, score);
                const auto seconds = time_runs(repeats, [&] { score = gpu_silhouette(big.points, big.truth_labels).score; });
                report("gpu exact silhouette f64 (end to end)", device, size, d, k, 0, seconds, score);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_scores: %s\n", e.what());
        return 1;
    }
    return 0;
}
