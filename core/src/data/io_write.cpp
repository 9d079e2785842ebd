// Writers. What happens to a destination depends on what is there (see
// kms/io.hpp): regular files (and the targets of symbolic links) are replaced
// atomically (temporary file in the target's folder, fsync, rename, fsync of the
// folder); descriptors (/dev/stdout, /dev/fd/N), FIFOs and character devices are
// written to directly; nothing that is not a regular file is ever replaced.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <system_error>
#include <vector>

#include "kms/error.hpp"
#include "kms/io.hpp"

namespace kms {
namespace {

std::string os_reason(int error_number) { return std::generic_category().message(error_number); }

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
    throw Error("cannot write " + path + ": " + reason);
}
[[noreturn]] void fail_errno(const std::string& path, int error_number, const std::string& where = {}) {
    fail(path, (where.empty() ? "" : where + ": ") + os_reason(error_number));
}

// Symbolic links followed before giving up (the kernel's own limit).
constexpr int kMaxLinks = 40;
// Temporary names are the target's name (shortened to keep within NAME_MAX) plus ".tmp-XXXXXXXX".
constexpr std::size_t kMaxTemporaryBase = 200;

struct Destination {
    enum class Kind {
        NewFile,      // nothing at `target` yet: create it (atomically, in `folder`)
        ReplaceFile,  // a regular file at `target`: replace it (atomically, in `folder`)
        Descriptor,   // one of this process's open descriptors: write to it
        Stream,       // a FIFO or a character device at `target`: open it and write to it
    } kind = Kind::NewFile;
    std::string path;    // as the caller gave it, for messages
    std::string target;  // after following symbolic links
    std::string folder;  // the target's folder (files only)
    int descriptor = -1;  // Kind::Descriptor
    struct stat info {};  // the existing target (ReplaceFile, Stream)
};

std::string folder_of(const std::string& path) {
    const std::string parent = std::filesystem::path(path).parent_path().string();
    return parent.empty() ? "." : parent;
}

std::string name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::optional<int> parse_descriptor(std::string_view digits) {
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || value < 0) return std::nullopt;
    return value;
}

// /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N, /proc/self/fd/N,
// /proc/thread-self/fd/N, /proc/<our pid>/fd/N: an open descriptor of ours,
// written at its current position (what a shell does with "> /dev/stdout").
std::optional<int> own_descriptor(const std::string& path) {
    if (path == "/dev/stdin") return 0;
    if (path == "/dev/stdout") return 1;
    if (path == "/dev/stderr") return 2;
    const std::string own_pid = "/proc/" + std::to_string(::getpid()) + "/fd/";
    for (const std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/"),
                                          std::string_view("/proc/thread-self/fd/"), std::string_view(own_pid)})
        if (path.size() > prefix.size() && std::string_view(path).substr(0, prefix.size()) == prefix)
            return parse_descriptor(std::string_view(path).substr(prefix.size()));
    return std::nullopt;
}

const char* kind_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "an unknown kind of file";
}

bool writable(const std::string& path, int mode) { return ::faccessat(AT_FDCWD, path.c_str(), mode, AT_EACCESS) == 0; }

