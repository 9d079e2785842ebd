// libFuzzer target: the option table's parser and the fit options it builds, as
// kmeans-cli run and the studio use them. The input is split into arguments at
// NUL bytes and newlines. Bad usage must be a kms::Error (UsageError); anything
// else escaping, a crash or a sanitizer report is a finding. Options that pass
// must also pass FitOptions::validate().
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args(1);
    for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\0' || c == '\n') args.emplace_back();
        else args.back() += c;
    }
    if (args.back().empty()) args.pop_back();
    try {
        const kms::ParsedOptions options(args, {kms::data_option_table(), kms::fit_option_table()});
        const kms::FitOptions fit = kms::fit_options_from(options, false);
        if (fit.k > 0) fit.validate();  // what fit_options_from accepted is valid
        fit.solver.validate();
    } catch (const kms::Error&) {
    }
    return 0;
}
