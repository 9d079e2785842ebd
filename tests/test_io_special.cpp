// Issue 10: what the loaders and writers do with paths that are not plain
// regular files (symbolic links, FIFOs, character and block devices, sockets,
// /proc files, /dev/stdout, /dev/fd/N), the pre-flight check of outputs, several
// outputs written all or none, and running out of memory while loading. Every
// wait on a FIFO runs under a timeout: a regression shows as a failure, not a hang.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kms/error.hpp"
#include "kms/io.hpp"
#include "test_support.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KMS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KMS_SANITIZED 1
#endif
#endif

namespace {

using namespace std::chrono_literals;

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_plain(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

struct stat lstat_of(const std::string& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) info.st_mode = 0;
    return info;
}

// Runs `work` on its own thread; the message of what it threw ("" when it
// returned), or "TIMEOUT" when it is still running after `limit` (the thread is
// then abandoned: a blocked open() would otherwise hang the whole suite).
std::string run_with_timeout(std::function<void()> work, std::chrono::milliseconds limit) {
    auto promise = std::make_shared<std::promise<std::string>>();
    std::future<std::string> result = promise->get_future();
    std::thread([promise, work = std::move(work)] {
        try {
            work();
            promise->set_value("");
        } catch (const std::exception& error) {
            promise->set_value(std::string("threw: ") + error.what());
        }
    }).detach();
    if (result.wait_for(limit) != std::future_status::ready) return "TIMEOUT";
    return result.get();
}

std::string error_of(const std::function<void()>& work) {
    try {
        work();
    } catch (const std::exception& error) {
        return error.what();
    }
    return {};
}

#define KMS_EXPECT_ERROR(work, ...)                                                                  \
    do {                                                                                            \
        const QString what_ = QString::fromStdString(error_of(work));                               \
        QVERIFY2(!what_.isEmpty(), "no error was raised");                                          \
        for (const QString& word_ : QStringList{__VA_ARGS__})                                       \
            QVERIFY2(what_.contains(word_), qPrintable("'" + word_ + "' not in: " + what_));       \
    } while (0)

struct CliResult {
    int exit_code = -1;  // -1: did not finish in time, -2: crashed
    QString out, err;
    qint64 ms = 0;
};

// Runs kmeans-cli; `address_space` > 0 limits the child's memory (RLIMIT_AS).
CliResult run_cli(const QStringList& arguments, int timeout_ms = 60000, rlim_t address_space = 0) {
    QProcess process;
    if (address_space > 0)
        process.setChildProcessModifier([address_space] {
            const rlimit limit{address_space, address_space};
            ::setrlimit(RLIMIT_AS, &limit);
        });
    QElapsedTimer timer;
    timer.start();
    process.start(QString::fromStdString(kms::test::env_or_empty("KMS_CLI")), arguments);
    CliResult result;
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.ms = timer.elapsed();
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// An AF_UNIX socket bound at `path` (closed, the node stays).
bool make_socket(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return false;
    std::strcpy(address.sun_path, path.c_str());
    const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return bound;
}

const char* const kGoodCsv = "0,0\n0,1\n5,5\n5,6\n9,9\n";

}  // namespace

class TestIoSpecial : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int counter_ = 0;

