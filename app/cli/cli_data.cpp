// The data of run and sweep (cli_data.hpp).
#include "cli_data.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/report.hpp"
#include "kms/short_number.hpp"
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
    if (!fit.ranks || options.has("--input") == options.has("--generate") || geo_options_from(options).enabled)
        return load_cli_data(options, seed);
    Communicator& comm = *fit.ranks;
    const auto rank = static_cast<std::size_t>(comm.rank());
    const auto split = [&](std::size_t rows, std::size_t cols) {
        return partition_rows(rows, fit.k, cols, comm.size(), fit.solver.packages);
    };
    if (options.has("--generate")) {  // each rank makes only its rows (every value is a function of its index)
        CliData result;
        result.block = true;
        agreed(&comm, [&] {  // a bad spec fails alike on every rank: reported once
            const std::string spec = options.get("--generate");
            const GeneratedShape shape = generated_shape(spec);
            const std::vector<std::size_t> first = split(shape.rows, shape.cols);
            result.global_rows = shape.rows;
            result.first_row = first[rank];
            Dataset block = generate_rows(spec, seed, first[rank], first[rank + 1] - first[rank], signal_stop().token());
            result.data.name = block.name;
            result.points = std::make_shared<const Matrix<double>>(std::move(block.points));
        });
        if (options.has("--weights"))
            agreed(&comm, [&] {
                LoadOptions load_options;
                load_options.cancel = signal_stop().token();
                result.weights = std::make_shared<const std::vector<double>>(
                    load_sample_weights(options.get("--weights"), result.global_rows, load_options));
            });
        return result;
    }
    const std::string path = options.get("--input");
    // The format by content, as load_dataset decides it: the .npy magic, else text
    // (a file named .npy without the magic is refused by load_cli_data, as without ranks).
    bool npy = false;
    {
        std::ifstream file(path, std::ios::binary);
        char magic[6] = {};
        npy = file.read(magic, 6) && std::string_view(magic, 6) == std::string_view("\x93NUMPY", 6);
        if (!npy && std::filesystem::path(path).extension() == ".npy") return load_cli_data(options, seed);
    }
    CliData result;
    result.block = true;
    result.data.name = path;
    LoadOptions load_options;
    load_options.cancel = signal_stop().token();
    if (npy) {
        agreed(&comm, [&] {  // a bad value in one rank's block must not leave the others waiting
            const NpyShape shape = npy_shape(path);
            const std::vector<std::size_t> first = split(shape.rows, shape.cols);
            result.global_rows = shape.rows;
            result.first_row = first[rank];
            result.points = std::make_shared<const Matrix<double>>(
                load_npy_rows(path, first[rank], first[rank + 1] - first[rank]));
        });
    } else {
        RowBlock block = load_text_block(path, comm, split, load_options);
        result.global_rows = block.global_rows;
        result.first_row = block.first_row;
        result.points = std::make_shared<const Matrix<double>>(std::move(block.points));
    }
    if (options.has("--weights"))  // every row's weight: n numbers, beside n·d coordinates
        agreed(&comm, [&] {
            result.weights = std::make_shared<const std::vector<double>>(
                load_sample_weights(options.get("--weights"), result.global_rows, load_options));
        });
    return result;
}

void project_geo_initial_centroids(const CliData& data, FitOptions& fit) {
    if (!data.geo || fit.init.method != InitMethod::File || fit.init.given) return;
    const std::string& path = fit.init.path;
    LoadOptions load_options;
    load_options.cancel = signal_stop().token();
    load_options.attach_ground_truth = false;
    const Matrix<double> degrees = load_matrix(path, load_options);
    if (degrees.cols() != 2 || degrees.rows() != fit.k)
        throw InputError::whole(path, "the initial centroids are " + std::to_string(degrees.rows()) + " rows × " +
                                          std::to_string(degrees.cols()) + " columns; expected k = " +
                                          std::to_string(fit.k) +
                                          " rows of latitude, longitude in degrees (as --centroids-out writes them)");
    for (std::size_t i = 0; i < degrees.rows(); ++i)
        for (std::size_t j = 0; j < 2; ++j) {
            const double limit = j == 0 ? 90.0 : 180.0;
            if (!(std::fabs(degrees(i, j)) <= limit))
                throw InputError::whole(path, std::string(j == 0 ? "latitude " : "longitude ") +
                                                  short_number(degrees(i, j)) + " of centroid " + std::to_string(i + 1) +
                                                  " is outside [-" + short_number(limit) + ", " + short_number(limit) +
                                                  "] degrees");
        }
    fit.init.given = std::make_shared<const Matrix<double>>(data.geo->projection.project(degrees));
}

std::string geo_centroids_json(const Matrix<double>& degrees) {
    std::string text = "[";
    for (std::size_t i = 0; i < degrees.rows(); ++i)
        text += (i ? ",[" : "[") + json_number(degrees(i, 0)) + "," + json_number(degrees(i, 1)) + "]";
    return text + "]";
}

}  // namespace kms::cli
