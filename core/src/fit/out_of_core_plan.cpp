// The out-of-core plan (kms/out_of_core.hpp): the CLI's run and the Python package's
// fit of a path both ask it, so they read the same files by blocks for the same reasons.
#include "kms/out_of_core.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "kms/algorithms.hpp"
#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"

namespace kms {

namespace {
constexpr OptionSpec kOutOfCoreOptions[] = {
    {"--out-of-core", "WHEN", "auto",
     "auto | on | off: read the --input (.npy, .fvecs, .fbin, ..., or text: parsed again\n"
     "each pass) a block at a time on every pass instead of loading it: auto when its points\n"
     "do not fit in the memory limit"},
    {"--memory-limit", "SIZE", "",
     "memory this process may use, e.g. 512M, 8G (default: what is available: MemAvailable,\n"
     "the cgroup's memory.max, ulimit -v; under mpirun shared by the machine's ranks)"},
};

// "12.3 MiB"
std::string mebibytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
    return text;
}
}  // namespace

OptionTable out_of_core_option_table() { return kOutOfCoreOptions; }

OutOfCoreRequest out_of_core_request_from(const ParsedOptions& options) {
    OutOfCoreRequest request;
    const std::string when = options.get("--out-of-core");
    if (when != "auto" && when != "on" && when != "off") throw UsageError("--out-of-core must be auto, on or off");
    request.when = when == "on" ? OutOfCoreWhen::On : when == "off" ? OutOfCoreWhen::Off : OutOfCoreWhen::Auto;
    if (options.has("--memory-limit")) {
        request.memory_limit = parse_byte_size(options.get("--memory-limit"));
        if (request.memory_limit == 0)
            throw UsageError("--memory-limit '" + options.get("--memory-limit") +
                             "': give a size in bytes, or with k, M, G or T (powers of 1024), e.g. 512M");
    }
    return request;
}

std::string OutOfCorePlan::describe() const {
    return std::string("out of core") + (automatic ? " (the points do not fit)" : "") + ": " + source->name() +
           " read in blocks, buffers " + mebibytes(buffer_bytes) + " of the memory limit " + mebibytes(memory_limit) +
           " (per-row state " + mebibytes(state_bytes) + ")";
}

