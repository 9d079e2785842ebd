// Delimited text: comma / semicolon / whitespace separated numbers, one row per
// line. The first content line fixes the separator and the column count; a
// non-numeric first line is a header. The rows are then parsed in parallel
// chunks (OpenMP) with std::from_chars, straight into the final matrix, and
// every error carries the exact 1-based line number an editor would show.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <type_traits>

#include "detail/io_detail.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"

namespace kms::io_detail {
namespace {

enum class Separator { Whitespace, Comma, Semicolon };

std::string describe(Separator separator) {
    switch (separator) {
        case Separator::Comma: return "','";
        case Separator::Semicolon: return "';'";
        case Separator::Whitespace: break;
    }
    return "spaces or tabs";
}

inline bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

enum class FieldStatus { Ok, NotANumber, NaN, Infinite, OutOfRange };

// Decides whether an out-of-range decimal overflowed (refused) or underflowed
// (its correctly rounded value is a signed zero, which we accept), from its
// decimal magnitude: significant integer digits (or minus the leading zeros of
// the fraction) plus the exponent.
bool decimal_overflows(const char* begin, const char* end) {
    const char* p = begin;
    if (p != end && (*p == '-' || *p == '+')) ++p;
    while (p != end && *p == '0') ++p;
    long long magnitude = 0;
    const char* digits = p;
    while (p != end && *p >= '0' && *p <= '9') ++p;
    magnitude = p - digits;
    if (magnitude == 0 && p != end && *p == '.') {
        ++p;
        const char* fraction = p;
        while (p != end && *p == '0') ++p;
        magnitude = -(p - fraction);
    }
    while (p != end && *p != 'e' && *p != 'E') ++p;
    if (p != end) {
        ++p;
        bool negative = false;
        if (p != end && (*p == '-' || *p == '+')) negative = *p++ == '-';
        long long exponent = 0;
        for (; p != end && *p >= '0' && *p <= '9'; ++p) exponent = std::min(exponent * 10 + (*p - '0'), 1LL << 40);
        magnitude += negative ? -exponent : exponent;
    }
    return magnitude > 0;
}

// Clinger's fast path for the common "[-]digits[.digits]" with at most 15
// digits: the digits form an integer m < 2^53 and the value is m / 10^f with
// f <= 15, two exactly representable doubles, so one IEEE division gives the
// correctly rounded result, bit-identical to std::from_chars (tested). Anything
// else (exponents, long mantissas, inf/nan) returns false and goes to from_chars.
inline bool parse_short_decimal(const char* p, const char* end, const char*& stop, double& out) noexcept {
    static constexpr double kPowersOfTen[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                              1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const bool negative = p != end && *p == '-';
    if (negative) ++p;
    std::uint64_t mantissa = 0;
    const char* digits_begin = p;
    while (p != end && static_cast<unsigned char>(*p - '0') < 10) mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
    std::ptrdiff_t digits = p - digits_begin;
    std::ptrdiff_t fraction_digits = 0;
    if (p != end && *p == '.') {
        const char* fraction_begin = ++p;
        while (p != end && static_cast<unsigned char>(*p - '0') < 10) mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
        fraction_digits = p - fraction_begin;
        digits += fraction_digits;
    }
    // (With more than 15 digits the mantissa may have wrapped: it is discarded.)
    if (digits == 0 || digits > 15 || (p != end && (*p == 'e' || *p == 'E'))) return false;
    const double magnitude = static_cast<double>(mantissa) / kPowersOfTen[fraction_digits];
    out = negative ? -magnitude : magnitude;
    stop = p;
    return true;
}

// Coordinates: any decimal or integer that std::from_chars reads, with an
// optional leading '+'. NaN and infinities are refused.
struct CoordinateValue {
    using type = double;

    static FieldStatus parse(const char* begin, const char* end, const char*& stop, double& out) {
        const char* p = begin;
        if (p != end && *p == '+') {
            ++p;
            if (p == end || *p == '-' || *p == '+') {
                stop = begin;
                return FieldStatus::NotANumber;
            }
        }
        if (parse_short_decimal(p, end, stop, out)) return FieldStatus::Ok;
        const auto [ptr, ec] = std::from_chars(p, end, out);
        stop = ptr;
        if (ec == std::errc::invalid_argument) return FieldStatus::NotANumber;
        if (ec == std::errc::result_out_of_range) {
            if (decimal_overflows(p, ptr)) return FieldStatus::OutOfRange;
            out = *p == '-' ? -0.0 : 0.0;
            return FieldStatus::Ok;
        }
        if (std::isnan(out)) return FieldStatus::NaN;
        if (std::isinf(out)) return FieldStatus::Infinite;
        return FieldStatus::Ok;
    }

    static std::string describe(FieldStatus status, const std::string& token) {
        switch (status) {
            case FieldStatus::NotANumber: return "not a number: " + token;
            case FieldStatus::NaN: return "NaN is not a valid coordinate: " + token;
            case FieldStatus::Infinite: return "an infinite value is not a valid coordinate: " + token;
            case FieldStatus::OutOfRange: return "number too large for a double: " + token;
            case FieldStatus::Ok: break;
        }
        return "unexpected value " + token;
    }
};

// Labels: integers that fit in 32 bits.
struct LabelValue {
    using type = std::int32_t;

    static FieldStatus parse(const char* begin, const char* end, const char*& stop, std::int32_t& out) {
        const char* p = begin;
        if (p != end && *p == '+') {
            ++p;
            if (p == end || *p == '-' || *p == '+') {
                stop = begin;
                return FieldStatus::NotANumber;
            }
        }
        std::int64_t wide = 0;
        const auto [ptr, ec] = std::from_chars(p, end, wide);
        stop = ptr;
        if (ec == std::errc::invalid_argument) return FieldStatus::NotANumber;
        if (ec == std::errc::result_out_of_range || wide < INT32_MIN || wide > INT32_MAX) return FieldStatus::OutOfRange;
        out = static_cast<std::int32_t>(wide);
        return FieldStatus::Ok;
    }

    static std::string describe(FieldStatus status, const std::string& token) {
        switch (status) {
            case FieldStatus::NotANumber:
            case FieldStatus::NaN:
            case FieldStatus::Infinite: return "not an integer label: " + token;
            case FieldStatus::OutOfRange: return "label does not fit in a 32-bit integer: " + token;
            case FieldStatus::Ok: break;
        }
        return "unexpected value " + token;
    }
};

// What went wrong in one row (the hot path builds no strings; messages are
// made only for the row that fails).
struct RowIssue {
    enum class Kind { None, BadValue, EmptyField } kind = Kind::None;
    FieldStatus status = FieldStatus::Ok;
    std::string_view token;
    std::size_t column = 0;  // 1-based
};

std::string_view token_at(const char* field, const char* end, Separator separator) {
    const char delimiter = separator == Separator::Comma ? ',' : ';';
    const char* p = field;
    while (p != end && !(separator == Separator::Whitespace ? is_blank(*p) : *p == delimiter)) ++p;
    while (p != field && is_blank(p[-1])) --p;
    return {field, static_cast<std::size_t>(p - field)};
}

// Parses one line (without its '\n' and trailing '\r'). Returns the number of
// values found (0: blank or comment line); writes at most `capacity` of them.
// On a malformed field, fills `issue` and returns the count so far.
template <class Value>
std::size_t parse_row(const char* p, const char* end, Separator separator, typename Value::type* out,
                      std::size_t capacity, RowIssue& issue) {
    const bool delimited = separator != Separator::Whitespace;
    const char delimiter = separator == Separator::Comma ? ',' : ';';
    std::size_t count = 0;
    for (;;) {
        while (p != end && is_blank(*p)) ++p;
        if (p == end || *p == '#') {
            // Only reachable after a delimiter in delimited mode: "1,2," has an empty last field.
            if (delimited && count > 0) {
                issue.kind = RowIssue::Kind::EmptyField;
                issue.column = count + 1;
            }
            return count;
        }
        if (delimited && *p == delimiter) {
            issue.kind = RowIssue::Kind::EmptyField;
            issue.column = count + 1;
            return count;
        }
        const char* field = p;
        typename Value::type value{};
        const char* stop = p;
        FieldStatus status = Value::parse(p, end, stop, value);
        // A value must end at a separator, a comment or the end of the line: "1.5x" is not a number.
        if (status == FieldStatus::Ok && stop != end && !is_blank(*stop) && *stop != '#' &&
            !(delimited && *stop == delimiter))
            status = FieldStatus::NotANumber;
        if (status != FieldStatus::Ok) {
            issue = {RowIssue::Kind::BadValue, status, token_at(field, end, separator), count + 1};
            return count;
        }
        if (count < capacity) out[count] = value;
        ++count;
        p = stop;
        if (delimited) {
            while (p != end && is_blank(*p)) ++p;
            if (p == end || *p == '#') return count;
            if (*p != delimiter) {  // "1 2,3" in a comma file: "1 2" is one (bad) field
                issue = {RowIssue::Kind::BadValue, FieldStatus::NotANumber, token_at(field, end, separator),
                         count};
                return count;
            }
            ++p;
        }
    }
}

template <class Value>
std::string describe(const RowIssue& issue) {
    if (issue.kind == RowIssue::Kind::EmptyField)
        return "empty value in column " + std::to_string(issue.column);
    std::string message = Value::describe(issue.status, quote_token(issue.token));
    message += " (column " + std::to_string(issue.column) + ")";
    if (issue.token.find('\r') != std::string_view::npos)
        message += "; a carriage return inside a line: only \\n and \\r\\n line endings are supported";
    return message;
}

std::string count_mismatch(std::size_t expected, std::size_t found, Separator separator, std::uint64_t first_line,
                           const char* unit) {
    return "expected " + std::to_string(expected) + " " + unit + (expected == 1 ? "" : "s") + ", found " +
           std::to_string(found) + " (separated by " + describe(separator) + ", as on line " +
           std::to_string(first_line) + ")";
}

// One line of the buffer: [begin, end) without the '\n' and a trailing '\r'.
struct Line {
    const char* begin;
    const char* end;
    const char* next;  // start of the following line
    std::uint64_t number;
};

Line line_at(const char* p, const char* buffer_end, std::uint64_t number) {
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(buffer_end - p)));
    const char* end = newline ? newline : buffer_end;
    const char* next = newline ? newline + 1 : buffer_end;
    if (end != p && end[-1] == '\r') --end;
    return {p, end, next, number};
}

bool has_content(const Line& line) {
    const char* p = line.begin;
    while (p != line.end && is_blank(*p)) ++p;
    return p != line.end && *p != '#';
}

std::optional<Line> next_content_line(const char* p, const char* buffer_end, std::uint64_t number) {
    while (p != buffer_end) {
        Line line = line_at(p, buffer_end, number);
        if (has_content(line)) return line;
        p = line.next;
        ++number;
    }
    return std::nullopt;
}

Separator detect_separator(const std::string& path, const Line& line) {
    const char* end = static_cast<const char*>(std::memchr(line.begin, '#', static_cast<std::size_t>(line.end - line.begin)));
    if (!end) end = line.end;
    const bool comma = std::find(line.begin, end, ',') != end;
    const bool semicolon = std::find(line.begin, end, ';') != end;
    if (comma && semicolon)
        throw InputError::at_line(path, line.number,
                                  "both ',' and ';' appear on the first data line, so the separator is ambiguous "
                                  "(decimal commas are not supported)");
    if (comma) return Separator::Comma;
    if (semicolon) return Separator::Semicolon;
    return Separator::Whitespace;
}

std::vector<std::string_view> split_fields(const Line& line, Separator separator) {
    std::vector<std::string_view> fields;
    const char delimiter = separator == Separator::Comma ? ',' : ';';
    const char* p = line.begin;
    const char* end = std::find(line.begin, line.end, '#');  // a trailing comment names no column
    for (;;) {
        while (p != end && is_blank(*p)) ++p;
        if (p == end) break;
        const std::string_view token = token_at(p, end, separator);
        fields.push_back(token);
        p = token.data() + token.size();
        while (p != end && is_blank(*p)) ++p;
        if (separator != Separator::Whitespace) {
            if (p == end) break;
            if (*p == delimiter) ++p;
        }
    }
    return fields;
}

// A header names columns: printable text (UTF-8 allowed) in which no field
// reads as a number (not even NaN). Binary junk is not a header.
bool looks_like_header(const Line& line, Separator separator) {
    for (const char* p = line.begin; p != line.end; ++p)
        if (static_cast<unsigned char>(*p) < 0x20 && *p != '\t') return false;
    const auto fields = split_fields(line, separator);
    if (fields.empty()) return false;
    for (const std::string_view field : fields) {
        if (field.empty()) return false;
        double ignored = 0;
        const char* stop = nullptr;
        if (CoordinateValue::parse(field.data(), field.data() + field.size(), stop, ignored) != FieldStatus::NotANumber)
            return false;
    }
    return true;
}

// Where the rows start and how they look, from the first one or two content lines.
struct Layout {
    const char* data_begin;
    std::uint64_t first_data_line;
    Separator separator;
    std::size_t columns;
    std::uint64_t columns_line;  // the line that fixed the column count (named in count mismatches)
};

template <class Value>
Layout find_layout(const std::string& path, const char* begin, const char* end, bool empty_after_bom) {
    const std::optional<Line> first = next_content_line(begin, end, 1);
    if (!first) {
        if (empty_after_bom) throw InputError::whole(path, "empty file: no data rows");
        throw InputError::whole(path, "no data rows: the file has only blank lines and '#' comments");
    }
    const Separator first_separator = detect_separator(path, *first);
    RowIssue issue;
    const std::size_t count = parse_row<Value>(first->begin, first->end, first_separator, nullptr, 0, issue);
    if (issue.kind == RowIssue::Kind::None) return {first->begin, first->number, first_separator, count, first->number};

    if (!looks_like_header(*first, first_separator))
        throw InputError::at_line(path, first->number, describe<Value>(issue));
    const std::optional<Line> second = next_content_line(first->next, end, first->number + 1);
    if (!second) throw InputError::at_line(path, first->number, "only a header row, no data rows");
    const Separator separator = detect_separator(path, *second);
    RowIssue second_issue;
    const std::size_t columns = parse_row<Value>(second->begin, second->end, separator, nullptr, 0, second_issue);
    if (second_issue.kind != RowIssue::Kind::None)
        throw InputError::at_line(path, second->number, describe<Value>(second_issue));
    const std::size_t names = split_fields(*first, separator).size();
    if (names != columns)
        throw InputError::at_line(path, first->number,
                                  "the header row has " + std::to_string(names) + " names but line " +
                                      std::to_string(second->number) + " has " + std::to_string(columns) +
                                      " values (separated by " + describe(separator) + ")");
    return {second->begin, second->number, separator, columns, second->number};
}

// One data line [p, line_end) (without its '\n' and trailing '\r') into `out` (up to
// layout.columns values): the number of values (0: a blank or comment line); for a line the
// loader refuses, the reason in `reason` (else left empty). The one rule for every row,
// loaded whole, by a rank's block or out of core a block at a time.
template <class Value>
std::size_t parse_data_line(const char* p, const char* line_end, const Layout& layout, typename Value::type* out,
                            const char* unit, std::string& reason) {
    RowIssue issue;
    const std::size_t count = parse_row<Value>(p, line_end, layout.separator, out, layout.columns, issue);
    if (issue.kind != RowIssue::Kind::None) reason = describe<Value>(issue);
    else if (count != 0 && count != layout.columns)
        reason = count_mismatch(layout.columns, count, layout.separator, layout.columns_line, unit);
    return count;
}

// Chunks of about this size are parsed in parallel; progress is reported after each.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
// What parse_rows uses: kChunkBytes, except in tests and fuzzers (set_text_chunk_bytes).
std::atomic<std::size_t> chunk_bytes_in_use{kChunkBytes};
// Lines between two looks at the stop token.
constexpr std::size_t kLinesPerCheck = 8192;

struct ChunkError {
    std::uint64_t line = 0;
    std::string reason;
};

// Parses [layout.data_begin, end) into rows of layout.columns values, releases
// the file buffer, and returns exactly rows × columns values.
template <class Value>
std::vector<typename Value::type> parse_rows(const std::string& path, FileBytes& bytes, const Layout& layout,
                                             const LoadOptions& options, const char* unit) {
    using T = typename Value::type;
    const char* const buffer = bytes.data.get();
    const char* const end = buffer + bytes.size;
    const char* const begin = layout.data_begin;
    const std::size_t columns = layout.columns;

    // Chunk boundaries fall just after a '\n', so every chunk holds whole lines.
    std::vector<const char*> bounds{begin};
    const std::size_t region = static_cast<std::size_t>(end - begin);
    const std::size_t chunk_bytes = chunk_bytes_in_use.load(std::memory_order_relaxed);
    for (std::size_t target = chunk_bytes; target < region; target += chunk_bytes) {
        const char* from = std::max(begin + target - 1, bounds.back());
        const auto* newline = static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)));
        if (!newline || newline + 1 >= end) break;
        bounds.push_back(newline + 1);
        target = std::max(target, static_cast<std::size_t>(newline + 1 - begin));
    }
    bounds.push_back(end);
    const std::size_t chunks = bounds.size() - 1;

    // Lines per chunk (a final line without '\n' counts too) give each chunk its
    // first line number. Its rows are at most its lines, and at most
    // (bytes + 1) / (2 × columns), since a row has `columns` values of at least one
    // character, a separator between them and a '\n' (except the file's last
    // line). The smaller bound fixes the chunk's place in the output, and keeps a
    // tiny file with a very wide first line from asking for a huge matrix.
    std::vector<std::uint64_t> lines_before(chunks + 1, 0);
    std::vector<std::size_t> rows_before(chunks + 1, 0);
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (std::size_t c = 0; c < chunks; ++c)
        lines_before[c + 1] = static_cast<std::uint64_t>(std::count(bounds[c], bounds[c + 1], '\n'));
    if (end[-1] != '\n') ++lines_before[chunks];
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t chunk_bytes = static_cast<std::size_t>(bounds[c + 1] - bounds[c]);
        rows_before[c + 1] =
            rows_before[c] + std::min(static_cast<std::size_t>(lines_before[c + 1]), (chunk_bytes + 1) / (2 * columns));
        lines_before[c + 1] += lines_before[c];
    }

    std::vector<T> values;
    try {
        values.resize(rows_before[chunks] * columns);
    } catch (const std::bad_alloc&) {
        // rows_before[chunks] is an upper bound from the file size: blank and comment lines shrink it.
        throw_out_of_memory(path, "up to " + std::to_string(rows_before[chunks]) +
                                      (columns == 1 ? std::string(" ") + unit + "s"
                                                    : " points × " + std::to_string(columns)));
    }
    std::vector<std::size_t> rows_in_chunk(chunks, 0);
    std::vector<ChunkError> errors(chunks);
    std::atomic<std::size_t> first_failed_chunk{chunks};
    std::atomic<bool> abandon{false};
    std::atomic<std::uint64_t> bytes_done{static_cast<std::uint64_t>(begin - buffer)};
    std::exception_ptr callback_failure;
    std::mutex callback_failure_mutex;
    const std::uint64_t total_bytes = bytes.size;

