// Writers: the whole text is built in memory, written to a temporary file in
// the target's folder, flushed to disk, then renamed over the target, so a
// reader sees the old file or the new one, never half of one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <random>
#include <system_error>

#include "kms/error.hpp"
#include "kms/io.hpp"

namespace kms {
namespace {

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

[[noreturn]] void fail(const std::string& path, const std::string& what, int error_number) {
    throw Error("cannot write " + path + ": " + what + os_reason(error_number));
}

// Creates PATH.tmp-XXXXXXXX (mode 0666 less the umask, like any new file).
int create_temporary(const std::string& path, std::string& temporary) {
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, ".tmp-%08x", static_cast<unsigned>(entropy()));
        temporary = path + suffix;
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return fd;
        if (errno != EEXIST) fail(path, "", errno);
    }
    fail(path, "no free temporary name: ", EEXIST);
}

void write_atomically(const std::string& path, std::string_view contents) {
    std::string temporary;
    const int fd = create_temporary(path, temporary);
    auto abandon = [&](const char* what, int error_number) {
        ::close(fd);
        ::unlink(temporary.c_str());
        fail(path, what, error_number);
    };
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("", errno);
        }
        written += static_cast<std::size_t>(n);
    }
    // Without the flush, a crash after the rename could leave an empty file under the old name.
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) abandon("", errno);
    if (::close(fd) != 0) {
        const int error_number = errno;
        ::unlink(temporary.c_str());
        fail(path, "", error_number);
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error_number = errno;
        ::unlink(temporary.c_str());
        fail(path, "", error_number);
    }
}

}  // namespace

void write_labels(const std::string& path, std::span<const std::int32_t> labels) {
    std::string text;
    text.reserve(labels.size() * 4);
    char buffer[16];
    for (const std::int32_t label : labels) {
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, label);
        text.append(buffer, result.ptr);
        text += '\n';
    }
    write_atomically(path, text);
}

void write_centroids_csv(const std::string& path, const Matrix<double>& centroids) {
    std::string text;
    text.reserve(centroids.size() * 24);
    char buffer[32];
    for (std::size_t i = 0; i < centroids.rows(); ++i) {
        for (std::size_t j = 0; j < centroids.cols(); ++j) {
            const double value = centroids(i, j);
            // The loaders refuse NaN and infinities, so writing one would make a file that cannot be read back.
            if (!std::isfinite(value))
                throw Error("cannot write " + path + ": centroid " + std::to_string(i) + " coordinate " +
                            std::to_string(j) + " is not a finite number");
            if (j) text += ',';
            // Shortest form that parses back to the same double.
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
            text.append(buffer, result.ptr);
        }
        text += '\n';
    }
    write_atomically(path, text);
}

void write_text_file(const std::string& path, const std::string& contents) { write_atomically(path, contents); }

}  // namespace kms
