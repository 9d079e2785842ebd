#pragma once
// A large zeroed vector whose first touch answers a stop request (issue 39: the zero-fill
// of gigabytes, Elkan's n·k bounds or a generator's 10^8 points, took seconds deaf to
// Ctrl-C). The values are reserved (no page touched), then zeroed 2^21 at a time with the
// token checked between; a stop throws kms::Cancelled(message).
#include <algorithm>
#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/error.hpp"

namespace kms {

template <typename V>
void assign_zeroed(std::vector<V>& values, std::size_t count, const std::stop_token& stop, const std::string& message) {
    constexpr std::size_t kStep = std::size_t{1} << 21;
    values.clear();
    values.reserve(count);
    while (values.size() < count) {
        if (stop.stop_requested()) throw Cancelled(message);
        values.resize(std::min(count, values.size() + kStep));
    }
}

}  // namespace kms