// Follows symbolic links to what would be written, and checks that it can be,
// without creating, opening or changing anything.
Destination resolve(const std::string& path) {
    if (path.empty()) fail(path, "empty path");
    Destination destination;
    destination.path = path;
    std::string current = path;
    for (int links = 0;; ++links) {
        if (const std::optional<int> descriptor = own_descriptor(current)) {
            const int flags = ::fcntl(*descriptor, F_GETFL);
            if (flags < 0) fail(path, "descriptor " + std::to_string(*descriptor) + " is not open");
            if ((flags & O_ACCMODE) == O_RDONLY)
                fail(path, "descriptor " + std::to_string(*descriptor) + " is open for reading only");
            destination.kind = Destination::Kind::Descriptor;
            destination.target = current;
            destination.descriptor = *descriptor;
            return destination;
        }
        struct stat info {};
        if (::lstat(current.c_str(), &info) != 0) {
            const int error_number = errno;
            if (error_number != ENOENT) fail_errno(path, error_number, current == path ? "" : current);
            // Nothing there: a new file, in a folder that must exist and be writable.
            const std::string folder = folder_of(current);
            struct stat folder_info {};
            if (::stat(folder.c_str(), &folder_info) != 0) fail_errno(path, errno, "folder " + folder);
            if (!S_ISDIR(folder_info.st_mode)) fail_errno(path, ENOTDIR, "folder " + folder);
            if (!writable(folder, W_OK | X_OK)) fail_errno(path, errno, "folder " + folder);
            destination.kind = Destination::Kind::NewFile;
            destination.target = current;
            destination.folder = folder;
            return destination;
        }
        if (S_ISLNK(info.st_mode)) {
            if (links == kMaxLinks) fail_errno(path, ELOOP);
            if (current.rfind("/proc/", 0) == 0) {
                // A kernel link ("pipe:[1234]", a deleted file): only the kernel can follow it.
                struct stat followed {};
                if (::stat(current.c_str(), &followed) != 0) fail_errno(path, errno, current);
                if (!S_ISFIFO(followed.st_mode) && !S_ISCHR(followed.st_mode))
                    fail(path, current + " is a /proc link to " + kind_name(followed.st_mode) +
                                   ": give the file's own path");
                if (!writable(current, W_OK)) fail_errno(path, errno, current);
                destination.kind = Destination::Kind::Stream;
                destination.target = current;
                destination.info = followed;
                return destination;
            }
            std::string link(static_cast<std::size_t>(info.st_size > 0 ? info.st_size : 255) + 1, '\0');
            for (;;) {
                const ssize_t length = ::readlink(current.c_str(), link.data(), link.size());
                if (length < 0) fail_errno(path, errno, current);
                if (static_cast<std::size_t>(length) < link.size()) {
                    link.resize(static_cast<std::size_t>(length));
                    break;
                }
                link.resize(link.size() * 2);  // the link changed while we read it
            }
            current = link.front() == '/' ? link : folder_of(current) + "/" + link;
            continue;
        }
        if (S_ISREG(info.st_mode)) {
            const std::string folder = folder_of(current);
            if (!writable(current, W_OK)) fail_errno(path, errno, current == path ? "" : current);
            // Replacing needs a new file beside the old one.
            if (!writable(folder, W_OK | X_OK)) {
                const int error_number = errno;
                fail(path, "folder " + folder + ": " + os_reason(error_number) +
                               " (the file is replaced by a new one written in its folder)");
            }
            destination.kind = Destination::Kind::ReplaceFile;
            destination.target = current;
            destination.folder = folder;
            destination.info = info;
            return destination;
        }
        if (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode)) {
            if (!writable(current, W_OK)) fail_errno(path, errno, current == path ? "" : current);
            destination.kind = Destination::Kind::Stream;
            destination.target = current;
            destination.info = info;
            return destination;
        }
        if (S_ISDIR(info.st_mode)) fail_errno(path, EISDIR, current == path ? "" : current);
        fail(path, (current == path ? std::string() : current + ": ") + "is " + kind_name(info.st_mode) +
                       ": refusing to write to it or replace it");
    }
}

// One output on its way: a flushed temporary file waiting for its rename, or an
// open stream waiting for its contents.
struct Pending {
    Destination destination;
    std::string_view contents;
    std::string temporary;
    int fd = -1;          // an opened stream (closed by cleanup)
    bool own_fd = false;  // false for Kind::Descriptor
};

void write_all(int fd, std::string_view contents, const std::string& path) {
    // A reader that went away must give EPIPE here, not kill the process with
    // SIGPIPE: block it in this thread, and take back one we raised ourselves.
    sigset_t pipe_signal, previous, pending;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    sigpending(&pending);
    const bool already_pending = sigismember(&pending, SIGPIPE) == 1;
    std::size_t written = 0;
    int error_number = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            error_number = errno;
            break;
        }
        written += static_cast<std::size_t>(n);
    }
    if (error_number == EPIPE && !already_pending) {
        const timespec no_wait{0, 0};
        while (sigtimedwait(&pipe_signal, nullptr, &no_wait) < 0 && errno == EINTR) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (error_number != 0) fail_errno(path, error_number);
}

