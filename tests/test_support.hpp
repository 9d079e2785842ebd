#pragma once
// Small helpers shared by the Qt Test suites.
#include <QtTest>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QStringList>
#include <QThread>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kms/algorithms.hpp"
#include "kms/matrix.hpp"
#include "kms/random.hpp"

namespace kms::test {

// Every registered solver (kms/algorithms.hpp), Lloyd first: the reference of the
// lockstep tests. A new solver is tested by every suite that runs this list.
inline std::vector<Algorithm> registered_solvers() {
    std::vector<Algorithm> solvers{Algorithm::Lloyd};
    for (const AlgorithmInfo& info : registered_algorithms())
        if (info.algorithm != Algorithm::Lloyd) solvers.push_back(info.algorithm);
    return solvers;
}

// The registered solvers `backend` has a factory for, Lloyd first: a back end need not run
// every algorithm (the CUDA back end has no Ball k-means). Ask after the back
// end's registrations (a GPU suite's initTestCase: register_gpu_backends()).
inline std::vector<Algorithm> registered_solvers(Backend backend) {
    std::vector<Algorithm> solvers;
    for (Algorithm algorithm : registered_solvers())
        if (registered_solver(algorithm, backend)) solvers.push_back(algorithm);
    return solvers;
}

inline std::string env_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

// kmeans-cli ($KMS_CLI) run with `arguments`: its exit code (-1: not finished in
// time, then killed; -2: crashed), stdout and stderr.
struct CliRun {
    int exit_code = -1;
    QString out, err;
};
inline CliRun run_cli(const QStringList& arguments, int timeout_ms = 120000) {
    QProcess process;
    process.start(QString::fromStdString(env_or_empty("KMS_CLI")), arguments);
    CliRun result;
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// Built with ASan, TSan or MSan (g++ or clang). An address-space limit (ulimit -v,
// RLIMIT_AS) leaves a sanitizer's shadow memory no room: tests that set one skip.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif
#define KMS_SKIP_ADDRESS_LIMIT_IF_SANITIZED() \
    if (kms::test::kSanitized) QSKIP("a sanitizer's shadow memory does not fit an address-space limit")

// ../shared/datasets (absent in a user's clone: tests that need it skip).
inline std::string datasets_dir() { return env_or_empty("KMS_DATASETS"); }

// KMS_GPU_TEST_SMALL=1: the GPU suites shrink their cases (compute-sanitizer runs).
inline bool gpu_small_mode() { return !env_or_empty("KMS_GPU_TEST_SMALL").empty(); }
// A python3 that imports sklearn and numpy (empty when none was found at configure time).
inline std::string python() { return env_or_empty("KMS_PYTHON"); }
inline bool in_ci() { return !env_or_empty("CI").empty(); }

// Waits until `condition` holds, processing events (worker threads report
// through queued signals); false on timeout.
template <typename Condition>
bool wait_for(Condition condition, int timeout_ms = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeout_ms) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QThread::msleep(1);
    }
    return true;
}

// Gaussian blobs around `centres` random centres in [-10, 10)^d, continuous
// coordinates (no exact distance ties, which scikit-learn's distance formula would
// break differently), for the scikit-learn oracles. Deterministic in (seed, stream).
inline Matrix<double> gaussian_blobs(std::size_t n, std::size_t d, std::size_t centres, double spread,
                                     std::uint64_t seed, std::uint64_t stream) {
    Matrix<double> points(n, d);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t blob = random_below(seed, 2, i, centres);
        for (std::size_t t = 0; t < d; ++t) {
            const double u1 = 1.0 - random_uniform(seed, stream, 2 * (i * d + t));
            const double u2 = random_uniform(seed, stream, 2 * (i * d + t) + 1);
            const double gauss = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
            points(i, t) = 20.0 * random_uniform(seed, 3, blob * d + t) - 10.0 + spread * gauss;
        }
    }
    return points;
}

}  // namespace kms::test
