// libFuzzer target: a benchmark set on disk, NAME.txt with NAME-labels.txt and
// NAME-gt.txt beside it, loaded with load_dataset (file reading, format detection,
// ground-truth attachment and its cross-checks). The input is split at the first
// two "\n@@\n" markers into the three files' contents; a missing part leaves that
// file out. The files live in a private folder under $TMPDIR (/dev/shm when it exists).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"

namespace {

std::string make_folder() {
    const char* base = std::getenv("TMPDIR");
    std::string folder = (access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string(base ? base : "/tmp")) +
                         "/kms-fuzz-XXXXXX";
    if (!mkdtemp(folder.data())) std::abort();
    return folder;
}

void put(const std::string& path, std::string_view contents, bool present) {
    ::unlink(path.c_str());
    if (!present) return;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (!file) std::abort();
    if (!contents.empty()) std::fwrite(contents.data(), 1, contents.size(), file);
    std::fclose(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string folder = make_folder();
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::string_view parts[3];
    bool present[3] = {true, false, false};
    constexpr std::string_view marker = "\n@@\n";
    for (int i = 0; i < 3; ++i) {
        const std::size_t at = i < 2 ? rest.find(marker) : std::string_view::npos;
        parts[i] = rest.substr(0, at);
        if (at == std::string_view::npos) break;
        rest.remove_prefix(at + marker.size());
        present[i + 1] = true;
    }
    const std::string points = folder + "/set.txt";
    put(points, parts[0], present[0]);
    put(folder + "/set-labels.txt", parts[1], present[1]);
    put(folder + "/set-gt.txt", parts[2], present[2]);
    try {
        const kms::Dataset dataset = kms::load_dataset(points);
        kms::fuzz::check_matrix(dataset.points);
        if (!dataset.truth_labels.empty()) {
            if (dataset.truth_labels.size() != dataset.n()) std::abort();
            for (const std::int32_t label : dataset.truth_labels)
                if (label < 0) std::abort();
        }
        if (dataset.truth_centroids.rows() != 0) {
            kms::fuzz::check_matrix(dataset.truth_centroids);
            if (dataset.truth_centroids.cols() != dataset.d()) std::abort();
        }
    } catch (const kms::Error&) {
    }
    return 0;
}