std::optional<OutOfCorePlan> plan_out_of_core(const OutOfCoreRequest& request, const FitOptions& fit) {
    if (request.when == OutOfCoreWhen::Off) return std::nullopt;
    const bool asked = request.when == OutOfCoreWhen::On;
    const GeoOptions& geo = request.geo;
    std::uint64_t limit = request.memory_limit;
    // What only a file read by pass after pass can be: a regular --input, binary (read by
    // position) or text (parsed by blocks through the index of a first pass).
    const auto refuse = [&](const std::string& why) -> std::optional<OutOfCorePlan> {
        if (asked) throw UsageError("--out-of-core on: " + why);
        return std::nullopt;
    };
    const std::string& path = request.path;
    // A FIFO or a device is never opened here (opening a FIFO waits for a writer; the loader
    // refuses one in time, test_io_special): only a regular file is read pass after pass.
    std::error_code not_regular;
    if (!std::filesystem::is_regular_file(path, not_regular))
        return refuse(path + " is not a regular file: out of core reads the file again on every pass");
    const bool binary = is_binary_matrix_file(path);
    // (--geo text tables name their columns in a header: loaded whole.)
    if (geo.enabled && !starts_with_npy_magic(path))
        return refuse(path + " is not a NumPy .npy file: a --geo text table is loaded whole (convert it to a .npy "
                             "of latitude, longitude, e.g. numpy.save)");
    if (!binary && std::filesystem::path(path).extension() == ".npy")
        return refuse(path + " is named .npy but is not a NumPy file (no \\x93NUMPY magic)");

    OutOfCorePlan plan;
    // Text: the columns and the most rows its bytes can hold, until the pass counts them.
    TextFileShape text;
    if (binary) plan.source = open_matrix_rows(path);
    else text = text_file_shape(path);
    const std::uint64_t file_cols = binary ? plan.source->cols() : text.cols;
    // --geo: the points are the rows projected, 2 or 3 km coordinates as the pass of
    // statistics decides (below): 3 until then.
    const std::uint64_t d = !geo.enabled ? file_cols : geo.frame == GeoFrame::Equirectangular ? 2 : 3;
    if (geo.enabled) (void)npy_geo_columns(path, plan.source->cols(), geo.columns);  // a bad --lat/--lon before the plan
    const std::uint64_t ranks = fit.ranks ? static_cast<std::uint64_t>(fit.ranks->size()) : 1;
    if (limit == 0) limit = available_memory_bytes() / static_cast<std::uint64_t>(launcher_local_size());
    plan.memory_limit = limit;
    // In memory: the rows as doubles (and the solver's float copy), the per-row state.
    // Per row of this process: the solver's labels, the copy a cancellable step keeps,
    // the seeding's distance and chosen flag (9); per row of the data set: the
    // result's labels, their text for --labels-out (up to 11), and under ranks the
    // gathered 8-byte labels.
    // (--geo: loading also holds the file's bytes, their values as doubles (load_geo_table
    // parses the whole table) and the degrees.)
    const std::uint64_t point_bytes =
        d * (8 + (fit.solver.precision == Precision::F32 ? 4 : 0)) +
        (geo.enabled ? plan.source->file_row_bytes() + plan.source->cols() * 8 + 2 * 8 : 0);
    const bool seeds_by_distance = fit.init.method == InitMethod::KMeansPlusPlus ||
                                   fit.init.method == InitMethod::GreedyKMeansPlusPlus ||
                                   fit.init.method == InitMethod::Maximin;
    std::uint64_t label_text = 2;  // a label's digits and its newline
    for (std::uint64_t k = fit.k; k > 10; k /= 10) ++label_text;
    // (k-means‖: each row's D and nearest candidate, 12 bytes, and a flag per row of the data set.)
    const bool seeds_in_rounds = fit.init.method == InitMethod::KMeansParallel;
    // --weights: every row's weight on every process (8), the solver's copy of its rows' (a
    // rank's block: 8) in float (4).
    const bool weighted = request.weighted;
    const std::uint64_t weight_row_bytes =
        weighted ? (fit.ranks ? 8 : 0) + (fit.solver.precision == Precision::F32 ? 4 : 0) : 0;
    const auto unbounded_state = [&](std::uint64_t n) {
        const std::uint64_t my_rows = (n + ranks - 1) / ranks;
        return my_rows * (4 + 4 + (seeds_by_distance ? 9 : seeds_in_rounds ? 12 : 0) + weight_row_bytes) +
               n * (4 + label_text + (fit.ranks ? 16 : 0) + (seeds_in_rounds ? 1 : 0) + (weighted ? 8 : 0));
    };
    // Beside the data: the program's own heap and one stack per thread (the solver's
    // OpenMP threads and the reader; under ulimit -v their address space counts).
    const int solver_threads = fit.solver.backend == Backend::Sequential ? 1
                               : fit.solver.threads > 0              ? fit.solver.threads
                                                                     : omp_get_max_threads();
    // (--geo: the statistics' 1 MiB and the reader's 4 MiB of degrees.)
    const std::uint64_t reserve = (std::uint64_t{8} << 20) * (static_cast<std::uint64_t>(solver_threads) + 2) +
                                  (geo.enabled ? std::uint64_t{5} << 20 : 0);
    // A bounded solver keeps its bounds in memory beside the blocks (SolverTraits::bound_bytes:
    // Elkan's k + 1 a row). --solver auto: the out-of-core choice for n rows whose bounds leave
    // room for blocks beside `base` bytes of other state.
    const auto bound_bytes = [&](Algorithm algorithm) {
        return solver_traits(algorithm, fit.solver.backend).bound_bytes(fit.k, fit.solver.precision);
    };
    const auto bounds_fit = [&](Algorithm algorithm, std::uint64_t n, std::uint64_t base) {
        return limit > base + reserve && (n + ranks - 1) / ranks * bound_bytes(algorithm) < limit - base - reserve;
    };
    const auto solver_for = [&](std::uint64_t n, std::uint64_t base) -> SolverChoice {
        if (fit.solver.algorithm != Algorithm::Auto) return {fit.solver.algorithm, {}};
        const std::uint64_t room = limit > base + reserve ? limit - base - reserve - 1 : 0;
        return out_of_core_choice(choose_solver(fit.solver, n, d, fit.k), fit.solver, fit.k,
                                  limit == 0 ? UINT64_MAX : room / std::max<std::uint64_t>(1, (n + ranks - 1) / ranks));
    };
    const auto state_bytes = [&](std::uint64_t n) {
        return unbounded_state(n) + (n + ranks - 1) / ranks * bound_bytes(solver_for(n, unbounded_state(n)).algorithm);
    };
    // Loaded, a text file's bytes (a rank's share of them) are held beside its matrix while it is parsed.
    const auto fits = [&](std::uint64_t n) {
        const std::uint64_t my_rows = (n + ranks - 1) / ranks;
        return limit > 0 && my_rows * point_bytes + state_bytes(n) + reserve + (binary ? 0 : text.data_bytes / ranks) <= limit;
    };
    // Under ranks every rank takes the same road (the loaded and out-of-core ones meet other
    // collectives): out of core when any rank's points do not fit. Text needs its pass for
    // its rows unless even the most its bytes can hold fit.
    const auto any_rank = [&](bool mine) {
        if (!fit.ranks) return mine;
        const std::int64_t flag = mine ? 1 : 0;
        const std::vector<std::int64_t> all = fit.ranks->allgather(std::span<const std::int64_t>(&flag, 1));
        return std::find(all.begin(), all.end(), 1) != all.end();
    };
    if (!asked && !any_rank(limit > 0 && !fits(binary ? plan.source->rows() : text.max_rows))) return std::nullopt;  // auto: loaded as always
    // The text's window of the pass and of each read, and its index (24 bytes a mark: every
    // 1024 rows, and at least one a piece of 1/16 of a window).
    TextRowsOptions text_options;
    text_options.threads = solver_threads;
    text_options.ranks = fit.ranks.get();
    text_options.cancel = request.cancel;
    text_options.window_bytes = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(limit / 16, std::uint64_t{1} << 20, text_options.window_bytes));
    if (!binary) {
        plan.source = open_text_rows(path, text_options);
        // auto: the pass counted the rows; loaded if they fit after all (the pass then only counted them).
        if (!asked && !any_rank(limit > 0 && !fits(plan.source->rows()))) return std::nullopt;
    }
    const std::uint64_t n = plan.source->rows(), my_rows = (n + ranks - 1) / ranks;
    const std::uint64_t base = unbounded_state(n) +
                               (binary ? 0 : 2 * text_options.window_bytes +
                                                 24 * (n / text_options.rows_per_mark + text.data_bytes / (text_options.window_bytes / 16) + 1));
    const SolverChoice solver = solver_for(n, base);
    if (fit.solver.algorithm == Algorithm::Auto) plan.solver_choice = solver;
    plan.state_bytes = base + my_rows * bound_bytes(solver.algorithm);
    plan.automatic = !asked;
    // auto: where the per-row state leaves nothing for blocks, out of core cannot run either: loaded
    // (and the loader says what it lacks).
    if (!asked && any_rank(limit <= base + reserve)) return std::nullopt;
    // The bounds stay in memory loaded too: where they leave nothing for blocks, the plan says so
    // (not an allocation failure), with the solvers whose bounds fit (the registry's).
    if (limit > base + reserve && !bounds_fit(solver.algorithm, n, base)) {
        std::string fitting;
        for (const AlgorithmInfo& info : registered_algorithms())
            if (solver_traits(info.algorithm, fit.solver.backend).streams_points && bounds_fit(info.algorithm, n, base))
                fitting += (fitting.empty() ? "" : ", ") + std::string(to_string(info.algorithm)) + " (" +
                           std::to_string(bound_bytes(info.algorithm)) + ")";
        throw UsageError("out of core: --solver " + std::string(to_string(solver.algorithm)) +
                         " keeps its bounds in memory, " + std::to_string(bound_bytes(solver.algorithm)) +
                         " bytes a row at k = " + std::to_string(fit.k) + ", " +
                         mebibytes(my_rows * bound_bytes(solver.algorithm)) + " for " + std::to_string(my_rows) +
                         " rows; beside the per-row state (" + mebibytes(base) + ") and the program (" +
                         mebibytes(reserve) + ") that leaves nothing for blocks of " + path +
                         "'s points in the memory limit " + mebibytes(limit) +
                         ". Solvers that read the file by blocks with bounds that fit (bytes a row): " + fitting +
                         "; or raise --memory-limit" + (fit.ranks ? "" : ", or split the rows over MPI ranks (mpirun)"));
    }
    if (limit <= plan.state_bytes + reserve)
        throw UsageError("out of core: the memory limit " + mebibytes(limit) + " leaves nothing for blocks of " +
                         path + "'s points beside the per-row state (labels, seeding" + (binary ? "" : ", the text's index and window") + ": " + mebibytes(plan.state_bytes) +
                         ") and the program (" + mebibytes(reserve) + "); raise --memory-limit" +
                         (fit.ranks ? "" : ", or split the rows over MPI ranks (mpirun)"));
    plan.buffer_bytes = static_cast<std::size_t>(limit - plan.state_bytes - reserve);
    if (geo.enabled) {  // before the solver's buffers exist, the pass has theirs
        plan.geo = open_geo_rows(path, geo, plan.buffer_bytes, solver_threads, fit.ranks.get());
        plan.source = plan.geo->projected;
    }
    return plan;
}

}  // namespace kms
