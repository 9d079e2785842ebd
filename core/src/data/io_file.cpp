// Reading whole files with plain POSIX calls: the OS reason (errno) reaches the
// message, and a 200 MB file is one allocation and a few large reads.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "detail/io_detail.hpp"
#include "kms/error.hpp"

namespace kms::io_detail {
namespace {

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const noexcept { return fd_; }

private:
    int fd_;
};

// Reads are done in pieces so that a stop request is seen within one piece.
constexpr std::size_t kReadPiece = std::size_t{32} << 20;

}  // namespace

[[noreturn]] void throw_cancelled(const std::string& path) { throw Error(path + ": loading cancelled"); }

bool has_npy_magic(std::string_view bytes) noexcept {
    return bytes.size() >= 6 && bytes.substr(0, 6) == std::string_view("\x93NUMPY", 6);
}

std::string quote_token(std::string_view token) {
    constexpr std::size_t kMaxShown = 40;
    std::string out = "'";
    const std::size_t shown = std::min(token.size(), kMaxShown);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto byte = static_cast<unsigned char>(token[i]);
        if (byte >= 0x20 && byte < 0x7f) {
            out += static_cast<char>(byte);
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
            out += escaped;
        }
    }
    if (shown < token.size()) out += "...";
    out += "'";
    return out;
}

FileBytes read_whole_file(const std::string& path, const std::stop_token& cancel) {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
        const int error_number = errno;
        throw InputError::whole(path, "cannot open: " + os_reason(error_number));
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
        const int error_number = errno;
        throw InputError::whole(path, "cannot read: " + os_reason(error_number));
    }
    if (S_ISDIR(info.st_mode)) throw InputError::whole(path, "is a directory, not a data file");

    FileBytes bytes;
    // Regular files: exactly st_size bytes (fewer if it shrinks while we read).
    // Pipes and devices report no size: grow as data arrives.
    std::size_t capacity = S_ISREG(info.st_mode) ? static_cast<std::size_t>(info.st_size) : kReadPiece;
    const bool growable = !S_ISREG(info.st_mode);
    bytes.data.reset(new char[capacity + 1]);
    for (;;) {
        if (cancel.stop_requested()) throw_cancelled(path);
        if (bytes.size == capacity) {
            if (!growable) break;
            const std::size_t bigger = capacity * 2;
            std::unique_ptr<char[]> grown(new char[bigger + 1]);
            std::memcpy(grown.get(), bytes.data.get(), bytes.size);
            bytes.data = std::move(grown);
            capacity = bigger;
        }
        const std::size_t want = std::min(kReadPiece, capacity - bytes.size);
        const ssize_t got = ::read(fd.get(), bytes.data.get() + bytes.size, want);
        if (got < 0) {
            if (errno == EINTR) continue;
            const int error_number = errno;
            throw InputError::at_byte(path, bytes.size, "read failed: " + os_reason(error_number));
        }
        if (got == 0) break;
        bytes.size += static_cast<std::size_t>(got);
    }
    return bytes;
}

}  // namespace kms::io_detail
