// How much memory a process may still use (kms/row_source.hpp): what decides
// whether the points are loaded or read a block at a time.
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "kms/row_source.hpp"

namespace kms {
namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

// "Key:   123 kB" of a /proc file, in bytes; kUnknown when absent.
std::uint64_t proc_kilobytes(const char* path, const std::string& key) {
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line))
        if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() && line[key.size()] == ':') {
            std::istringstream value(line.substr(key.size() + 1));
            std::uint64_t kilobytes = 0;
            if (value >> kilobytes) return kilobytes * 1024;
        }
    return kUnknown;
}

// A cgroup v2 file holding one number (or "max"); kUnknown when absent or unlimited.
std::uint64_t cgroup_number(const std::string& file_name) {
    std::ifstream cgroup_of_self("/proc/self/cgroup");
    std::string line, group;
    while (std::getline(cgroup_of_self, line))
        if (line.compare(0, 3, "0::") == 0) group = line.substr(3);
    if (group.empty()) return kUnknown;
    std::ifstream file("/sys/fs/cgroup" + group + "/" + file_name);
    std::string text;
    if (!(file >> text) || text == "max") return kUnknown;
    try {
        return std::stoull(text);
    } catch (...) {
        return kUnknown;
    }
}

// Room under a resource limit, given what the process uses of it now.
std::uint64_t room_under(int resource, std::uint64_t used) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnknown;
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    return cap > used ? cap - used : 0;
}

}  // namespace

std::uint64_t available_memory_bytes() {
    std::uint64_t room = proc_kilobytes("/proc/meminfo", "MemAvailable");
    const std::uint64_t cgroup_max = cgroup_number("memory.max");
    if (cgroup_max != kUnknown) {
        const std::uint64_t current = cgroup_number("memory.current");
        room = std::min(room, current != kUnknown && current < cgroup_max ? cgroup_max - current : 0);
    }
    const std::uint64_t mapped = proc_kilobytes("/proc/self/status", "VmSize");
    const std::uint64_t data = proc_kilobytes("/proc/self/status", "VmData");
    room = std::min(room, room_under(RLIMIT_AS, mapped == kUnknown ? 0 : mapped));
    room = std::min(room, room_under(RLIMIT_DATA, data == kUnknown ? 0 : data));
    return room == kUnknown ? 0 : room;
}

std::uint64_t parse_byte_size(const std::string& text) {
    std::size_t used = 0;
    double value = 0.0;
    try {
        value = std::stod(text, &used);
    } catch (...) {
        return 0;
    }
    std::string unit = text.substr(used);
    if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
    if (unit.size() == 2 && unit.back() == 'i') unit.pop_back();
    double scale = 1.0;
    if (unit.size() == 1) {
        const std::string units = "KMGT";
        const std::size_t power = units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
        if (power == std::string::npos) return 0;
        scale = std::pow(1024.0, static_cast<double>(power + 1));
    } else if (!unit.empty()) {
        return 0;
    }
    const double bytes = value * scale;
    if (!(bytes >= 1.0) || bytes > 9.0e18) return 0;
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace kms