    // A fresh empty folder for one test.
    std::string folder() {
        const QString name = QString("t%1").arg(++counter_);
        QDir(dir_.path()).mkpath(name);
        return dir_.filePath(name).toStdString();
    }
    static QStringList entries(const std::string& folder) {
        return QDir(QString::fromStdString(folder))
            .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    }
    static bool root() { return ::geteuid() == 0; }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // Sockets need a short path.
        QVERIFY2(dir_.path().size() < 70, qPrintable(dir_.path()));
    }

    // ------------------------------------------------------------ writers: links
    void symlink_keeps_the_link_and_replaces_its_target_atomically() {
        const std::string base = folder();
        QDir().mkpath(QString::fromStdString(base + "/data"));
        QDir().mkpath(QString::fromStdString(base + "/links"));
        const std::string target = base + "/data/labels.txt";
        write_plain(target, "old\n");
        ::chmod(target.c_str(), 0640);
        const ino_t old_inode = lstat_of(target).st_ino;
        // links/a -> b -> ../data/labels.txt (relative, through a second link)
        QCOMPARE(::symlink("../data/labels.txt", (base + "/links/b").c_str()), 0);
        QCOMPARE(::symlink("b", (base + "/links/a").c_str()), 0);

        kms::write_labels(base + "/links/a", std::vector<std::int32_t>{3, 1, 2});

        QVERIFY(S_ISLNK(lstat_of(base + "/links/a").st_mode));
        QVERIFY(S_ISLNK(lstat_of(base + "/links/b").st_mode));
        const struct stat after = lstat_of(target);
        QVERIFY(S_ISREG(after.st_mode));
        QVERIFY(after.st_ino != old_inode);              // a new file renamed over the old: atomic
        QCOMPARE(after.st_mode & 07777, mode_t{0640});    // with the old permissions
        QCOMPARE(read_all(target), std::string("3\n1\n2\n"));
        QCOMPARE(entries(base + "/data"), QStringList{"labels.txt"});      // no temporary left
        QCOMPARE(entries(base + "/links"), (QStringList{"a", "b"}));       // nothing written beside the links
    }

    void dangling_symlink_creates_its_target() {
        const std::string base = folder();
        QCOMPARE(::symlink("made.csv", (base + "/link.csv").c_str()), 0);
        kms::write_text_file(base + "/link.csv", "1,2\n");
        QVERIFY(S_ISLNK(lstat_of(base + "/link.csv").st_mode));
        QCOMPARE(read_all(base + "/made.csv"), std::string("1,2\n"));
    }

    void symlink_loop_is_refused() {
        const std::string base = folder();
        QCOMPARE(::symlink("y", (base + "/x").c_str()), 0);
        QCOMPARE(::symlink("x", (base + "/y").c_str()), 0);
        KMS_EXPECT_ERROR([&] { kms::write_text_file(base + "/x", "1\n"); }, "cannot write " +
                         QString::fromStdString(base) + "/x", "Too many levels of symbolic links");
        KMS_EXPECT_ERROR([&] { kms::check_output_path(base + "/x"); }, "Too many levels of symbolic links");
    }

    // ------------------------------------------------------------ writers: devices, FIFOs, sockets
    void character_device_is_written_to_never_replaced() {
        if (!root()) QSKIP("not root: mknod of character devices needs CAP_MKNOD");
        const std::string base = folder();
        const std::string full = base + "/devfull", null = base + "/devnull";
        if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0 ||
            ::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP(qPrintable(QString("mknod refused here: ") + std::strerror(errno)));
        // /dev/full: every write fails with ENOSPC; the node must stay a device.
        KMS_EXPECT_ERROR([&] { kms::write_labels(full, std::vector<std::int32_t>(50, 1)); },
                         "cannot write " + QString::fromStdString(full) + ": No space left on device");
        QVERIFY(S_ISCHR(lstat_of(full).st_mode));
        QCOMPARE(lstat_of(full).st_rdev, makedev(1, 7));
        kms::check_output_path(full);  // writable: the failure only shows when writing
        // /dev/null: written to (and still a device).
        kms::write_text_file(null, "discarded\n");
        QVERIFY(S_ISCHR(lstat_of(null).st_mode));
        QCOMPARE(entries(base), (QStringList{"devfull", "devnull"}));
    }

    void dev_null_and_descriptor_paths_are_written_directly() {
        kms::check_output_path("/dev/null");
        kms::write_text_file("/dev/null", "x\n");
        QVERIFY(S_ISCHR(lstat_of("/dev/null").st_mode));
        // /dev/fd/N and /proc/self/fd/N: this process's descriptor, at its position.
        for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
            int ends[2];
            QCOMPARE(::pipe(ends), 0);
            const std::string path = prefix + std::to_string(ends[1]);
            kms::check_output_path(path);
            kms::write_files_atomically({{path, "first\n"}, {path, "second\n"}});  // a stream may take several
            ::close(ends[1]);
            char buffer[64] = {};
            const ssize_t got = ::read(ends[0], buffer, sizeof buffer - 1);
            ::close(ends[0]);
            QCOMPARE(std::string(buffer, got > 0 ? std::size_t(got) : 0), std::string("first\nsecond\n"));
        }
        // A descriptor open only for reading, and a closed one, are refused up front.
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        KMS_EXPECT_ERROR([&] { kms::check_output_path("/dev/fd/" + std::to_string(ends[0])); },
                         "is open for reading only");
        ::close(ends[0]);
        ::close(ends[1]);
        KMS_EXPECT_ERROR([&] { kms::check_output_path("/dev/fd/" + std::to_string(ends[0])); }, "is not open");
    }

    void fifo_without_reader_is_refused_at_once_with_reader_is_written() {
        const std::string base = folder();
        const std::string fifo = base + "/out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0666), 0);
        kms::check_output_path(fifo);  // never opens it (that would send a reader an end of file)
        const std::string outcome = run_with_timeout([&] { kms::write_text_file(fifo, "1\n"); }, 5000ms);
        QVERIFY2(outcome.find("no process has the FIFO open for reading") != std::string::npos, outcome.c_str());
        QVERIFY(S_ISFIFO(lstat_of(fifo).st_mode));
        QCOMPARE(entries(base), QStringList{"out.fifo"});

        // With a reader: the labels go through the FIFO.
        const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        QVERIFY(reader >= 0);
        QCOMPARE(run_with_timeout([&] { kms::write_labels(fifo, std::vector<std::int32_t>{4, 2}); }, 5000ms),
                 std::string());
        char buffer[16] = {};
        QCOMPARE(::read(reader, buffer, sizeof buffer), ssize_t{4});
        QCOMPARE(std::string(buffer), std::string("4\n2\n"));
        ::close(reader);
        QVERIFY(S_ISFIFO(lstat_of(fifo).st_mode));
    }

    void reader_going_away_is_broken_pipe_not_sigpipe() {
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        ::close(ends[0]);
        const std::string path = "/dev/fd/" + std::to_string(ends[1]);
        KMS_EXPECT_ERROR([&] { kms::write_text_file(path, "1\n"); }, "Broken pipe");
        ::close(ends[1]);
        // Still alive (SIGPIPE would have ended the process), and no SIGPIPE left pending.
        sigset_t pending;
        sigpending(&pending);
        QVERIFY(!sigismember(&pending, SIGPIPE));
    }

    void folder_socket_and_block_device_are_refused() {
        const std::string base = folder();
        const std::string socket_path = base + "/s.sock";
        QVERIFY(make_socket(socket_path));
        for (const auto& check : {std::function<void()>([&] { kms::check_output_path(socket_path); }),
                                  std::function<void()>([&] { kms::write_text_file(socket_path, "x"); })})
            KMS_EXPECT_ERROR(check, "cannot write " + QString::fromStdString(socket_path), "is a socket");
        QVERIFY(S_ISSOCK(lstat_of(socket_path).st_mode));
        KMS_EXPECT_ERROR([&] { kms::load_matrix(socket_path); }, QString::fromStdString(socket_path), "is a socket");

        KMS_EXPECT_ERROR([&] { kms::check_output_path(base); }, "Is a directory");
        KMS_EXPECT_ERROR([&] { kms::write_text_file(base, "x"); }, "Is a directory");
        QVERIFY(S_ISDIR(lstat_of(base).st_mode));

        if (!root()) return;
        const std::string block = base + "/loop";
        if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) return;  // mknod refused: no block test
        KMS_EXPECT_ERROR([&] { kms::check_output_path(block); }, "is a block device");
        KMS_EXPECT_ERROR([&] { kms::write_text_file(block, "x"); }, "is a block device");
        KMS_EXPECT_ERROR([&] { kms::load_matrix(block); }, "is a block device");
        QVERIFY(S_ISBLK(lstat_of(block).st_mode));
    }

    // ------------------------------------------------------------ pre-flight check
    void check_output_path_reports_without_creating_anything() {
        const std::string base = folder();
        write_plain(base + "/file", "keep\n");
        kms::check_output_path(base + "/new.txt");  // a new file in a writable folder
        kms::check_output_path(base + "/file");     // an existing file
        kms::check_output_path("relative-name-in-the-current-folder.txt");
        KMS_EXPECT_ERROR([&] { kms::check_output_path(base + "/no/such/folder/x.txt"); },
                         "cannot write " + QString::fromStdString(base) + "/no/such/folder/x.txt",
                         "No such file or directory");
        KMS_EXPECT_ERROR([&] { kms::check_output_path(base + "/file/x.txt"); }, "Not a directory");
        KMS_EXPECT_ERROR([&] { kms::check_output_path(""); }, "empty path");
        QCOMPARE(entries(base), QStringList{"file"});
        QCOMPARE(read_all(base + "/file"), std::string("keep\n"));
        QVERIFY(!QFile::exists("relative-name-in-the-current-folder.txt"));
        // Permissions: root passes every permission check, so as root the checks run
        // in a child process that has dropped to the "nobody" user (65534).
        const std::string locked = base + "/locked";
        QDir().mkpath(QString::fromStdString(locked));
        write_plain(locked + "/old.txt", "old\n");
        write_plain(base + "/read-only.txt", "old\n");
        ::chmod((base + "/read-only.txt").c_str(), 0444);
        ::chmod(locked.c_str(), 0555);
        const auto expect_denied = [&]() -> std::string {
            std::string problems;
            for (const std::string& path : {locked + "/x.txt", locked + "/old.txt", base + "/read-only.txt"}) {
                const std::string what = error_of([&] { kms::check_output_path(path); });
                if (what.find("cannot write " + path) == std::string::npos || what.find("Permission denied") == std::string::npos)
                    problems += "check_output_path(" + path + "): '" + what + "'; ";
            }
            const std::string what = error_of([&] { kms::write_text_file(base + "/read-only.txt", "new\n"); });
            if (what.find("Permission denied") == std::string::npos) problems += "write_text_file: '" + what + "'; ";
            return problems;
        };
        if (!root()) {
            const std::string problems = expect_denied();
            QVERIFY2(problems.empty(), problems.c_str());
        } else {
            // The folders on the way must be searchable by nobody.
            ::chmod(dir_.path().toUtf8().constData(), 0755);
            ::chmod(base.c_str(), 0755);
            int report[2];
            QCOMPARE(::pipe(report), 0);
            const pid_t child = ::fork();
            QVERIFY(child >= 0);
            if (child == 0) {
                ::close(report[0]);
                std::string problems;
                if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
                    ::setresuid(65534, 65534, 65534) != 0)
                    problems = "SKIP";
                else
                    problems = expect_denied();
                if (problems.empty()) problems = "OK";  // the child got to the end
                if (::write(report[1], problems.data(), problems.size()) < 0) {
                }
                ::_exit(0);
            }
            ::close(report[1]);
            std::string problems;
            char buffer[512];
            for (ssize_t got; (got = ::read(report[0], buffer, sizeof buffer)) > 0;) problems.append(buffer, std::size_t(got));
            ::close(report[0]);
            int status = 0;
            ::waitpid(child, &status, 0);
            ::chmod(dir_.path().toUtf8().constData(), 0700);
            if (problems == "SKIP") QSKIP("cannot switch to the nobody user here: permission checks not exercised");
            QVERIFY2(problems == "OK" && WIFEXITED(status) && WEXITSTATUS(status) == 0, problems.c_str());
        }
        QCOMPARE(read_all(base + "/read-only.txt"), std::string("old\n"));
        QCOMPARE(entries(locked), QStringList{"old.txt"});
    }

    // ------------------------------------------------------------ all or none
    void several_outputs_are_written_all_or_none() {
        const std::string base = folder();
        write_plain(base + "/labels.txt", "old labels\n");
        const std::string fifo = base + "/nobody.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0666), 0);
        const std::vector<std::vector<std::pair<std::string, std::string>>> failing{
            {{base + "/labels.txt", "new labels\n"}, {base + "/centroids.csv", "1,2\n"}, {base + "/no/dir/r.json", "{}"}},
            {{base + "/labels.txt", "new labels\n"}, {fifo, "1\n"}, {base + "/centroids.csv", "1,2\n"}},
            {{base + "/labels.txt", "new labels\n"}, {base + "/centroids.csv", "1,2\n"}, {base, "x"}},
        };
        for (const auto& outputs : failing) {
            const std::string outcome = run_with_timeout([&] { kms::write_files_atomically(outputs); }, 5000ms);
            QVERIFY2(outcome.rfind("threw: cannot write ", 0) == 0, outcome.c_str());
            QCOMPARE(read_all(base + "/labels.txt"), std::string("old labels\n"));
            QCOMPARE(entries(base), (QStringList{"labels.txt", "nobody.fifo"}));  // no temporaries, nothing new
        }
        kms::write_files_atomically({{base + "/labels.txt", kms::labels_text(std::vector<std::int32_t>{0, 1})},
                                     {base + "/centroids.csv", kms::centroids_csv_text(kms::Matrix<double>(1, 2, 0.5))}});
        QCOMPARE(read_all(base + "/labels.txt"), std::string("0\n1\n"));
        QCOMPARE(read_all(base + "/centroids.csv"), std::string("0.5,0.5\n"));
        QCOMPARE(entries(base), (QStringList{"centroids.csv", "labels.txt", "nobody.fifo"}));
    }

    void the_same_file_twice_is_refused() {
        const std::string base = folder();
        write_plain(base + "/a.txt", "a\n");
        QCOMPARE(::symlink("a.txt", (base + "/alias.txt").c_str()), 0);
        KMS_EXPECT_ERROR([&] { kms::write_files_atomically({{base + "/a.txt", "1"}, {base + "/alias.txt", "2"}}); },
                         "the same file as " + QString::fromStdString(base) + "/a.txt");
        KMS_EXPECT_ERROR([&] { kms::write_files_atomically({{base + "/n.txt", "1"}, {base + "/./n.txt", "2"}}); },
                         "the same file as");
        QCOMPARE(read_all(base + "/a.txt"), std::string("a\n"));
        QCOMPARE(entries(base), (QStringList{"a.txt", "alias.txt"}));
    }

    void output_file_streams_pieces_with_the_same_rules() {
        const std::string base = folder();
        write_plain(base + "/old.csv", "old\n");
        QCOMPARE(::symlink("old.csv", (base + "/link.csv").c_str()), 0);
        {
            kms::OutputFile out(base + "/link.csv");
            out.write("1,2\n");
            out.write("3,4\n");
            QCOMPARE(read_all(base + "/old.csv"), std::string("old\n"));  // nothing replaced before commit()
            out.commit();
        }
        QVERIFY(S_ISLNK(lstat_of(base + "/link.csv").st_mode));
        QCOMPARE(read_all(base + "/old.csv"), std::string("1,2\n3,4\n"));
        {
            kms::OutputFile abandoned(base + "/old.csv");
            abandoned.write("half");
        }  // no commit(): the old contents stay, no temporary is left
        QCOMPARE(read_all(base + "/old.csv"), std::string("1,2\n3,4\n"));
        QCOMPARE(entries(base), (QStringList{"link.csv", "old.csv"}));
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        {
            kms::OutputFile out("/dev/fd/" + std::to_string(ends[1]));
            out.write("streamed\n");
            out.commit();
        }
        ::close(ends[1]);
        char buffer[32] = {};
        QCOMPARE(::read(ends[0], buffer, sizeof buffer), ssize_t{9});
        ::close(ends[0]);
        KMS_EXPECT_ERROR([&] { kms::OutputFile out(base + "/no/such/dir/x"); }, "No such file or directory");
        if (root() && ::mknod((base + "/full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
            kms::OutputFile full(base + "/full");
            KMS_EXPECT_ERROR([&] { full.write("x"); }, "No space left on device");
        }
    }

    void text_builders_match_the_writers() {
        const std::string base = folder();
        const kms::Matrix<double> centroids(2, 2, std::vector<double>{0.1, -2, 1e300, 5e-324});
        kms::write_centroids_csv(base + "/c.csv", centroids);
        QCOMPARE(read_all(base + "/c.csv"), kms::centroids_csv_text(centroids));
        QCOMPARE(kms::load_matrix(base + "/c.csv"), centroids);
        const std::vector<std::int32_t> labels{7, -1, 0};
        kms::write_labels(base + "/l.txt", labels);
        QCOMPARE(read_all(base + "/l.txt"), kms::labels_text(labels));
        KMS_EXPECT_ERROR([] { (void)kms::centroids_csv_text(kms::Matrix<double>(1, 3, std::nan(""))); },
                         "centroid 0 coordinate 0 is not a finite number");
    }

    // ------------------------------------------------------------ inputs
    void fifo_without_writer_does_not_hang() {
        const std::string base = folder();
        const std::string fifo = base + "/in.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0666), 0);
        kms::LoadOptions options;
        options.fifo_writer_wait = 300ms;
        QElapsedTimer timer;
        timer.start();
        const std::string outcome = run_with_timeout([&] { kms::load_dataset(fifo, options); }, 10000ms);
        QCOMPARE(outcome, "threw: " + fifo + ": no process opened the FIFO for writing within 0.3 s, so there is "
                                             "nothing to read");
        QVERIFY(timer.elapsed() < 5000);
        for (const auto& load : {std::function<void()>([&] { kms::load_labels(fifo, options); }),
                                 std::function<void()>([&] { kms::load_matrix(fifo, options); })})
            QVERIFY(run_with_timeout(load, 10000ms).find("no process opened the FIFO") != std::string::npos);
    }

    void fifo_writer_arriving_late_is_read() {
        const std::string base = folder();
        const std::string fifo = base + "/late.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0666), 0);
        std::thread writer([&] {
            std::this_thread::sleep_for(300ms);
            write_plain(fifo, kGoodCsv);
        });
        kms::Matrix<double> matrix;
        const std::string outcome = run_with_timeout([&] { matrix = kms::load_matrix(fifo); }, 10000ms);
        writer.join();
        QCOMPARE(outcome, std::string());
        QCOMPARE(matrix.rows(), std::size_t{5});
        QCOMPARE(matrix(4, 1), 9.0);

        // A writer that opens and closes without writing: an empty input, at once.
        std::thread silent([&] {
            std::this_thread::sleep_for(200ms);
            const int fd = ::open(fifo.c_str(), O_WRONLY);
            ::close(fd);
        });
        const std::string empty = run_with_timeout([&] { kms::load_matrix(fifo); }, 10000ms);
        silent.join();
        QCOMPARE(empty, "threw: " + fifo + ": empty file: no data rows");
    }

    void anonymous_pipe_and_stream_bound() {
        // A pipe through /dev/fd/N (a shell's <(...) or /dev/stdin): read to its end.
        int ends[2];
        QCOMPARE(::pipe(ends), 0);
        QCOMPARE(::write(ends[1], "1,2\n3,4\n", 8), ssize_t{8});
        ::close(ends[1]);
        kms::LoadOptions exact;
        exact.max_stream_bytes = 8;  // exactly the limit: fine
        const kms::Matrix<double> matrix = kms::load_matrix("/dev/fd/" + std::to_string(ends[0]), exact);
        ::close(ends[0]);
        QCOMPARE(matrix.rows(), std::size_t{2});

        QCOMPARE(::pipe(ends), 0);
        QCOMPARE(::write(ends[1], "1,2\n3,4\n5", 9), ssize_t{9});
        ::close(ends[1]);
        const std::string pipe_path = "/dev/fd/" + std::to_string(ends[0]);
        KMS_EXPECT_ERROR([&] { kms::load_matrix(pipe_path, exact); },
                         QString::fromStdString(pipe_path) + ": more than 8 bytes from a pipe: inputs without a "
                                                             "size are read up to that limit");
        ::close(ends[0]);

        // An empty pipe whose writer is gone: empty, at once (no wait for a writer).
        QCOMPARE(::pipe(ends), 0);
        ::close(ends[1]);
        const std::string empty_pipe = "/dev/fd/" + std::to_string(ends[0]);
        QCOMPARE(run_with_timeout([&] { kms::load_matrix(empty_pipe); }, 5000ms),
                 "threw: " + empty_pipe + ": empty file: no data rows");
        ::close(ends[0]);
    }

    void dev_zero_is_bounded() {
        kms::LoadOptions options;
        options.max_stream_bytes = std::uint64_t{1} << 20;
        QElapsedTimer timer;
        timer.start();
        const std::string outcome = run_with_timeout([&] { kms::load_dataset("/dev/zero", options); }, 20000ms);
        QCOMPARE(outcome, std::string("threw: /dev/zero: more than 1048576 bytes (1 MiB) from a character device: "
                                      "inputs without a size are read up to that limit"));
        QVERIFY(timer.elapsed() < 10000);
        QCOMPARE(kms::kDefaultMaxStreamBytes, std::uint64_t{4} << 30);
        KMS_EXPECT_ERROR([] { kms::load_matrix("/dev/null"); }, "/dev/null: empty file: no data rows");
    }

    void proc_files_are_read_to_their_end() {
        // /proc files report size 0: they used to load as an "empty file".
        if (!QFile::exists("/proc/sys/kernel/pid_max")) QSKIP("no /proc here");
        const kms::Matrix<double> pid_max = kms::load_matrix("/proc/sys/kernel/pid_max");
        QCOMPARE(pid_max.rows(), std::size_t{1});
        QVERIFY(pid_max(0, 0) >= 300);
        try {
            kms::load_dataset("/proc/cpuinfo");
            QFAIL("/proc/cpuinfo loaded");
        } catch (const kms::InputError& error) {
            QVERIFY2(error.where() == kms::InputError::Where::Line && error.position() == 1, error.what());
            QVERIFY2(QString(error.what()).contains("not a number"), error.what());
            QVERIFY2(!QString(error.what()).contains("empty"), error.what());
        }
    }

    // ------------------------------------------------------------ through the CLI
    void cli_fifo_inputs_do_not_hang() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const std::string base = folder();
        write_plain(base + "/good.csv", kGoodCsv);
        write_plain(base + "/labels.txt", "0\n0\n1\n1\n1\n");
        const QString good = QString::fromStdString(base + "/good.csv");
        QStringList fifos;
        for (const char* name : {"input.fifo", "init.fifo", "truth.fifo"}) {
            QVERIFY(::mkfifo((base + "/" + name).c_str(), 0666) == 0);
            fifos << QString::fromStdString(base + "/" + name);
        }
        // The three at once: each waits the default 10 s for a writer, then fails.
        const QList<QStringList> commands{
            {"run", "--input", fifos[0], "--k", "2"},
            {"run", "--input", good, "--k", "2", "--init", fifos[1]},
            {"score", "--input", good, "--labels", QString::fromStdString(base + "/labels.txt"), "--truth", fifos[2]}};
        std::vector<std::future<CliResult>> runs;
        for (const QStringList& command : commands)
            runs.push_back(std::async(std::launch::async, [command] { return run_cli(command, 40000); }));
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const CliResult r = runs[i].get();
            QVERIFY2(r.exit_code == 1, qPrintable(QString("%1: exit %2, %3").arg(commands[int(i)].join(' ')).arg(r.exit_code).arg(r.err)));
            QVERIFY2(r.err.contains(fifos[int(i)] + ": no process opened the FIFO for writing within 10 s"),
                     qPrintable(r.err));
        }
    }

    void cli_outputs_to_devices_fifos_links_and_stdout() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const std::string base = folder();
        write_plain(base + "/good.csv", kGoodCsv);
        const QString good = QString::fromStdString(base + "/good.csv");
        // /dev/stdout: the labels follow the report in the same stream.
        CliResult r = run_cli({"run", "--input", good, "--k", "2", "--init", "maximin", "--labels-out", "/dev/stdout"});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        QVERIFY2(r.out.endsWith("\n0\n0\n1\n1\n1\n") || r.out.endsWith("\n1\n1\n0\n0\n0\n"), qPrintable(r.out));
        QVERIFY(S_ISLNK(lstat_of("/dev/stdout").st_mode) || S_ISCHR(lstat_of("/dev/stdout").st_mode));
        // /dev/null
        r = run_cli({"run", "--input", good, "--k", "2", "--labels-out", "/dev/null", "--centroids-out", "/dev/null"});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        QVERIFY(S_ISCHR(lstat_of("/dev/null").st_mode));
        // A symbolic link: still a link, its target holds the labels.
        QCOMPARE(::symlink("real-labels.txt", (base + "/link.txt").c_str()), 0);
        r = run_cli({"run", "--input", good, "--k", "2", "--labels-out", QString::fromStdString(base + "/link.txt")});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        QVERIFY(S_ISLNK(lstat_of(base + "/link.txt").st_mode));
        QCOMPARE(kms::load_labels(base + "/real-labels.txt").size(), std::size_t{5});
        // A FIFO nobody reads: a clear error, not a hang, and the FIFO stays.
        QCOMPARE(::mkfifo((base + "/out.fifo").c_str(), 0666), 0);
        r = run_cli({"run", "--input", good, "--k", "2", "--labels-out", QString::fromStdString(base + "/out.fifo")},
                    20000);
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("no process has the FIFO open for reading"), qPrintable(r.err));
        QVERIFY(S_ISFIFO(lstat_of(base + "/out.fifo").st_mode));
        // The reproduction from the issue: mknod c 1 7 (as root only).
        if (!root()) QSKIP("not root: the /dev/full reproduction needs mknod");
        const std::string full = base + "/devfull";
        if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) QSKIP("mknod refused here");
        r = run_cli({"run", "--input", good, "--k", "3", "--labels-out", QString::fromStdString(full)});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("cannot write " + QString::fromStdString(full) + ": No space left on device"),
                 qPrintable(r.err));
        QVERIFY(S_ISCHR(lstat_of(full).st_mode));
        QCOMPARE(lstat_of(full).st_rdev, makedev(1, 7));
    }

    void cli_out_of_memory_while_loading_is_a_clear_error() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