void cleanup(std::vector<Pending>& outputs) noexcept {
    for (Pending& output : outputs) {
        if (output.fd >= 0 && output.own_fd) ::close(output.fd);
        output.fd = -1;
        if (!output.temporary.empty()) ::unlink(output.temporary.c_str());
        output.temporary.clear();
    }
}

// Writes the contents to a new temporary file beside the target, flushed to disk
// (keep_open: only creates it, open, for OutputFile to write to).
void prepare_file(Pending& output, bool keep_open = false) {
    const Destination& destination = output.destination;
    const std::string& path = destination.path;
    std::string base = name_of(destination.target);
    if (base.size() > kMaxTemporaryBase) base.resize(kMaxTemporaryBase);
    std::random_device entropy;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, ".tmp-%08x", static_cast<unsigned>(entropy()));
        const std::string temporary = destination.folder + "/" + base + suffix;
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0) output.temporary = temporary;
        else if (errno != EEXIST) fail_errno(path, errno, "folder " + destination.folder);
    }
    if (fd < 0) fail(path, "no free temporary file name in " + destination.folder);
    output.fd = fd;
    output.own_fd = true;
    if (destination.kind == Destination::Kind::ReplaceFile) {
        // The new file keeps the old one's permissions (and, for root, its owner).
        ::fchmod(fd, destination.info.st_mode & 07777);
        if (::geteuid() == 0 && ::fchown(fd, destination.info.st_uid, destination.info.st_gid) != 0) {
        }
    }
    if (keep_open) return;
    write_all(fd, output.contents, path);
    // Without the flush, a crash after the rename could leave an empty file under the old name.
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) fail_errno(path, errno);
    output.fd = -1;
    if (::close(fd) != 0) fail_errno(path, errno);
}

// Opens a FIFO or a character device for writing, without waiting for a reader.
void open_stream(Pending& output) {
    const Destination& destination = output.destination;
    const int fd = ::open(destination.target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int error_number = errno;
        if (error_number == ENXIO && S_ISFIFO(destination.info.st_mode))
            fail(destination.path, "no process has the FIFO open for reading (it is not waited for)");
        fail_errno(destination.path, error_number, destination.target == destination.path ? "" : destination.target);
    }
    output.fd = fd;
    output.own_fd = true;
    struct stat opened {};
    // Between the check and the open, the path may have become something else.
    if (::fstat(fd, &opened) != 0 || (!S_ISFIFO(opened.st_mode) && !S_ISCHR(opened.st_mode)))
        fail(destination.path, "changed while it was being opened");
    // Once open, writes may block as on any pipe or device.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

void sync_folder(const std::string& folder) noexcept {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

// Regular-file destinations written twice in one call would overwrite each other.
void refuse_duplicates(const std::vector<Pending>& outputs) {
    struct Identity {
        dev_t device;
        ino_t inode;
        std::string name;  // for new files: the name in the folder (device, inode)
        std::string path;
    };
    std::vector<Identity> seen;
    for (const Pending& output : outputs) {
        const Destination& destination = output.destination;
        Identity identity{};
        identity.path = destination.path;
        if (destination.kind == Destination::Kind::ReplaceFile) {
            identity.device = destination.info.st_dev;
            identity.inode = destination.info.st_ino;
        } else if (destination.kind == Destination::Kind::NewFile) {
            struct stat folder {};
            if (::stat(destination.folder.c_str(), &folder) != 0) continue;
            identity.device = folder.st_dev;
            identity.inode = folder.st_ino;
            identity.name = name_of(destination.target);
        } else {
            continue;  // streams and descriptors may take several outputs in a row
        }
        for (const Identity& other : seen)
            if (other.device == identity.device && other.inode == identity.inode && other.name == identity.name)
                fail(destination.path, "the same file as " + other.path + " (each output needs its own file)");
        seen.push_back(identity);
    }
}

}  // namespace

void check_output_path(const std::string& path) { (void)resolve(path); }

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_contents) {
    std::vector<Pending> outputs;
    outputs.reserve(path_and_contents.size());
    for (const auto& [path, contents] : path_and_contents) outputs.push_back(Pending{resolve(path), contents, {}, -1, false});
    refuse_duplicates(outputs);
    try {
        // 1. Everything that can fail before any destination changes.
        for (Pending& output : outputs) {
            switch (output.destination.kind) {
                case Destination::Kind::NewFile:
                case Destination::Kind::ReplaceFile: prepare_file(output); break;
                case Destination::Kind::Stream: open_stream(output); break;
                case Destination::Kind::Descriptor: output.fd = output.destination.descriptor; break;
            }
        }
        // 2. Streams (cannot be undone: written before any file is replaced).
        for (Pending& output : outputs) {
            if (output.destination.kind == Destination::Kind::Descriptor) {
                // Keep the order with what this process printed through stdio.
                if (output.fd == 1) std::fflush(stdout);
                if (output.fd == 2) std::fflush(stderr);
            }
            if (output.destination.kind == Destination::Kind::Stream ||
                output.destination.kind == Destination::Kind::Descriptor) {
                write_all(output.fd, output.contents, output.destination.path);
                if (output.own_fd) {
                    const int fd = output.fd;
                    output.fd = -1;
                    if (::close(fd) != 0) fail_errno(output.destination.path, errno);
                }
                output.fd = -1;
            }
        }
        // 3. The renames.
        for (Pending& output : outputs) {
            if (output.temporary.empty()) continue;
            if (::rename(output.temporary.c_str(), output.destination.target.c_str()) != 0)
                fail_errno(output.destination.path, errno);
            output.temporary.clear();
            sync_folder(output.destination.folder);
        }
    } catch (...) {
        cleanup(outputs);
        throw;
    }
}

