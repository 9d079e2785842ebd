// libFuzzer target: delimited text and benchmark-set text, parsed in memory as
// points (parse_matrix) and as labels (parse_labels). kms::Error is the expected
// refusal; any other exception, a crash, a sanitizer report or a malformed result
// is a finding. Two differential checks:
//  - the parse is repeated with a parallel chunk size of 1..64 bytes instead of
//    4 MiB, so that even small inputs take the multi-chunk path (chunk bounds, row
//    bounds, gap closing); the result, or the error message, must be identical;
//  - a loaded matrix written back (centroids_csv_text) must load bit-identically.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>

#include "detail/io_detail.hpp"
#include "fuzz_common.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"

namespace {

using Outcome = std::variant<kms::Matrix<double>, std::string>;
using LabelOutcome = std::variant<std::vector<std::int32_t>, std::string>;

Outcome parse_points(std::string_view bytes, std::size_t chunk_bytes) {
    kms::io_detail::set_text_chunk_bytes(chunk_bytes);
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        return kms::io_detail::parse_matrix("fuzz.txt", copy, {});
    } catch (const kms::Error& error) {
        return std::string(error.what());
    }
}

LabelOutcome parse_labels(std::string_view bytes, std::size_t chunk_bytes) {
    kms::io_detail::set_text_chunk_bytes(chunk_bytes);
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        return kms::io_detail::parse_labels("fuzz-labels.txt", copy);
    } catch (const kms::Error& error) {
        return std::string(error.what());
    }
}

[[noreturn]] void finding(const char* what, const std::string& a, const std::string& b) {
    std::fprintf(stderr, "%s\n  one:   %s\n  other: %s\n", what, a.c_str(), b.c_str());
    std::abort();
}

std::string describe(const Outcome& outcome) {
    if (const auto* error = std::get_if<std::string>(&outcome)) return "error: " + *error;
    const auto& m = std::get<kms::Matrix<double>>(outcome);
    return "matrix " + std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

bool same_bits(const kms::Matrix<double>& a, const kms::Matrix<double>& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const std::size_t small_chunk = 1 + (size ? data[size - 1] % 64 : 0);

    const Outcome whole = parse_points(bytes, 0);
    const Outcome chunked = parse_points(bytes, small_chunk);
    if (whole.index() != chunked.index()) finding("chunked parse differs", describe(whole), describe(chunked));
    if (const auto* error = std::get_if<std::string>(&whole)) {
        if (*error != std::get<std::string>(chunked)) finding("chunked parse error differs", *error, std::get<std::string>(chunked));
    } else {
        const auto& matrix = std::get<kms::Matrix<double>>(whole);
        kms::fuzz::check_matrix(matrix);
        if (!same_bits(matrix, std::get<kms::Matrix<double>>(chunked))) finding("chunked values differ", "", "");
        const std::string written = kms::centroids_csv_text(matrix);
        const Outcome again = parse_points(written, 0);
        if (!std::holds_alternative<kms::Matrix<double>>(again) || !same_bits(matrix, std::get<kms::Matrix<double>>(again)))
            finding("written matrix does not load back bit-identically", describe(again), written.substr(0, 200));
    }

    const LabelOutcome labels = parse_labels(bytes, 0);
    const LabelOutcome labels_chunked = parse_labels(bytes, small_chunk);
    if (labels != labels_chunked) finding("chunked label parse differs", "", "");
    if (const auto* values = std::get_if<std::vector<std::int32_t>>(&labels); values && values->empty()) std::abort();
    kms::io_detail::set_text_chunk_bytes(0);
    return 0;
}
