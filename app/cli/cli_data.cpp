// The data of run and sweep (cli_data.hpp).
#include "cli_data.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/report.hpp"
#include "signal_stop.hpp"

namespace kms::cli {

CliData load_cli_data(const ParsedOptions& options, std::uint64_t seed) {
    if (options.has("--input") == options.has("--generate"))
        throw UsageError("give exactly one of --input PATH and --generate SPEC");
    const GeoOptions geo = geo_options_from(options);
    if (options.has("--generate") && (options.has("--lat") || options.has("--lon")))
        throw UsageError("--lat and --lon name columns of an --input table; generated data are latitude, longitude "
                         "(use --geo)");
    LoadOptions load_options;
    load_options.cancel = signal_stop().token();
    if (isatty(fileno(stderr))) {
        load_options.progress = [path = options.get("--input")](std::uint64_t done, std::uint64_t total) {
            if (total < (std::uint64_t{64} << 20)) return;
            std::fprintf(stderr, "\rloading %s: %3.0f %% of %.0f MB", path.c_str(),
                         100.0 * static_cast<double>(done) / static_cast<double>(total),
                         static_cast<double>(total) / 1e6);
            if (done >= total) std::fputc('\n', stderr);
        };
    }
    CliData result;
    if (geo.enabled) {
        result.geo = options.has("--input")
                         ? load_geo_data(options.get("--input"), geo, load_options)
                         : geo_data_from_degrees(generate_dataset(options.get("--generate"), seed, signal_stop().token()), geo);
        result.data = std::move(result.geo->projected);
    } else {
        result.data = options.has("--input") ? load_dataset(options.get("--input"), load_options)
                                             : generate_dataset(options.get("--generate"), seed, signal_stop().token());
    }
    result.points = std::make_shared<const Matrix<double>>(std::move(result.data.points));
    if (options.has("--weights"))
        result.weights = std::make_shared<const std::vector<double>>(
            load_sample_weights(options.get("--weights"), result.points->rows(), load_options));
    return result;
}

CliData load_cli_block(const ParsedOptions& options, std::uint64_t seed, const FitOptions& fit) {
    if (!fit.ranks || !options.has("--input") || geo_options_from(options).enabled) return load_cli_data(options, seed);
    const std::string path = options.get("--input");
    {  // Only a regular file that starts as a .npy does: the rest is loaded whole.
        std::error_code error;
        if (!std::filesystem::is_regular_file(path, error)) return load_cli_data(options, seed);
        std::ifstream file(path, std::ios::binary);
        char magic[6] = {};
        if (!file.read(magic, 6) || std::string_view(magic, 6) != std::string_view("\x93NUMPY", 6))
            return load_cli_data(options, seed);
    }
    const NpyShape shape = npy_shape(path);
    const std::vector<std::size_t> first =
        partition_rows(shape.rows, fit.k, shape.cols, fit.ranks->size(), fit.solver.packages);
    const auto rank = static_cast<std::size_t>(fit.ranks->rank());
    CliData result;
    result.block = true;
    result.global_rows = shape.rows;
    result.first_row = first[rank];
    result.data.name = path;
    result.points = std::make_shared<const Matrix<double>>(load_npy_rows(path, first[rank], first[rank + 1] - first[rank]));
    if (options.has("--weights"))  // every row's weight: n numbers, beside n·d coordinates
        result.weights = std::make_shared<const std::vector<double>>(
            load_sample_weights(options.get("--weights"), shape.rows));
    return result;
}

std::string geo_centroids_json(const Matrix<double>& degrees) {
    std::string text = "[";
    for (std::size_t i = 0; i < degrees.rows(); ++i)
        text += (i ? ",[" : "[") + json_number(degrees(i, 0)) + "," + json_number(degrees(i, 1)) + "]";
    return text + "]";
}

}  // namespace kms::cli