#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (std::size_t c = 0; c < chunks; ++c) {
        if (options.cancel.stop_requested()) abandon.store(true);
        if (abandon.load(std::memory_order_relaxed) || first_failed_chunk.load(std::memory_order_relaxed) < c) continue;
        const char* p = bounds[c];
        const char* const chunk_end = bounds[c + 1];
        std::uint64_t line_number = layout.first_data_line + lines_before[c];
        T* out = values.data() + rows_before[c] * columns;
        const std::size_t row_capacity = rows_before[c + 1] - rows_before[c];
        // A line after the chunk's last possible row can only be malformed (see the
        // bound above); its values go to scratch space, not into the next chunk's rows.
        std::vector<T> scratch;
        std::size_t rows = 0;
        std::size_t lines_since_check = 0;
        while (p != chunk_end) {
            const auto* newline =
                static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(chunk_end - p)));
            const char* line_end = newline ? newline : chunk_end;
            const char* next = newline ? newline + 1 : chunk_end;
            if (line_end != p && line_end[-1] == '\r') --line_end;
            T* row_out = out;
            if (rows == row_capacity) {
                scratch.resize(columns);
                row_out = scratch.data();
            }
            std::string reason;
            const std::size_t count = parse_data_line<Value>(p, line_end, layout, row_out, unit, reason);
            if (reason.empty() && row_out != out && count == columns)
                reason = "internal error: more rows than the size bound allows";
            if (!reason.empty()) {
                errors[c].line = line_number;
                errors[c].reason = std::move(reason);
                std::size_t seen = first_failed_chunk.load();
                while (c < seen && !first_failed_chunk.compare_exchange_weak(seen, c)) {
                }
                break;
            }
            if (count != 0) {
                ++rows;
                out += columns;
            }
            ++line_number;
            p = next;
            if (++lines_since_check == kLinesPerCheck) {
                lines_since_check = 0;
                if (options.cancel.stop_requested()) abandon.store(true);
                if (abandon.load(std::memory_order_relaxed) || first_failed_chunk.load(std::memory_order_relaxed) < c)
                    break;
            }
        }
        rows_in_chunk[c] = rows;
        const std::uint64_t done = bytes_done.fetch_add(static_cast<std::uint64_t>(chunk_end - bounds[c])) +
                                   static_cast<std::uint64_t>(chunk_end - bounds[c]);
        // The callback runs on the calling thread only (thread 0), never concurrently.
        if (options.progress && omp_get_thread_num() == 0 && c + 1 < chunks && !abandon.load() &&
            !options.cancel.stop_requested()) {
            try {
                options.progress(done, total_bytes);
            } catch (...) {
                std::lock_guard lock(callback_failure_mutex);
                if (!callback_failure) callback_failure = std::current_exception();
                abandon.store(true);
            }
        }
    }

    if (callback_failure) std::rethrow_exception(callback_failure);
    if (abandon.load() || options.cancel.stop_requested()) throw_cancelled(path);
    const std::size_t failed = first_failed_chunk.load();
    if (failed < chunks) throw InputError::at_line(path, errors[failed].line, errors[failed].reason);

    // Blank and comment lines left gaps at the chunk ends: close them.
    std::size_t row = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t from = rows_before[c];
        if (row != from && rows_in_chunk[c] != 0)
            std::memmove(values.data() + row * columns, values.data() + from * columns,
                         rows_in_chunk[c] * columns * sizeof(T));
        row += rows_in_chunk[c];
    }
    bytes.release();  // before any reallocation below, to keep the peak low
    values.resize(row * columns);
    if (values.capacity() - values.size() > values.size() / 8) values.shrink_to_fit();
    if (options.progress) options.progress(total_bytes, total_bytes);
    if (options.cancel.stop_requested()) throw_cancelled(path);
    return values;
}

