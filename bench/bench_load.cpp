// Loader speed: writes a 2-D CSV of random decimals (6 to 8 significant digits;
// 10^7 lines by default), then times load_dataset on it, median of 3 runs, on
// one thread and on all OpenMP threads. The same points are also saved as
// .npy and timed.
//
//   bench_load [--lines N] [--repeats R] [--keep] [--rows] [PATH]
//
// --rows: also out of core (kms/row_source.hpp): the text's first pass (open_text_rows: every
// row parsed, counted and indexed) and one pass that reads every row back a block at a time
// (read_blocks, as a solver's step reads them), and the same pass over the .npy
// (open_matrix_rows), on one thread and on all.
//
// With PATH the file is written there (and kept with --keep); without it a
// file under $TMPDIR (or /tmp) is used and removed afterwards. If PATH already
// exists and --reuse is given, it is timed as is instead of being generated.
#include <omp.h>
#include <time.h>
#include <unistd.h>


#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/row_source.hpp"

namespace {

struct Options {
    std::size_t lines = 10'000'000;
    int repeats = 3;
    bool keep = false;
    bool reuse = false;
    bool rows = false;
    std::string path;
};

[[noreturn]] void usage(const char* message) {
    std::fprintf(stderr, "bench_load: %s\nusage: bench_load [--lines N] [--repeats R] [--keep] [--reuse] [--rows] [PATH]\n",
                 message);
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--lines" && i + 1 < argc) options.lines = std::strtoull(argv[++i], nullptr, 10);
        else if (arg == "--repeats" && i + 1 < argc) options.repeats = std::atoi(argv[++i]);
        else if (arg == "--keep") options.keep = true;
        else if (arg == "--reuse") options.reuse = true;
        else if (arg == "--rows") options.rows = true;
        else if (!arg.empty() && arg[0] != '-' && options.path.empty()) options.path = arg;
        else usage(("unknown argument " + arg).c_str());
    }
    if (options.lines == 0 || options.repeats < 1) usage("--lines and --repeats must be positive");
    return options;
}

// Random decimals in [-1000, 1000) with 6, 7 or 8 significant digits, e.g. "-734.2915,12.90871".
std::string make_csv(std::size_t lines) {
    std::string text;
    text.reserve(lines * 22);
    char buffer[64];
    for (std::size_t i = 0; i < lines; ++i) {
        for (int j = 0; j < 2; ++j) {
            const std::uint64_t counter = 2 * i + static_cast<std::uint64_t>(j);
            const double value = kms::random_uniform(42, 0, counter) * 2000.0 - 1000.0;
            const int digits = 6 + static_cast<int>(kms::random_below(42, 1, counter, 3));
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed,
                                              std::max(0, digits - 3));
            text.append(buffer, result.ptr);
            text += j == 0 ? ',' : '\n';
        }
    }
    return text;
}

