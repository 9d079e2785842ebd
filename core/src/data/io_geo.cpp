// Latitude/longitude tables (kms/io.hpp, load_geo_table): a header row names the
// columns, other columns may hold text, so this reads only the two fields it needs
// from each line, with the file, line and reason for anything wrong.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <tuple>

#include "detail/io_detail.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"

namespace kms {

namespace {

std::string_view trim_blanks(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Fields of one line split at `separator`, outside double quotes; quotes removed
// ("" inside quotes is one quote). nullopt when a quote is not closed on the line.
std::optional<std::vector<std::string>> split_line(std::string_view line, char separator) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"') fields.back() += c;
            else if (i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
            else quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == separator) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    if (quoted) return std::nullopt;
    return fields;
}

char detect_separator(std::string_view header) {
    std::size_t best = 0;
    char separator = ',';
    for (const char candidate : {',', '\t', ';'}) {
        const auto count = static_cast<std::size_t>(std::count(header.begin(), header.end(), candidate));
        if (count > best) {
            best = count;
            separator = candidate;
        }
    }
    return separator;
}

std::string header_list(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + std::string(trim_blanks(name)) + "'";
    return text;
}

// The column `wanted` names (header name or 1-based number), or the one column
// whose name is among `usual`.
std::size_t find_column(const std::string& path, std::uint64_t line, const std::vector<std::string>& names,
                        const std::string& wanted, std::initializer_list<const char*> usual, const char* what,
                        const char* option) {
    if (!wanted.empty()) {
        std::size_t number = 0;
        const auto [end, error] = std::from_chars(wanted.data(), wanted.data() + wanted.size(), number);
        if (error == std::errc() && end == wanted.data() + wanted.size()) {
            if (number < 1 || number > names.size())
                throw InputError::at_line(path, line, std::string(option) + " " + wanted + ": the header has " +
                                                          std::to_string(names.size()) + " columns (" +
                                                          header_list(names) + ")");
            return number - 1;
        }
        for (std::size_t i = 0; i < names.size(); ++i)
            if (lower(trim_blanks(names[i])) == lower(trim_blanks(wanted))) return i;
        throw InputError::at_line(path, line, std::string(option) + " '" + wanted + "': no such column in the header (" +
                                                  header_list(names) + ")");
    }
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string name = lower(trim_blanks(names[i]));
        if (std::none_of(usual.begin(), usual.end(), [&](const char* u) { return name == u; })) continue;
        if (found)
            throw InputError::at_line(path, line, std::string("two ") + what + " columns ('" +
                                                      std::string(trim_blanks(names[*found])) + "' and '" +
                                                      std::string(trim_blanks(names[i])) + "'): choose one with " + option);
        found = i;
    }
    if (!found)
        throw InputError::at_line(path, line, std::string("no ") + what + " column in the header (" + header_list(names) +
                                                  "): name it with " + option + " NAME or " + option + " NUMBER");
    return *found;
}

double parse_coordinate(const std::string& path, std::uint64_t line, const std::string& field, const char* what,
                        double limit) {
    std::string_view text = trim_blanks(field);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty()) throw InputError::at_line(path, line, std::string(what) + " is empty");
    if (error != std::errc() || end != text.data() + text.size())
        throw InputError::at_line(path, line, std::string(what) + " " + io_detail::quote_token(field) + " is not a number");
    if (std::isnan(value)) throw InputError::at_line(path, line, std::string(what) + " is NaN");
    if (!(std::abs(value) <= limit))
        throw InputError::at_line(path, line, std::string(what) + " " + std::string(text) + " is outside [-" +
                                                  std::to_string(int(limit)) + ", " + std::to_string(int(limit)) + "]");
    return value;
}

// "91", "-0.5", "1e+300": a coordinate in a message.
std::string coordinate_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

// A .npy table (load_geo_table): the numbers as load_dataset reads them, then the two columns.
GeoTable load_npy_geo_table(const std::string& path, io_detail::FileBytes& bytes, const GeoColumns& columns,
                            const LoadOptions& options) {
    Matrix<double> values = io_detail::parse_npy_matrix(path, bytes, options);
    bytes.release();
    if (values.rows() == 0) throw InputError::whole(path, "no rows of latitude, longitude");
    const auto [lat, lon] = npy_geo_columns(path, values.cols(), columns);
    GeoTable table;
    table.name = path;
    table.lat_column = "column " + std::to_string(lat + 1);
    table.lon_column = "column " + std::to_string(lon + 1);
    table.degrees = Matrix<double>(values.rows(), 2);
    for (std::size_t i = 0; i < values.rows(); ++i) {
        check_geo_coordinates(path, i + 1, values(i, lat), values(i, lon));
        table.degrees(i, 0) = values(i, lat);
        table.degrees(i, 1) = values(i, lon);
    }
    return table;
}

}  // namespace