// The magic numbers of the usual compressed and archive formats: such a file is
// named as what it is rather than reported as a text line of junk.
const char* compressed_format(std::string_view bytes) {
    struct Magic {
        std::string_view bytes;
        const char* name;
    };
    static constexpr Magic kMagics[] = {{std::string_view("\x1F\x8B", 2), "gzip-compressed"},
                                        {std::string_view("\xFD" "7zXZ\x00", 6), "xz-compressed"},
                                        {std::string_view("\x28\xB5\x2F\xFD", 4), "zstd-compressed"},
                                        {std::string_view("PK\x03\x04", 4), "ZIP archive"},
                                        {std::string_view("PK\x05\x06", 4), "ZIP archive"}};
    for (const Magic& magic : kMagics)
        if (bytes.substr(0, magic.bytes.size()) == magic.bytes) return magic.name;
    // "BZh", the block size '1'..'9', then the first block's magic (pi's digits in BCD).
    if (bytes.size() >= 10 && bytes.substr(0, 3) == "BZh" && bytes[3] >= '1' && bytes[3] <= '9' &&
        bytes.substr(4, 6) == "1AY&SY")
        return "bzip2-compressed";
    return nullptr;
}

struct TextStart {
    const char* begin;
    bool empty;
};

TextStart text_start(const std::string& path, const FileBytes& bytes) {
    const char* data = bytes.data.get();
    const auto* raw = reinterpret_cast<const unsigned char*>(data);
    if (bytes.size == 0) throw InputError::whole(path, "empty file: no data rows");
    if (bytes.size >= 4 && ((raw[0] == 0xFF && raw[1] == 0xFE && raw[2] == 0 && raw[3] == 0) ||
                            (raw[0] == 0 && raw[1] == 0 && raw[2] == 0xFE && raw[3] == 0xFF)))
        throw InputError::at_byte(path, 0, "UTF-32 text is not supported: save the file as UTF-8");
    if (bytes.size >= 2 && ((raw[0] == 0xFF && raw[1] == 0xFE) || (raw[0] == 0xFE && raw[1] == 0xFF)))
        throw InputError::at_byte(path, 0, "UTF-16 text is not supported: save the file as UTF-8");
    if (const char* format = compressed_format(bytes.view()))
        throw InputError::at_byte(path, 0,
                                  std::string(format) + " data, not text: decompress the file first (the loaders read "
                                                        "delimited text and NumPy .npy)");
    const bool bom = bytes.size >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF;
    const char* begin = data + (bom ? 3 : 0);
    return {begin, begin == data + bytes.size};
}

}  // namespace

