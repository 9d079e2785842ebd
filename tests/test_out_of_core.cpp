// Out of core (issue 42): fit() of a RowSource, the points read from a .npy a block
// at a time, against fit() of the loaded matrix: the same labels, centroids, inertia
// and iterations, bit for bit, for any block size, thread count and number of ranks;
// each rank reads only its rows; what cannot run out of core is refused by name.
#include "test_support.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/geo.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "kms/row_source.hpp"

namespace {

// A .npy of `values` (rows × cols) as '<f8' or '<f4' (the values rounded to float).
void write_npy_file(const std::string& path, const kms::Matrix<double>& values, bool as_float) {
    std::string dict = std::string("{'descr': '") + (as_float ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(values.rows()) + ", " +
                       std::to_string(values.cols()) + "), }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += '\x01';
    bytes += '\x00';
    bytes += static_cast<char>(dict.size() & 0xff);
    bytes += static_cast<char>(dict.size() >> 8);
    bytes += dict;
    for (const double v : values.span()) {
        char raw[8];
        if (as_float) {
            const float f = static_cast<float>(v);
            std::memcpy(raw, &f, 4);
            bytes.append(raw, 4);
        } else {
            std::memcpy(raw, &v, 8);
            bytes.append(raw, 8);
        }
    }
    kms::write_text_file(path, bytes);
}

// The ANN benchmarks' headerless formats: .fvecs (each row its int32 dimension, then float32
// values), .fbin (uint32 rows, uint32 columns, then float32 values), .bvecs (as .fvecs, uint8
// values: the coordinates times 20 plus 128, clamped). Little-endian, as this machine is.
void write_headerless_file(const std::string& path, const kms::Matrix<double>& values) {
    const std::string extension = std::filesystem::path(path).extension().string();
    std::string bytes;
    const auto word = [&bytes](std::uint32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
    if (extension == ".fbin") {
        word(static_cast<std::uint32_t>(values.rows()));
        word(static_cast<std::uint32_t>(values.cols()));
    }
    for (std::size_t i = 0; i < values.rows(); ++i) {
        if (extension != ".fbin") word(static_cast<std::uint32_t>(values.cols()));
        for (std::size_t j = 0; j < values.cols(); ++j) {
            if (extension == ".bvecs") {
                bytes += static_cast<char>(static_cast<std::uint8_t>(std::clamp(values(i, j) * 20.0 + 128.0, 0.0, 255.0)));
            } else {
                const float f = static_cast<float>(values(i, j));
                bytes.append(reinterpret_cast<const char*>(&f), 4);
            }
        }
    }
    kms::write_text_file(path, bytes);
}

// `values` as delimited text in one of three styles, each of the loader's rules on the way:
// 0: ',' with a header, '#' comments (whole lines and trailing), blank lines, CRLF, no newline
//    after the last line; 1: spaces and tabs, LF, a comment first; 2: ';', '+' signs, blank
//    lines of spaces. Values alternate between 17 significant digits (std::from_chars) and 6
//    decimals (the short decimals' exact fast path), so both parse paths are read again.
void write_text_points(const std::string& path, const kms::Matrix<double>& values, int style) {
    const char* const newline = style == 0 ? "\r\n" : "\n";
    const char separator = style == 0 ? ',' : style == 1 ? '\t' : ';';
    std::string text = style == 0 ? "x,y,z\r\n# blobs\r\n" : style == 1 ? "# x y z\n" : "";
    char number[64];
    for (std::size_t i = 0; i < values.rows(); ++i) {
        if (i % 97 == 5) text += style == 0 ? "\r\n# a comment\r\n" : style == 1 ? "  # a comment\n" : "   \n";
        for (std::size_t j = 0; j < values.cols(); ++j) {
            std::snprintf(number, sizeof number, (i + j) % 2 ? "%.17g" : "%.6f", values(i, j));
            if (j) text += style == 1 && j == 1 ? std::string("  ") : std::string(1, separator);
            if (style == 2 && number[0] != '-') text += '+';
            text += number;
        }
        if (i % 13 == 0 && style == 0) text += " # trailing";
        if (i + 1 < values.rows()) text += newline;
    }
    kms::write_text_file(path, text);
}

// Records the rows a rank asked for, to show it read only its block.
class WatchedRows final : public kms::RowSource {
public:
    explicit WatchedRows(std::shared_ptr<const kms::RowSource> inner) : inner_(std::move(inner)) {}
    std::size_t rows() const override { return inner_->rows(); }
    std::size_t cols() const override { return inner_->cols(); }
    const std::string& name() const override { return inner_->name(); }
    std::size_t file_row_bytes() const override { return inner_->file_row_bytes(); }
    void read(std::size_t first, std::size_t count, double* out) const override {
        note(first, count);
        inner_->read(first, count, out);
    }
    void read(std::size_t first, std::size_t count, float* out) const override {
        note(first, count);
        inner_->read(first, count, out);
    }
    std::size_t lowest = std::numeric_limits<std::size_t>::max();
    mutable std::size_t highest = 0;  // one past the last row read

private:
    void note(std::size_t first, std::size_t count) const {
        const std::lock_guard lock(mutex_);  // the solver's reader runs on its own thread
        auto& self = const_cast<WatchedRows&>(*this);
        self.lowest = std::min(lowest, first);
        highest = std::max(highest, first + count);
    }
    std::shared_ptr<const kms::RowSource> inner_;
    mutable std::mutex mutex_;
};

// The rows of `inner`, except that a read of a block starting at row `fail_at` throws.
class FailingRows final : public kms::RowSource {
public:
    FailingRows(std::shared_ptr<const kms::RowSource> inner, std::size_t fail_at)
        : inner_(std::move(inner)), fail_at_(fail_at) {}
    std::size_t rows() const override { return inner_->rows(); }
    std::size_t cols() const override { return inner_->cols(); }
    const std::string& name() const override { return inner_->name(); }
    std::size_t file_row_bytes() const override { return inner_->file_row_bytes(); }
    void read(std::size_t first, std::size_t count, double* out) const override {
        if (first == fail_at_) throw kms::InputError::whole(name(), "block at " + std::to_string(first) + " failed");
        inner_->read(first, count, out);
    }
    void read(std::size_t first, std::size_t count, float* out) const override { inner_->read(first, count, out); }

private:
    std::shared_ptr<const kms::RowSource> inner_;
    std::size_t fail_at_;
};

// Pages of `path` in the page cache (mincore of a mapping, which faults nothing in).
std::size_t resident_pages(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const auto size = static_cast<std::size_t>(::lseek(fd, 0, SEEK_END));
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), pages = (size + page - 1) / page;
    std::vector<unsigned char> resident(pages);
    const bool known = map != MAP_FAILED && ::mincore(map, size, resident.data()) == 0;
    if (map != MAP_FAILED) ::munmap(map, size);
    ::close(fd);
    if (!known) throw std::runtime_error("mincore failed on " + path);
    return static_cast<std::size_t>(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }));
}

