// libFuzzer target: the grammars added since the loaders were fuzzed (issue 39). The
// first byte picks one, the rest is its text:
//  - 0-3: a .kmsrun replay file (parse_run_file). What parses must be whole (k
//    centroid rows of one width, N·D inline values, one label a point, labels >= 0)
//    and must survive its own writer: run_file_text() of it parses back to the same text;
//  - 4: a generator spec (generated_shape; specs of at most 4096 values are generated
//    and must have that shape and only finite values);
//  - 5: a --k-range value (parse_k_range; its values() within the level limit);
//  - 6: a --geo table (load_geo_table from a memfd), columns found by name;
//  - 7: the same with --lat and --lon named by the first line ("LAT,LON");
//  - first byte & 15 = 15: a --memory-limit size (parse_byte_size, issue 42): 0 (refused)
//    or a size whose decimal bytes parse back to itself.
// kms::Error is the expected refusal; anything else escaping, a crash or a sanitizer
// report is a finding. Seeds: tests/fuzz/grammar-seeds (scripts/fuzz.sh).
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/io.hpp"
#include "kms/row_source.hpp"
#include "kms/run_file.hpp"
#include "kms/sweep.hpp"

namespace {

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_grammars: %s\n", what);
    std::abort();
}

void run_file(std::string_view text) {
    kms::RunFile run;
    try {
        run = kms::parse_run_file(text, "fuzz.kmsrun");
    } catch (const kms::Error&) {
        return;
    }
    const kms::Matrix<double>& centroids = run.initial_centroids;
    if (centroids.rows() == 0 || centroids.cols() == 0 || run.options.k != centroids.rows() ||
        centroids.size() != centroids.rows() * centroids.cols())
        finding("accepted centroids of a malformed shape");
    if (run.generator.empty()) {
        const kms::Dataset& data = run.inline_data;
        if (data.n() == 0 || data.d() != centroids.cols()) finding("accepted inline data of a malformed shape");
        if (!data.truth_labels.empty() && data.truth_labels.size() != data.n()) finding("labels for some points only");
        for (const std::int32_t label : data.truth_labels)
            if (label < 0) finding("accepted a negative label");
    }
    if (run.steps < 0) finding("accepted negative steps");
    // The writer's text of what was read reads back as that text.
    std::string written;
    try {
        written = kms::run_file_text(run);
    } catch (const kms::Error&) {
        return;
    }
    try {
        if (kms::run_file_text(kms::parse_run_file(written, "again.kmsrun")) != written)
            finding("a written run file reads back differently");
    } catch (const kms::Error& error) {
        std::fprintf(stderr, "%s\n", error.what());
        finding("a written run file does not read back");
    }
}

void generator_spec(std::string_view spec) {
    try {
        const kms::GeneratedShape shape = kms::generated_shape(spec);
        if (shape.rows == 0 || shape.cols == 0) finding("a spec of no values accepted");
        if (shape.rows > 4096 / shape.cols) return;  // generating more costs the fuzzer its speed
        const kms::Dataset data = kms::generate_dataset(spec, 1);
        if (data.n() != shape.rows || data.d() != shape.cols) finding("generated_shape disagrees with the data");
        for (const double value : data.points.values())
            if (!std::isfinite(value)) finding("generated a non-finite value");
    } catch (const kms::Error&) {
    }
}

void k_range(std::string_view text) {
    try {
        const kms::KRange range = kms::parse_k_range(text);
        const auto values = range.values();
        if (values.empty() || values.size() > kms::kMaxSweepLevels || values.front() < 1)
            finding("a k-range of no, too many or zero values accepted");
    } catch (const kms::Error&) {
    }
}

void geo_table(std::string_view bytes, bool named) {
    kms::GeoColumns columns;
    if (named) {
        const std::size_t end = bytes.find('\n');
        const std::string_view first = bytes.substr(0, end);
        const std::size_t comma = first.find(',');
        if (comma == std::string_view::npos) return;
        columns.lat = std::string(first.substr(0, comma));
        columns.lon = std::string(first.substr(comma + 1));
        bytes = end == std::string_view::npos ? std::string_view() : bytes.substr(end + 1);
    }
    const int fd = memfd_create("fuzz-geo", MFD_CLOEXEC);
    if (fd < 0) return;
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (wrote <= 0) std::abort();
        done += static_cast<std::size_t>(wrote);
    }
    try {
        const kms::GeoTable table = kms::load_geo_table("/proc/self/fd/" + std::to_string(fd), columns);
        if (table.degrees.rows() == 0 || table.degrees.cols() != 2) finding("a geo table of a malformed shape");
        for (std::size_t i = 0; i < table.degrees.rows(); ++i)
            if (!(std::fabs(table.degrees(i, 0)) <= 90.0) || !(std::fabs(table.degrees(i, 1)) <= 180.0))
                finding("a latitude or longitude out of range accepted");
    } catch (const kms::Error&) {
    }
    ::close(fd);
}

}  // namespace

void byte_size(std::string_view text) {
    const std::uint64_t bytes = kms::parse_byte_size(std::string(text));
    if (bytes != 0 && kms::parse_byte_size(std::to_string(bytes)) != bytes) finding("a byte size that does not read back");
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    if ((data[0] & 15) == 15) {
        byte_size(text);
        return 0;
    }
    switch (data[0] & 7) {
        case 4: generator_spec(text); break;
        case 5: k_range(text); break;
        case 6: geo_table(text, false); break;
        case 7: geo_table(text, true); break;
        default: run_file(text); break;
    }
    return 0;
}
