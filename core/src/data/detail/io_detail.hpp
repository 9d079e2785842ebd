#pragma once
// Private pieces shared by the loaders (io.cpp, io_file.cpp, io_text.cpp, io_npy.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "kms/io.hpp"
#include "kms/matrix.hpp"

namespace kms::io_detail {

struct FreeDeleter {
    void operator()(char* p) const noexcept { std::free(p); }
};

// A whole file in memory. Not zero-initialised on allocation: a 200 MB file
// should cost one read, not a memset and a read. malloc'ed, so that a stream of
// unknown size grows with realloc (mremap for large blocks: no copy, no double peak).
struct FileBytes {
    std::unique_ptr<char, FreeDeleter> data;
    std::size_t size = 0;

    std::string_view view() const noexcept { return {data.get(), size}; }
    void release() noexcept { data.reset(); size = 0; }
    // A copy of `bytes` (the fuzz targets parse in-memory inputs). Throws std::bad_alloc.
    static FileBytes copy_of(std::string_view bytes);
};

// Reads the whole file (see load_dataset in kms/io.hpp for what is read how);
// InputError (with the OS reason) when it cannot be opened, is not a readable
// kind of file, fails to read or exceeds options.max_stream_bytes; kms::Error
// when cancelled or out of memory.
FileBytes read_whole_file(const std::string& path, const LoadOptions& options);

// An open regular file read by position: how a rank reads its block of rows
// (load_matrix_rows, load_text_block). FIFOs, devices and folders are refused, naming
// `what` the input must be ("regular file", "regular text file").
class RegularFile {
public:
    RegularFile(const std::string& path, const char* what);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;
    std::uint64_t size() const noexcept { return size_; }
    // Exactly `count` bytes from `offset`; InputError "PATH: byte N: REASON" when the
    // read fails or the file ends early (it shrank since it was opened).
    std::string read(std::uint64_t offset, std::size_t count) const;
    void read_into(char* destination, std::uint64_t offset, std::size_t count) const;
    // Asks the kernel to drop these bytes from the page cache (a hint: failures are ignored).
    void drop_cached(std::uint64_t offset, std::uint64_t count) const noexcept;
    // The drop of bytes [offset, offset + count) just read, a block of a pass. POSIX_FADV_DONTNEED
    // drops only the page cache's folios wholly inside its range, and a file's folios are up to
    // 2 MiB, aligned to their size: so the range starts at the 2 MiB boundary at or before
    // `offset` (bytes read before) and ends at the one at or before its end (the rest goes with
    // the next block's), or at the file's end. Unaligned blocks left a folio at each boundary in
    // the cache (4 MiB of a 24 MiB file: test_out_of_core).
    void drop_read(std::uint64_t offset, std::uint64_t count) const noexcept;
    // Whether its size or modification time differ from those it had when opened (a file
    // read again on every pass must be the file the first pass read).
    bool changed() const noexcept;

private:
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::int64_t modified_ns_ = 0;
};

// kms::Error "PATH: not enough memory to load N bytes" / "PATH: not enough memory to load WHAT".
[[noreturn]] void throw_out_of_memory(const std::string& path, std::uint64_t bytes);
[[noreturn]] void throw_out_of_memory(const std::string& path, const std::string& what);

// The in-memory entry points behind load_matrix / load_labels (format chosen by
// the .npy magic, then the path's extension). Used by the fuzz targets.
Matrix<double> parse_matrix(const std::string& path, FileBytes& bytes, const LoadOptions& options);
std::vector<std::int32_t> parse_labels(const std::string& path, FileBytes& bytes);

[[noreturn]] void throw_cancelled(const std::string& path);

// "\x93NUMPY" at the start: the .npy magic, whatever the file is called.
bool has_npy_magic(std::string_view bytes) noexcept;

// Every text loader's rule for a UTF-8 byte order mark: skipped at the very start.
inline std::string_view skip_utf8_bom(std::string_view text) noexcept {
    return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

// Delimited text / benchmark-set text. The buffer is released as soon as it is
// no longer needed, so the peak memory is the buffer plus the matrix.
Matrix<double> parse_text_matrix(const std::string& path, FileBytes& bytes, const LoadOptions& options);
std::vector<std::int32_t> parse_text_labels(const std::string& path, FileBytes& bytes);
// Tests and fuzzers only: the text parser's parallel chunk size (default 4 MiB; 0
// restores it), so that small inputs take the multi-chunk path too.
void set_text_chunk_bytes(std::size_t bytes) noexcept;
// Tests and fuzzers only: the size of load_text_block's first look at a file's head
// (default 1 MiB, doubled until two content lines are in it; 0 restores it).
void set_text_prefix_bytes(std::size_t bytes) noexcept;

// NumPy .npy, versions 1.0, 2.0, 3.0, C order, 1-D or 2-D.
Matrix<double> parse_npy_matrix(const std::string& path, const FileBytes& bytes, const LoadOptions& options);
std::vector<std::int32_t> parse_npy_labels(const std::string& path, const FileBytes& bytes);
// The ANN benchmarks' headerless formats, named by their extension: .fvecs, .bvecs, .ivecs
// (each row its int32 dimension, then its float32 / uint8 / int32 values) and .fbin, .u8bin,
// .i8bin, .ibin (uint32 rows, uint32 columns, then the values); little-endian.
bool is_headerless_matrix(const std::string& path) noexcept;
Matrix<double> parse_headerless_matrix(const std::string& path, const FileBytes& bytes, const LoadOptions& options);

// A token as it may appear in a message: non-printable bytes escaped as \xNN,
// long tokens shortened, in single quotes.
std::string quote_token(std::string_view token);

}  // namespace kms::io_detail