// The file written out and its pages dropped, as a file larger than memory would be cold.
void evict(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

void expect_same(const kms::FitResult& got, const kms::FitResult& want, const std::string& what) {
    QVERIFY2(got.labels == want.labels, (what + ": labels differ").c_str());
    QVERIFY2(got.centroids == want.centroids, (what + ": centroids differ").c_str());
    QVERIFY2(got.iterations == want.iterations,
             (what + ": " + std::to_string(got.iterations) + " iterations, loaded " + std::to_string(want.iterations)).c_str());
    QVERIFY2(got.inertia == want.inertia, (what + ": inertia differs").c_str());
    QVERIFY2(got.stop_reason == want.stop_reason, (what + ": stop reason differs").c_str());
}

// Each step's counters: distances (to points and between centroids), bound skips, labels
// changed (a bounded solver out of core must skip and compute exactly what it does loaded,
// and what it decides once a step, once).
struct StepCounts : kms::FitObserver {
    std::vector<std::array<std::uint64_t, 4>> steps;
    void iteration_done(int, const kms::IterationStats& stats, const kms::Solver&) override {
        steps.push_back({stats.point_centroid_distances, stats.centroid_centroid_distances, stats.bound_skips,
                         stats.labels_changed});
    }
};

// Sample weights for n rows: 0.25 .. 3.25 by row, every 17th zero (a cluster of zero weight is empty).
std::shared_ptr<const std::vector<double>> sample_weights(std::size_t n) {
    auto weights = std::make_shared<std::vector<double>>(n);
    for (std::size_t i = 0; i < n; ++i) (*weights)[i] = i % 17 == 0 ? 0.0 : 0.25 + static_cast<double>((i * 7) % 13) / 4.0;
    return weights;
}

// Ranks (threads of a ThreadGroup) each read only their block, a block at a time: one process's bits.
// `open` gives each rank its source (a text file's pass is collective: every rank opens it).
using OpenRows = std::function<std::shared_ptr<const kms::RowSource>(kms::Communicator&)>;
void ranks_read_only_their_blocks_with(const OpenRows& open,
                                       const std::shared_ptr<const kms::Matrix<double>>& loaded,
                                       kms::InitMethod method, bool weighted) {
    kms::FitOptions options;
    options.k = 9;
    options.init.seed = 5;
    options.init.method = method;
    options.solver.backend = kms::Backend::Sequential;
    if (weighted) options.sample_weight = sample_weights(loaded->rows());  // every row's, on every rank
    const kms::FitResult want = kms::fit(loaded, options);
    for (const int ranks : {2, 3}) {
        const std::vector<std::size_t> first = kms::partition_rows(loaded->rows(), options.k, loaded->cols(), ranks);
        std::vector<kms::FitResult> results(static_cast<std::size_t>(ranks));
        std::vector<std::shared_ptr<WatchedRows>> watched(static_cast<std::size_t>(ranks));
        kms::ThreadGroup group(ranks);
        group.run([&](std::shared_ptr<kms::Communicator> comm) {
            const auto r = static_cast<std::size_t>(comm->rank());
            watched[r] = std::make_shared<WatchedRows>(open(*comm));
            kms::FitOptions mine = options;
            mine.ranks = comm;
            results[r] = kms::fit(watched[r], 200000, mine);
        });
        for (std::size_t r = 0; r < results.size(); ++r) {
            expect_same(results[r], want,
                        std::to_string(ranks) + " ranks" + (weighted ? " weighted" : "") + ", rank " + std::to_string(r));
            if (first[r + 1] == first[r]) continue;
            QVERIFY2(watched[r]->lowest >= first[r] && watched[r]->highest <= first[r + 1],
                     ("rank " + std::to_string(r) + " read rows [" + std::to_string(watched[r]->lowest) + ", " +
                      std::to_string(watched[r]->highest) + ") outside its block [" + std::to_string(first[r]) +
                      ", " + std::to_string(first[r + 1]) + ")").c_str());
        }
    }
}

}  // namespace

class TestOutOfCore : public QObject {
    Q_OBJECT

    std::string dir_;

private slots:
    void initTestCase() {
        dir_ = (std::filesystem::temp_directory_path() / ("kms-ooc-" + std::to_string(::getpid()))).string();
        std::filesystem::create_directories(dir_);
        // 20 011 rows: packages of 256 (a short last one), 4096-row seeding blocks, neither dividing n.
        const kms::Dataset data = kms::generate_dataset("blobs:n=20011,k=6,d=3,spread=0.15", 7);
        write_npy_file(dir_ + "/f8.npy", data.points, false);
        write_npy_file(dir_ + "/f4.npy", data.points, true);
        for (const char* name : {"/f4.fvecs", "/f4.fbin", "/u1.bvecs"}) write_headerless_file(dir_ + name, data.points);
        // 60 000 rows in 2-D: enough for the rule's Exponion at k = 600 (100 points a cluster);
        // 100 000 in 4-D for its Ball at k = 5000 (20 points a cluster).
        write_npy_file(dir_ + "/many.npy", kms::generate_dataset("uniform:n=60000,d=2", 3).points, true);
        write_npy_file(dir_ + "/ball.npy", kms::generate_dataset("uniform:n=100000,d=4", 5).points, true);
    }
    void cleanupTestCase() { std::filesystem::remove_all(dir_); }