// ---------------------------------------------------------------- a rank's block (load_text_block)
namespace {

// Reads a file forward by position through a window of bytes: the scans of
// load_text_block look at each byte of their share once or twice.
class ForwardScan {
public:
    explicit ForwardScan(const RegularFile& file) : file_(file), size_(file.size()) {}
    std::uint64_t size() const noexcept { return size_; }
    char at(std::uint64_t pos) {
        fill(pos);
        return window_[static_cast<std::size_t>(pos - base_)];
    }
    // The position of the first '\n' at or after pos; size() if there is none.
    std::uint64_t newline_from(std::uint64_t pos) {
        while (pos < size_) {
            fill(pos);
            const char* from = window_.data() + (pos - base_);
            const std::size_t left = window_.size() - static_cast<std::size_t>(pos - base_);
            if (const auto* found = static_cast<const char*>(std::memchr(from, '\n', left)))
                return pos + static_cast<std::uint64_t>(found - from);
            pos += left;
        }
        return size_;
    }
    std::uint64_t next_line(std::uint64_t line_start) {
        const std::uint64_t newline = newline_from(line_start);
        return newline < size_ ? newline + 1 : size_;
    }
    // has_content()'s rule for the line starting at pos: something besides blanks
    // (and a final '\r' before the '\n'), not a '#' comment.
    bool has_content_at(std::uint64_t pos) {
        while (pos < size_ && is_blank(at(pos))) ++pos;
        if (pos == size_) return false;
        const char c = at(pos);
        if (c == '\n' || c == '#') return false;
        return !(c == '\r' && (pos + 1 == size_ || at(pos + 1) == '\n'));
    }

private:
    static constexpr std::size_t kWindowBytes = std::size_t{8} << 20;
    void fill(std::uint64_t pos) {
        if (pos >= base_ && pos - base_ < window_.size()) return;
        base_ = pos;
        window_ = file_.read(pos, static_cast<std::size_t>(std::min<std::uint64_t>(kWindowBytes, size_ - pos)));
    }
    const RegularFile& file_;
    std::uint64_t size_;
    std::uint64_t base_ = 0;
    std::string window_;
};

// The layout (separator, columns, header) from the file's first lines, read alone:
// a prefix cut after its last '\n' (only whole lines), grown until it holds two
// content lines or is the whole file, so that find_layout sees what it would see
// in the whole file. data_offset: where the first data row starts in the file.
struct FileLayout {
    std::uint64_t data_offset = 0;
    std::uint64_t first_data_line = 0;
    Separator separator = Separator::Whitespace;
    std::size_t columns = 0;
    std::uint64_t columns_line = 0;
};

// The first look's size: 1 MiB, except in tests and fuzzers (set_text_prefix_bytes).
constexpr std::uint64_t kPrefixBytes = std::uint64_t{1} << 20;
std::atomic<std::uint64_t> prefix_bytes_in_use{kPrefixBytes};

FileLayout file_layout(const std::string& path, const RegularFile& file) {
    const std::uint64_t size = file.size();
    const std::uint64_t first_look = prefix_bytes_in_use.load(std::memory_order_relaxed);
    for (std::uint64_t prefix = std::min(size, first_look);; prefix = std::min(size, 2 * prefix)) {
        FileBytes head = FileBytes::copy_of(file.read(0, static_cast<std::size_t>(prefix)));
        const TextStart start = text_start(path, head);
        const bool whole = prefix == size;
        const char* end = head.data.get() + head.size;
        if (!whole) {
            const char* last_newline = static_cast<const char*>(memrchr(head.data.get(), '\n', head.size));
            if (!last_newline || last_newline + 1 <= start.begin) continue;
            end = last_newline + 1;
            const std::optional<Line> first = next_content_line(start.begin, end, 1);
            if (!first || !next_content_line(first->next, end, first->number + 1)) continue;
        }
        const Layout layout = find_layout<CoordinateValue>(path, start.begin, end, start.empty);
        return {static_cast<std::uint64_t>(layout.data_begin - head.data.get()), layout.first_data_line,
                layout.separator, layout.columns, layout.columns_line};
    }
}

// Every 1024th row a rank's scan meets: where it starts and on which of the rank's
// lines, so that finding a block's first row rescans at most 1024 rows.
struct RowMark {
    std::uint64_t row = 0, offset = 0, line = 0;  // row and line: counted from the rank's first line
};
constexpr std::uint64_t kRowsPerMark = 1024;

// The rows (content lines) that start in [from, to) of the data region, which starts at data_offset.
struct ShareScan {
    std::uint64_t rows = 0, lines = 0;
    std::vector<RowMark> marks;
};

ShareScan scan_share(ForwardScan& scan, std::uint64_t data_offset, std::uint64_t from, std::uint64_t to,
                     const std::stop_token& cancel, const std::string& path) {
    ShareScan share;
    if (from >= to) return share;
    // A line belongs to the share its first byte lies in.
    std::uint64_t pos = from == data_offset || scan.at(from - 1) == '\n' ? from : scan.next_line(from);
    while (pos < to) {
        if (scan.has_content_at(pos)) {
            if (share.rows % kRowsPerMark == 0) share.marks.push_back({share.rows, pos, share.lines});
            ++share.rows;
        }
        ++share.lines;
        pos = scan.next_line(pos);
        if ((share.lines & 0xffff) == 0 && cancel.stop_requested()) throw_cancelled(path);
    }
    return share;
}

// Where the share's row `row` starts, and on which of the share's lines.
std::pair<std::uint64_t, std::uint64_t> locate_row(ForwardScan& scan, const ShareScan& share, std::uint64_t row) {
    const RowMark& mark = share.marks[static_cast<std::size_t>(row / kRowsPerMark)];
    std::uint64_t pos = mark.offset, line = mark.line, at_row = mark.row;
    for (;;) {
        if (scan.has_content_at(pos)) {
            if (at_row == row) return {pos, line};
            ++at_row;
        }
        ++line;
        pos = scan.next_line(pos);
    }
}

// ---------------------------------------------------------------- out of core (open_text_rows)

// One entry of a text file's sparse index: row `row` starts at byte `offset`, on line `line`.
struct TextMark {
    std::uint64_t row = 0, offset = 0, line = 0;
};

// The first pass over the lines that start in [from, to) of the data region: every line
// parsed by the loader's rule, the rows counted, a mark every `rows_per_mark` rows of each
// piece (rows and lines counted from the share's first line, 0-based), and the first line
// refused (the pass stops there).
struct TextScan {
    std::uint64_t rows = 0, lines = 0;
    std::vector<TextMark> marks;
    std::optional<ChunkError> error;
};

TextScan scan_text_share(const std::string& path, const RegularFile& file, const FileLayout& layout,
                         std::uint64_t from, std::uint64_t to, const TextRowsOptions& options) {
    TextScan scan;
    if (from >= to) return scan;
    const Layout rules{nullptr, layout.first_data_line, layout.separator, layout.columns, layout.columns_line};
    const std::uint64_t size = file.size();
    const std::size_t window_bytes = std::max<std::size_t>(1, options.window_bytes);
    const std::uint64_t rows_per_mark = std::max<std::size_t>(1, options.rows_per_mark);
    // A line belongs to the share its first byte lies in (load_text_block's rule).
    std::uint64_t pos = from;
    if (from != layout.data_offset) {
        ForwardScan head(file);
        if (head.at(from - 1) != '\n') pos = head.next_line(from);
    }
    std::vector<char> window;
    while (pos < to) {
        if (options.cancel.stop_requested()) throw_cancelled(path);
        // Whole lines from pos: window_bytes cut after the last '\n' (more while there is
        // none), or to the file's end; then only the lines that start before `to`.
        std::uint64_t end = size;
        for (std::uint64_t want = window_bytes;; want *= 2) {
            const std::uint64_t take = std::min<std::uint64_t>(want, size - pos);
            window.resize(static_cast<std::size_t>(take));
            file.read_into(window.data(), pos, window.size());
            if (pos + take == size) break;
            if (const void* newline = memrchr(window.data(), '\n', window.size())) {
                end = pos + static_cast<std::uint64_t>(static_cast<const char*>(newline) - window.data()) + 1;
                break;
            }
        }
        if (end > to) {  // the share's last line: the one holding byte to - 1
            const char* last = window.data() + (to - 1 - pos);
            const auto* newline = static_cast<const char*>(std::memchr(last, '\n', static_cast<std::size_t>(end - (to - 1))));
            if (newline) end = pos + static_cast<std::uint64_t>(newline - window.data()) + 1;
        }
        // Pieces of whole lines, parsed in parallel; their marks and counts joined in order.
        const char* const base = window.data();
        const char* const stop = base + (end - pos);
        const std::size_t piece_bytes = std::max<std::size_t>(1, window_bytes / 16);
        std::vector<const char*> bounds{base};
        while (static_cast<std::size_t>(stop - bounds.back()) > piece_bytes) {
            const char* from_here = bounds.back() + piece_bytes - 1;
            const auto* newline =
                static_cast<const char*>(std::memchr(from_here, '\n', static_cast<std::size_t>(stop - from_here)));
            if (!newline || newline + 1 >= stop) break;
            bounds.push_back(newline + 1);
        }
        bounds.push_back(stop);
        const std::size_t pieces = bounds.size() - 1;
        std::vector<TextScan> parts(pieces);
#pragma omp parallel for num_threads(std::max(1, options.threads)) if (options.threads > 1 && pieces > 1) schedule(dynamic, 1)
        for (std::size_t c = 0; c < pieces; ++c) {
            TextScan& part = parts[c];
            std::vector<double> row(layout.columns);
            for (const char* p = bounds[c]; p != bounds[c + 1];) {
                const Line line = line_at(p, bounds[c + 1], 0);
                std::string reason;
                const std::size_t count = parse_data_line<CoordinateValue>(line.begin, line.end, rules, row.data(), "value", reason);
                if (!reason.empty()) {
                    part.error = ChunkError{part.lines, std::move(reason)};
                    break;
                }
                if (count != 0) {
                    if (part.rows % rows_per_mark == 0)
                        part.marks.push_back({part.rows, pos + static_cast<std::uint64_t>(p - base), part.lines});
                    ++part.rows;
                }
                ++part.lines;
                p = line.next;
            }
        }
        for (TextScan& part : parts) {
            for (const TextMark& mark : part.marks)
                scan.marks.push_back({scan.rows + mark.row, mark.offset, scan.lines + mark.line});
            if (part.error) {
                scan.error = ChunkError{scan.lines + part.error->line, std::move(part.error->reason)};
                return scan;
            }
            scan.rows += part.rows;
            scan.lines += part.lines;
        }
        if (options.drop_behind) file.drop_read(pos, end - pos);
        pos = end;
    }
    return scan;
}

// A text file read a block of rows at a time through its index (kms::open_text_rows).
class TextRowSource final : public RowSource {
public:
    TextRowSource(const std::string& path, const TextRowsOptions& options)
        : path_(path), threads_(std::max(1, options.threads)),
          window_bytes_(std::max<std::size_t>(1, options.window_bytes)), drop_behind_(options.drop_behind) {
        Communicator* ranks = options.ranks;
        const std::size_t count = ranks ? static_cast<std::size_t>(ranks->size()) : 1;
        const std::size_t rank = ranks ? static_cast<std::size_t>(ranks->rank()) : 0;
        TextScan scan;
        agreed(ranks, [&] {
            file_.emplace(path, "regular text file");
            if (file_->size() == 0) throw InputError::whole(path, "empty file: no data rows");
            layout_ = file_layout(path, *file_);
            const std::uint64_t data_bytes = file_->size() - layout_.data_offset;
            const auto share_start = [&](std::uint64_t r) {  // floor(data_bytes · r / ranks) without overflow
                return layout_.data_offset + data_bytes / count * r + data_bytes % count * r / count;
            };
            scan = scan_text_share(path, *file_, layout_, share_start(rank), share_start(rank + 1), options);
        });
        // Each share's rows and lines before it (a share that failed stops counting at its bad
        // line: only the shares after it, which report nothing, would count from there).
        std::uint64_t rows_before = 0, lines_before = 0, rows = scan.rows, lines = scan.lines;
        if (ranks) {
            const std::int64_t counts[2] = {static_cast<std::int64_t>(scan.rows), static_cast<std::int64_t>(scan.lines)};
            const std::vector<std::int64_t> all = ranks->allgather(std::span<const std::int64_t>(counts, 2));
            rows = lines = 0;
            for (std::size_t r = 0; r < count; ++r) {
                if (r == rank) rows_before = rows, lines_before = lines;
                rows += static_cast<std::uint64_t>(all[2 * r]);
                lines += static_cast<std::uint64_t>(all[2 * r + 1]);
            }
        }
        agreed(ranks, [&] {  // the lowest rank with a bad line holds the file's first: one process's message
            if (scan.error)
                throw InputError::at_line(path, layout_.first_data_line + lines_before + scan.error->line, scan.error->reason);
        });
        std::vector<std::int64_t> mine;
        mine.reserve(3 * scan.marks.size());
        for (const TextMark& mark : scan.marks)
            mine.insert(mine.end(), {static_cast<std::int64_t>(rows_before + mark.row), static_cast<std::int64_t>(mark.offset),
                                     static_cast<std::int64_t>(layout_.first_data_line + lines_before + mark.line)});
        const std::vector<std::int64_t> all = ranks ? ranks->allgather(std::span<const std::int64_t>(mine)) : std::move(mine);
        marks_.reserve(all.size() / 3 + 1);
        for (std::size_t i = 0; i + 2 < all.size(); i += 3)
            marks_.push_back({static_cast<std::uint64_t>(all[i]), static_cast<std::uint64_t>(all[i + 1]),
                              static_cast<std::uint64_t>(all[i + 2])});
        marks_.push_back({rows, file_->size(), layout_.first_data_line + lines});  // the end
        rows_ = static_cast<std::size_t>(rows);
        if (rows_ == 0) throw InputError::whole(path, "no data rows");  // (file_layout found one: unreachable)
    }

