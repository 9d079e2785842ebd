// Reading whole files with plain POSIX calls: the OS reason (errno) reaches the
// message, and a 200 MB file is one allocation and a few large reads. Every input
// is opened with O_NONBLOCK, so that opening a FIFO nobody writes to returns at
// once; what is then read depends on what the path turned out to be (fstat):
//  - a regular file with a size: exactly that many bytes, in one allocation;
//  - a regular file of size 0 (/proc/cpuinfo and friends), a pipe, a FIFO, a
//    character device: read to the end, growing the buffer, up to
//    LoadOptions::max_stream_bytes (one byte more is an error, so /dev/zero ends
//    with a clear message, not with the memory exhausted);
//  - a directory, a block device, a socket: refused.
// A named FIFO without a writer reads as "no data yet and nobody to send it"
// (read() returns 0 at once with O_NONBLOCK). It is waited for, up to
// LoadOptions::fifo_writer_wait, then refused; once a writer has appeared, the
// reader waits for data as long as it takes (poll, waking now and then to look at
// the stop token), like any program reading a pipe.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
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
// First buffer for an input without a size (most /proc files and small pipes fit).
constexpr std::size_t kFirstStreamBuffer = std::size_t{1} << 20;
// How often a wait on a pipe wakes up to look at the stop token.
constexpr int kPollMilliseconds = 50;
// statfs().f_type of the kernel's pipe file system: an anonymous pipe (a shell
// pipeline's /dev/stdin, bash's <(...)) always had a writer, so a 0 from read()
// is its end, never "no writer yet".
constexpr long kPipeFsMagic = 0x50495045;

std::string byte_count(std::uint64_t bytes) {
    std::string text = std::to_string(bytes) + " bytes";
    if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0)
        text += " (" + std::to_string(bytes >> 30) + " GiB)";
    else if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0)
        text += " (" + std::to_string(bytes >> 20) + " MiB)";
    return text;
}

enum class Stream { SizelessFile, Pipe, Fifo, CharDevice };

const char* describe(Stream kind) {
    switch (kind) {
        case Stream::SizelessFile: return "a file that reports no size";
        case Stream::Pipe: return "a pipe";
        case Stream::Fifo: return "a FIFO";
        case Stream::CharDevice: return "a character device";
    }
    return "a stream";
}

void* allocate(const std::string& path, std::size_t bytes) {
    void* p = std::malloc(bytes);
    if (!p) throw_out_of_memory(path, bytes);
    return p;
}

FileBytes read_sized_file(const std::string& path, int fd, std::size_t size, const std::stop_token& cancel) {
    FileBytes bytes;
    bytes.data.reset(static_cast<char*>(allocate(path, size + 1)));
    while (bytes.size < size) {
        if (cancel.stop_requested()) throw_cancelled(path);
        const std::size_t want = std::min(kReadPiece, size - bytes.size);
        const ssize_t got = ::read(fd, bytes.data.get() + bytes.size, want);
        if (got < 0) {
            if (errno == EINTR) continue;
            const int error_number = errno;
            throw InputError::at_byte(path, bytes.size, "read failed: " + os_reason(error_number));
        }
        if (got == 0) break;  // the file shrank while we read it
        bytes.size += static_cast<std::size_t>(got);
    }
    return bytes;
}

FileBytes read_stream(const std::string& path, int fd, Stream kind, const LoadOptions& options) {
    const std::uint64_t limit = options.max_stream_bytes;
    // One byte past the limit is read to tell "exactly the limit" from "more".
    const std::size_t ceiling = static_cast<std::size_t>(std::min<std::uint64_t>(limit, SIZE_MAX - 2) + 1);
    FileBytes bytes;
    std::size_t capacity = std::min(kFirstStreamBuffer, ceiling);
    bytes.data.reset(static_cast<char*>(allocate(path, capacity + 1)));
    bool writer_seen = kind != Stream::Fifo;
    const auto started = std::chrono::steady_clock::now();
    for (;;) {
        if (options.cancel.stop_requested()) throw_cancelled(path);
        if (bytes.size == capacity) {
            if (capacity == ceiling) break;
            const std::size_t bigger = capacity > ceiling / 2 ? ceiling : capacity * 2;
            void* grown = std::realloc(bytes.data.get(), bigger + 1);
            if (!grown) throw_out_of_memory(path, bigger);
            (void)bytes.data.release();
            bytes.data.reset(static_cast<char*>(grown));
            capacity = bigger;
        }
        const std::size_t want = std::min(kReadPiece, capacity - bytes.size);
        const ssize_t got = ::read(fd, bytes.data.get() + bytes.size, want);
        if (got > 0) {
            bytes.size += static_cast<std::size_t>(got);
            writer_seen = true;
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A writer (or a terminal) is there, with nothing to say yet: wait for it.
            writer_seen = true;
            pollfd wait{fd, POLLIN, 0};
            ::poll(&wait, 1, kPollMilliseconds);
            continue;
        }
        if (got < 0) {
            const int error_number = errno;
            throw InputError::at_byte(path, bytes.size, "read failed: " + os_reason(error_number));
        }
        // got == 0: the end, unless this is a named FIFO that no writer has opened yet.
        if (writer_seen) break;
        pollfd wait{fd, POLLIN, 0};
        // POLLHUP: a writer came and went (without writing): the end. Nothing: no writer yet.
        if (::poll(&wait, 1, kPollMilliseconds) > 0 && (wait.revents & (POLLHUP | POLLIN))) {
            writer_seen = (wait.revents & POLLIN) != 0;
            if (!writer_seen) break;
            continue;
        }
        if (std::chrono::steady_clock::now() - started >= options.fifo_writer_wait) {
            const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(options.fifo_writer_wait).count();
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(waited) / 1000.0);
            throw InputError::whole(path, std::string("no process opened the FIFO for writing within ") + seconds +
                                              " s, so there is nothing to read");
        }
    }
    if (bytes.size > limit)
        throw InputError::whole(path, "more than " + byte_count(limit) + " from " + describe(kind) +
                                          ": inputs without a size are read up to that limit");
    return bytes;
}

}  // namespace