    // Every seeding, both precisions, both .npy dtypes and the headerless formats, blocks of one
    // package to all rows, one and two threads: the loaded fit's bits.
    void fit_over_rows_is_the_loaded_fit() {
        struct Case {
            const char* file;
            kms::InitMethod method;
            kms::Precision precision;
            kms::Algorithm algorithm = kms::Algorithm::Lloyd;
            std::size_t k = 9;
            bool weighted = false;  // sample weights (in memory beside the blocks)
        };
        const Case cases[] = {{"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64},
                              {"f8.npy", kms::InitMethod::GreedyKMeansPlusPlus, kms::Precision::F32},
                              {"f8.npy", kms::InitMethod::Maximin, kms::Precision::F64},
                              {"f4.npy", kms::InitMethod::Random, kms::Precision::F32},
                              {"f4.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64},
                              {"f4.fvecs", kms::InitMethod::Random, kms::Precision::F32},
                              {"f4.fvecs", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64},
                              {"f4.fbin", kms::InitMethod::GreedyKMeansPlusPlus, kms::Precision::F32},
                              {"u1.bvecs", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64},
                              // Hamerly's bounds kept beside the blocks: every step's distances and skips too.
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Hamerly},
                              {"f8.npy", kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Hamerly},
                              {"f4.fvecs", kms::InitMethod::Maximin, kms::Precision::F32, kms::Algorithm::Hamerly},
                              // Exponion's and Shallot's too, their annuli searched over each block's
                              // open points (k = 40: balls of a few annuli; k = 9: mostly in full).
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Exponion, 40},
                              {"f4.fvecs", kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Exponion},
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F32, kms::Algorithm("shallot"), 40},
                              {"f4.npy", kms::InitMethod::Maximin, kms::Precision::F64, kms::Algorithm("shallot")},
                              // k-means‖: a window at a time, the boxes' tree's candidates and weights bit for bit.
                              {"f8.npy", kms::InitMethod::KMeansParallel, kms::Precision::F64},
                              {"f4.fvecs", kms::InitMethod::KMeansParallel, kms::Precision::F32, kms::Algorithm::Hamerly},
                              // Sample weights: the weighted update, inertia and seeding, zero weights too.
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Lloyd, 9, true},
                              {"f4.npy", kms::InitMethod::GreedyKMeansPlusPlus, kms::Precision::F32, kms::Algorithm::Lloyd, 9, true},
                              {"f4.fbin", kms::InitMethod::Random, kms::Precision::F64, kms::Algorithm::Lloyd, 9, true},
                              {"f8.npy", kms::InitMethod::Maximin, kms::Precision::F32, kms::Algorithm::Hamerly, 9, true},
                              {"u1.bvecs", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Hamerly, 9, true},
                              {"f4.fvecs", kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Exponion, 40, true},
                              {"f8.npy", kms::InitMethod::KMeansParallel, kms::Precision::F64, kms::Algorithm::Lloyd, 9, true},
                              // Yinyang's group bounds too (k = 24, 40: two and four groups; ten centroids a group).
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Yinyang, 40},
                              {"f8.npy", kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Yinyang, 24},
                              {"f4.fvecs", kms::InitMethod::GreedyKMeansPlusPlus, kms::Precision::F32,
                               kms::Algorithm::Yinyang, 40},
                              // Elkan's k + 1 bounds a row: every step's distances, skips and changes.
                              {"f8.npy", kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Elkan, 24},
                              {"f4.fvecs", kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Elkan, 40},
                              {"f8.npy", kms::InitMethod::Maximin, kms::Precision::F32, kms::Algorithm::Elkan, 9, true}};
        // (buffer bytes, threads): one package a block (the least), a few, every row in one.
        const std::pair<std::size_t, int> shapes[] = {{1, 1}, {100000, 2}, {std::size_t{1} << 30, 1}};
        for (const Case& c : cases) {
            const std::string path = dir_ + "/" + c.file;
            const auto loaded = std::make_shared<const kms::Matrix<double>>(kms::load_dataset(path).points);
            const auto source = kms::open_matrix_rows(path);
            QCOMPARE(source->rows(), loaded->rows());
            kms::FitOptions options;
            options.k = c.k;
            options.init.method = c.method;
            options.init.seed = 3;
            options.solver.backend = kms::Backend::OpenMP;
            options.solver.precision = c.precision;
            options.solver.algorithm = c.algorithm;
            options.solver.threads = 2;
            options.solver.max_iterations = c.method == kms::InitMethod::Random ? 6 : 300;  // max-iter: the final relabel
            if (c.weighted) options.sample_weight = sample_weights(loaded->rows());
            StepCounts want_steps;
            const kms::FitResult want = kms::fit(loaded, options, &want_steps);
            for (const auto& [buffer, threads] : shapes) {
                options.solver.threads = threads;
                const std::string what = std::string(c.file) + (c.weighted ? " weighted" : "") + ", " +
                                         std::string(kms::to_string(c.algorithm)) + " k=" + std::to_string(c.k) + ", " +
                                         std::string(kms::to_string(c.method)) + ", " +
                                         std::string(kms::to_string(c.precision)) + ", buffers " +
                                         std::to_string(buffer) + ", threads " + std::to_string(threads);
                StepCounts steps;
                expect_same(kms::fit(source, buffer, options, &steps), want, what);
                QVERIFY2(steps.steps == want_steps.steps, (what + ": a step's distances, skips or changes differ").c_str());
            }
        }
    }

    // Ranks (threads of a ThreadGroup) each read only their block, a block at a time: one process's bits.
    void ranks_read_only_their_blocks() {
        const std::string path = dir_ + "/f8.npy";
        const auto loaded = std::make_shared<const kms::Matrix<double>>(kms::load_dataset(path).points);
        for (const bool weighted : {false, true})
            for (const kms::InitMethod method : {kms::InitMethod::KMeansPlusPlus, kms::InitMethod::KMeansParallel})
                ranks_read_only_their_blocks_with([&](kms::Communicator&) { return kms::open_matrix_rows(path); }, loaded,
                                                  method, weighted);
    }

    // Text out of core: the index's pass and every later pass parse the rows as the loader
    // does, so the fits are the loaded text's, bit for bit, in every style, for marks every
    // row to every 1024 rows, windows of one byte (one stretch a read) to 16 MiB, blocks of one
    // package to every row, one and two threads; and every read gives the loaded values.
    void text_rows_are_the_loaded_fit() {
        const kms::Matrix<double> points = kms::generate_dataset("blobs:n=5003,k=5,d=3,spread=0.15", 11).points;
        for (const int style : {0, 1, 2}) write_text_points(dir_ + "/text" + std::to_string(style) + ".csv", points, style);
        struct Case {
            int style;
            kms::InitMethod method;
            kms::Precision precision;
            kms::Algorithm algorithm;
            std::size_t k, rows_per_mark, window_bytes, buffer;
            int threads;
        };
        const Case cases[] = {
            {0, kms::InitMethod::Random, kms::Precision::F64, kms::Algorithm::Lloyd, 9, 1, 1, 1, 1},
            {0, kms::InitMethod::KMeansPlusPlus, kms::Precision::F64, kms::Algorithm::Lloyd, 9, 1024, 16 << 20, 1 << 30, 2},
            {1, kms::InitMethod::Random, kms::Precision::F32, kms::Algorithm::Hamerly, 9, 7, 300, 100000, 2},
            {1, kms::InitMethod::KMeansPlusPlus, kms::Precision::F32, kms::Algorithm::Hamerly, 9, 7, 300, 1, 1},
            {2, kms::InitMethod::GreedyKMeansPlusPlus, kms::Precision::F32, kms::Algorithm::Lloyd, 9, 50, 4096, 100000, 1},
            {2, kms::InitMethod::KMeansParallel, kms::Precision::F64, kms::Algorithm::Yinyang, 24, 3, 65536, 1 << 30, 2}};
        for (const Case& c : cases) {
            const std::string path = dir_ + "/text" + std::to_string(c.style) + ".csv";
            const auto loaded = std::make_shared<const kms::Matrix<double>>(kms::load_dataset(path).points);
            kms::TextRowsOptions text;
            text.threads = c.threads;
            text.rows_per_mark = c.rows_per_mark;
            text.window_bytes = c.window_bytes;
            text.drop_behind = c.style == 0;
            const auto source = kms::open_text_rows(path, text);
            QCOMPARE(source->rows(), loaded->rows());
            QCOMPARE(source->cols(), loaded->cols());
            // The values: all rows, and single rows and short runs anywhere, double and float.
            std::vector<double> all(loaded->size());
            source->read(0, loaded->rows(), all.data());
            QVERIFY2(std::memcmp(all.data(), loaded->data(), all.size() * sizeof(double)) == 0, path.c_str());
            for (const std::size_t first : {std::size_t{0}, std::size_t{6}, std::size_t{2500}, loaded->rows() - 13}) {
                std::vector<float> some(13 * loaded->cols());
                source->read(first, 13, some.data());
                for (std::size_t v = 0; v < some.size(); ++v)
                    QVERIFY2(some[v] == static_cast<float>(loaded->data()[first * loaded->cols() + v]), path.c_str());
            }
            kms::FitOptions options;
            options.k = c.k;
            options.init.method = c.method;
            options.init.seed = 4;
            options.solver.backend = kms::Backend::OpenMP;
            options.solver.precision = c.precision;
            options.solver.algorithm = c.algorithm;
            options.solver.threads = c.threads;
            options.solver.max_iterations = c.method == kms::InitMethod::Random ? 5 : 300;
            StepCounts want_steps, steps;
            const kms::FitResult want = kms::fit(loaded, options, &want_steps);
            const std::string what = "text style " + std::to_string(c.style) + ", " + std::string(kms::to_string(c.algorithm)) +
                                     ", " + std::string(kms::to_string(c.method)) + ", " +
                                     std::string(kms::to_string(c.precision)) + ", a mark every " +
                                     std::to_string(c.rows_per_mark) + " rows, windows of " +
                                     std::to_string(c.window_bytes) + " bytes, buffers " + std::to_string(c.buffer) +
                                     ", threads " + std::to_string(c.threads);
            expect_same(kms::fit(source, c.buffer, options, &steps), want, what);
            QVERIFY2(steps.steps == want_steps.steps, (what + ": a step's distances, skips or changes differ").c_str());
        }
    }

    // Text under ranks (threads of a ThreadGroup): the pass shared (each rank parses its share of
    // the bytes), each rank then reads only its block through the index: one process's bits.
    void text_ranks_read_only_their_blocks() {
        const std::string path = dir_ + "/ranks.csv";
        write_text_points(path, kms::generate_dataset("blobs:n=20011,k=6,d=3,spread=0.15", 7).points, 0);
        const auto loaded = std::make_shared<const kms::Matrix<double>>(kms::load_dataset(path).points);
        ranks_read_only_their_blocks_with(
            [&](kms::Communicator& comm) {
                kms::TextRowsOptions text;
                text.ranks = &comm;
                text.rows_per_mark = 100;
                text.window_bytes = 20000;
                return kms::open_text_rows(path, text);
            },
            loaded, kms::InitMethod::KMeansPlusPlus, false);
    }

    // A bad line deep in a text file: the pass names it as the loader does, one thread or two,
    // one process or ranks (once, by the rank whose share holds it). A file changed after the
    // pass is refused when read: its size or time, or (time kept) a row that no longer parses,
    // or a stretch of the index that no longer holds its rows.
    void text_rows_refuse_bad_and_changed_files() {
        const kms::Matrix<double> points = kms::generate_dataset("blobs:n=3000,k=3,d=3", 2).points;
        const std::string good = dir_ + "/good.csv";
        write_text_points(good, points, 1);
        std::string text;
        {
            std::ifstream in(good, std::ios::binary);
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        // Line 2901's first value (a comment line and 30 interleaved comments before: row ~2870).
        std::size_t at = 0;
        for (int line = 1; line < 2901; ++line) at = text.find('\n', at) + 1;
        for (const char* bad : {"x", "nan", "1e999", "1\t2"}) {
            std::string changed = text;
            const std::size_t end = changed.find_first_of(" \t", at);
            changed.replace(at, end - at, bad);
            const std::string path = dir_ + "/bad.csv";
            kms::write_text_file(path, changed);
            std::string want;
            try {
                (void)kms::load_dataset(path);
            } catch (const kms::InputError& error) {
                want = error.what();
            }
            QVERIFY2(want.find("bad.csv:2901: ") != std::string::npos, want.c_str());
            for (const int threads : {1, 2}) {
                kms::TextRowsOptions options;
                options.threads = threads;
                options.window_bytes = 1000;
                try {
                    (void)kms::open_text_rows(path, options);
                    QFAIL(("no refusal of " + want).c_str());
                } catch (const kms::InputError& error) {
                    QCOMPARE(std::string(error.what()), want);
                }
            }
            for (const int ranks : {2, 3}) {
                std::vector<std::string> messages(static_cast<std::size_t>(ranks));
                kms::ThreadGroup group(ranks);
                group.run([&](std::shared_ptr<kms::Communicator> comm) {
                    kms::TextRowsOptions options;
                    options.ranks = comm.get();
                    try {
                        (void)kms::open_text_rows(path, options);
                    } catch (const kms::ReportedByAnotherRank&) {
                    } catch (const kms::InputError& error) {
                        messages[static_cast<std::size_t>(comm->rank())] = error.what();
                    }
                });
                QCOMPARE(std::count(messages.begin(), messages.end(), want), std::ptrdiff_t{1});
                QCOMPARE(std::count(messages.begin(), messages.end(), std::string()), std::ptrdiff_t{ranks - 1});
            }
        }
        // Changed after the pass.
        const std::string path = dir_ + "/changing.csv";
        kms::TextRowsOptions options;
        options.rows_per_mark = 7;
        options.window_bytes = 4096;
        std::vector<double> values(points.size());
        const auto refused = [&](const std::string& contents, bool keep_time, const std::string& expected) {
            kms::write_text_file(path, text);
            const auto source = kms::open_text_rows(path, options);
            source->read(0, points.rows(), values.data());
            const auto time = std::filesystem::last_write_time(path);
            {
                std::ofstream out(path, std::ios::binary | std::ios::in);  // in place: the same file
                out << contents;
            }
            // (A second on when not kept: a write within the clock's tick may leave the time as it was.)
            std::filesystem::last_write_time(path, keep_time ? time : time + std::chrono::seconds(1));
            try {
                source->read(0, points.rows(), values.data());
                QFAIL(("no refusal: expected '" + expected + "'").c_str());
            } catch (const kms::InputError& error) {
                QVERIFY2(std::string(error.what()).find(expected) != std::string::npos, error.what());
            }
        };
        std::string other = text;
        std::swap(other[at], other[at + 1]);  // (same size, new time)
        refused(other, false, "changing.csv: the file changed (its size or modification time) since its first pass");
        std::string unparsable = text;
        unparsable[at] = 'x';
        refused(unparsable, true, "changing.csv:2901: not a number");
        refused(unparsable, true, "(the file changed since its first pass, which read this line)");
        std::string commented = text;
        commented[at] = '#';  // a row becomes a comment: its stretch holds one row fewer
        refused(commented, true, "the file changed since its first pass: rows ");
    }

    // What cannot run out of core says so, naming what to do instead.
    void refusals_name_the_reason() {
        const auto source = kms::open_matrix_rows(dir_ + "/f8.npy");
        const auto refused = [&](const kms::FitOptions& options, const char* expected) {
            try {
                kms::fit(source, 1 << 20, options);
            } catch (const kms::UsageError& error) {
                QVERIFY2(std::string(error.what()).find(expected) != std::string::npos, error.what());
                return;
            }
            QFAIL(("no refusal: expected '" + std::string(expected) + "'").c_str());
        };
        kms::FitOptions options;
        options.k = 4;
        options.solver.algorithm = kms::Algorithm("ball");  // (its points' lists by centroid)
        refused(options, "or exponion or shallot: --solver ball keeps per-point state");
        refused(options, "lloyd or elkan or hamerly or yinyang");  // (the streaming solvers named, from the registry)
        options.solver.algorithm = kms::Algorithm::Lloyd;
        options.solver.empty_policy = kms::EmptyClusterPolicy::Farthest;
        refused(options, "--empty keep");
        options.solver.empty_policy = kms::EmptyClusterPolicy::Keep;
        // Sample weights are taken on the CPU back ends (not yet on a CUDA device), their range
        // checked against the file's rows (a pass over them).
        options.sample_weight = std::make_shared<const std::vector<double>>(source->rows(), 1.0);
        const kms::Backend backend = options.solver.backend;
        options.solver.backend = kms::Backend::Cuda;
        refused(options, "sample weights (--weights) run on the CPU back ends");
        options.solver.backend = backend;
        // (Σw = 1e308: finite; its product with the data's largest |x| is not.)
        options.sample_weight =
            std::make_shared<const std::vector<double>>(source->rows(), 1e308 / static_cast<double>(source->rows()));
        try {
            kms::fit(source, 1 << 20, options);
            QFAIL("no refusal of weights whose sums overflow");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("the centroid update's weighted sums overflow") != std::string::npos,
                     error.what());
            QVERIFY2(std::string(error.what()).find("f8.npy") != std::string::npos, error.what());
        }
        // --solver auto runs Lloyd, and says why.
        options.sample_weight.reset();
        options.solver.algorithm = kms::Algorithm::Auto;
        options.solver.max_iterations = 2;
        const kms::FitResult result = kms::fit(source, 1 << 20, options);
        QCOMPARE(result.solver.algorithm, kms::Algorithm::Lloyd);
        QVERIFY(result.solver_choice.find("out of core") != std::string::npos);
        // Where the rule bounds (3-D, 40 clusters: Hamerly; 2-D, 600 clusters: Exponion) auto takes
        // it out of core too; where it would take a solver that does not read by blocks (Ball),
        // Hamerly instead.
        options.k = 40;
        const kms::FitResult bounded = kms::fit(source, 1 << 20, options);
        QCOMPARE(bounded.solver.algorithm, kms::Algorithm::Hamerly);
        QVERIFY2(bounded.solver_choice.find("out of core; the back end's rule: hamerly") != std::string::npos,
                 bounded.solver_choice.c_str());
        QCOMPARE(kms::choose_solver(options.solver, 60000, 2, 600).algorithm, kms::Algorithm::Exponion);
        options.k = 600;
        options.solver.max_iterations = 1;
        options.init.method = kms::InitMethod::Random;  // (k-means++ would read the file 600 times)
        const kms::FitResult annuli = kms::fit(kms::open_matrix_rows(dir_ + "/many.npy"), 1 << 22, options);
        QCOMPARE(annuli.solver.algorithm, kms::Algorithm::Exponion);
        QVERIFY2(annuli.solver_choice.find("out of core; the back end's rule: exponion") != std::string::npos,
                 annuli.solver_choice.c_str());
        QCOMPARE(kms::choose_solver(options.solver, 100000, 4, 5000).algorithm, kms::Algorithm("ball"));
        options.k = 5000;
        const kms::FitResult replaced = kms::fit(kms::open_matrix_rows(dir_ + "/ball.npy"), 1 << 22, options);
        QCOMPARE(replaced.solver.algorithm, kms::Algorithm::Hamerly);
        QVERIFY2(replaced.solver_choice.find("ball") != std::string::npos &&
                     replaced.solver_choice.find("does not read the file by blocks") != std::string::npos,
                 replaced.solver_choice.c_str());
        // A rule's Elkan (no CPU rule picks it today) is kept where its k + 1 bounds a row fit
        // the room the caller has (the CLI's plan: its memory limit), else Hamerly, and says so.
        const kms::SolverChoice elkan_rule{kms::Algorithm::Elkan, "elkan: a rule"};
        options.solver.precision = kms::Precision::F64;
        QCOMPARE(kms::out_of_core_choice(elkan_rule, options.solver, 64).algorithm, kms::Algorithm::Elkan);
        QCOMPARE(kms::out_of_core_choice(elkan_rule, options.solver, 64, 65 * 8).algorithm, kms::Algorithm::Elkan);
        const kms::SolverChoice squeezed = kms::out_of_core_choice(elkan_rule, options.solver, 64, 65 * 8 - 1);
        QCOMPARE(squeezed.algorithm, kms::Algorithm::Hamerly);
        QVERIFY2(squeezed.reason.find("elkan: a rule; its bounds, 520 bytes a row, do not fit the memory limit, "
                                      "hamerly's do") != std::string::npos,
                 squeezed.reason.c_str());
        QCOMPARE(kms::out_of_core_choice(elkan_rule, options.solver, 64, 15).algorithm, kms::Algorithm::Lloyd);
    }

    // A value no loader accepts, found on a pass: the file, the byte and the element.
    void bad_value_is_named() {
        kms::Matrix<double> values = kms::generate_dataset("blobs:n=5000,k=3,d=2", 1).points;
        values(4321, 1) = std::numeric_limits<double>::quiet_NaN();
        const std::string path = dir_ + "/nan.npy";
        write_npy_file(path, values, false);
        kms::FitOptions options;
        options.k = 3;
        try {
            kms::fit(kms::open_matrix_rows(path), 4096, options);
            QFAIL("a NaN was not refused");
        } catch (const kms::InputError& error) {
            const std::string message = error.what();
            QVERIFY2(message.find(path) != std::string::npos && message.find("element [4321, 1]") != std::string::npos &&
                         message.find("NaN") != std::string::npos,
                     message.c_str());
        }
    }

    // kms::read_blocks (the solver's passes): every row once, in order, bit for bit the
    // loaded values; a read's failure thrown at its block's turn, after the blocks before
    // it were worked on; the body's failure ends the pass (the reader joined, not hung).
    void read_blocks_in_order_and_failures() {
        const std::string path = dir_ + "/f8.npy";
        const kms::Matrix<double> loaded = kms::load_matrix_rows(path, 0, 20011);
        const auto source = kms::open_matrix_rows(path);
        std::vector<double> buffers[2];
        std::vector<double> seen;
        std::size_t next = 0;
        const std::uint64_t bytes =
            kms::read_blocks(*source, 0, source->rows(), 1000, buffers, 2, [&](std::size_t begin, std::size_t count, const double* v) {
                QCOMPARE(begin, next);
                next = begin + count;
                seen.insert(seen.end(), v, v + count * 3);
            });
        QCOMPARE(bytes, std::uint64_t{20011} * 24);
        QVERIFY(seen == std::vector<double>(loaded.data(), loaded.data() + loaded.size()));

        const FailingRows failing(source, 5000);
        std::size_t worked = 0;
        try {
            kms::read_blocks(failing, 0, failing.rows(), 1000, buffers, 2, [&](std::size_t, std::size_t, const double*) { ++worked; });
            QFAIL("the failed read was not thrown");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find("block at 5000 failed") != std::string::npos, error.what());
        }
        QCOMPARE(worked, std::size_t{5});

        const auto watched = std::make_shared<WatchedRows>(source);
        worked = 0;
        try {
            kms::read_blocks(*watched, 0, watched->rows(), 1000, buffers, 2, [&](std::size_t begin, std::size_t, const double*) {
                if (begin == 3000) throw std::runtime_error("body failed");
                ++worked;
            });
            QFAIL("the body's failure was not thrown");
        } catch (const std::runtime_error& error) {
            QCOMPARE(std::string(error.what()), std::string("body failed"));
        }
        QCOMPARE(worked, std::size_t{3});
        QVERIFY2(watched->highest <= 5000, std::to_string(watched->highest).c_str());  // two buffers: at most one block ahead

        // The values are checked over the threads before the body sees them: the first bad one is named.
        kms::Matrix<double> bad = loaded;
        bad(1800, 0) = std::numeric_limits<double>::infinity();
        bad(1500, 2) = std::numeric_limits<double>::quiet_NaN();
        write_npy_file(dir_ + "/bad.npy", bad, false);
        const auto bad_source = kms::open_matrix_rows(dir_ + "/bad.npy");
        worked = 0;
        try {
            kms::read_blocks(*bad_source, 0, bad_source->rows(), 1000, buffers, 2,
                             [&](std::size_t, std::size_t, const double*) { ++worked; });
            QFAIL("a NaN was not refused");
        } catch (const kms::InputError& error) {
            const std::string message = error.what();
            QVERIFY2(message.find("element [1500, 2]") != std::string::npos && message.find("NaN") != std::string::npos,
                     message.c_str());
        }
        QCOMPARE(worked, std::size_t{1});
    }

    // The reader drops the file's pages behind it, one POSIX_FADV_DONTNEED a block on 2 MiB
    // folio boundaries: a pass of unaligned blocks gives the loaded values and leaves
    // (nearly) none of the file in the page cache (a range cut at the blocks' own bounds
    // left 4 MiB of these 24); without dropping, all of it.
    void pages_dropped_behind() {
        struct statfs filesystem {};
        if (::statfs(dir_.c_str(), &filesystem) == 0 && filesystem.f_type == 0x01021994)  // TMPFS_MAGIC
            QSKIP("the temporary folder is a tmpfs: its pages are the file and cannot be dropped");
        const std::string path = dir_ + "/pages.npy";
        const kms::Matrix<double> values = kms::generate_dataset("blobs:n=1048576,k=4,d=3", 2).points;  // 24 MiB
        write_npy_file(path, values, false);
        const std::size_t pages = (24u << 20) / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        for (const bool drop : {true, false}) {
            evict(path);
            const auto source = kms::open_matrix_rows(path, drop);
            std::vector<double> buffers[2];
            bool same = true;
            kms::read_blocks(*source, 0, source->rows(), 350000, buffers, 2,  // 8 MiB blocks, a short last one
                             [&](std::size_t begin, std::size_t count, const double* v) {
                                 same = same && std::equal(v, v + count * 3, values.data() + begin * 3);
                             });
            const std::size_t resident = resident_pages(path);
            const std::string what = std::string(drop ? "dropped" : "kept") + ": " + std::to_string(resident) + " of " +
                                     std::to_string(pages) + " pages resident";
            QVERIFY2(same, what.c_str());
            // What the header's read brought in (its read-ahead) may stay: at most 1 MiB.
            QVERIFY2(drop ? resident <= pages / 24 : resident >= pages - pages / 24, what.c_str());
        }
    }

    // --geo out of core (kms::open_geo_rows): the projection from one pass of statistics
    // and every block projected as read give load_geo_data's projection and points, and
    // the fits over them the loaded fit's bits; for a 2-column file and for --lat/--lon
    // picking 2 of 4 columns, in both frames (chosen and forced), f64 and f32.
    void geo_rows_are_the_loaded_projection() {
        const std::pair<double, double> regions[][2] = {
            {{45.0, 50.0}, {2.0, 9.0}},        // equirectangular
            {{-20.0, 10.0}, {170.0, 195.0}}};  // across the antimeridian: 3-D
        int compared = 0;
        for (const auto& region : regions) {
            kms::Matrix<double> degrees(20011, 2), wide(20011, 4);
            for (std::size_t i = 0; i < degrees.rows(); ++i) {
                const double lon = region[1].first + (region[1].second - region[1].first) * kms::random_uniform(3, 2, i);
                degrees(i, 0) = region[0].first + (region[0].second - region[0].first) * kms::random_uniform(3, 1, i);
                degrees(i, 1) = lon > 180.0 ? lon - 360.0 : lon;
                wide(i, 0) = -1000.0 + i;  // other columns: anything finite
                wide(i, 1) = degrees(i, 0);
                wide(i, 2) = 1e6;
                wide(i, 3) = degrees(i, 1);
            }
            write_npy_file(dir_ + "/geo2.npy", degrees, false);
            write_npy_file(dir_ + "/geo4.npy", wide, false);
            for (const bool picked : {false, true})
                for (const std::optional<kms::GeoFrame> frame : {std::optional<kms::GeoFrame>(), std::optional(kms::GeoFrame::Sphere)}) {
                    const std::string path = dir_ + (picked ? "/geo4.npy" : "/geo2.npy");
                    kms::GeoOptions options;
                    options.enabled = true;
                    options.frame = frame;
                    if (picked) options.columns = {"2", "4"};
                    const kms::GeoData loaded = kms::load_geo_data(path, options);
                    const kms::GeoRows rows = kms::open_geo_rows(path, options, 64 << 10, 2);  // blocks of 32 KiB
                    const std::string what = path + (frame ? ", sphere forced" : ", frame chosen");
                    QVERIFY2(rows.projection.frame == loaded.projection.frame && rows.projection.lat0 == loaded.projection.lat0 &&
                                 rows.projection.lon0 == loaded.projection.lon0 &&
                                 rows.projection.reason == loaded.projection.reason,
                             (what + ": " + rows.projection.describe() + " against " + loaded.projection.describe()).c_str());
                    QCOMPARE(rows.projected->rows(), loaded.projected.points.rows());
                    QCOMPARE(rows.projected->cols(), loaded.projected.points.cols());
                    std::vector<double> projected(loaded.projected.points.size());
                    rows.projected->read(0, rows.projected->rows(), projected.data());
                    QVERIFY2(std::equal(projected.begin(), projected.end(), loaded.projected.points.data()), what.c_str());
                    const auto points = std::make_shared<const kms::Matrix<double>>(loaded.projected.points);
                    for (const kms::Precision precision : {kms::Precision::F64, kms::Precision::F32}) {
                        kms::FitOptions fit;
                        fit.k = 7;
                        fit.init.seed = 4;
                        fit.solver.backend = kms::Backend::OpenMP;
                        fit.solver.threads = 2;
                        fit.solver.precision = precision;
                        const kms::FitResult want = kms::fit(points, fit);
                        expect_same(kms::fit(rows.projected, 100000, fit), want,
                                    what + ", " + std::string(kms::to_string(precision)));
                        ++compared;
                    }
                }
        }
        QCOMPARE(compared, 16);
    }

    // --geo under ranks (threads as ranks): each rank's share of the statistics merged
    // (GeoStatistics::merge, the latitude sum handed on) is one pass's projection bit for
    // bit, out of core (open_geo_rows) and loaded by blocks (load_geo_npy_block, each rank
    // its rows of the solver's split only); the fits over the ranks the loaded fit's bits.
    void geo_statistics_merged_over_ranks() {
        kms::Matrix<double> degrees(20011, 2);
        for (std::size_t i = 0; i < degrees.rows(); ++i) {
            degrees(i, 0) = 44.0 + 7.0 * kms::random_uniform(5, 1, i);
            degrees(i, 1) = i == 7 ? 0.0 : -4.0 + 12.0 * kms::random_uniform(5, 2, i);
        }
        const std::string path = dir_ + "/geo-ranks.npy";
        write_npy_file(path, degrees, false);
        kms::GeoOptions options;
        options.enabled = true;
        for (const std::optional<kms::GeoFrame> frame : {std::optional<kms::GeoFrame>(), std::optional(kms::GeoFrame::Sphere)}) {
            options.frame = frame;
            const kms::GeoData loaded = kms::load_geo_data(path, options);
            const auto points = std::make_shared<const kms::Matrix<double>>(loaded.projected.points);
            kms::FitOptions fit;
            fit.k = 6;
            fit.init.seed = 8;
            fit.solver.backend = kms::Backend::Sequential;
            const kms::FitResult want = kms::fit(points, fit);
            for (const int ranks : {2, 3}) {
                std::vector<kms::GeoProjection> streamed(ranks), blocked(ranks);
                std::vector<kms::FitResult> out_of_core(ranks), in_memory(ranks);
                std::vector<std::size_t> firsts(ranks), counts(ranks);
                kms::ThreadGroup group(ranks);
                group.run([&](std::shared_ptr<kms::Communicator> comm) {
                    const auto r = static_cast<std::size_t>(comm->rank());
                    kms::FitOptions mine = fit;
                    mine.ranks = comm;
                    const kms::GeoRows rows = kms::open_geo_rows(path, options, 1 << 16, 1, comm.get());
                    streamed[r] = rows.projection;
                    out_of_core[r] = kms::fit(rows.projected, 1 << 16, mine);
                    const kms::GeoBlock block = kms::load_geo_npy_block(
                        path, options, *comm, [&](std::size_t n, std::size_t d) { return kms::rank_blocks(n, d, mine); });
                    blocked[r] = block.data.projection;
                    firsts[r] = block.first_row;
                    counts[r] = block.data.projected.points.rows();
                    in_memory[r] = kms::fit_block(std::make_shared<const kms::Matrix<double>>(block.data.projected.points),
                                                  block.global_rows, block.first_row, mine);
                });
                for (int r = 0; r < ranks; ++r) {
                    const std::string what = std::to_string(ranks) + " ranks, rank " + std::to_string(r) +
                                             (frame ? ", sphere forced" : ", frame chosen");
                    for (const kms::GeoProjection& p : {streamed[r], blocked[r]})
                        QVERIFY2(p.frame == loaded.projection.frame && p.lat0 == loaded.projection.lat0 &&
                                     p.lon0 == loaded.projection.lon0 && p.reason == loaded.projection.reason,
                                 (what + ": " + p.describe() + " against " + loaded.projection.describe()).c_str());
                    expect_same(out_of_core[r], want, what + ", out of core");
                    expect_same(in_memory[r], want, what + ", loaded by blocks");
                    QCOMPARE(firsts[r], r == 0 ? std::size_t{0} : firsts[r - 1] + counts[r - 1]);
                }
                QCOMPARE(firsts[ranks - 1] + counts[ranks - 1], degrees.rows());
            }
        }
    }

    // Bad --geo input out of core: the file, the row or element, and what to do, as in memory.
    void geo_rows_refuse_bad_input() {
        kms::Matrix<double> degrees(5000, 2);
        for (std::size_t i = 0; i < degrees.rows(); ++i) {
            degrees(i, 0) = 40.0 + 0.001 * static_cast<double>(i);
            degrees(i, 1) = -3.0 + 0.001 * static_cast<double>(i);
        }
        const auto refused = [&](const kms::Matrix<double>& values, const kms::GeoColumns& columns, const std::string& expected) {
            const std::string path = dir_ + "/geo-bad.npy";
            write_npy_file(path, values, false);
            kms::GeoOptions options;
            options.enabled = true;
            options.columns = columns;
            for (const bool out_of_core : {true, false}) {
                try {
                    if (out_of_core) kms::open_geo_rows(path, options, 4096, 2);
                    else kms::load_geo_data(path, options);
                    QFAIL(("not refused: expected '" + expected + "'").c_str());
                } catch (const kms::InputError& error) {
                    const std::string message = error.what();
                    QVERIFY2(message.find(path) != std::string::npos && message.find(expected) != std::string::npos,
                             (message + " (expected '" + expected + "')").c_str());
                }
            }
        };
        kms::Matrix<double> bad = degrees;
        bad(3999, 0) = 91.0;
        refused(bad, {}, "row 4000: latitude 91 is outside [-90, 90]");
        bad = degrees;
        bad(17, 1) = -180.5;
        refused(bad, {}, "row 18: longitude -180.5 is outside [-180, 180]");
        bad(17, 1) = std::numeric_limits<double>::quiet_NaN();
        refused(bad, {}, "NaN is not a valid coordinate (element [17, 1])");
        refused(degrees, {"lat", "lon"}, "a .npy has no column names: give --lat as a 1-based column number, not 'lat'");
        refused(degrees, {"1", ""}, "give both --lat and --lon");
        refused(degrees, {"1", "3"}, "--lon 3: the .npy has 2 columns");
        refused(degrees, {"2", "2"}, "--lat and --lon name the same column");
        refused(kms::Matrix<double>(10, 3), {}, "3 columns: a .npy of latitude, longitude has 2, or --lat and --lon");
        // The file changed under the run, after the statistics: a pass refuses its first bad
        // row (the projection runs over 3 threads; the message is one thread's).
        const std::string path = dir_ + "/geo-changed.npy";
        write_npy_file(path, degrees, false);
        kms::GeoOptions options;
        options.enabled = true;
        const kms::GeoRows rows = kms::open_geo_rows(path, options, 4096, 3);
        {
            std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
            const auto data = static_cast<std::streamoff>(std::filesystem::file_size(path) - degrees.size() * 8);
            for (const auto& [element, value] : {std::pair{2 * 3000, 95.0}, std::pair{2 * 1200 + 1, 200.0}}) {
                file.seekp(data + static_cast<std::streamoff>(element * 8));
                file.write(reinterpret_cast<const char*>(&value), 8);
            }
        }
        std::vector<double> projected(degrees.rows() * rows.projected->cols());
        try {
            rows.projected->read(0, degrees.rows(), projected.data());
            QFAIL("a changed row was not refused");
        } catch (const kms::InputError& error) {
            QVERIFY2(std::string(error.what()).find(path + ": row 1201: longitude 200 is outside [-180, 180]") !=
                         std::string::npos,
                     error.what());
        }
    }

    void byte_sizes() {
        QCOMPARE(kms::parse_byte_size("64M"), std::uint64_t{64} << 20);
        QCOMPARE(kms::parse_byte_size("1.5GiB"), std::uint64_t{3} << 29);
        QCOMPARE(kms::parse_byte_size("4096"), std::uint64_t{4096});
        QCOMPARE(kms::parse_byte_size("12Q"), std::uint64_t{0});
        QCOMPARE(kms::parse_byte_size("-1G"), std::uint64_t{0});
        QCOMPARE(kms::parse_byte_size("lots"), std::uint64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestOutOfCore)
#include "test_out_of_core.moc"
