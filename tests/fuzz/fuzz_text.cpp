// libFuzzer target: delimited text and benchmark-set text, parsed in memory as
// points (parse_matrix) and as labels (parse_labels). kms::Error is the expected
// refusal; any other exception, a crash, a sanitizer report or a malformed result
// is a finding. Two differential checks:
//  - the parse is repeated with a parallel chunk size of 1..64 bytes instead of
//    4 MiB, so that even small inputs take the multi-chunk path (chunk bounds, row
//    bounds, gap closing); the result, or the error message, must be identical;
//  - a loaded matrix written back (centroids_csv_text) must load bit-identically;
//  - (one input in four) the input loaded as a file over 1..4 thread ranks by byte ranges
//    (load_text_block, a first look of 1..64 bytes at the head) must give the
//    whole parse's rows block by block, or exactly one rank must report the whole
//    parse's error (the others: ReportedByAnotherRank);
//  - (another input in four) the input read out of core (open_text_rows: its pass, then reads
//    through the index, a mark every 1..8 rows, windows of 1..64 bytes, over 1..3 thread ranks)
//    must give the whole parse's rows, all of them and a run from every mark, or the whole
//    parse's error, once.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>

#include <sys/mman.h>
#include <unistd.h>

#include "detail/io_detail.hpp"
#include "fuzz_common.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/row_source.hpp"

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

// The input as a file (a memfd: no disk), loaded by `ranks` thread ranks with an
// equal split; compared with the whole parse.
// Where the whole parse refuses the file, every rank must fail and exactly one (the one
// holding the bad line) report the whole parse's message, under the file's own path.
void check_one_report(const std::string& error, const std::string& path, const std::vector<int>& kinds,
                      const std::vector<std::string>& errors, const char* opened, const char* differs) {
    const std::string expected = path + error.substr(std::strlen("fuzz.txt"));
    int reporters = 0;
    for (std::size_t r = 0; r < kinds.size(); ++r) {
        if (kinds[r] == 0) finding((std::string(opened) + " a file the whole parse refuses").c_str(), error, "");
        if (kinds[r] == 1) {
            ++reporters;
            if (errors[r] != expected) finding(differs, expected, errors[r]);
        }
    }
    if (reporters != 1) finding("not exactly one rank reports", error, std::to_string(reporters));
}

// The input as an anonymous file (-1 where memfds are not to be had).
int memfd_holding(std::string_view bytes, const char* name) {
    const int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return fd;
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (wrote <= 0) std::abort();
        done += static_cast<std::size_t>(wrote);
    }
    return fd;
}

void check_blocks(std::string_view bytes, const Outcome& whole, int ranks, std::size_t first_look) {
    if (kms::io_detail::has_npy_magic(bytes)) return;  // the whole parse read it as .npy
    const int fd = memfd_holding(bytes, "fuzz-blocks");
    if (fd < 0) return;
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const auto count = static_cast<std::size_t>(ranks);
    std::vector<kms::RowBlock> blocks(count);
    std::vector<std::string> errors(count);
    std::vector<int> kinds(count, 0);  // 1: the reporting rank, 2: ReportedByAnotherRank
    kms::io_detail::set_text_prefix_bytes(first_look);
    const kms::RowSplit split = [count](std::size_t n, std::size_t) {
        std::vector<std::size_t> first(count + 1);
        for (std::size_t r = 0; r <= count; ++r) first[r] = n * r / count;
        return first;
    };
    kms::ThreadGroup group(ranks);
    group.run([&](std::shared_ptr<kms::Communicator> comm) {
        const auto r = static_cast<std::size_t>(comm->rank());
        try {
            blocks[r] = kms::load_text_block(path, *comm, split);
        } catch (const kms::ReportedByAnotherRank&) {
            kinds[r] = 2;
        } catch (const kms::Error& error) {
            kinds[r] = 1;
            errors[r] = error.what();
        }
    });
    kms::io_detail::set_text_prefix_bytes(0);
    ::close(fd);
    if (const auto* error = std::get_if<std::string>(&whole)) {
        check_one_report(*error, path, kinds, errors, "a rank loaded its block of", "block error differs");
        return;
    }
    const auto& matrix = std::get<kms::Matrix<double>>(whole);
    std::size_t row = 0;
    for (std::size_t r = 0; r < count; ++r) {
        if (kinds[r] != 0) finding("block load failed where the whole parse succeeded", describe(whole), errors[r]);
        const kms::Matrix<double>& points = blocks[r].points;
        if (blocks[r].global_rows != matrix.rows() || blocks[r].first_row != row ||
            (points.size() > 0 && (points.cols() != matrix.cols() ||
                                   std::memcmp(points.data(), matrix.data() + row * matrix.cols(),
                                               points.size() * sizeof(double)) != 0)))
            finding("block differs from the whole parse", describe(whole), "rank " + std::to_string(r));
        row += points.rows();
    }
    if (row != matrix.rows()) finding("blocks do not cover the rows", describe(whole), std::to_string(row));
}