    std::size_t rows() const override { return rows_; }
    std::size_t cols() const override { return layout_.columns; }
    const std::string& name() const override { return path_; }
    // The text's bytes per row, on average: what a pass reads.
    std::size_t file_row_bytes() const override {
        return std::max<std::size_t>(1, static_cast<std::size_t>((file_->size() - layout_.data_offset) / rows_));
    }
    void read(std::size_t first, std::size_t count, double* out) const override { read_as(first, count, out); }
    void read(std::size_t first, std::size_t count, float* out) const override { read_as(first, count, out); }

private:
    // Rows [first, first + count): from the mark at or before `first` to the first mark at or
    // past the last row, window_bytes_ of text at a time (at least one stretch between two
    // marks), each window's stretches parsed in parallel. Rows outside the range are only
    // counted (a stretch must still hold the rows its marks say).
    template <typename T>
    void read_as(std::size_t first, std::size_t count, T* out) const {
        if (first > rows_ || count > rows_ - first)
            throw InputError::whole(path_, "rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                                               ") lie outside its " + std::to_string(rows_) + " rows");
        if (count == 0) return;
        if (file_->changed())
            throw InputError::whole(path_, "the file changed (its size or modification time) since its first pass: out of "
                                           "core parses it again on every pass, and it must stay as it was");
        const auto before = [](const TextMark& mark, std::uint64_t row) { return mark.row < row; };
        const std::uint64_t last = std::uint64_t{first} + count;
        std::size_t a = static_cast<std::size_t>(
            std::upper_bound(marks_.begin(), marks_.end(), std::uint64_t{first},
                             [](std::uint64_t row, const TextMark& mark) { return row < mark.row; }) -
            marks_.begin() - 1);
        const auto z = static_cast<std::size_t>(std::lower_bound(marks_.begin(), marks_.end(), last, before) - marks_.begin());
        const Layout rules{nullptr, layout_.first_data_line, layout_.separator, layout_.columns, layout_.columns_line};
        const std::size_t columns = layout_.columns;
        std::vector<char> window;
        while (a < z) {
            std::size_t b = a + 1;
            while (b < z && marks_[b + 1].offset - marks_[a].offset <= window_bytes_) ++b;
            const std::uint64_t from = marks_[a].offset;
            window.resize(static_cast<std::size_t>(marks_[b].offset - from));
            file_->read_into(window.data(), from, window.size());
            std::vector<ChunkError> errors(b - a);
#pragma omp parallel for num_threads(threads_) if (threads_ > 1 && b - a > 1) schedule(dynamic, 1)
            for (std::size_t q = a; q < b; ++q) {
                std::vector<double> scratch(columns);
                const char* p = window.data() + (marks_[q].offset - from);
                const char* const end = window.data() + (marks_[q + 1].offset - from);
                std::uint64_t row = marks_[q].row, line = marks_[q].line;
                ChunkError& error = errors[q - a];
                for (; p != end; ++line) {
                    const Line text = line_at(p, end, line);
                    p = text.next;
                    if (!has_content(text)) continue;
                    if (row >= first && row < last) {
                        double* values = scratch.data();
                        if constexpr (std::is_same_v<T, double>) values = out + (row - first) * columns;
                        const std::size_t found =
                            parse_data_line<CoordinateValue>(text.begin, text.end, rules, values, "value", error.reason);
                        if (error.reason.empty() && found != columns) error.reason = "no values";
                        if (!error.reason.empty()) {
                            error.line = line;
                            error.reason += " (the file changed since its first pass, which read this line)";
                            break;
                        }
                        if constexpr (!std::is_same_v<T, double>)
                            for (std::size_t j = 0; j < columns; ++j)
                                out[(row - first) * columns + j] = static_cast<T>(scratch[j]);
                    }
                    ++row;
                }
                if (error.reason.empty() && row != marks_[q + 1].row) {
                    error.line = marks_[q].line;
                    error.reason = "the file changed since its first pass: rows " + std::to_string(marks_[q].row + 1) +
                                   " to " + std::to_string(marks_[q + 1].row) + " started on this line, now " +
                                   std::to_string(row - marks_[q].row) + " rows are there";
                }
            }
            for (const ChunkError& error : errors)
                if (!error.reason.empty()) throw InputError::at_line(path_, error.line, error.reason);
            if (drop_behind_) file_->drop_read(from, window.size());
            a = b;
        }
    }