struct OutputFile::State {
    Pending output;
    bool committed = false;
};

OutputFile::OutputFile(const std::string& path) : state_(std::make_unique<State>()) {
    Pending& output = state_->output;
    output.destination = resolve(path);
    std::vector<Pending> one;
    try {
        switch (output.destination.kind) {
            case Destination::Kind::NewFile:
            case Destination::Kind::ReplaceFile: prepare_file(output, /*keep_open=*/true); break;
            case Destination::Kind::Stream: open_stream(output); break;
            case Destination::Kind::Descriptor:
                output.fd = output.destination.descriptor;
                if (output.fd == 1) std::fflush(stdout);
                if (output.fd == 2) std::fflush(stderr);
                break;
        }
    } catch (...) {
        one.push_back(std::move(output));
        cleanup(one);
        throw;
    }
}

OutputFile::~OutputFile() {
    if (!state_ || state_->committed) return;
    std::vector<Pending> one;
    one.push_back(std::move(state_->output));
    cleanup(one);
}

const std::string& OutputFile::path() const noexcept { return state_->output.destination.path; }

void OutputFile::write(std::string_view bytes) {
    Pending& output = state_->output;
    if (state_->committed || output.fd < 0) fail(output.destination.path, "written after commit()");
    write_all(output.fd, bytes, output.destination.path);
}

void OutputFile::commit() {
    Pending& output = state_->output;
    if (state_->committed) return;
    const std::string& path = output.destination.path;
    if (!output.temporary.empty()) {
        const int fd = output.fd;
        output.fd = -1;
        if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
            const int error_number = errno;
            ::close(fd);
            fail_errno(path, error_number);
        }
        if (::close(fd) != 0) fail_errno(path, errno);
        if (::rename(output.temporary.c_str(), output.destination.target.c_str()) != 0) fail_errno(path, errno);
        output.temporary.clear();
        sync_folder(output.destination.folder);
    } else if (output.own_fd) {
        const int fd = output.fd;
        output.fd = -1;
        if (::close(fd) != 0) fail_errno(path, errno);
    }
    output.fd = -1;
    state_->committed = true;
}

