#pragma once
// The data of the clustering commands (run, sweep): --input or --generate, the
// sample weights, and geographic data (--geo: projected to km, kms/geo.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/fit.hpp"
#include "kms/geo.hpp"
#include "kms/options.hpp"
#include "kms/out_of_core.hpp"
#include "kms/row_source.hpp"

namespace kms::cli {

struct CliData {
    Dataset data;                                   // what is clustered (its points moved into `points`)
    std::shared_ptr<const Matrix<double>> points;
    std::shared_ptr<const std::vector<double>> weights;  // --weights, else null
    std::optional<GeoData> geo;                     // --geo: the degrees and the projection (projected.points moved out)
    // An MPI rank's block only (load_cli_block): `points` are rows [first_row,
    // first_row + points->rows()) of global_rows; otherwise all rows.
    bool block = false;
    std::size_t global_rows = 0, first_row = 0;
    std::size_t rows() const { return block ? global_rows : points->rows(); }
};

// Loads what the options name (UsageError unless exactly one of --input and
// --generate); large files show their progress on a terminal's stderr; the
// first SIGINT/SIGTERM cancels the load.
CliData load_cli_data(const ParsedOptions& options, std::uint64_t seed);
// Under MPI ranks (fit.ranks set): an --input file is read by each rank only for
// its block of rows (partition_rows; memory scale-out, docs/scale-out.md): a .npy
// by offset, delimited text by byte ranges split at line boundaries
// (load_text_block); a failure on one rank is reported once and ends every rank.
// Generated data: each rank makes only its rows (generate_rows). A --geo .npy: each
// rank reads its rows, the projection from the ranks' statistics merged
// (load_geo_npy_block); --geo text tables and generated --geo data are loaded whole
// by every rank, as load_cli_data.
CliData load_cli_block(const ParsedOptions& options, std::uint64_t seed, const FitOptions& fit);

// --weights for `rows` points (null without it), read by every rank of `ranks` (may be
// null) alike: in memory, and out of core beside the file read by blocks.
std::shared_ptr<const std::vector<double>> load_cli_weights(const ParsedOptions& options, std::size_t rows,
                                                            Communicator* ranks);

// kms::plan_out_of_core (kms/out_of_core.hpp) for --input, --out-of-core, --memory-limit,
// --weights and --geo: nullopt: load the data as always (--out-of-core off; auto with data
// that fit in the memory limit; generated data). A text --input is counted by a first pass (its index)
// unless even the most rows its bytes can hold fit; auto then loads it if they fit after all.
// Throws kms::UsageError for --out-of-core on with what it cannot read a block at a
// time (--generate, --geo text tables, --scores), and when the per-row
// state alone does not fit in the limit (a bounded solver's bounds, which stay in memory,
// included: then it names the solvers whose bounds fit). Under ranks each process plans for
// its block, and every rank goes out of core when one must (collective).
// --geo with a .npy: the file's pass of statistics is made here (open_geo_rows).
std::optional<OutOfCorePlan> plan_out_of_core(const ParsedOptions& options, const FitOptions& fit);

// --geo with --init FILE: the file holds latitude, longitude in degrees, as
// --centroids-out writes them (one frame in and out: issue 39); they are checked
// (2 columns, each value in range, file and line named) and projected as the data
// were, into fit.init.given. Anything else: fit is left as it is.
void project_geo_initial_centroids(const GeoProjection* projection, FitOptions& fit);

// " lat, lon" lines / JSON array of centroids in degrees, for geographic runs.
std::string geo_centroids_json(const Matrix<double>& degrees);

}  // namespace kms::cli
