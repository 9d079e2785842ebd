// NumPy .npy: "\x93NUMPY", version bytes, header length, then a Python dict
// literal {'descr': '<f8', 'fortran_order': False, 'shape': (n, d), } padded
// with spaces, then the raw array. Every refusal names the byte offset.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detail/io_detail.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/row_source.hpp"

namespace kms::io_detail {
namespace {

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "mixed-endian machines are not supported");

enum class Kind { Float, Signed, Unsigned };

struct DType {
    std::string text;  // as written in the header, for messages
    Kind kind = Kind::Float;
    std::size_t item_size = 8;
    bool swap = false;  // stored with the other byte order than this machine's
};

struct Header {
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::size_t descr_offset = 0;  // where in the file the dtype string and the shape tuple are, for messages
    std::size_t shape_offset = 0;
    std::size_t data_offset = 0;
};

// A recursive-descent reader for the small subset of Python literals that
// NumPy writes in the header; positions are byte offsets in the file.
class HeaderReader {
public:
    HeaderReader(const std::string& path, std::string_view text, std::size_t offset)
        : path_(path), text_(text), offset_(offset) {}

    [[noreturn]] void fail(const std::string& reason) const {
        throw InputError::at_byte(path_, offset_ + pos_, "bad .npy header: " + reason);
    }
    std::size_t file_offset() const { return offset_ + pos_; }

    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                       text_[pos_] == '\r'))
            ++pos_;
    }
    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    bool accept(char c) {
        skip_space();
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void expect(char c, const char* what) {
        if (!accept(c)) fail(std::string("expected ") + what);
    }

    std::string read_string() {
        skip_space();
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail("expected a quoted string");
        ++pos_;
        const std::size_t start = pos_;
        while (!at_end() && text_[pos_] != quote) {
            if (text_[pos_] == '\\') fail("escape sequences in header strings are not supported");
            ++pos_;
        }
        if (at_end()) fail("unterminated string");
        std::string value(text_.substr(start, pos_ - start));
        ++pos_;
        return value;
    }

    bool read_bool() {
        skip_space();
        if (text_.substr(pos_, 4) == "True") {
            pos_ += 4;
            return true;
        }
        if (text_.substr(pos_, 5) == "False") {
            pos_ += 5;
            return false;
        }
        fail("expected True or False");
    }

    std::vector<std::uint64_t> read_shape() {
        expect('(', "'(' starting the shape tuple");
        std::vector<std::uint64_t> shape;
        for (;;) {
            if (accept(')')) break;
            skip_space();
            if (peek() < '0' || peek() > '9') fail("expected a non-negative integer in the shape");
            std::uint64_t value = 0;
            while (!at_end() && peek() >= '0' && peek() <= '9') {
                const std::uint64_t digit = static_cast<std::uint64_t>(peek() - '0');
                if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) fail("shape value too large");
                value = value * 10 + digit;
                ++pos_;
            }
            if (peek() == 'L') ++pos_;  // Python 2 era files wrote 3L
            shape.push_back(value);
            if (accept(')')) break;
            expect(',', "',' or ')' in the shape tuple");
        }
        return shape;
    }

private:
    const std::string& path_;
    std::string_view text_;
    std::size_t offset_;
    std::size_t pos_ = 0;
};

DType parse_dtype(const std::string& path, std::size_t offset, const std::string& descr) {
    const auto fail = [&](const std::string& reason) {
        throw InputError::at_byte(path, offset, "bad .npy header: " + reason);
    };
    const std::string supported = " (supported: float32/float64 and 8- to 64-bit integers, e.g. '<f8', '<f4', '<i8', '<i4')";
    DType dtype;
    dtype.text = descr;
    std::size_t pos = 0;
    char order = '=';
    if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' || descr[0] == '=' || descr[0] == '|')) order = descr[pos++];
    if (pos >= descr.size()) fail("unsupported dtype '" + descr + "'" + supported);
    const char kind = descr[pos++];
    std::size_t size = 0;
    if (pos == descr.size()) fail("unsupported dtype '" + descr + "'" + supported);
    for (; pos < descr.size(); ++pos) {
        if (descr[pos] < '0' || descr[pos] > '9' || size > 64) fail("unsupported dtype '" + descr + "'" + supported);
        size = size * 10 + static_cast<std::size_t>(descr[pos] - '0');
    }
    if (kind == 'f' && (size == 4 || size == 8)) dtype.kind = Kind::Float;
    else if (kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8)) dtype.kind = Kind::Signed;
    else if (kind == 'u' && (size == 1 || size == 2 || size == 4 || size == 8)) dtype.kind = Kind::Unsigned;
    else fail("unsupported dtype '" + descr + "'" + supported);
    dtype.item_size = size;
    // '|' means "byte order not applicable": only true of one-byte types.
    if (order == '|' && size != 1)
        fail("dtype '" + descr + "' has no byte order ('|') but items of " + std::to_string(size) + " bytes");
    const bool big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
    dtype.swap = size > 1 && order != '|' && big != (std::endian::native == std::endian::big);
    return dtype;
}

