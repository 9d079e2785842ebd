// Public loaders: format detection by content (the .npy magic), then by extension
// (the headerless binary formats), else text; ground truth picked up from files beside the data.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <new>
#include <system_error>

#include "detail/io_detail.hpp"
#include "kms/error.hpp"
#include "kms/short_number.hpp"
#include "kms/io.hpp"

namespace kms {
namespace {

bool has_npy_extension(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".npy";
}

// The content decides the format; a file named *.npy without the magic is
// refused here rather than reported as a text file full of non-numbers.
bool is_npy(const std::string& path, const io_detail::FileBytes& bytes) {
    if (io_detail::has_npy_magic(bytes.view())) return true;
    if (has_npy_extension(path))
        throw InputError::at_byte(path, 0, "not a NumPy .npy file: it does not start with the magic \"\\x93NUMPY\"");
    return false;
}

Matrix<double> load_any_matrix(const std::string& path, const LoadOptions& options) {
    io_detail::FileBytes bytes = io_detail::read_whole_file(path, options);
    return io_detail::parse_matrix(path, bytes, options);
}

bool is_regular_file(const std::string& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
}

// NAME.txt / NAME.csv -> NAME (empty when the data file has another extension).
std::string benchmark_stem(const std::string& path) {
    const std::filesystem::path file(path);
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension != ".txt" && extension != ".csv") return {};
    return path.substr(0, path.size() - extension.size());
}

// Benchmark labels are 1..k: stored 0-based. Negative labels (e.g. "noise")
// have no cluster to map to, so they are refused rather than guessed at.
std::vector<std::int32_t> load_truth_labels(const std::string& labels_path, std::size_t points,
                                            const std::string& data_path, const LoadOptions& options) {
    std::vector<std::int32_t> labels = load_labels(labels_path, options);
    if (labels.size() != points)
        throw InputError::whole(labels_path, "has " + std::to_string(labels.size()) + " labels but " + data_path +
                                                 " has " + std::to_string(points) + " points");
    const auto smallest = std::min_element(labels.begin(), labels.end());
    if (*smallest < 0)
        throw InputError::whole(labels_path, "label " + std::to_string(*smallest) + " (point " +
                                                 std::to_string(smallest - labels.begin()) +
                                                 ") is negative: ground-truth labels must be 0-based or 1-based");
    if (*smallest == 1)
        for (std::int32_t& label : labels) label -= 1;
    return labels;
}

}  // namespace

Dataset load_dataset(const std::string& path, const LoadOptions& options) {
    Dataset dataset;
    dataset.name = path;
    dataset.points = load_any_matrix(path, options);
    if (!options.attach_ground_truth) return dataset;
    const std::string stem = benchmark_stem(path);
    if (stem.empty()) return dataset;
    const std::string labels_path = stem + "-labels.txt";
    if (is_regular_file(labels_path)) dataset.truth_labels = load_truth_labels(labels_path, dataset.n(), path, options);
    const std::string centroids_path = stem + "-gt.txt";
    if (is_regular_file(centroids_path)) {
        Matrix<double> centroids = load_any_matrix(centroids_path, LoadOptions{{}, options.cancel, false, options.max_stream_bytes, options.fifo_writer_wait});
        if (centroids.cols() != dataset.d())
            throw InputError::whole(centroids_path, "true centroids have " + std::to_string(centroids.cols()) +
                                                        " coordinates but " + path + " has " +
                                                        std::to_string(dataset.d()));
        dataset.truth_centroids = std::move(centroids);
    }
    return dataset;
}

Matrix<double> load_matrix(const std::string& path, const LoadOptions& options) {
    return load_any_matrix(path, options);
}

std::vector<std::int32_t> load_labels(const std::string& path, const LoadOptions& options) {
    io_detail::FileBytes bytes = io_detail::read_whole_file(path, options);
    return io_detail::parse_labels(path, bytes);
}

