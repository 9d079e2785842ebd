#pragma once
// The one option table: every option's name, value, default and help text lives
// here once, and the CLI's commands and the studio parse their command lines from
// it ("--name value", "--name=value", flags). Unknown, repeated or value-less
// options are kms::UsageError naming the option.
#include <charconv>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/geo.hpp"

namespace kms {

struct OptionSpec {
    std::string_view name;       // "--k"
    std::string_view value;      // "K" in the help; empty for a flag
    std::string_view fallback;   // the default, as text; empty when none
    std::string_view help;       // one line (continuation lines start with '\n')
};
using OptionTable = std::span<const OptionSpec>;

// The fit options: --k --solver --backend --variant --gemm-filter --precision
// --init --seed --n-init --max-iter --tol --threads --block-size --device --empty.
OptionTable fit_option_table();
// The data options: --input, --generate.
OptionTable data_option_table();
// Geographic data: --geo, --lat, --lon, --geo-projection (kms/geo.hpp).
OptionTable geo_option_table();

// A whole-text number, or kms::UsageError naming the option.
template <typename Number>
Number parse_number(std::string_view option, const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw UsageError("option " + std::string(option) + ": '" + text + "' is not a valid number");
    return value;
}

class ParsedOptions {
public:
    // Throws kms::UsageError for anything not in `tables`.
    ParsedOptions(const std::vector<std::string>& args, std::initializer_list<OptionTable> tables);

    bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
    // The value given, else the table's default, else `fallback`.
    std::string get(std::string_view name, const std::string& fallback = {}) const;
    template <typename Number>
    Number number(std::string_view name) const {
        return parse_number<Number>(name, get(name));
    }

private:
    std::vector<OptionTable> tables_;
    std::map<std::string, std::string> values_;
};

// The fit options of a command line, validated (FitOptions::validate). k is 0
// when --k is absent and `k_required` is false (the studio picks one itself), and
// when `read_k` is false (a command whose --k means something else: spectral).
FitOptions fit_options_from(const ParsedOptions& options, bool k_required = true, bool read_k = true);

// The geographic options of a command line (--lat or --lon imply --geo).
GeoOptions geo_options_from(const ParsedOptions& options);

// "  --name VALUE   help (default X)" lines for --help.
std::string options_help(OptionTable table);

}  // namespace kms