Header parse_header(const std::string& path, std::string_view bytes) {
    // Magic already checked by the caller.
    if (bytes.size() < 10) throw InputError::at_byte(path, bytes.size(), "truncated .npy file: the header is cut short");
    const auto major = static_cast<unsigned char>(bytes[6]);
    const auto minor = static_cast<unsigned char>(bytes[7]);
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        throw InputError::at_byte(path, 6,
                                  "unsupported .npy format version " + std::to_string(major) + "." +
                                      std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
    const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t header_length = 0;
    std::size_t header_start = 0;
    if (major == 1) {
        header_length = raw[8] | (std::size_t{raw[9]} << 8);
        header_start = 10;
    } else {
        if (bytes.size() < 12)
            throw InputError::at_byte(path, bytes.size(), "truncated .npy file: the header is cut short");
        header_length = raw[8] | (std::size_t{raw[9]} << 8) | (std::size_t{raw[10]} << 16) | (std::size_t{raw[11]} << 24);
        header_start = 12;
    }
    if (header_start + header_length > bytes.size())
        throw InputError::at_byte(path, bytes.size(),
                                  "truncated .npy file: the header should be " + std::to_string(header_length) +
                                      " bytes from byte " + std::to_string(header_start) + ", the file ends first");

    HeaderReader reader(path, bytes.substr(header_start, header_length), header_start);
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::uint64_t>> shape;
    std::size_t fortran_offset = 0;
    std::size_t descr_offset = 0;
    std::size_t shape_offset = 0;
    reader.expect('{', "'{' starting the header dictionary");
    for (;;) {
        if (reader.accept('}')) break;
        const std::size_t key_offset = (reader.skip_space(), reader.file_offset());
        const std::string key = reader.read_string();
        reader.expect(':', "':' after a key");
        reader.skip_space();
        if (key == "descr") {
            if (descr) reader.fail("duplicate key 'descr'");
            if (reader.peek() == '[') reader.fail("structured dtypes (descr is a list of fields) are not supported");
            descr_offset = reader.file_offset();
            descr = reader.read_string();
        } else if (key == "fortran_order") {
            if (fortran_order) reader.fail("duplicate key 'fortran_order'");
            fortran_offset = reader.file_offset();
            fortran_order = reader.read_bool();
        } else if (key == "shape") {
            if (shape) reader.fail("duplicate key 'shape'");
            shape_offset = reader.file_offset();
            shape = reader.read_shape();
        } else {
            throw InputError::at_byte(path, key_offset, "bad .npy header: unexpected key '" + key + "'");
        }
        if (reader.accept('}')) break;
        reader.expect(',', "',' or '}' in the header dictionary");
    }
    reader.skip_space();
    if (!reader.at_end()) reader.fail("unexpected text after the header dictionary");
    for (const auto& [present, key] : {std::pair{descr.has_value(), "descr"},
                                       std::pair{fortran_order.has_value(), "fortran_order"},
                                       std::pair{shape.has_value(), "shape"}})
        if (!present)
            throw InputError::at_byte(path, header_start, std::string("bad .npy header: missing key '") + key + "'");
    if (*fortran_order)
        throw InputError::at_byte(path, fortran_offset,
                                  "Fortran-order (column-major) arrays are not supported: save with "
                                  "np.save(path, np.ascontiguousarray(a))");
    Header header;
    header.dtype = parse_dtype(path, descr_offset, *descr);
    header.shape = *shape;
    header.descr_offset = descr_offset;
    header.shape_offset = shape_offset;
    header.data_offset = header_start + header_length;
    return header;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

// Checks that exactly count items follow the header.
void check_data_size(const std::string& path, std::string_view bytes, const Header& header, std::uint64_t count) {
    const std::uint64_t available = bytes.size() - header.data_offset;
    if (count > available / header.dtype.item_size)
        throw InputError::at_byte(path, bytes.size(),
                                  "truncated .npy file: shape " + shape_text(header.shape) + " of '" +
                                      header.dtype.text + "' needs " + std::to_string(count * header.dtype.item_size) +
                                      " data bytes after byte " + std::to_string(header.data_offset) + ", found " +
                                      std::to_string(available));
    const std::uint64_t expected = count * header.dtype.item_size;
    if (available > expected)
        throw InputError::at_byte(path, header.data_offset + expected,
                                  std::to_string(available - expected) + " unexpected bytes after the array data");
}

// Reads item i as T (double or int64), converting byte order and width.
template <typename T>
T read_item(const char* data, const DType& dtype, std::size_t i) {
    unsigned char raw[8];
    std::memcpy(raw, data + i * dtype.item_size, dtype.item_size);
    if (dtype.swap) std::reverse(raw, raw + dtype.item_size);
    switch (dtype.kind) {
        case Kind::Float:
            if (dtype.item_size == 4) {
                float value;
                std::memcpy(&value, raw, 4);
                return static_cast<T>(value);
            } else {
                double value;
                std::memcpy(&value, raw, 8);
                return static_cast<T>(value);
            }
        case Kind::Signed:
            switch (dtype.item_size) {
                case 1: { std::int8_t v; std::memcpy(&v, raw, 1); return static_cast<T>(v); }
                case 2: { std::int16_t v; std::memcpy(&v, raw, 2); return static_cast<T>(v); }
                case 4: { std::int32_t v; std::memcpy(&v, raw, 4); return static_cast<T>(v); }
                default: { std::int64_t v; std::memcpy(&v, raw, 8); return static_cast<T>(v); }
            }
        case Kind::Unsigned:
            switch (dtype.item_size) {
                case 1: { std::uint8_t v; std::memcpy(&v, raw, 1); return static_cast<T>(v); }
                case 2: { std::uint16_t v; std::memcpy(&v, raw, 2); return static_cast<T>(v); }
                case 4: { std::uint32_t v; std::memcpy(&v, raw, 4); return static_cast<T>(v); }
                default: { std::uint64_t v; std::memcpy(&v, raw, 8); return static_cast<T>(v); }
            }
    }
    return T{};
}

// Items between two looks at the stop token / progress reports (8 MB of doubles).
constexpr std::size_t kItemsPerCheck = std::size_t{1} << 20;

}  // namespace

Matrix<double> parse_npy_matrix(const std::string& path, const FileBytes& bytes, const LoadOptions& options) {
    const std::string_view view = bytes.view();
    const Header header = parse_header(path, view);
    if (header.shape.empty() || header.shape.size() > 2)
        throw InputError::at_byte(path, header.shape_offset,
                                  "expected a 1-D or 2-D array (points × coordinates), the shape is " +
                                      shape_text(header.shape));
    const std::uint64_t rows = header.shape[0];
    const std::uint64_t columns = header.shape.size() == 2 ? header.shape[1] : 1;
    if (rows == 0 || columns == 0)
        throw InputError::at_byte(path, header.shape_offset, "empty array (shape " + shape_text(header.shape) + "): no data");
    if (rows > std::numeric_limits<std::uint64_t>::max() / columns / 8)
        throw InputError::at_byte(path, header.shape_offset, "shape " + shape_text(header.shape) + " is too large");
    const std::uint64_t count = rows * columns;
    check_data_size(path, view, header, count);

    // Reserved, not resized: the pages are touched chunk by chunk below, between
    // cancellation checks (zero-filling 160 MB up front took ~300 ms that a stop
    // request could not interrupt).
    std::vector<double> values;
    try {
        values.reserve(count);
    } catch (const std::bad_alloc&) {
        throw_out_of_memory(path, std::to_string(rows) + " points × " + std::to_string(columns));
    }
    const char* data = bytes.data.get() + header.data_offset;
    const bool is_float = header.dtype.kind == Kind::Float;
    for (std::size_t start = 0; start < count; start += kItemsPerCheck) {
        if (options.cancel.stop_requested()) throw_cancelled(path);
        const std::size_t stop = std::min<std::size_t>(count, start + kItemsPerCheck);
        for (std::size_t i = start; i < stop; ++i) {
            const double value = read_item<double>(data, header.dtype, i);
            if (is_float && !std::isfinite(value))
                throw InputError::at_byte(path, header.data_offset + i * header.dtype.item_size,
                                          std::string(std::isnan(value) ? "NaN" : "an infinite value") +
                                              " is not a valid coordinate (element [" + std::to_string(i / columns) +
                                              ", " + std::to_string(i % columns) + "])");
            values.push_back(value);
        }
        if (options.progress)
            options.progress(header.data_offset + stop * header.dtype.item_size, bytes.size);
    }
    return Matrix<double>(rows, columns, std::move(values));
}

std::vector<std::int32_t> parse_npy_labels(const std::string& path, const FileBytes& bytes) {
    const std::string_view view = bytes.view();
    const Header header = parse_header(path, view);
    const bool column = header.shape.size() == 2 && header.shape[1] == 1;
    if (header.shape.size() != 1 && !column)
        throw InputError::at_byte(path, header.shape_offset, "labels must be a 1-D array, the shape is " + shape_text(header.shape));
    if (header.dtype.kind == Kind::Float)
        throw InputError::at_byte(path, header.descr_offset, "labels must be integers, the dtype is '" + header.dtype.text + "'");
    const std::uint64_t count = header.shape[0];
    if (count == 0) throw InputError::at_byte(path, header.shape_offset, "empty array: no labels");
    check_data_size(path, view, header, count);

    std::vector<std::int32_t> labels;
    try {
        labels.resize(count);
    } catch (const std::bad_alloc&) {
        throw_out_of_memory(path, std::to_string(count) + " labels");
    }
    const char* data = bytes.data.get() + header.data_offset;
    for (std::size_t i = 0; i < count; ++i) {
        // Unsigned 64-bit values above INT64_MAX wrap negative here; they are out of range either way.
        const bool unsigned_too_big = header.dtype.kind == Kind::Unsigned && header.dtype.item_size == 8 &&
                                      read_item<std::uint64_t>(data, header.dtype, i) > INT32_MAX;
        const std::int64_t value = read_item<std::int64_t>(data, header.dtype, i);
        if (unsigned_too_big || value < INT32_MIN || value > INT32_MAX)
            throw InputError::at_byte(path, header.data_offset + i * header.dtype.item_size,
                                      "label does not fit in a 32-bit integer (element " + std::to_string(i) + ")");
        labels[i] = static_cast<std::int32_t>(value);
    }
    return labels;
}


namespace {
// A binary matrix file's layout: where row i's values are and what they are. A .npy file
// says it in its header (read alone: at most its own length, never the data, and checked
// as parse_npy_matrix checks it); the ANN benchmarks' headerless formats say it by their
// extension and their first bytes (headerless_layout).
struct MatrixLayout {
    Header header;       // the dtype and where the values start (.npy: also the offsets its messages name)
    std::string format;  // "NumPy .npy", ".fvecs", ...: for messages
    std::uint64_t rows = 0, columns = 0;
    std::uint64_t row_prefix = 0;  // bytes before each row's values: the *vecs formats' int32 dimension
    std::uint64_t row_stride() const { return row_prefix + columns * header.dtype.item_size; }
    std::uint64_t byte_of(std::uint64_t row, std::uint64_t column) const {
        return header.data_offset + row * row_stride() + row_prefix + column * header.dtype.item_size;
    }
};

MatrixLayout npy_layout(const std::string& path, const RegularFile& file) {
    std::string head = file.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 12)));
    if (head.size() < 6 || head.compare(0, 6, "\x93NUMPY") != 0)
        throw InputError::at_byte(path, 0, "not a NumPy .npy file (no \\x93NUMPY magic)");
    if (head.size() < 10) throw InputError::at_byte(path, head.size(), "truncated .npy file: the header is cut short");
    const auto* raw = reinterpret_cast<const unsigned char*>(head.data());
    const std::uint64_t length = raw[6] == 1 ? 10 + (raw[8] | (std::uint64_t{raw[9]} << 8))
                                             : 12 + (raw[8] | (std::uint64_t{raw[9]} << 8) |
                                                     (std::uint64_t{raw[10]} << 16) | (std::uint64_t{raw[11]} << 24));
    head = file.read(0, static_cast<std::size_t>(std::min(file.size(), length)));
    MatrixLayout layout;
    layout.format = "NumPy .npy";
    layout.header = parse_header(path, head);
    const Header& header = layout.header;
    if (header.shape.empty() || header.shape.size() > 2)
        throw InputError::at_byte(path, header.shape_offset,
                                  "expected a 1-D or 2-D array (points × coordinates), the shape is " +
                                      shape_text(header.shape));
    layout.rows = header.shape[0];
    layout.columns = header.shape.size() == 2 ? header.shape[1] : 1;
    if (layout.rows == 0 || layout.columns == 0)
        throw InputError::at_byte(path, header.shape_offset, "empty array (shape " + shape_text(header.shape) + "): no data");
    if (layout.rows > std::numeric_limits<std::uint64_t>::max() / layout.columns / 8)
        throw InputError::at_byte(path, header.shape_offset, "shape " + shape_text(header.shape) + " is too large");
    const std::uint64_t expected = header.data_offset + layout.rows * layout.columns * header.dtype.item_size;
    if (file.size() < expected)
        throw InputError::at_byte(path, file.size(),
                                  "truncated .npy file: shape " + shape_text(header.shape) + " of '" + header.dtype.text +
                                      "' needs " + std::to_string(expected - header.data_offset) +
                                      " data bytes after byte " + std::to_string(header.data_offset) + ", found " +
                                      std::to_string(file.size() - header.data_offset));
    if (file.size() > expected)
        throw InputError::at_byte(path, expected,
                                  std::to_string(file.size() - expected) + " unexpected bytes after the array data");
    return layout;
}