    std::string path_;
    std::optional<RegularFile> file_;  // (opened in the pass's agreement: a rank that cannot open it stops every rank)
    FileLayout layout_;
    int threads_;
    std::size_t window_bytes_;
    bool drop_behind_;
    std::vector<TextMark> marks_;  // ascending rows; the last one is the end: (rows, the file's size, ...)
    std::size_t rows_ = 0;
};

}  // namespace

void set_text_chunk_bytes(std::size_t bytes) noexcept { chunk_bytes_in_use.store(bytes ? bytes : kChunkBytes); }
void set_text_prefix_bytes(std::size_t bytes) noexcept { prefix_bytes_in_use.store(bytes ? bytes : kPrefixBytes); }

Matrix<double> parse_text_matrix(const std::string& path, FileBytes& bytes, const LoadOptions& options) {
    const TextStart start = text_start(path, bytes);
    const Layout layout =
        find_layout<CoordinateValue>(path, start.begin, bytes.data.get() + bytes.size, start.empty);
    std::vector<double> values = parse_rows<CoordinateValue>(path, bytes, layout, options, "value");
    const std::size_t rows = values.size() / layout.columns;
    return Matrix<double>(rows, layout.columns, std::move(values));
}

std::vector<std::int32_t> parse_text_labels(const std::string& path, FileBytes& bytes) {
    const TextStart start = text_start(path, bytes);
    const Layout layout = find_layout<LabelValue>(path, start.begin, bytes.data.get() + bytes.size, start.empty);
    if (layout.columns != 1)
        throw InputError::at_line(path, layout.first_data_line,
                                  "expected 1 label per line, found " + std::to_string(layout.columns));
    return parse_rows<LabelValue>(path, bytes, layout, LoadOptions{}, "label");
}

}  // namespace kms::io_detail

