#pragma once
// A replay file (.kmsrun): everything needed to repeat one k-means run bit for
// bit: the data (its generator spec and seed, or the points themselves), every
// fit option, and the initial centroids exactly (hexadecimal floats). The same
// solver stepped from it gives the same labels at every iteration.
//
//   kmsrun 1
//   data generate blobs:n=3000,k=5,d=2 seed 7      (or: data inline NAME N D [truth])
//   point 0x1.8p+1 -0x1.4p-2 [LABEL]                (inline data: N lines)
//   option --solver hamerly                         (the fit option table's names)
//   steps 12                                        (optional: how far the saved run was stepped)
//   centroid 0x1.8p+1 0x1.4p-2                      (k lines)
//   end
#include <cstdint>
#include <string>
#include <string_view>

#include "kms/dataset.hpp"
#include "kms/fit.hpp"
#include "kms/io.hpp"
#include "kms/matrix.hpp"

namespace kms {

struct RunFile {
    // Data: from the generator when `generator` is set, else `inline_data`.
    std::string generator;
    std::uint64_t data_seed = 0;
    Dataset inline_data;

    FitOptions options;              // k = initial_centroids.rows()
    Matrix<double> initial_centroids;
    // Iterations the saved run had taken (0: none, or a file from before this line existed):
    // a replay steps this far unless told otherwise.
    int steps = 0;

    // The data it describes (generated now, or the inline points).
    Dataset dataset() const;
};

// The file's text. Throws kms::Error for a non-finite coordinate (no loader reads one back).
std::string run_file_text(const RunFile& run);
// Parses a run file; `source` names it in errors: kms::InputError "SOURCE:LINE: REASON".
RunFile parse_run_file(std::string_view text, const std::string& source);
// Reads and parses PATH as the data loaders read files (kms/io.hpp: a FIFO without a
// writer is waited for options.fifo_writer_wait, then refused; folders, sockets and
// block devices are refused): kms::InputError naming PATH for unreadable or malformed
// files, kms::Error naming it when memory runs out.
RunFile read_run_file(const std::string& path, const LoadOptions& options = {});

}  // namespace kms
