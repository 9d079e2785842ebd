#pragma once
// Points read in blocks of rows from a file, for data larger than memory (out of
// core). The CPU solvers and the seeding read the rows they need, a block at a time,
// on every pass (kms/fit.hpp: fit() of a RowSource); nothing holds every row.
// A block is given to the reader as a range of rows; the values are the loaders'
// (load_dataset reads the same file to the same doubles), so a run over a RowSource
// is bitwise the run over the loaded matrix.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kms {

class RowSource {
public:
    virtual ~RowSource() = default;
    virtual std::size_t rows() const = 0;
    virtual std::size_t cols() const = 0;
    virtual const std::string& name() const = 0;  // the file, for messages and reports
    // Rows [first, first + count) into `out` (count × cols values, row order): as
    // load_dataset gives them (double), or those values rounded to float. Throws
    // kms::InputError naming the file and the element for a value no loader accepts
    // (NaN, infinity), and for a read that fails. Safe to call from several threads.
    virtual void read(std::size_t first, std::size_t count, double* out) const = 0;
    virtual void read(std::size_t first, std::size_t count, float* out) const = 0;
    // Bytes of the file per row (its dtype's width × cols): what a pass reads.
    virtual std::size_t file_row_bytes() const = 0;
};

// A NumPy .npy file (every dtype load_dataset accepts) read by position. Its header
// is checked as load_dataset checks it. `drop_behind`: each block read is dropped from
// the page cache after (POSIX_FADV_DONTNEED): data larger than memory evicts nothing
// useful that way, and a cgroup's limit (which counts the page cache) holds.
std::shared_ptr<const RowSource> open_npy_rows(const std::string& path, bool drop_behind = true);

// The memory a process may still use, in bytes: the least of MemAvailable
// (/proc/meminfo), the room under its cgroup's memory.max, and the room under
// RLIMIT_AS and RLIMIT_DATA (their limits less what is mapped now). 0 when none says.
std::uint64_t available_memory_bytes();

// "64M", "1.5G", "512k", "1000000" (bytes; suffixes k, M, G, T are powers of 1024,
// an optional trailing B or iB): std::nullopt-like 0 for a malformed text.
std::uint64_t parse_byte_size(const std::string& text);

}  // namespace kms
