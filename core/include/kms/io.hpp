#pragma once
// Loading point sets and writing results. Every malformed input is refused with
// an InputError naming the file, the line (or byte offset) and the reason: never a
// partial silent load.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/matrix.hpp"

namespace kms {

// Called now and then while loading: bytes parsed so far, total bytes.
using LoadProgress = std::function<void(std::uint64_t done_bytes, std::uint64_t total_bytes)>;

// The most bytes read from an input that has no size of its own (a pipe, a FIFO,
// a character device such as /dev/stdin or /dev/zero, a /proc file): 4 GiB.
inline constexpr std::uint64_t kDefaultMaxStreamBytes = std::uint64_t{4} << 30;

struct LoadOptions {
    LoadProgress progress;       // may be empty
    std::stop_token cancel;      // a stop request aborts the load with kms::Error("... cancelled")
    bool attach_ground_truth = true;  // pick up NAME-labels.txt / NAME-gt.txt beside NAME.txt
    // Inputs without a size are read up to this many bytes; one byte more is
    // refused with "PATH: more than N bytes from a pipe/FIFO/character device".
    std::uint64_t max_stream_bytes = kDefaultMaxStreamBytes;
    // A named FIFO that nobody has opened for writing yet is waited for this
    // long (a producer started just after the loader), then refused with
    // "PATH: no writer opened the FIFO within N s". Once a writer is there, a
    // slow producer is waited for as long as it takes (a stop request still ends the wait).
    std::chrono::milliseconds fifo_writer_wait{10'000};
};

// Inputs are opened without blocking (O_NONBLOCK): opening a FIFO never hangs.
// Regular files are read whole (files reporting size 0, like /proc/cpuinfo, to
// their end); pipes, FIFOs and character devices up to max_stream_bytes; block
// devices, sockets and directories are refused. Running out of memory is reported
// as kms::Error "PATH: not enough memory to load N bytes" (or "... N points × d
// values"), never as a bare std::bad_alloc.
//
// Formats: delimited text (comma, tab, spaces; auto-detected; optional header
// row; '#' comments; CRLF; UTF-8 BOM), the whitespace-separated benchmark-set
// format, NumPy .npy (float32/float64/int32/int64, C order, 1-D or 2-D), and the
// approximate-nearest-neighbour benchmarks' headerless binary formats, named by their
// extension: .fvecs .bvecs .ivecs (each row its int32 dimension, then its float32 /
// uint8 / int32 values) and .fbin .u8bin .i8bin .ibin (uint32 rows, uint32 columns, then
// the values), little-endian.
Dataset load_dataset(const std::string& path, const LoadOptions& options = {});
// Same formats, just the matrix (initial centroids, true centroids).
Matrix<double> load_matrix(const std::string& path, const LoadOptions& options = {});
// A binary matrix file: a .npy (by its magic, whatever its name) or a headerless format
// named by its extension (above). These are the files read by position: a block of rows
// per MPI rank, or a block at a time out of core (kms/row_source.hpp: open_matrix_rows).
bool is_binary_matrix_file(const std::string& path);
// A regular file starting with the .npy magic (anything else, a FIFO included, false; never blocks).
bool starts_with_npy_magic(const std::string& path);
// A binary matrix file's shape from its header alone (points × coordinates; a 1-D .npy
// is n × 1), checked as load_dataset checks it (dtype, order, the file's size).
struct MatrixFileShape {
    std::size_t rows = 0, cols = 0;
};
MatrixFileShape matrix_file_shape(const std::string& path);
// Rows [first_row, first_row + rows) of a binary matrix file, read by position (only those
// bytes): how each MPI rank reads its block (kms::fit_block). The same checks and
// messages as load_dataset (element indices are the file's); a regular file only.
Matrix<double> load_matrix_rows(const std::string& path, std::size_t first_row, std::size_t rows);
// A rank's block of a delimited-text file, read without any rank reading the
// whole file (kms::fit_block under mpirun). Collective: every rank of `comm` calls
// it. Each rank scans about 1/M of the bytes (the lines that start in its share)
// and counts their rows; `split(rows, cols)` then gives the blocks' first rows
// (partition_rows; ranks + 1 numbers, the same on every rank), the rank holding
// each block's first row finds where that row starts, and each rank parses its
// block's bytes: the same values and the same "PATH:LINE: REASON" messages (global
// line numbers) as load_dataset. A failure on any rank is reported once, by the
// rank with the first bad line (agree_on_failure); the others throw
// ReportedByAnotherRank. A regular file only: pipes and devices are refused.
class Communicator;
struct RowBlock {
    Matrix<double> points;       // this rank's rows
    std::size_t global_rows = 0; // the file's rows
    std::size_t first_row = 0;   // the index of points' first row in the file
};
using RowSplit = std::function<std::vector<std::size_t>(std::size_t rows, std::size_t cols)>;
RowBlock load_text_block(const std::string& path, Communicator& comm, const RowSplit& split,
                         const LoadOptions& options = {});
// One integer label per line (text) or a 1-D integer .npy. Returned as read.
std::vector<std::int32_t> load_labels(const std::string& path, const LoadOptions& options = {});
// Sample weights: one non-negative finite number per line (surrounding blanks
// and a CRLF allowed; nothing else), exactly `expected` of them (the points).
// InputError naming PATH:LINE and the reason for any other line.
std::vector<double> load_sample_weights(const std::string& path, std::size_t expected, const LoadOptions& options = {});

// ---------------------------------------------------------------- geographic tables
// Latitude and longitude from a delimited text file with a header row (comma, tab
// or semicolon, whichever the header has most of; UTF-8 BOM, CRLF, blank lines and
// lines starting with '#' allowed; fields may be "quoted", with "" for a quote).
// Other columns may hold anything (names, text) and are ignored.
struct GeoColumns {
    // A header name (case-insensitive, surrounding blanks ignored) or a 1-based
    // column number. Empty: the one column named lat or latitude / lon, lng, long
    // or longitude; none or two such columns is an error naming the header.
    std::string lat, lon;
};
struct GeoTable {
    std::string name;                   // the path
    Matrix<double> degrees;             // n × 2: latitude, longitude, as read
    std::string lat_column, lon_column; // the header names used
};
// InputError "PATH:LINE: REASON" for a missing field, a value that is not a number,
// NaN or infinity, |latitude| > 90 or |longitude| > 180; "PATH:1: ..." for an
// unknown or ambiguous column.
// A NumPy .npy file (by its magic) is a table of numbers without names: its two columns
// are latitude, longitude, or --lat / --lon give their 1-based numbers
// (npy_geo_columns); its values are checked as load_dataset checks them, then
// check_geo_coordinates. Reading it a block at a time instead: kms::open_geo_rows.
GeoTable load_geo_table(const std::string& path, const GeoColumns& columns = {}, const LoadOptions& options = {});
// The 0-based latitude and longitude columns of a .npy table of `cols` columns: those
// `columns` gives by 1-based number, else the two columns of a 2-column file.
// InputError naming the path for a header name (a .npy has none), a number out of
// range, one column named twice, or a wider file without both.
std::pair<std::size_t, std::size_t> npy_geo_columns(const std::string& path, std::size_t cols,
                                                    const GeoColumns& columns);
// InputError "PATH: row R: latitude X is outside [-90, 90]" (R counted from 1; the
// same for longitude and [-180, 180]) for a coordinate out of range.
void check_geo_coordinates(const std::string& path, std::uint64_t row, double lat, double lon);

// ---------------------------------------------------------------- writing
// What a writer does with the destination PATH:
//  - a regular file, or nothing yet: the contents go to a temporary file in the
//    same folder, flushed to disk (fsync), then renamed over PATH, so a reader sees
//    the old file or the new one, never half of one. An existing file keeps its
//    permission bits (a file with more than one hard link gets a new inode: the
//    other names keep the old contents).
//  - a symbolic link (or a chain of them): the same, done on the final target in
//    the target's folder; the links stay links. A dangling link creates its target.
//  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that open
//    descriptor directly, at its current position (stdout is flushed first).
//  - a character device (/dev/null, a terminal) or a FIFO: opened without
//    O_CREAT/O_TRUNC and written to directly, never replaced. A FIFO that nobody
//    reads is refused at once ("no process has the FIFO open for reading"), it is
//    not waited for. A reader that goes away gives "Broken pipe" (no SIGPIPE).
//  - a directory, a block device, a socket: refused.
// Every failure throws kms::Error "cannot write PATH: REASON" and leaves the
// destination as it was (no temporary file is left behind).

// Checks, without creating, opening or changing anything, that PATH could be
// written as above: its folder exists and is writable, it is not a folder, a block
// device or a socket, an existing file or device is writable, a descriptor path
// names a descriptor open for writing. Throws kms::Error "cannot write PATH: REASON".
// Meant to be called for every output before a long run starts. (The write itself
// can still fail later: a full disk, a FIFO without a reader, a changed folder.)
void check_output_path(const std::string& path);

// Writes several outputs, all or none: every regular-file destination gets its
// temporary file written and flushed, and every FIFO / device destination is
// opened, before anything is replaced; if any of that fails, every temporary is
// removed and no destination is touched. Then the stream destinations are written
// and the temporaries renamed over their targets. (A failure in that last step,
// e.g. a reader closing its FIFO, can leave the outputs before it done: streams
// cannot be rolled back.) Two outputs resolving to the same file are refused.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_contents);

// One output written piece by piece (a generated data set too large to build in
// memory first), with the same rules: the constructor resolves the destination
// and creates the temporary file (or opens the FIFO / device / descriptor),
// write() appends, commit() flushes and renames. Destroyed without commit(), it
// removes its temporary and the destination is untouched (a stream destination
// has then received what was written: streams cannot be rolled back). Throws
// kms::Error "cannot write PATH: REASON".
class OutputFile {
public:
    explicit OutputFile(const std::string& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view bytes);
    void commit();
    const std::string& path() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Writers of large outputs into an OutputFile, formatted piece by piece. A stop
// request ends the text writers with kms::Cancelled between chunks (the file is then
// not committed, so its temporary goes with it).
// NumPy .npy format 1.0, C order, little-endian: float64 n × d points, int32 labels.
void write_npy(OutputFile& file, const Matrix<double>& points, std::stop_token stop = {});
void write_npy(OutputFile& file, std::span<const std::int32_t> labels);
// `header` (e.g. '#' comment lines) then one row per line, comma-separated, each double
// in its shortest round-trip form; rows formatted in parallel chunks, written in order.
void write_csv(OutputFile& file, const Matrix<double>& rows, const std::string& header, std::stop_token stop = {});
// Labels: int32 .npy when the file's path ends in .npy, else one 0-based label per line.
void write_labels(OutputFile& file, std::span<const std::int32_t> labels, std::stop_token stop = {});

// The text the writers below write, for callers that prepare contents first.
std::string labels_text(std::span<const std::int32_t> labels);  // one per line, as given
// One row per centroid, comma-separated, shortest round-trip form. Throws
// kms::Error "centroid I coordinate J is not a finite number" (the loaders refuse
// NaN and infinities, so such a file could not be read back).
std::string centroids_csv_text(const Matrix<double>& centroids);

void write_labels(const std::string& path, std::span<const std::int32_t> labels);   // one per line, 0-based
void write_centroids_csv(const std::string& path, const Matrix<double>& centroids); // one row per centroid
void write_text_file(const std::string& path, const std::string& contents);

}  // namespace kms