std::string labels_text(std::span<const std::int32_t> labels) {
    std::string text;
    text.reserve(labels.size() * 4);
    char buffer[16];
    for (const std::int32_t label : labels) {
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, label);
        text.append(buffer, result.ptr);
        text += '\n';
    }
    return text;
}

std::string centroids_csv_text(const Matrix<double>& centroids) {
    std::string text;
    text.reserve(centroids.size() * 24);
    char buffer[32];
    for (std::size_t i = 0; i < centroids.rows(); ++i) {
        for (std::size_t j = 0; j < centroids.cols(); ++j) {
            const double value = centroids(i, j);
            // The loaders refuse NaN and infinities, so writing one would make a file that cannot be read back.
            if (!std::isfinite(value))
                throw Error("centroid " + std::to_string(i) + " coordinate " + std::to_string(j) +
                            " is not a finite number");
            if (j) text += ',';
            // Shortest form that parses back to the same double.
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
            text.append(buffer, result.ptr);
        }
        text += '\n';
    }
    return text;
}

void write_labels(const std::string& path, std::span<const std::int32_t> labels) {
    write_files_atomically({{path, labels_text(labels)}});
}

void write_centroids_csv(const std::string& path, const Matrix<double>& centroids) {
    std::string text;
    try {
        text = centroids_csv_text(centroids);
    } catch (const Error& error) {
        fail(path, error.what());
    }
    write_files_atomically({{path, std::move(text)}});
}

void write_text_file(const std::string& path, const std::string& contents) {
    write_files_atomically({{path, contents}});
}

namespace {
// Rows formatted by `format_row(row, out)` in parallel chunks, written in order.
using RowFormatter = std::function<void(std::size_t row, std::string& out)>;
void write_rows(OutputFile& file, std::size_t rows, const RowFormatter& format_row, const std::stop_token& stop) {
    constexpr std::size_t kChunkRows = 32768;
    constexpr std::size_t kChunksPerBatch = 16;
    std::vector<std::string> chunks(kChunksPerBatch);
    for (std::size_t batch_begin = 0; batch_begin < rows; batch_begin += kChunkRows * kChunksPerBatch) {
        const auto chunk_count = static_cast<std::int64_t>(
            std::min(kChunksPerBatch, (rows - batch_begin + kChunkRows - 1) / kChunkRows));
#pragma omp parallel for schedule(dynamic)
        for (std::int64_t c = 0; c < chunk_count; ++c) {
            std::string& text = chunks[static_cast<std::size_t>(c)];
            text.clear();
            const std::size_t begin = batch_begin + static_cast<std::size_t>(c) * kChunkRows;
            const std::size_t end = std::min(rows, begin + kChunkRows);
            for (std::size_t row = begin; row < end; ++row) format_row(row, text);
        }
        for (std::int64_t c = 0; c < chunk_count; ++c) file.write(chunks[static_cast<std::size_t>(c)]);
        if (stop.stop_requested()) throw Cancelled("cancelled: " + file.path() + " not written");
    }
}
}  // namespace

void write_csv(OutputFile& file, const Matrix<double>& rows, const std::string& header, std::stop_token stop) {
    file.write(header);
    write_rows(
        file, rows.rows(),
        [&rows](std::size_t row, std::string& out) {
            char buffer[32];
            for (std::size_t j = 0; j < rows.cols(); ++j) {
                if (j) out += ',';
                const auto result = std::to_chars(buffer, buffer + sizeof buffer, rows(row, j));  // shortest round trip
                out.append(buffer, result.ptr);
            }
            out += '\n';
        },
        stop);
}

void write_labels(OutputFile& file, std::span<const std::int32_t> labels, std::stop_token stop) {
    const std::string& path = file.path();
    if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
        write_npy(file, labels);
        return;
    }
    write_rows(
        file, labels.size(),
        [&labels](std::size_t row, std::string& out) {
            char buffer[16];
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, labels[row]);
            out.append(buffer, result.ptr);
            out += '\n';
        },
        stop);
}

}  // namespace kms