// The formats of the approximate-nearest-neighbour benchmarks, where billion-point data sets
// come from (SIFT1B, Deep1B, ...). They have no magic: the extension names them.
struct HeaderlessFormat {
    const char* extension;
    bool row_dimension;  // each row led by its int32 dimension (TEXMEX .fvecs); else a header of
                         // uint32 rows, uint32 columns (big-ann-benchmarks .fbin)
    Kind kind;
    std::size_t item_size;
    const char* dtype;
};
constexpr HeaderlessFormat kHeaderlessFormats[] = {
    {".fvecs", true, Kind::Float, 4, "float32"},    {".bvecs", true, Kind::Unsigned, 1, "uint8"},
    {".ivecs", true, Kind::Signed, 4, "int32"},     {".fbin", false, Kind::Float, 4, "float32"},
    {".u8bin", false, Kind::Unsigned, 1, "uint8"}, {".i8bin", false, Kind::Signed, 1, "int8"},
    {".ibin", false, Kind::Signed, 4, "int32"},
};

const HeaderlessFormat* headerless_format(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const HeaderlessFormat& format : kHeaderlessFormats)
        if (extension == format.extension) return &format;
    return nullptr;
}

// The layout of a headerless file of `size` bytes whose first bytes are `head` (at least
// min(size, 8) of them): every refusal names the byte.
MatrixLayout headerless_layout(const std::string& path, const HeaderlessFormat& format, std::uint64_t size,
                               std::string_view head) {
    MatrixLayout layout;
    layout.format = format.extension;
    DType& dtype = layout.header.dtype;
    dtype.text = format.dtype;
    dtype.kind = format.kind;
    dtype.item_size = format.item_size;
    dtype.swap = std::endian::native != std::endian::little;  // the formats are little-endian
    const auto word = [&](std::size_t at) {
        std::uint32_t value;
        std::memcpy(&value, head.data() + at, 4);
        return dtype.swap ? __builtin_bswap32(value) : value;
    };
    const std::string file = std::string(format.extension) + " file";
    if (format.row_dimension) {
        if (size == 0) throw InputError::whole(path, "empty " + file + ": no data");
        if (size < 4)
            throw InputError::at_byte(path, size, "truncated " + file + ": the first row's dimension (an int32) is cut short");
        const auto dimension = static_cast<std::int32_t>(word(0));
        if (dimension <= 0)
            throw InputError::at_byte(path, 0, "the first row's dimension is " + std::to_string(dimension) +
                                                   ": each row of a " + file + " starts with its number of values, a positive int32");
        layout.columns = static_cast<std::uint64_t>(dimension);
        layout.row_prefix = 4;
        const std::uint64_t stride = layout.row_stride();
        layout.rows = size / stride;
        if (size % stride != 0)
            throw InputError::at_byte(path, layout.rows * stride,
                                      "truncated " + file + ": " + std::to_string(size % stride) +
                                          " bytes after the last whole row (rows of " + std::to_string(dimension) + " " +
                                          format.dtype + " values take " + std::to_string(stride) + " bytes each)");
        return layout;
    }
    if (size < 8)
        throw InputError::at_byte(path, size, "truncated " + file + ": its header (uint32 rows, uint32 columns) takes 8 bytes");
    layout.header.data_offset = 8;
    layout.rows = word(0);
    layout.columns = word(4);
    const std::string shape = std::to_string(layout.rows) + " × " + std::to_string(layout.columns);
    if (layout.rows == 0 || layout.columns == 0)
        throw InputError::at_byte(path, 0, "empty array (its header says " + shape + "): no data");
    if (layout.rows * layout.columns > (std::numeric_limits<std::uint64_t>::max() - 8) / dtype.item_size)
        throw InputError::at_byte(path, 0, "its header's shape " + shape + " is too large");
    const std::uint64_t expected = 8 + layout.rows * layout.columns * dtype.item_size;
    if (size < expected)
        throw InputError::at_byte(path, size,
                                  "truncated " + file + ": its header says " + shape + " " + format.dtype +
                                      " values, which need " + std::to_string(expected - 8) +
                                      " bytes after byte 8, found " + std::to_string(size - 8));
    if (size > expected)
        throw InputError::at_byte(path, expected, std::to_string(size - expected) + " unexpected bytes after the array data");
    return layout;
}

