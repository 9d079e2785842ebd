// The data of run and sweep (cli_data.hpp).
#include "cli_data.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>

#include "kms/algorithms.hpp"
#include "kms/backends.hpp"
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

namespace {

// --weights beside a rank's block: every row's weight (n numbers, beside n·d
// coordinates), read by every rank (load_cli_weights).
void load_block_weights(const ParsedOptions& options, Communicator& comm, CliData& result) {
    result.weights = load_cli_weights(options, result.global_rows, &comm);
}

}  // namespace

std::shared_ptr<const std::vector<double>> load_cli_weights(const ParsedOptions& options, std::size_t rows,
                                                            Communicator* ranks) {
    if (!options.has("--weights")) return nullptr;
    std::shared_ptr<const std::vector<double>> weights;
    agreed(ranks, [&] {  // a bad file fails alike on every rank: reported once
        LoadOptions load_options;
        load_options.cancel = signal_stop().token();
        weights = std::make_shared<const std::vector<double>>(load_sample_weights(options.get("--weights"), rows, load_options));
    });
    return weights;
}

CliData load_cli_block(const ParsedOptions& options, std::uint64_t seed, const FitOptions& fit) {
    const GeoOptions geo = geo_options_from(options);
    if (!fit.ranks || options.has("--input") == options.has("--generate") || (geo.enabled && !options.has("--input")))
        return load_cli_data(options, seed);
    Communicator& comm = *fit.ranks;
    const auto rank = static_cast<std::size_t>(comm.rank());
    const auto split = [&](std::size_t rows, std::size_t cols) {
        return rank_blocks(rows, cols, fit);
    };
    if (geo.enabled) {  // a .npy table: each rank reads its rows (and a share for the statistics); text: whole
        const std::string path = options.get("--input");
        if (!starts_with_npy_magic(path)) return load_cli_data(options, seed);
        CliData result;
        result.block = true;
        agreed(&comm, [&] {
            GeoBlock block = load_geo_npy_block(path, geo, comm, split);
            result.global_rows = block.global_rows;
            result.first_row = block.first_row;
            result.geo = std::move(block.data);
            result.data = std::move(result.geo->projected);
            result.points = std::make_shared<const Matrix<double>>(std::move(result.data.points));
        });
        load_block_weights(options, comm, result);
        return result;
    }
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
        load_block_weights(options, comm, result);
        return result;
    }
    const std::string path = options.get("--input");
    // The format as load_dataset decides it: the .npy magic or a headerless binary format's
    // extension, else text (a file named .npy without the magic is refused by load_cli_data,
    // as without ranks).
    const bool binary = is_binary_matrix_file(path);
    if (!binary && std::filesystem::path(path).extension() == ".npy") return load_cli_data(options, seed);
    CliData result;
    result.block = true;
    result.data.name = path;
    LoadOptions load_options;
    load_options.cancel = signal_stop().token();
    if (binary) {
        agreed(&comm, [&] {  // a bad value in one rank's block must not leave the others waiting
            const MatrixFileShape shape = matrix_file_shape(path);
            const std::vector<std::size_t> first = split(shape.rows, shape.cols);
            result.global_rows = shape.rows;
            result.first_row = first[rank];
            result.points = std::make_shared<const Matrix<double>>(
                load_matrix_rows(path, first[rank], first[rank + 1] - first[rank]));
        });
    } else {
        RowBlock block = load_text_block(path, comm, split, load_options);
        result.global_rows = block.global_rows;
        result.first_row = block.first_row;
        result.points = std::make_shared<const Matrix<double>>(std::move(block.points));
    }
    load_block_weights(options, comm, result);
    return result;
}

std::optional<OutOfCorePlan> plan_out_of_core(const ParsedOptions& options, const FitOptions& fit) {
    OutOfCoreRequest request = out_of_core_request_from(options);
    if (request.when == OutOfCoreWhen::Off) return std::nullopt;
    // What the run's own options rule out (the file's part is the plan's).
    const auto refuse = [&](const std::string& why) -> std::optional<OutOfCorePlan> {
        if (request.when == OutOfCoreWhen::On) throw UsageError("--out-of-core on: " + why);
        return std::nullopt;
    };
    if (!options.has("--input")) return refuse("it reads an --input file (.npy, .fvecs, .fbin, ..., or text); --generate makes the rows in memory");
    if (options.has("--scores")) return refuse("--scores takes every row in memory");
    request.path = options.get("--input");
    request.geo = geo_options_from(options);
    request.weighted = options.has("--weights");
    request.cancel = signal_stop().token();
    return kms::plan_out_of_core(request, fit);
}


void project_geo_initial_centroids(const GeoProjection* projection, FitOptions& fit) {
    if (!projection || fit.init.method != InitMethod::File || fit.init.given) return;
    LoadOptions load_options;
    load_options.cancel = signal_stop().token();
    fit.init.given = std::make_shared<const Matrix<double>>(
        load_geo_centroids(fit.init.path, fit.k, *projection, load_options));
}

std::string geo_centroids_json(const Matrix<double>& degrees) {
    std::string text = "[";
    for (std::size_t i = 0; i < degrees.rows(); ++i)
        text += (i ? ",[" : "[") + json_number(degrees(i, 0)) + "," + json_number(degrees(i, 1)) + "]";
    return text + "]";
}

}  // namespace kms::cli
