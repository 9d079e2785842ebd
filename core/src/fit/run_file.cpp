// Replay files (kms/run_file.hpp).
#include "kms/run_file.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <new>
#include <sstream>
#include <vector>

#include "../data/detail/io_detail.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/options.hpp"

namespace kms {

namespace {

constexpr std::string_view kMagic = "kmsrun 1";

// Hexadecimal float text: exact for every finite double, independent of the locale.
std::string hex_double(double value) {
    if (!std::isfinite(value)) throw Error("a coordinate is not a finite number");
    char buffer[64];
    std::string text = std::signbit(value) ? "-0x" : "0x";
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value), std::chars_format::hex);
    return text + std::string(buffer, result.ptr);
}

// A name or spec as one line of the file reads it back: control characters (a newline
// would end the line) written as '?', surrounding blanks dropped (the reader drops them).
std::string one_line(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Shortest text that reads back as the same double (options such as --tol).
std::string round_trip(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

// The text after the first `skip` words (a name or spec, spaces and all).
std::string rest_after(std::string_view line, std::size_t skip) {
    std::size_t i = 0;
    for (std::size_t w = 0; w < skip; ++w) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    }
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string rest(line.substr(i));
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.pop_back();
    return rest;
}

class Parser {
public:
    Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

    RunFile parse() {
        RunFile run;
        std::vector<std::string> option_args;
        std::map<std::string, std::uint64_t> option_lines;  // option name -> its line, for errors
        std::vector<std::vector<double>> centroids;
        std::size_t points_expected = 0, d = 0;
        bool truth = false, have_data = false, ended = false, have_magic = false, have_steps = false;
        std::vector<double> values;
        std::vector<std::int32_t> labels;
        std::string_view line;
        while (next_line(line)) {
            if (line.empty() || line.front() == '#') continue;
            if (ended) fail("text after 'end'");
            const auto words = split_words(line);
            if (words.empty()) continue;  // blanks and tabs only
            if (!have_magic) {
                if (line != kMagic) fail("not a kmeans-studio run file (the first line must be '" + std::string(kMagic) + "')");
                have_magic = true;
                continue;
            }
            const std::string_view keyword = words[0];
            if (keyword == "data") {
                if (have_data) fail("a second 'data' line");
                have_data = true;
                if (words.size() >= 3 && words[1] == "generate") {
                    run.data_seed = number<std::uint64_t>(words[2], "data seed");
                    run.generator = rest_after(line, 3);
                    if (run.generator.empty()) fail("'data generate SEED SPEC' needs a generator spec");
                } else if (words.size() >= 4 && words[1] == "inline") {
                    points_expected = number<std::size_t>(words[2], "number of points");
                    d = number<std::size_t>(words[3], "dimension");
                    if (points_expected == 0 || d == 0) fail("inline data needs at least one point and one dimension");
                    // N·D must not wrap: every coordinate takes at least one character of the file.
                    if (points_expected > text_.size() / d)
                        fail("'data inline' announces " + std::string(words[2]) + " points of " + std::string(words[3]) +
                             " coordinates, more than this file of " + std::to_string(text_.size()) + " bytes can hold");
                    truth = words.size() >= 5 && words[4] == "truth";
                    run.inline_data.name = rest_after(line, truth ? 5 : 4);
                    values.reserve(points_expected * d);
                } else {
                    fail("expected 'data generate SEED SPEC' or 'data inline N D [truth] NAME'");
                }
            } else if (keyword == "point") {
                if (!have_data || !run.generator.empty()) fail("'point' lines belong to 'data inline'");
                if (values.size() / d >= points_expected)
                    fail("more points than the " + std::to_string(points_expected) + " announced");
                if (words.size() != 1 + d + (truth ? 1 : 0))
                    fail("a point needs " + std::to_string(d) + " coordinates" + (truth ? " and a label" : "") +
                         ", this line has " + std::to_string(words.size() - 1) + " values");
                for (std::size_t j = 0; j < d; ++j) values.push_back(coordinate(words[1 + j]));
                if (truth) {
                    // The studio colours drawn data by these classes (max + 1 of them): a
                    // negative label there wrapped to a size beyond memory (issue 39).
                    const std::int32_t label = number<std::int32_t>(words[1 + d], "label");
                    if (label < 0)
                        fail("label " + std::to_string(label) + " is negative: ground-truth labels are 0 or more");
                    labels.push_back(label);
                }
            } else if (keyword == "option") {
                if (words.size() != 3) fail("expected 'option --NAME VALUE'");
                const std::vector<std::string> args{std::string(words[1]), std::string(words[2])};
                try {
                    (void)ParsedOptions(args, {fit_option_table()});  // a known option name
                } catch (const Error& error) {
                    fail(error.what());
                }
                if (option_lines.count(args[0])) fail("option " + args[0] + " given twice");
                option_lines[args[0]] = line_number_;
                if (args[0] == "--k") fail("k is the number of 'centroid' lines, not an option");
                if (args[0] == "--init" && !parse_init_method(args[1]))
                    fail("--init must name a method (the initial centroids are in this file)");
                option_args.insert(option_args.end(), args.begin(), args.end());
            } else if (keyword == "centroid") {
                if (!have_data) fail("'centroid' before 'data'");
                std::vector<double> row;
                for (std::size_t j = 1; j < words.size(); ++j) row.push_back(coordinate(words[j]));
                if (row.empty()) fail("a centroid needs coordinates");
                if (!centroids.empty() && row.size() != centroids.front().size())
                    fail("this centroid has " + std::to_string(row.size()) + " coordinates, the first " +
                         std::to_string(centroids.front().size()));
                centroids.push_back(std::move(row));
            } else if (keyword == "steps") {
                if (have_steps) fail("a second 'steps' line");
                have_steps = true;
                if (words.size() != 2) fail("expected 'steps N' (the iterations the saved run had taken)");
                run.steps = number<int>(words[1], "steps");
                if (run.steps < 0) fail("steps must be 0 or more");
            } else if (keyword == "end") {
                ended = true;
            } else {
                fail("unknown line '" + std::string(keyword) + "' (expected data, point, option, steps, centroid or end)");
            }
        }
        if (!have_magic) fail("empty file: not a kmeans-studio run file");
        if (!ended) fail("the file ends without 'end' (truncated?)");
        if (!have_data) fail("no 'data' line");
        if (run.generator.empty() && values.size() != points_expected * d)
            fail("'data inline' announced " + std::to_string(points_expected) + " points, the file has " +
                 std::to_string(values.size() / d));
        if (centroids.empty()) fail("no 'centroid' lines");
        if (run.generator.empty() && centroids.front().size() != d)
            fail("the centroids have " + std::to_string(centroids.front().size()) + " coordinates, the data " +
                 std::to_string(d));
        try {
            run.options = fit_options_from(ParsedOptions(option_args, {fit_option_table()}), false);
        } catch (const Error& error) {
            // The message names the option: report the line that set it.
            const std::string message = error.what();
            for (const auto& [name, line] : option_lines)
                if (message.find(name) != std::string::npos) line_number_ = line;
            fail(message);
        }
        run.options.k = centroids.size();
        run.initial_centroids = Matrix<double>(centroids.size(), centroids.front().size());
        for (std::size_t i = 0; i < centroids.size(); ++i)
            for (std::size_t j = 0; j < centroids[i].size(); ++j) run.initial_centroids(i, j) = centroids[i][j];
        if (run.generator.empty()) {
            run.inline_data.points = Matrix<double>(points_expected, d);
            std::copy(values.begin(), values.end(), run.inline_data.points.data());
            run.inline_data.truth_labels = std::move(labels);
        }
        return run;
    }

private:
    bool next_line(std::string_view& line) {
        if (position_ >= text_.size()) return false;
        const std::size_t end = text_.find('\n', position_);
        line = text_.substr(position_, end == std::string_view::npos ? std::string_view::npos : end - position_);
        position_ = end == std::string_view::npos ? text_.size() : end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++line_number_;
        return true;
    }

    [[noreturn]] void fail(const std::string& reason) const {
        throw InputError::at_line(source_, std::max<std::uint64_t>(line_number_, 1), reason);
    }

    template <typename Number>
    Number number(std::string_view word, const char* what) const {
        Number value{};
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
        if (error != std::errc() || end != word.data() + word.size())
            fail(std::string(what) + " '" + std::string(word) + "' is not a valid number");
        return value;
    }

    // A hexadecimal float (as written) or a decimal one; finite only.
    double coordinate(std::string_view word) const {
        std::string_view digits = word;
        const bool negative = !digits.empty() && digits.front() == '-';
        if (negative) digits.remove_prefix(1);
        double value = 0.0;
        std::from_chars_result result{};
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
            digits.remove_prefix(2);
            result = std::from_chars(digits.data(), digits.data() + digits.size(), value, std::chars_format::hex);
        } else {
            result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        }
        if (digits.empty() || result.ec != std::errc() || result.ptr != digits.data() + digits.size())
            fail("'" + std::string(word) + "' is not a number");
        if (!std::isfinite(value)) fail("'" + std::string(word) + "' is not a finite number");
        return negative ? -value : value;
    }

    std::string_view text_;
    const std::string& source_;
    std::size_t position_ = 0;
    std::uint64_t line_number_ = 0;
};

}  // namespace

