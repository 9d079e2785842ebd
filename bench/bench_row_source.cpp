// The out-of-core reader alone (issue 42): a .npy read through kms::open_matrix_rows and
// kms::read_blocks (the CPU solver's double-buffered blocks, checked over the OpenMP
// threads, OMP_NUM_THREADS, and nothing else done on them), beside the disk's buffered sequential rate on the same file (read() of 16 MiB
// at a time, each dropped behind, as dd bs=16M iflag=nocache), both cold: the file's pages are dropped before each run.
// Runs alternate (disk, reader, disk, reader, ...); medians of R runs.
//
//   bench_row_source PATH [--repeats R] [--block-mib M] [--f32]
//
// --block-mib: the blocks' size (default 64: the solver's cap, kMaxWindowBytes);
// --f32: read as float (the converting path). Prints one line per run and the medians.
#include <fcntl.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/row_source.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

void drop_pages(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw kms::Error(path + ": cannot open");
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

// dd if=PATH of=/dev/null bs=16M iflag=nocache (each read dropped behind): bytes per second.
double disk_rate(const std::string& path) {
    drop_pages(path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw kms::Error(path + ": cannot open");
    std::vector<char> buffer(std::size_t{16} << 20);
    std::uint64_t bytes = 0;
    const auto start = std::chrono::steady_clock::now();
    for (ssize_t got; (got = ::read(fd, buffer.data(), buffer.size())) > 0;) {
        ::posix_fadvise(fd, static_cast<off_t>(bytes), got, POSIX_FADV_DONTNEED);
        bytes += static_cast<std::uint64_t>(got);
    }
    const double rate = static_cast<double>(bytes) / seconds_since(start);
    ::close(fd);
    return rate;
}

template <typename T>
double reader_rate(const std::string& path, std::size_t block_bytes, double& cpu) {
    drop_pages(path);
    const auto source = kms::open_matrix_rows(path);
    std::vector<T> buffers[2];
    const std::size_t block_rows = std::max<std::size_t>(1, block_bytes / (source->cols() * sizeof(T)));
    // Touched before the clock starts: the solver's buffers live from pass to pass.
    for (auto& buffer : buffers) buffer.assign(std::min(block_rows, source->rows()) * source->cols(), T(0));
    const double cpu_start = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t bytes = kms::read_blocks(*source, 0, source->rows(), block_rows, buffers, omp_get_max_threads(),
                                                 [](std::size_t, std::size_t, const T*) {});
    const double rate = static_cast<double>(bytes) / seconds_since(start);
    cpu = cpu_seconds() - cpu_start;
    return rate;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path;
    int repeats = 5;
    std::size_t block_mib = 64;
    bool f32 = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--block-mib" && i + 1 < argc) block_mib = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (arg == "--f32") f32 = true;
        else if (path.empty() && arg[0] != '-') path = arg;
        else {
            std::fprintf(stderr, "usage: bench_row_source PATH [--repeats R] [--block-mib M] [--f32]\n");
            return 2;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: bench_row_source PATH [--repeats R] [--block-mib M] [--f32]\n");
        return 2;
    }
    try {
        std::vector<double> disk, reader, cpu;
        for (int r = 0; r < repeats; ++r) {
            disk.push_back(disk_rate(path) / 1e6);
            double seconds = 0;
            reader.push_back((f32 ? reader_rate<float>(path, block_mib << 20, seconds)
                                  : reader_rate<double>(path, block_mib << 20, seconds)) / 1e6);
            cpu.push_back(seconds);
            std::printf("run %d: disk %.0f MB/s, reader %.0f MB/s (%.2f CPU-s)\n", r + 1, disk.back(), reader.back(),
                        cpu.back());
        }
        const double d = median(disk), m = median(reader);
        std::printf("median: disk %.0f MB/s, reader %.0f MB/s, %.0f %% of the disk, %.2f CPU-s\n", d, m, 100 * m / d,
                    median(cpu));
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_row_source: %s\n", error.what());
        return 1;
    }
    return 0;
}