// A regular file's layout: the .npy magic first (whatever the file is called), else the
// headerless format its extension names.
MatrixLayout matrix_layout(const std::string& path, const RegularFile& file) {
    const std::string head = file.read(0, static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), 8)));
    if (has_npy_magic(head)) return npy_layout(path, file);
    if (const HeaderlessFormat* format = headerless_format(path))
        return headerless_layout(path, *format, file.size(), head);
    return npy_layout(path, file);  // its refusal: no magic
}

// Row `row`'s dimension, the int32 before its values (`bytes`), must be the first row's.
void check_row_dimension(const std::string& path, const MatrixLayout& layout, std::uint64_t row, const char* bytes) {
    if (layout.row_prefix == 0) return;
    std::uint32_t word;
    std::memcpy(&word, bytes, 4);
    const auto dimension = static_cast<std::int32_t>(layout.header.dtype.swap ? __builtin_bswap32(word) : word);
    if (static_cast<std::uint64_t>(dimension) != layout.columns || dimension < 0)
        throw InputError::at_byte(path, layout.header.data_offset + row * layout.row_stride(),
                                  "row " + std::to_string(row) + " has dimension " + std::to_string(dimension) +
                                      ", the first row " + std::to_string(layout.columns) + ": the rows of a " +
                                      layout.format + " file must all have one dimension");
}

