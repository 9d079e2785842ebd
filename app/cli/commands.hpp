#pragma once
// kmeans-cli subcommands. Each takes the arguments after its name and returns
// the process exit code (0 ok, 1 runtime/input error, 2 usage error).
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/options.hpp"
#include "signal_stop.hpp"

namespace kms::cli {

using Args = std::vector<std::string>;

int cmd_run(const Args& args);       // cli_run.cpp
int cmd_predict(const Args& args);   // cmd_predict.cpp
int cmd_generate(const Args& args);  // cmd_generate.cpp
int cmd_score(const Args& args);     // cmd_score.cpp
int cmd_sweep(const Args& args);     // cmd_sweep.cpp

// run's data options besides --input/--generate (--weights), shared with sweep.
OptionTable run_input_option_table();  // cli_run.cpp
int cmd_spectral(const Args& args);  // cmd_spectral.cpp

// Runs a command body and turns what it throws into the message and exit code
// every command uses: usage errors 2 (with a hint), anything else 1, and anything
// after a SIGINT/SIGTERM (a load or a computation it cancelled) 130/143.
template <typename Body>
int run_command(const char* name, const Args& args, Body body) {
    try {
        return body(args);
    } catch (const UsageError& error) {
        // Every MPI rank parsed the same arguments: rank 0 says it, and its status (2) is the
        // job's. A rank that left with a failing status made OpenMPI's launcher kill the job,
        // rank 0 at times before it printed (a clean-clone CI run lost the message, 2026-11-27).
        if (launcher_world_rank() > 0) return 0;
        std::fprintf(stderr, "kmeans-cli %s: %s\n(see 'kmeans-cli %s --help')\n", name, error.what(), name);
        return 2;
    } catch (const ReportedByAnotherRank&) {
        return 1;  // one rank of an MPI job: the failing rank prints the reason
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "kmeans-cli %s: not enough memory\n", name);
        return 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "kmeans-cli %s: %s\n", name, error.what());
        return signal_stop().exit_status() ? signal_stop().exit_status() : 1;
    }
}

}  // namespace kms::cli
