// libFuzzer target: the binary matrix files — NumPy .npy and the headerless .fvecs, .bvecs,
// .ivecs, .fbin, .u8bin, .i8bin, .ibin — parsed in memory as points (and as labels), and read
// by position from a memfd as out of core reads them (open_matrix_rows, issue 42): where the
// loader accepts the bytes the row source must give the same doubles (and floats: the same
// values rounded), in any blocks; where it refuses them, so must the row source.
// An input with the .npy magic is a .npy; else its first byte picks the format (0: a .npy,
// the magic prepended, so that the fuzzer spends its time in the header and data parsers
// rather than rediscovering six bytes; 1-7: a headerless format, the bytes after it).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "detail/io_detail.hpp"
#include "fuzz_common.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"

namespace {

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_npy: %s\n", what);
    std::abort();
}

// The row source's view of `bytes` against the loader's (`loaded`: null where it refused).
void check_row_source(const std::string& bytes, const kms::Matrix<double>* loaded, const std::string& extension) {
    const int fd = memfd_create("fuzz-npy", MFD_CLOEXEC);
    if (fd < 0) return;
    // The headerless formats are named by their extension: a link so named to the memfd.
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (extension != ".npy") {
        const std::string link = "/tmp/fuzz-npy-" + std::to_string(::getpid()) + extension;
        ::unlink(link.c_str());
        if (::symlink(path.c_str(), link.c_str()) != 0) {
            ::close(fd);
            return;
        }
        path = link;
    }
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (wrote <= 0) std::abort();
        done += static_cast<std::size_t>(wrote);
    }
    bool refused = false;
    try {
        const auto source = kms::open_matrix_rows(path, false);
        const std::size_t rows = source->rows(), cols = source->cols();
        if (!loaded) {
            // The loader refused: the header may still be fine (a bad value) — then a read must refuse.
            if (rows * cols == 0 || rows * cols > (std::size_t{1} << 20)) throw kms::Error("refused shape");
            std::vector<double> all(rows * cols);
            source->read(0, rows, all.data());
            finding("the row source accepted what the loader refused");
        }
        if (rows != loaded->rows() || cols != loaded->cols()) finding("the row source's shape is not the loader's");
        std::vector<double> block(cols * 3);
        std::vector<float> narrow(cols * 3);
        for (std::size_t first = 0; first < rows; first += 3) {  // blocks of 3 rows: every seam
            const std::size_t count = std::min<std::size_t>(3, rows - first);
            source->read(first, count, block.data());
            source->read(first, count, narrow.data());
            for (std::size_t v = 0; v < count * cols; ++v) {
                const double expected = loaded->data()[first * cols + v];
                if (block[v] != expected) finding("the row source's double is not the loader's");
                if (narrow[v] != static_cast<float>(expected)) finding("the row source's float is not the loader's, rounded");
            }
        }
    } catch (const kms::Error&) {
        refused = true;
    }
    ::close(fd);
    if (extension != ".npy") ::unlink(path.c_str());
    if (refused && loaded) finding("the row source refused what the loader accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const char* const kExtensions[] = {".npy", ".fvecs", ".bvecs", ".ivecs", ".fbin", ".u8bin", ".i8bin", ".ibin"};
    std::string bytes(reinterpret_cast<const char*>(data), size);
    std::string extension = ".npy";
    if (!kms::io_detail::has_npy_magic(bytes)) {
        const int pick = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]) % 8;
        if (pick == 0) {
            bytes.insert(0, "\x93NUMPY", 6);
        } else {
            extension = kExtensions[pick];
            bytes.erase(0, 1);
        }
    }
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        const kms::Matrix<double> loaded = kms::io_detail::parse_matrix("fuzz" + extension, copy, {});
        kms::fuzz::check_matrix(loaded);
        check_row_source(bytes, &loaded, extension);
    } catch (const kms::Error&) {
        check_row_source(bytes, nullptr, extension);
    }
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        const auto labels = kms::io_detail::parse_labels("fuzz-labels.npy", copy);
        if (labels.empty()) __builtin_trap();
    } catch (const kms::Error&) {
    }
    return 0;
}