#ifdef KMS_SANITIZED
        QSKIP("sanitizer build: the sanitizers' shadow memory does not work under an address-space limit");
#else
        // /dev/zero under a 1 GiB address space: the buffer cannot grow to the 4 GiB bound.
        const rlim_t limit = rlim_t{1} << 30;
        CliResult r = run_cli({"run", "--input", "/dev/zero", "--k", "2"}, 120000, limit);
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("/dev/zero: not enough memory to load "), qPrintable(r.err));
        QVERIFY2(r.err.contains(" bytes"), qPrintable(r.err));
        // A regular file whose matrix does not fit: "N points × d".
        const std::string base = folder();
        {
            std::ofstream big(base + "/big.csv", std::ios::binary);
            const std::string line = "1,2\n";
            std::string block;
            for (int i = 0; i < 1 << 16; ++i) block += line;
            for (int i = 0; i < 120; ++i) big << block;  // 7.9 M points, 31 MB of text, 126 MB of doubles
        }
        r = run_cli({"run", "--input", QString::fromStdString(base + "/big.csv"), "--k", "2"}, 120000, rlim_t{150} << 20);
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains(QString::fromStdString(base) + "/big.csv: not enough memory to load up to "), qPrintable(r.err));
        QVERIFY2(r.err.contains(QString::fromUtf8(" points × 2")), qPrintable(r.err));
#endif
    }
};

QTEST_GUILESS_MAIN(TestIoSpecial)
#include "test_io_special.moc"
