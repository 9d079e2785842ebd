#pragma once
// The data of the clustering commands (run, sweep): --input or --generate, the
// sample weights, and geographic data (--geo: projected to km, kms/geo.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/geo.hpp"
#include "kms/options.hpp"

namespace kms::cli {

struct CliData {
    Dataset data;                                   // what is clustered (its points moved into `points`)
    std::shared_ptr<const Matrix<double>> points;
    std::shared_ptr<const std::vector<double>> weights;  // --weights, else null
    std::optional<GeoData> geo;                     // --geo: the degrees and the projection (projected.points moved out)
};

// Loads what the options name (UsageError unless exactly one of --input and
// --generate); large files show their progress on a terminal's stderr; the
// first SIGINT/SIGTERM cancels the load.
CliData load_cli_data(const ParsedOptions& options, std::uint64_t seed);

// " lat, lon" lines / JSON array of centroids in degrees, for geographic runs.
std::string geo_centroids_json(const Matrix<double>& degrees);

}  // namespace kms::cli