// The input as a file (a memfd), read out of core by `ranks` thread ranks (each opens it: the
// index's pass is shared) and compared with the whole parse.
void check_rows(std::string_view bytes, const Outcome& whole, int ranks, std::size_t rows_per_mark,
                std::size_t window_bytes, std::size_t first_look) {
    if (kms::io_detail::has_npy_magic(bytes)) return;
    const int fd = memfd_holding(bytes, "fuzz-rows");
    if (fd < 0) return;
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const auto count = static_cast<std::size_t>(ranks);
    std::vector<std::string> errors(count), differences(count);
    std::vector<int> kinds(count, 0);  // 1: the reporting rank, 2: ReportedByAnotherRank
    const auto* matrix = std::get_if<kms::Matrix<double>>(&whole);
    kms::io_detail::set_text_prefix_bytes(first_look);
    const auto read = [&](kms::Communicator* comm, std::size_t r) {
        try {
            kms::TextRowsOptions options;
            options.ranks = comm;
            options.rows_per_mark = rows_per_mark;
            options.window_bytes = window_bytes;
            options.drop_behind = false;
            const auto source = kms::open_text_rows(path, options);
            if (!matrix) return;
            if (source->rows() != matrix->rows() || source->cols() != matrix->cols()) {
                differences[r] = "shape " + std::to_string(source->rows()) + " x " + std::to_string(source->cols());
                return;
            }
            std::vector<double> values(matrix->size());
            source->read(0, matrix->rows(), values.data());
            if (std::memcmp(values.data(), matrix->data(), values.size() * sizeof(double)) != 0)
                differences[r] = "values of every row";
            for (std::size_t first = 0; first < matrix->rows(); first += rows_per_mark) {
                const std::size_t rows = std::min(matrix->rows() - first, 1 + first % 5);
                source->read(first, rows, values.data());
                if (std::memcmp(values.data(), matrix->data() + first * matrix->cols(), rows * matrix->cols() * sizeof(double)) != 0)
                    differences[r] = "values of rows from " + std::to_string(first);
            }
        } catch (const kms::ReportedByAnotherRank&) {
            kinds[r] = 2;
        } catch (const kms::Error& error) {
            kinds[r] = 1;
            errors[r] = error.what();
        }
    };
    if (ranks == 1) {
        read(nullptr, 0);
    } else {
        kms::ThreadGroup group(ranks);
        group.run([&](std::shared_ptr<kms::Communicator> comm) { read(comm.get(), static_cast<std::size_t>(comm->rank())); });
    }
    kms::io_detail::set_text_prefix_bytes(0);
    ::close(fd);
    if (const auto* error = std::get_if<std::string>(&whole)) {
        check_one_report(*error, path, kinds, errors, "text rows opened", "text rows' error differs");
        return;
    }
    for (std::size_t r = 0; r < count; ++r) {
        if (kinds[r] != 0) finding("text rows failed where the whole parse succeeded", describe(whole), errors[r]);
        if (!differences[r].empty()) finding("text rows differ from the whole parse", describe(whole), differences[r]);
    }
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

    // One input in four (by its first byte, so that mutations keep the choice): the
    // thread ranks cost ~5 ms an input under ASan, 30 times the parse itself.
    if (size > 1 && data[0] % 4 == 0) check_blocks(bytes, whole, 1 + data[0] / 4 % 4, 1 + data[1] % 64);
    if (size > 2 && data[0] % 4 == 1)
        check_rows(bytes, whole, 1 + data[0] / 4 % 3, 1 + data[1] % 8, 1 + data[2] % 64, 1 + data[1] / 8 % 64);

    const LabelOutcome labels = parse_labels(bytes, 0);
    const LabelOutcome labels_chunked = parse_labels(bytes, small_chunk);
    if (labels != labels_chunked) finding("chunked label parse differs", "", "");
    if (const auto* values = std::get_if<std::vector<std::int32_t>>(&labels); values && values->empty()) std::abort();
    kms::io_detail::set_text_chunk_bytes(0);
    return 0;
}
