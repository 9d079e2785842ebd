#pragma once
// A small strict option parser for the kmeans-cli subcommands: "--name value"
// or "--name=value" and boolean flags; unknown options, missing values and
// repeated options are usage errors that name the option.
#include <charconv>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kms::cli {

// A usage error: the command prints it with a hint and exits with code 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Options {
public:
    // value_options take a value; flags do not.
    Options(const std::vector<std::string>& args, const std::set<std::string>& value_options,
            const std::set<std::string>& flags) {
        for (std::size_t i = 0; i < args.size(); ++i) {
            std::string name = args[i], value;
            bool has_value = false;
            if (name.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + name + "'");
            if (const auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                has_value = true;
            }
            if (flags.count(name)) {
                if (has_value) throw UsageError("option " + name + " takes no value");
                values_[name] = "1";
                continue;
            }
            if (!value_options.count(name)) throw UsageError("unknown option " + name);
            if (!has_value) {
                if (i + 1 >= args.size()) throw UsageError("option " + name + " needs a value");
                value = args[++i];
            }
            if (values_.count(name)) throw UsageError("option " + name + " given twice");
            values_[name] = value;
        }
    }

    bool has(const std::string& name) const { return values_.count(name) != 0; }
    std::string get(const std::string& name, const std::string& fallback = {}) const {
        const auto it = values_.find(name);
        return it == values_.end() ? fallback : it->second;
    }

    template <typename Number>
    Number number(const std::string& name, Number fallback) const {
        const auto it = values_.find(name);
        if (it == values_.end()) return fallback;
        const std::string& text = it->second;
        Number value{};
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || text.empty())
            throw UsageError("option " + name + ": '" + text + "' is not a valid number");
        return value;
    }

private:
    std::map<std::string, std::string> values_;
};

}  // namespace kms::cli