[[noreturn]] void refuse_coordinate(const std::string& path, const MatrixLayout& layout, std::uint64_t element,
                                    double value) {
    throw InputError::at_byte(path, layout.byte_of(element / layout.columns, element % layout.columns),
                              std::string(std::isnan(value) ? "NaN" : "an infinite value") +
                                  " is not a valid coordinate (element [" + std::to_string(element / layout.columns) +
                                  ", " + std::to_string(element % layout.columns) + "])");
}

// Rows [first, first + count) of `layout` from `bytes` (their bytes, from row first's) into
// out, converted item by item (and checked: NaN and infinity refused, each row's dimension).
template <typename T>
void convert_rows(const std::string& path, const MatrixLayout& layout, std::uint64_t first, std::size_t count,
                  const char* bytes, T* out) {
    const bool is_float = layout.header.dtype.kind == Kind::Float;
    const std::size_t columns = static_cast<std::size_t>(layout.columns);
    const std::size_t stride = static_cast<std::size_t>(layout.row_stride());
    for (std::size_t r = 0; r < count; ++r) {
        const char* row = bytes + r * stride;
        check_row_dimension(path, layout, first + r, row);
        for (std::size_t j = 0; j < columns; ++j) {
            const double value = read_item<double>(row + layout.row_prefix, layout.header.dtype, j);
            if (is_float && !std::isfinite(value)) refuse_coordinate(path, layout, (first + r) * columns + j, value);
            out[r * columns + j] = static_cast<T>(value);
        }
    }
}
}  // namespace

