#pragma once
// Points read in blocks of rows from a file, for data larger than memory (out of
// core). The CPU solvers and the seeding read the rows they need, a block at a time,
// on every pass (kms/fit.hpp: fit() of a RowSource); nothing holds every row.
// A block is given to the reader as a range of rows; the values are the loaders'
// (load_dataset reads the same file to the same doubles), so a run over a RowSource
// is bitwise the run over the loaded matrix.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace kms {

class Communicator;  // kms/communicator.hpp

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
    // read() in two halves, for a caller that reads on one thread and checks on
    // others (read_blocks): read_unchecked() may leave out the refusal of NaN and
    // infinity, which check_values() then makes for those rows' values, over `threads`
    // OpenMP threads, with read()'s message (the first bad element). By default
    // read_unchecked() is read() and check_values() has nothing left to do.
    virtual void read_unchecked(std::size_t first, std::size_t count, double* out) const { read(first, count, out); }
    virtual void read_unchecked(std::size_t first, std::size_t count, float* out) const { read(first, count, out); }
    virtual void check_values(std::size_t /*first*/, std::size_t /*count*/, const double* /*values*/, int /*threads*/) const {}
    virtual void check_values(std::size_t /*first*/, std::size_t /*count*/, const float* /*values*/, int /*threads*/) const {}
};

// Rows [first, first + rows) of `source` in blocks of `block_rows` (the last one
// shorter), in row order: body(begin, count, values) for rows [first + begin,
// first + begin + count), values[0] being row first + begin's. One reader thread reads
// the blocks (read_unchecked) into `buffers` in turn, going on to the next as soon as
// body has handed its buffer back; each block's values are checked (check_values, over
// `threads` OpenMP threads) just before body works on it. So when body is the faster,
// the file is read back to back: the reader waits for no other thread's wake-up and
// checks nothing. Returns the bytes of the file read. A read's failure is thrown when
// its block's turn comes; body's ends the pass; the reader is joined first either way.
template <typename T, typename Body>
std::uint64_t read_blocks(const RowSource& source, std::size_t first, std::size_t rows, std::size_t block_rows,
                          std::vector<T> (&buffers)[2], int threads, Body&& body) {
    const std::size_t step = std::max<std::size_t>(1, std::min(block_rows, rows));
    const std::size_t blocks = (rows + step - 1) / step;
    for (auto& buffer : buffers) buffer.resize(step * source.cols());
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t read = 0, used = 0;  // blocks read (the last one maybe failed), blocks worked on
    std::exception_ptr failure;      // of block read - 1
    bool stop = false;
    std::thread reader([&] {
        for (std::size_t b = 0; b < blocks; ++b) {
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || b < used + 2; });  // its buffer is free
                if (stop) return;
            }
            std::exception_ptr error;
            try {
                source.read_unchecked(first + b * step, std::min(step, rows - b * step), buffers[b % 2].data());
            } catch (...) {
                error = std::current_exception();
            }
            {
                const std::lock_guard lock(mutex);
                failure = error;
                read = b + 1;
            }
            changed.notify_all();
            if (error) return;
        }
    });
    struct Joined {  // the reader stops and is joined however the pass ends
        std::mutex& mutex;
        std::condition_variable& changed;
        bool& stop;
        std::thread& reader;
        ~Joined() {
            {
                const std::lock_guard lock(mutex);
                stop = true;
            }
            changed.notify_all();
            reader.join();
        }
    } joined{mutex, changed, stop, reader};
    std::uint64_t bytes = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return read > b; });
            if (failure && read == b + 1) std::rethrow_exception(failure);
        }
        const std::size_t count = std::min(step, rows - b * step);
        const T* values = buffers[b % 2].data();
        source.check_values(first + b * step, count, values, threads);
        body(b * step, count, values);
        bytes += static_cast<std::uint64_t>(count) * source.file_row_bytes();
        {
            const std::lock_guard lock(mutex);
            used = b + 1;
        }
        changed.notify_all();
    }
    return bytes;
}

// A binary matrix file (kms/io.hpp: a .npy of any dtype load_dataset accepts, or a
// headerless .fvecs, .bvecs, .ivecs, .fbin, .u8bin, .i8bin, .ibin) read by position. Its
// header is checked as load_dataset checks it; the *vecs formats' row dimensions as each
// row is read. `drop_behind`: each block read is dropped from
// the page cache after (POSIX_FADV_DONTNEED): data larger than memory evicts nothing
// useful that way, and a cgroup's limit (which counts the page cache) holds.
std::shared_ptr<const RowSource> open_matrix_rows(const std::string& path, bool drop_behind = true);

// A delimited text file (docs/loading.md: the separator, header, '#' comments, CRLF, a BOM,
// as load_dataset reads them) read a block of rows at a time. Opening it is a pass that
// parses every row as load_dataset does (the same values, the same refusal of the first bad
// line, naming it), counts the rows and keeps a sparse index: where every `rows_per_mark`-th
// row starts (its byte and line; 24 bytes a mark). Each read then seeks to the mark at or
// before its first row and parses its rows again, over `threads` OpenMP threads (a team of
// the caller's own), `window_bytes` of text at a time: the same strtod path, so the loaded
// values, bit for bit (or those rounded to float). A file that changed since the pass (its
// size or modification time, or a row that no longer parses, or a stretch between two marks
// that no longer holds its rows) is refused when read, naming the file (and the line), never
// read as other values.
// With `ranks` the pass is shared and collective (every rank calls it): each rank parses the
// lines that start in its equal share of the bytes (as load_text_block splits them) and the
// ranks exchange their counts and marks, so each reads a 1/M share of the file once and then
// holds the whole index (the seeding may read any row); the first bad line is reported once,
// by the rank that holds it, with one process's message.
struct TextRowsOptions {
    int threads = 1;
    Communicator* ranks = nullptr;
    std::stop_token cancel;  // the pass stops when asked: kms::Error("PATH: loading cancelled")
    bool drop_behind = true;  // as open_matrix_rows: each window dropped from the page cache once read
    std::size_t rows_per_mark = 1024;
    std::size_t window_bytes = std::size_t{16} << 20;
};
std::shared_ptr<const RowSource> open_text_rows(const std::string& path, const TextRowsOptions& options = {});
// A text file's columns, from its first lines alone (as the loader finds them), its data's
// bytes (after the header) and the most rows they can hold (a row: its values of at least
// one character each, the separators between them and a newline): a plan's bound before
// the pass that counts them.
struct TextFileShape {
    std::size_t cols = 0;
    std::uint64_t data_bytes = 0, max_rows = 0;
};
TextFileShape text_file_shape(const std::string& path);

// The memory a process may still use, in bytes: the least of MemAvailable
// (/proc/meminfo), the room under its cgroup's memory.max, and the room under
// RLIMIT_AS and RLIMIT_DATA (their limits less what is mapped now). 0 when none says.
std::uint64_t available_memory_bytes();

// "64M", "1.5G", "512k", "1000000" (bytes; suffixes k, M, G, T are powers of 1024,
// an optional trailing B or iB): std::nullopt-like 0 for a malformed text.
std::uint64_t parse_byte_size(const std::string& text);

}  // namespace kms
