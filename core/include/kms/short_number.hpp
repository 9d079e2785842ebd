#pragma once
// A number as messages print it.
#include <cstdio>
#include <string>

namespace kms {

// At most 6 significant digits, exponent form for the very large and small ("1e+300",
// "2.5", "6.9e-309"): std::to_string's %f printed 1e300 as 301 digits (issue 39).
inline std::string short_number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace kms