bool is_headerless_matrix(const std::string& path) noexcept { return headerless_format(path) != nullptr; }

Matrix<double> parse_headerless_matrix(const std::string& path, const FileBytes& bytes, const LoadOptions& options) {
    const HeaderlessFormat* format = headerless_format(path);
    if (!format) throw InputError::whole(path, "not a binary matrix file");
    const std::string_view view = bytes.view();
    const MatrixLayout layout = headerless_layout(path, *format, view.size(), view.substr(0, 8));
    std::vector<double> values;
    try {
        values.resize(static_cast<std::size_t>(layout.rows * layout.columns));
    } catch (const std::bad_alloc&) {
        throw_out_of_memory(path, std::to_string(layout.rows) + " points × " + std::to_string(layout.columns));
    }
    const std::size_t rows_per_check = std::max<std::size_t>(1, kItemsPerCheck / layout.columns);
    for (std::uint64_t first = 0; first < layout.rows; first += rows_per_check) {
        if (options.cancel.stop_requested()) throw_cancelled(path);
        const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(rows_per_check, layout.rows - first));
        convert_rows(path, layout, first, count, view.data() + layout.header.data_offset + first * layout.row_stride(),
                     values.data() + first * layout.columns);
        if (options.progress) options.progress(layout.header.data_offset + (first + count) * layout.row_stride(), bytes.size);
    }
    return Matrix<double>(static_cast<std::size_t>(layout.rows), static_cast<std::size_t>(layout.columns),
                          std::move(values));
}

}  // namespace kms::io_detail

