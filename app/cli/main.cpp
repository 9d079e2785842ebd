// kmeans-cli: the engine, headless.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "kms/communicator.hpp"
#include "kms/gpu_backends.hpp"

namespace {
void print_usage(std::FILE* out) {
    std::fputs(
        "usage: kmeans-cli COMMAND [OPTIONS]\n"
        "\n"
        "commands:\n"
        "  run       cluster a file or generated data, print per-iteration statistics\n"
        "  predict   label points by their nearest centroid\n"
        "  generate  write a generated data set to a file\n"
        "  score     quality scores of a labelling (silhouette, Calinski-Harabasz, ...)\n"
        "  sweep     one run per k of a range: inertia and scores against k, elbow, hierarchy\n"
        "  spectral  spectral clustering of k-means representatives (non-convex clusters)\n"
        "\n"
        "'kmeans-cli COMMAND --help' describes a command's options.\n",
        out);
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        print_usage(stdout);
        return 0;
    }
    kms::cli::Args args(argv + 2, argv + argc);
    kms::cli::signal_stop();  // before any other thread: they all inherit the blocked signals
    kms::register_gpu_backends();
    if (command == "run") return kms::cli::cmd_run(args);
    if (const int ranks = kms::launcher_world_size(); ranks > 1) {  // M copies would write the same files
        std::fprintf(stderr, "kmeans-cli: '%s' does not run over MPI ranks (started as one of %d); only 'run' does\n",
                     command.c_str(), ranks);
        return 2;
    }
    if (command == "predict") return kms::cli::cmd_predict(args);
    if (command == "generate") return kms::cli::cmd_generate(args);
    if (command == "score") return kms::cli::cmd_score(args);
    if (command == "sweep") return kms::cli::cmd_sweep(args);
    if (command == "spectral") return kms::cli::cmd_spectral(args);
    std::fprintf(stderr, "kmeans-cli: unknown command '%s'\n", command.c_str());
    print_usage(stderr);
    return 2;
}
