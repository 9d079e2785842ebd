#pragma once
// kmeans-cli subcommands. Each takes the arguments after its name and returns
// the process exit code (0 ok, 1 runtime/input error, 2 usage error).
#include <string>
#include <vector>

namespace kms::cli {

using Args = std::vector<std::string>;

int cmd_run(const Args& args);       // cli_run.cpp
int cmd_generate(const Args& args);  // cmd_generate.cpp
int cmd_score(const Args& args);     // cmd_score.cpp

}  // namespace kms::cli