namespace kms {

RowBlock load_text_block(const std::string& path, Communicator& comm, const RowSplit& split,
                         const LoadOptions& options) {
    using namespace io_detail;
    const auto ranks = static_cast<std::size_t>(comm.size());
    const auto rank = static_cast<std::size_t>(comm.rank());
    std::optional<RegularFile> file;
    std::optional<ForwardScan> scan;
    FileLayout layout;
    ShareScan share;
    agreed(&comm, [&] {
        file.emplace(path, "regular text or .npy file");
        if (file->size() == 0) throw InputError::whole(path, "empty file: no data rows");
        layout = file_layout(path, *file);
        scan.emplace(*file);
        const std::uint64_t data_bytes = file->size() - layout.data_offset;
        const auto share_start = [&](std::size_t r) {
            // floor(data_bytes · r / ranks) without overflow
            return layout.data_offset + data_bytes / ranks * r + data_bytes % ranks * r / ranks;
        };
        share = scan_share(*scan, layout.data_offset, share_start(rank), share_start(rank + 1), options.cancel, path);
    });

    // Every share's rows and lines, in file order: the file's rows and where each share starts.
    const std::int64_t counts[2] = {static_cast<std::int64_t>(share.rows), static_cast<std::int64_t>(share.lines)};
    const std::vector<std::int64_t> all_counts = comm.allgather(std::span<const std::int64_t>(counts, 2));
    std::vector<std::uint64_t> rows_before(ranks + 1, 0), lines_before(ranks + 1, 0);
    for (std::size_t r = 0; r < ranks; ++r) {
        rows_before[r + 1] = rows_before[r] + static_cast<std::uint64_t>(all_counts[2 * r]);
        lines_before[r + 1] = lines_before[r] + static_cast<std::uint64_t>(all_counts[2 * r + 1]);
    }
    RowBlock block;
    block.global_rows = static_cast<std::size_t>(rows_before[ranks]);
    const std::vector<std::size_t> first = split(block.global_rows, layout.columns);
    if (first.size() != ranks + 1 || first.front() != 0 || first.back() != block.global_rows)
        throw Error("load_text_block: the split must give ranks + 1 row indices from 0 to the rows");

    // Each block's first row: found by the rank whose share holds it (offset and line, by block).
    std::vector<std::int64_t> found;
    agreed(&comm, [&] {
        for (std::size_t b = 1; b < ranks; ++b) {
            const std::uint64_t row = first[b];
            if (row >= block.global_rows || row < rows_before[rank] || row >= rows_before[rank + 1]) continue;
            const auto [offset, line] = locate_row(*scan, share, row - rows_before[rank]);
            found.insert(found.end(), {static_cast<std::int64_t>(b), static_cast<std::int64_t>(offset),
                                       static_cast<std::int64_t>(layout.first_data_line + lines_before[rank] + line)});
        }
    });
    std::vector<std::uint64_t> block_offset(ranks + 1, file->size()), block_line(ranks + 1, 0);
    block_offset[0] = layout.data_offset;
    block_line[0] = layout.first_data_line;
    const std::vector<std::int64_t> all_found = comm.allgather(std::span<const std::int64_t>(found));
    for (std::size_t i = 0; i + 2 < all_found.size(); i += 3) {
        block_offset[static_cast<std::size_t>(all_found[i])] = static_cast<std::uint64_t>(all_found[i + 1]);
        block_line[static_cast<std::size_t>(all_found[i])] = static_cast<std::uint64_t>(all_found[i + 2]);
    }

    // This rank's block: its bytes parsed as load_dataset parses the whole file.
    block.first_row = first[rank];
    const std::size_t rows = first[rank + 1] - first[rank];
    agreed(&comm, [&] {
        std::vector<double> values;
        if (rows > 0) {
            const std::uint64_t begin = block_offset[rank], end = block_offset[rank + 1];
            FileBytes bytes;
            bytes.data.reset(static_cast<char*>(std::malloc(static_cast<std::size_t>(end - begin) + 1)));
            if (!bytes.data) throw_out_of_memory(path, end - begin);
            bytes.size = static_cast<std::size_t>(end - begin);
            file->read_into(bytes.data.get(), begin, bytes.size);
            const Layout local{bytes.data.get(), block_line[rank], layout.separator, layout.columns, layout.columns_line};
            LoadOptions parse_options;
            parse_options.cancel = options.cancel;
            try {
                values = parse_rows<CoordinateValue>(path, bytes, local, parse_options, "value");
            } catch (const std::bad_alloc&) {
                throw_out_of_memory(path, std::to_string(rows) + " points × " + std::to_string(layout.columns));
            }
            if (values.size() != rows * layout.columns)
                throw Error(path + ": internal error: block of " + std::to_string(rows) + " rows parsed as " +
                            std::to_string(values.size() / layout.columns));
        }
        block.points = Matrix<double>(rows, layout.columns, std::move(values));
    });
    return block;
}

std::shared_ptr<const RowSource> open_text_rows(const std::string& path, const TextRowsOptions& options) {
    return std::make_shared<const io_detail::TextRowSource>(path, options);
}

TextFileShape text_file_shape(const std::string& path) {
    const io_detail::RegularFile file(path, "regular text file");
    if (file.size() == 0) throw InputError::whole(path, "empty file: no data rows");
    const io_detail::FileLayout layout = io_detail::file_layout(path, file);
    TextFileShape shape;
    shape.cols = layout.columns;
    shape.data_bytes = file.size() - layout.data_offset;
    shape.max_rows = (shape.data_bytes + 1) / (2 * layout.columns);  // (parse_rows' bound)
    return shape;
}

}  // namespace kms
