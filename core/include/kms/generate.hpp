#pragma once
// Seeded point-set generators (deterministic for a spec and seed, on every platform).
#include <cstdint>
#include <stop_token>
#include <string>
#include <string_view>

#include "kms/dataset.hpp"

namespace kms {

// spec is "NAME" or "NAME:key=value,key=value", e.g. "blobs:n=100000,k=5,d=2,spread=0.05".
// Generators: blobs, uniform, anisotropic, varied, circles, moons, he4d.
// Throws InputError naming the spec and the offending key for a bad spec.
// The result has truth_labels (and truth_centroids where defined).
Dataset generate_dataset(std::string_view spec, std::uint64_t seed);
// The same, checking `cancel` between chunks of points: a stop request aborts with
// kms::Error("generate:SPEC seed=S: generation cancelled").
Dataset generate_dataset(std::string_view spec, std::uint64_t seed, std::stop_token cancel);
// The rows and columns generate_dataset(spec, ...) makes, from the spec alone
// (InputError for a bad spec, as generate_dataset).
struct GeneratedShape {
    std::uint64_t rows = 0, cols = 0;
};
GeneratedShape generated_shape(std::string_view spec);
// Rows [first_row, first_row + rows) of generate_dataset(spec, seed), bit for bit
// (every value is a function of the seed and its index), the others never made:
// an MPI rank's block. Truth labels are the block's; truth centroids whole.
Dataset generate_rows(std::string_view spec, std::uint64_t seed, std::uint64_t first_row, std::uint64_t rows,
                      std::stop_token cancel = {});
// One line per generator with its keys and defaults, for --help and the GUI.
std::string generator_help();

}  // namespace kms