[[noreturn]] void throw_cancelled(const std::string& path) { throw Error(path + ": loading cancelled"); }

[[noreturn]] void throw_out_of_memory(const std::string& path, std::uint64_t bytes) {
    throw Error(path + ": not enough memory to load " + byte_count(bytes));
}

[[noreturn]] void throw_out_of_memory(const std::string& path, const std::string& what) {
    throw Error(path + ": not enough memory to load " + what);
}

FileBytes FileBytes::copy_of(std::string_view bytes) {
    FileBytes copy;
    copy.data.reset(static_cast<char*>(std::malloc(bytes.size() + 1)));
    if (!copy.data) throw std::bad_alloc();
    if (!bytes.empty()) std::memcpy(copy.data.get(), bytes.data(), bytes.size());
    copy.size = bytes.size();
    return copy;
}

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

RegularFile::RegularFile(const std::string& path, const char* what) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd_ < 0) throw InputError::whole(path, "cannot open: " + os_reason(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd_);
        throw InputError::whole(path, std::string("a rank reads its block of rows by position: the input must be a ") +
                                          what + ", not a pipe, a device or a folder");
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    size_ = static_cast<std::uint64_t>(info.st_size);
    modified_ns_ = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

bool RegularFile::changed() const noexcept {
    struct stat info {};
    if (::fstat(fd_, &info) != 0) return true;
    return static_cast<std::uint64_t>(info.st_size) != size_ ||
           static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec != modified_ns_;
}

RegularFile::~RegularFile() { ::close(fd_); }

std::string RegularFile::read(std::uint64_t offset, std::size_t count) const {
    std::string bytes(count, '\0');
    read_into(bytes.data(), offset, count);
    return bytes;
}

void RegularFile::read_into(char* destination, std::uint64_t offset, std::size_t count) const {
    std::size_t done = 0;
    while (done < count) {
        const ssize_t got = ::pread(fd_, destination + done, count - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            throw InputError::at_byte(path_, offset + done,
                                      got < 0 ? "read failed: " + os_reason(errno) : std::string("the file ended early"));
        done += static_cast<std::size_t>(got);
    }
}

void RegularFile::drop_cached(std::uint64_t offset, std::uint64_t count) const noexcept {
    ::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(count), POSIX_FADV_DONTNEED);
}

void RegularFile::drop_read(std::uint64_t offset, std::uint64_t count) const noexcept {
    constexpr std::uint64_t kFolio = std::uint64_t{2} << 20;
    const std::uint64_t from = offset / kFolio * kFolio, end = offset + count;
    const std::uint64_t to = end >= size_ ? (size_ + kFolio - 1) / kFolio * kFolio : end / kFolio * kFolio;
    if (to > from) drop_cached(from, to - from);
}

FileBytes read_whole_file(const std::string& path, const LoadOptions& options) {
    // O_NOCTTY: a terminal named as input must not become our controlling terminal.
    const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (raw < 0) {
        const int error_number = errno;
        struct stat info {};
        if (error_number == ENXIO && ::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode))
            throw InputError::whole(path, "is a socket, not a data file");
        throw InputError::whole(path, "cannot open: " + os_reason(error_number));
    }
    FileDescriptor fd(raw);
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
        const int error_number = errno;
        throw InputError::whole(path, "cannot read: " + os_reason(error_number));
    }
    if (S_ISDIR(info.st_mode)) throw InputError::whole(path, "is a directory, not a data file");
    if (S_ISBLK(info.st_mode)) throw InputError::whole(path, "is a block device, not a data file");
    if (S_ISSOCK(info.st_mode)) throw InputError::whole(path, "is a socket, not a data file");

    if (S_ISREG(info.st_mode)) {
        // Regular files never block; blocking reads keep the loop simple.
        ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
        if (info.st_size > 0) return read_sized_file(path, fd.get(), static_cast<std::size_t>(info.st_size), options.cancel);
        return read_stream(path, fd.get(), Stream::SizelessFile, options);
    }
    if (S_ISCHR(info.st_mode)) return read_stream(path, fd.get(), Stream::CharDevice, options);
    if (S_ISFIFO(info.st_mode)) {
        struct statfs filesystem {};
        const bool anonymous = ::fstatfs(fd.get(), &filesystem) == 0 && filesystem.f_type == kPipeFsMagic;
        return read_stream(path, fd.get(), anonymous ? Stream::Pipe : Stream::Fifo, options);
    }
    throw InputError::whole(path, "is not a regular file, a pipe or a character device");
}

}  // namespace kms::io_detail