std::pair<std::size_t, std::size_t> npy_geo_columns(const std::string& path, std::size_t cols,
                                                    const GeoColumns& columns) {
    const auto number = [&](const std::string& wanted, const char* option) {
        std::size_t value = 0;
        const auto [end, error] = std::from_chars(wanted.data(), wanted.data() + wanted.size(), value);
        if (error != std::errc() || end != wanted.data() + wanted.size())
            throw InputError::whole(path, std::string("a .npy has no column names: give ") + option +
                                              " as a 1-based column number, not '" + wanted + "'");
        if (value < 1 || value > cols)
            throw InputError::whole(path, std::string(option) + " " + wanted + ": the .npy has " + std::to_string(cols) +
                                              " column" + (cols == 1 ? "" : "s"));
        return value - 1;
    };
    if (columns.lat.empty() && columns.lon.empty()) {
        if (cols != 2)
            throw InputError::whole(path, std::to_string(cols) + " column" + (cols == 1 ? "" : "s") +
                                              ": a .npy of latitude, longitude has 2, or --lat and --lon give "
                                              "their 1-based numbers");
        return {0, 1};
    }
    if (columns.lat.empty() || columns.lon.empty())
        throw InputError::whole(path, std::string("a .npy has no column names: give both --lat and --lon (1-based "
                                                  "column numbers), or neither for a file of 2 columns"));
    const std::size_t lat = number(columns.lat, "--lat"), lon = number(columns.lon, "--lon");
    if (lat == lon) throw InputError::whole(path, "--lat and --lon name the same column");
    return {lat, lon};
}

void check_geo_coordinates(const std::string& path, std::uint64_t row, double lat, double lon) {
    for (const auto& [value, what, limit] : {std::tuple{lat, "latitude", 90.0}, std::tuple{lon, "longitude", 180.0}})
        if (!(std::abs(value) <= limit))
            throw InputError::whole(path, "row " + std::to_string(row) + ": " + what + " " + coordinate_text(value) +
                                              " is outside [-" + std::to_string(int(limit)) + ", " +
                                              std::to_string(int(limit)) + "]");
}

GeoTable load_geo_table(const std::string& path, const GeoColumns& columns, const LoadOptions& options) {
    io_detail::FileBytes bytes = io_detail::read_whole_file(path, options);
    if (io_detail::has_npy_magic(bytes.view())) return load_npy_geo_table(path, bytes, columns, options);
    std::string_view rest = io_detail::skip_utf8_bom(bytes.view());
    const std::uint64_t total = bytes.size;

    GeoTable table;
    table.name = path;
    std::vector<double> values;
    std::optional<std::vector<std::string>> header;
    std::size_t lat_index = 0, lon_index = 0;
    char separator = ',';
    std::uint64_t line_number = 0;
    while (!rest.empty()) {
        const std::size_t newline = rest.find('\n');
        std::string_view line = rest.substr(0, newline);
        rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
        ++line_number;
        if (line_number % 8192 == 0) {
            if (options.cancel.stop_requested()) io_detail::throw_cancelled(path);
            if (options.progress) options.progress(total - rest.size(), total);
        }
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::string_view content = trim_blanks(line);
        if (content.empty() || content.front() == '#') continue;
        if (line.find('\0') != std::string_view::npos)
            throw InputError::at_line(path, line_number, "a NUL byte: this is not a text table");
        if (!header) {
            separator = detect_separator(line);
            header = split_line(line, separator);
            if (!header) throw InputError::at_line(path, line_number, "a quote is not closed on the header line");
            lat_index = find_column(path, line_number, *header, columns.lat, {"lat", "latitude"}, "latitude", "--lat");
            lon_index = find_column(path, line_number, *header, columns.lon, {"lon", "lng", "long", "longitude"},
                                    "longitude", "--lon");
            if (lat_index == lon_index)
                throw InputError::at_line(path, line_number, "--lat and --lon name the same column");
            table.lat_column = std::string(trim_blanks((*header)[lat_index]));
            table.lon_column = std::string(trim_blanks((*header)[lon_index]));
            continue;
        }
        const auto fields = split_line(line, separator);
        if (!fields) throw InputError::at_line(path, line_number, "a quote is not closed on this line");
        const std::size_t needed = std::max(lat_index, lon_index) + 1;
        if (fields->size() < needed)
            throw InputError::at_line(path, line_number, std::to_string(fields->size()) + " fields, but the " +
                                                             (lat_index >= lon_index ? "latitude" : "longitude") +
                                                             " is field " + std::to_string(needed));
        values.push_back(parse_coordinate(path, line_number, (*fields)[lat_index], "latitude", 90.0));
        values.push_back(parse_coordinate(path, line_number, (*fields)[lon_index], "longitude", 180.0));
    }
    if (!header) throw InputError::whole(path, "no header row: a latitude/longitude table starts with its column names");
    if (values.empty()) throw InputError::whole(path, "a header but no data rows");
    if (options.progress) options.progress(total, total);
    table.degrees = Matrix<double>(values.size() / 2, 2);
    std::copy(values.begin(), values.end(), table.degrees.data());
    return table;
}

}  // namespace kms