Dataset RunFile::dataset() const {
    if (!generator.empty()) return generate_dataset(generator, data_seed);
    return inline_data;
}

std::string run_file_text(const RunFile& run) {
    std::ostringstream out;
    out << kMagic << "\n# kmeans-studio replay file: data, options and initial centroids of one run\n";
    if (!run.generator.empty()) {
        out << "data generate " << run.data_seed << ' ' << one_line(run.generator) << '\n';
    } else {
        const Dataset& data = run.inline_data;
        const bool truth = data.truth_labels.size() == data.n() && data.n() > 0;
        out << "data inline " << data.n() << ' ' << data.d() << (truth ? " truth" : "");
        std::string name = one_line(data.name);
        // A name whose first word is "truth" would read back as the labels' flag.
        if (!truth && (name == "truth" || name.rfind("truth ", 0) == 0 || name.rfind("truth\t", 0) == 0))
            name = "./" + name;
        if (!name.empty()) out << ' ' << name;
        out << '\n';
        for (std::size_t i = 0; i < data.n(); ++i) {
            out << "point";
            for (std::size_t j = 0; j < data.d(); ++j) out << ' ' << hex_double(data.points(i, j));
            if (truth) out << ' ' << data.truth_labels[i];
            out << '\n';
        }
    }
    const SolverConfig& config = run.options.solver;
    const auto option = [&out](std::string_view name, const std::string& value) {
        out << "option " << name << ' ' << value << '\n';
    };
    option("--solver", std::string(to_string(config.algorithm)));
    option("--backend", std::string(to_string(config.backend)));
    if (config.variant != KernelVariant::Auto) option("--variant", std::string(to_string(config.variant)));
    option("--gemm-filter", config.gemm_filter ? "on" : "off");
    option("--precision", std::string(to_string(config.precision)));
    option("--empty", std::string(to_string(config.empty_policy)));
    option("--max-iter", std::to_string(config.max_iterations));
    option("--tol", round_trip(config.tol));
    option("--threads", std::to_string(config.threads));
    option("--block-size", std::to_string(config.cuda_block_size));
    option("--device", std::to_string(config.cuda_device));
    if (config.stream_chunk > 0) option("--stream-chunk", std::to_string(config.stream_chunk));
    if (run.options.init.method != InitMethod::File) option("--init", std::string(to_string(run.options.init.method)));
    if (run.options.init.bounds != SeedingBounds::Auto) option("--init-bounds", std::string(to_string(run.options.init.bounds)));
    if (run.options.init.method == InitMethod::KMeansParallel) {
        option("--oversampling", round_trip(run.options.init.oversampling));
        option("--init-rounds", std::to_string(run.options.init.parallel_rounds));
    }
    option("--seed", std::to_string(run.options.init.seed));
    option("--n-init", std::to_string(run.options.n_init));
    if (run.steps > 0) out << "steps " << run.steps << '\n';
    for (std::size_t i = 0; i < run.initial_centroids.rows(); ++i) {
        out << "centroid";
        for (std::size_t j = 0; j < run.initial_centroids.cols(); ++j)
            out << ' ' << hex_double(run.initial_centroids(i, j));
        out << '\n';
    }
    out << "end\n";
    return out.str();
}

RunFile parse_run_file(std::string_view text, const std::string& source) {
    if (io_detail::has_npy_magic(text))
        throw InputError::at_byte(source, 0, "a NumPy .npy file, not a run file (text that starts with 'kmsrun 1')");
    try {
        return Parser(io_detail::skip_utf8_bom(text), source).parse();
    } catch (const std::bad_alloc&) {
        throw Error(source + ": not enough memory to hold the run it describes (" + std::to_string(text.size()) +
                    " bytes of file)");
    }
}

RunFile read_run_file(const std::string& path, const LoadOptions& options) {
    // As the data loaders read: a FIFO without a writer is waited for a while, then
    // refused (an ifstream blocked in open() for ever: the studio hung), a folder or
    // a socket is refused by name (it read as an empty file), the OS's reason is given.
    const io_detail::FileBytes bytes = io_detail::read_whole_file(path, options);
    return parse_run_file(bytes.view(), path);
}

}  // namespace kms