namespace kms {
using io_detail::Header;
using io_detail::Kind;

bool starts_with_npy_magic(const std::string& path) {
    // Opened without blocking and read only if regular: a FIFO is never waited on (the
    // loaders then refuse it by name).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return false;
    struct stat info {};
    char magic[6] = {};
    const bool npy = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && ::pread(fd, magic, 6, 0) == 6 &&
                     io_detail::has_npy_magic(std::string_view(magic, 6));
    ::close(fd);
    return npy;
}

bool is_binary_matrix_file(const std::string& path) {
    return io_detail::is_headerless_matrix(path) || starts_with_npy_magic(path);
}

namespace {
// A binary matrix file read a block of rows at a time (kms/row_source.hpp): the values
// load_dataset gives (read_item<double>), or those rounded to float.
class MatrixRowSource final : public RowSource {
public:
    MatrixRowSource(const std::string& path, bool drop_behind)
        : path_(path), file_(path, "regular file"), layout_(io_detail::matrix_layout(path, file_)),
          drop_behind_(drop_behind) {}

    std::size_t rows() const override { return static_cast<std::size_t>(layout_.rows); }
    std::size_t cols() const override { return static_cast<std::size_t>(layout_.columns); }
    const std::string& name() const override { return path_; }
    std::size_t file_row_bytes() const override { return static_cast<std::size_t>(layout_.row_stride()); }
    void read(std::size_t first, std::size_t count, double* out) const override { read_as(first, count, out, true); }
    void read(std::size_t first, std::size_t count, float* out) const override { read_as(first, count, out, true); }
    void read_unchecked(std::size_t first, std::size_t count, double* out) const override {
        read_as(first, count, out, false);
    }
    void read_unchecked(std::size_t first, std::size_t count, float* out) const override {
        read_as(first, count, out, false);
    }
    void check_values(std::size_t first, std::size_t count, const double* values, int threads) const override {
        if (in_place<double>()) refuse_non_finite(first, values, 0, count * cols(), threads);
    }
    void check_values(std::size_t first, std::size_t count, const float* values, int threads) const override {
        if (in_place<float>()) refuse_non_finite(first, values, 0, count * cols(), threads);
    }

private:
    // The file's bytes are the values of T, row after row: read in place (the rest is converted).
    template <typename T>
    bool in_place() const {
        const Header& header = layout_.header;
        return header.dtype.kind == Kind::Float && header.dtype.item_size == sizeof(T) && !header.dtype.swap &&
               layout_.row_prefix == 0;
    }

    template <typename T>
    void read_as(std::size_t first, std::size_t count, T* out, bool checked) const {
        if (first > layout_.rows || count > layout_.rows - first)
            throw InputError::whole(path_, "rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                                               ") lie outside its " + std::to_string(layout_.rows) + " rows");
        const Header& header = layout_.header;
        const std::size_t item = header.dtype.item_size, values = count * cols();
        const std::uint64_t offset = header.data_offset + std::uint64_t{first} * file_row_bytes();
        if (in_place<T>()) {
            // In reads of 16 MiB, each checked while in cache unless the caller checks
            // (check_values); the block dropped from the page cache after its last read
            // (drop_read), not each read: a POSIX_FADV_DONTNEED may wait for every CPU to
            // drain its LRU batches (lru_add_drain_all), which busy solver cores make
            // slow, so one call a block (at most kMaxWindowBytes) costs a quarter of one
            // every 16 MiB. (preadv2's RWF_DONTCACHE, which drops each page as it is
            // copied out, read slower on the lent host: docs/benchmarks.md.)
            constexpr std::size_t kRead = std::size_t{16} << 20;
            char* destination = reinterpret_cast<char*>(out);
            const std::size_t bytes = values * item;
            for (std::size_t done = 0; done < bytes; done += kRead) {  // (kRead: whole items)
                const std::size_t take = std::min(kRead, bytes - done);
                file_.read_into(destination + done, offset + done, take);
                if (checked) refuse_non_finite(first, out, done / item, (done + take) / item, 1);
            }
            if (drop_behind_) drop_read(offset, bytes);
            return;
        }
        // Converted row by row through a staging buffer of at most 1 MiB (and checked:
        // the check is small beside the conversion).
        const std::size_t stride = file_row_bytes();
        const std::size_t per_read = std::max<std::size_t>(1, (std::size_t{1} << 20) / stride);
        std::vector<char> staging(std::min(count, per_read) * stride);
        for (std::size_t start = 0; start < count; start += per_read) {
            const std::size_t take = std::min(per_read, count - start);
            file_.read_into(staging.data(), offset + std::uint64_t{start} * stride, take * stride);
            io_detail::convert_rows(path_, layout_, first + start, take, staging.data(), out + start * cols());
        }
        if (drop_behind_) drop_read(offset, std::uint64_t{count} * stride);
    }