std::string npy_bytes(const kms::Matrix<double>& points) {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(points.rows()) +
                         ", " + std::to_string(points.cols()) + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(points.data()), points.size() * sizeof(double));
    return bytes;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double cpu_seconds() {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct Timing {
    double wall = 0;  // median wall-clock seconds
    double cpu = 0;   // median CPU seconds of the process (all threads): meaningful on a shared, busy machine
};

// Median times of `repeats` loads; checks the shape every time.
Timing time_loads(const std::string& path, int repeats, std::size_t rows, std::size_t cols) {
    std::vector<double> seconds, cpu;
    for (int r = 0; r < repeats; ++r) {
        const double cpu_start = cpu_seconds();
        const auto start = std::chrono::steady_clock::now();
        const kms::Dataset dataset = kms::load_dataset(path);
        const auto stop = std::chrono::steady_clock::now();
        cpu.push_back(cpu_seconds() - cpu_start);
        if (dataset.n() != rows || dataset.d() != cols) {
            std::fprintf(stderr, "bench_load: %s loaded as %zu x %zu, expected %zu x %zu\n", path.c_str(),
                         dataset.n(), dataset.d(), rows, cols);
            std::exit(1);
        }
        seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    return {median(seconds), median(cpu)};
}

// Out of core: median times of `repeats` (a) first passes over a text file (open_text_rows) or
// opens of a binary one, and (b) passes reading every row back in blocks of at most 64 MiB of
// doubles (read_blocks, the solver's reader), each block's values summed so nothing is optimised
// away; the sum must be the loaded matrix's, in row order.
std::pair<Timing, Timing> time_row_passes(const std::string& path, bool text, int repeats, int threads,
                                          const kms::Matrix<double>& loaded) {
    double want = 0;
    for (const double v : loaded.span()) want += v;
    std::vector<double> open_wall, open_cpu, pass_wall, pass_cpu;
    for (int r = 0; r < repeats; ++r) {
        double cpu_start = cpu_seconds();
        auto start = std::chrono::steady_clock::now();
        kms::TextRowsOptions options;
        options.threads = threads;
        const auto source = text ? kms::open_text_rows(path, options) : kms::open_matrix_rows(path);
        open_wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        open_cpu.push_back(cpu_seconds() - cpu_start);
        cpu_start = cpu_seconds();
        start = std::chrono::steady_clock::now();
        std::vector<double> buffers[2];
        double sum = 0;
        const std::size_t block_rows = std::max<std::size_t>(1, (std::size_t{64} << 20) / (8 * source->cols()));
        kms::read_blocks(*source, 0, source->rows(), block_rows, buffers, threads,
                         [&](std::size_t, std::size_t count, const double* values) {
                             for (std::size_t i = 0; i < count * source->cols(); ++i) sum += values[i];
                         });
        pass_wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        pass_cpu.push_back(cpu_seconds() - cpu_start);
        if (sum != want) {
            std::fprintf(stderr, "bench_load: %s read back by blocks sums to %.17g, loaded %.17g\n", path.c_str(), sum, want);
            std::exit(1);
        }
    }
    return {{median(open_wall), median(open_cpu)}, {median(pass_wall), median(pass_cpu)}};
}

void report(const char* what, int threads, Timing timing, std::uintmax_t bytes, std::size_t lines) {
    const double megabytes = static_cast<double>(bytes) / 1e6;
    std::printf("%-14s threads=%-2d wall %7.3f s %8.1f MB/s %7.2f M lines/s | cpu %7.3f s %8.1f MB per cpu-s\n", what,
                threads, timing.wall, megabytes / timing.wall, static_cast<double>(lines) / timing.wall / 1e6,
                timing.cpu, megabytes / timing.cpu);
}

}  // namespace

int main(int argc, char** argv) try {
    Options options = parse_options(argc, argv);
    const bool temporary = options.path.empty();
    if (temporary) {
        const char* tmp = std::getenv("TMPDIR");
        options.path = std::string(tmp && *tmp ? tmp : "/tmp") + "/kms_bench_load_" + std::to_string(::getpid()) + ".csv";
    }
    if (!(options.reuse && std::filesystem::exists(options.path))) {
        std::printf("writing %zu lines to %s\n", options.lines, options.path.c_str());
        kms::write_text_file(options.path, make_csv(options.lines));
    }
    const std::uintmax_t bytes = std::filesystem::file_size(options.path);
    // The line count of a reused file comes from a first load.
    const kms::Dataset reference = kms::load_dataset(options.path);
    const std::size_t rows = reference.n();
    const std::size_t cols = reference.d();
    std::printf("file: %s, %.1f MB, %zu rows x %zu columns; median of %d loads (file in the page cache), "
                "%d OpenMP threads available\n",
                options.path.c_str(), static_cast<double>(bytes) / 1e6, rows, cols, options.repeats,
                omp_get_max_threads());

    const int all_threads = omp_get_max_threads();
    omp_set_num_threads(1);
    report("csv", 1, time_loads(options.path, options.repeats, rows, cols), bytes, rows);
    if (all_threads > 1) {
        omp_set_num_threads(all_threads);
        report("csv", all_threads, time_loads(options.path, options.repeats, rows, cols), bytes, rows);
    }

    const std::string npy_path = options.path + ".npy";
    kms::write_text_file(npy_path, npy_bytes(reference.points));
    const std::uintmax_t npy_size = std::filesystem::file_size(npy_path);
    omp_set_num_threads(1);
    report("npy", 1, time_loads(npy_path, options.repeats, rows, cols), npy_size, rows);
    if (options.rows) {
        std::printf("out of core: the first pass (text: parse, count, index; .npy: open) and one pass reading "
                    "every row back by blocks\n");
        for (const int threads : {1, all_threads}) {
            if (threads == all_threads && all_threads == 1) break;
            const auto [csv_open, csv_pass] = time_row_passes(options.path, true, options.repeats, threads, reference.points);
            report("csv first pass", threads, csv_open, bytes, rows);
            report("csv pass", threads, csv_pass, bytes, rows);
            report("npy pass", threads, time_row_passes(npy_path, false, options.repeats, threads, reference.points).second,
                   npy_size, rows);
        }
    }
    std::filesystem::remove(npy_path);

    if (temporary && !options.keep) std::filesystem::remove(options.path);
    return 0;
} catch (const std::exception& error) {
    std::fprintf(stderr, "bench_load: %s\n", error.what());
    return 1;
}
