#pragma once
// Small helpers shared by the Qt Test suites.
#include <QtTest>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <cstdlib>
#include <string>

namespace kms::test {

inline std::string env_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

// ../shared/datasets (absent in a user's clone: tests that need it skip).
inline std::string datasets_dir() { return env_or_empty("KMS_DATASETS"); }
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

}  // namespace kms::test