std::vector<double> load_sample_weights(const std::string& path, std::size_t expected, const LoadOptions& options) {
    io_detail::FileBytes bytes = io_detail::read_whole_file(path, options);
    std::vector<double> weights;
    if (io_detail::has_npy_magic(bytes.view())) {
        // A NumPy array of n weights (its 1-D shape reads as n × 1), not text with a binary header.
        const Matrix<double> array = io_detail::parse_npy_matrix(path, bytes, options);
        if (array.cols() != 1)
            throw InputError::whole(path, "sample weights must be a 1-D array, this .npy file holds " +
                                              std::to_string(array.rows()) + " × " + std::to_string(array.cols()) +
                                              " values");
        weights.assign(array.values().begin(), array.values().end());
        for (std::size_t i = 0; i < weights.size(); ++i)
            if (weights[i] < 0.0)
                throw InputError::whole(path, "the weight " + short_number(weights[i]) + " (element " +
                                                  std::to_string(i) + ") is negative");
        if (weights.size() != expected)
            throw InputError::whole(path, "has " + std::to_string(weights.size()) + " weights but the data has " +
                                              std::to_string(expected) + " points");
        return weights;
    }
    const std::string_view text = io_detail::skip_utf8_bom(bytes.view());  // the data loader's rule
    weights.reserve(expected);
    std::size_t pos = 0;
    std::uint64_t line = 0;
    while (pos < text.size()) {
        ++line;
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view field = text.substr(pos, end - pos);
        pos = end + 1;
        const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
        while (!field.empty() && blank(field.front())) field.remove_prefix(1);
        while (!field.empty() && blank(field.back())) field.remove_suffix(1);
        if (field.empty()) throw InputError::at_line(path, line, "empty line: expected one weight per line");
        double value = 0.0;
        const auto [stop, error] = std::from_chars(field.data(), field.data() + field.size(), value);
        // Tokens quoted as the data loader quotes them: shortened, bytes that do not print escaped.
        if (error == std::errc::result_out_of_range && stop == field.data() + field.size())
            throw InputError::at_line(path, line, "the weight " + io_detail::quote_token(field) + " is out of range");
        if (error != std::errc() || stop != field.data() + field.size())
            throw InputError::at_line(path, line, io_detail::quote_token(field) + " is not a number");
        if (!std::isfinite(value)) throw InputError::at_line(path, line, "the weight is not finite");
        if (value < 0.0) throw InputError::at_line(path, line, "the weight " + short_number(value) + " is negative");
        if (weights.size() == expected)
            throw InputError::at_line(path, line, "more weights than the " + std::to_string(expected) + " points");
        weights.push_back(value);
    }
    if (weights.size() != expected)
        throw InputError::whole(path, "has " + std::to_string(weights.size()) + " weights but the data has " +
                                          std::to_string(expected) + " points");
    return weights;
}

namespace io_detail {

// The parsers report the allocations they can name ("N points × d values");
// anything else that runs out of memory is reported against the input's size.
Matrix<double> parse_matrix(const std::string& path, FileBytes& bytes, const LoadOptions& options) {
    const std::size_t size = bytes.size;
    try {
        if (is_npy(path, bytes)) return parse_npy_matrix(path, bytes, options);
        if (is_headerless_matrix(path)) return parse_headerless_matrix(path, bytes, options);
        return parse_text_matrix(path, bytes, options);
    } catch (const std::bad_alloc&) {
        throw_out_of_memory(path, size);
    }
}

std::vector<std::int32_t> parse_labels(const std::string& path, FileBytes& bytes) {
    const std::size_t size = bytes.size;
    try {
        if (is_npy(path, bytes)) return parse_npy_labels(path, bytes);
        if (is_headerless_matrix(path))
            throw InputError::whole(path, "labels are read from text or a .npy file, not from " +
                                              std::filesystem::path(path).extension().string());
        return parse_text_labels(path, bytes);
    } catch (const std::bad_alloc&) {
        throw_out_of_memory(path, size);
    }
}

}  // namespace io_detail
}  // namespace kms
