// libFuzzer target: NumPy .npy, parsed in memory as points and as labels. Inputs
// without the magic get it prepended, so that the fuzzer spends its time in the
// header and data parsers rather than rediscovering six bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "detail/io_detail.hpp"
#include "fuzz_common.hpp"
#include "kms/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!kms::io_detail::has_npy_magic(bytes)) bytes.insert(0, "\x93NUMPY", 6);
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        kms::fuzz::check_matrix(kms::io_detail::parse_matrix("fuzz.npy", copy, {}));
    } catch (const kms::Error&) {
    }
    try {
        kms::io_detail::FileBytes copy = kms::io_detail::FileBytes::copy_of(bytes);
        const auto labels = kms::io_detail::parse_labels("fuzz-labels.npy", copy);
        if (labels.empty()) __builtin_trap();
    } catch (const kms::Error&) {
    }
    return 0;
}