    // (RegularFile::drop_read: on the page cache's 2 MiB folio boundaries.)
    void drop_read(std::uint64_t offset, std::uint64_t count) const { file_.drop_read(offset, count); }

    // Refuses the first value of values[from, to) that is NaN or infinite (values[0]
    // is row `first`'s first), over `threads` OpenMP threads: the lowest index wins,
    // so the message is the same for any number of threads.
    template <typename T>
    void refuse_non_finite(std::size_t first, const T* values, std::size_t from, std::size_t to, int threads) const {
        const auto end = static_cast<std::int64_t>(to);
        std::int64_t bad = end;
#pragma omp parallel for num_threads(std::max(1, threads)) if (threads > 1) reduction(min : bad) schedule(static)
        for (std::int64_t i = static_cast<std::int64_t>(from); i < end; ++i)
            if (!std::isfinite(values[i])) bad = std::min(bad, i);
        if (bad < end)
            io_detail::refuse_coordinate(path_, layout_, first * cols() + static_cast<std::size_t>(bad),
                                         static_cast<double>(values[bad]));
    }

    std::string path_;
    io_detail::RegularFile file_;
    io_detail::MatrixLayout layout_;
    bool drop_behind_;
};
}  // namespace

MatrixFileShape matrix_file_shape(const std::string& path) {
    const io_detail::RegularFile file(path, "regular file");
    const io_detail::MatrixLayout layout = io_detail::matrix_layout(path, file);
    return {static_cast<std::size_t>(layout.rows), static_cast<std::size_t>(layout.columns)};
}

Matrix<double> load_matrix_rows(const std::string& path, std::size_t first_row, std::size_t rows) {
    const MatrixRowSource source(path, false);
    if (first_row > source.rows() || rows > source.rows() - first_row)
        throw InputError::whole(path, "rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + rows) +
                                          ") lie outside its " + std::to_string(source.rows()) + " rows");
    std::vector<double> values;
    try {
        values.resize(rows * source.cols());
    } catch (const std::bad_alloc&) {
        io_detail::throw_out_of_memory(path, std::to_string(rows) + " points × " + std::to_string(source.cols()));
    }
    source.read(first_row, rows, values.data());
    return Matrix<double>(rows, source.cols(), std::move(values));
}

std::shared_ptr<const RowSource> open_matrix_rows(const std::string& path, bool drop_behind) {
    return std::make_shared<const MatrixRowSource>(path, drop_behind);
}

namespace {
// NumPy format 1.0: magic, little-endian header length, a Python dict padded with
// spaces to a 64-byte boundary and ended by '\n', then the raw C-order data.
std::string npy_header(const std::string& descr, const std::string& shape) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    const std::size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string header = "\x93NUMPY";
    header += '\x01';
    header += '\x00';
    header += static_cast<char>(dict.size() & 0xff);
    header += static_cast<char>((dict.size() >> 8) & 0xff);
    return header + dict;
}

static_assert(std::endian::native == std::endian::little, "the .npy writer stores native little-endian values");
}  // namespace

void write_npy(OutputFile& file, const Matrix<double>& points, std::stop_token stop) {
    file.write(npy_header("<f8", "(" + std::to_string(points.rows()) + ", " + std::to_string(points.cols()) + ")"));
    // 32 MiB at a time, the stop request checked between (as write_csv): 10^8 points are 1.6 GB.
    const std::string_view bytes(reinterpret_cast<const char*>(points.data()), points.size() * sizeof(double));
    constexpr std::size_t kStep = std::size_t{32} << 20;
    for (std::size_t at = 0; at < bytes.size(); at += kStep) {
        if (stop.stop_requested()) throw Cancelled("cancelled: " + file.path() + " not written");
        file.write(bytes.substr(at, kStep));
    }
}

void write_npy(OutputFile& file, std::span<const std::int32_t> labels) {
    file.write(npy_header("<i4", "(" + std::to_string(labels.size()) + ",)"));
    file.write(std::string_view(reinterpret_cast<const char*>(labels.data()), labels.size() * sizeof(std::int32_t)));
}

}  // namespace kms
