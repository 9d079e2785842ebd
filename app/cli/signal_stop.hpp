#pragma once
// Graceful cancellation for the CLI: the first SIGINT or SIGTERM requests a stop
// (the fit layer ends after the step in progress and the command still writes its
// summary and outputs); a second one ends the process at once. The signals are
// blocked in every thread and taken by one waiting thread, so nothing runs in a
// signal handler.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <stop_token>
#include <thread>

namespace kms::cli {

class SignalStop {
public:
    // Call before any other thread starts (OpenMP's included): they inherit the mask.
    SignalStop() {
        sigemptyset(&signals_);
        sigaddset(&signals_, SIGINT);
        sigaddset(&signals_, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
        std::thread([this] {
            for (;;) {
                int signal = 0;
                if (sigwait(&signals_, &signal) != 0) continue;
                if (received_.exchange(signal) != 0) _exit(128 + signal);  // the second: at once
                source_.request_stop();
            }
        }).detach();
    }
    SignalStop(const SignalStop&) = delete;
    SignalStop& operator=(const SignalStop&) = delete;

    std::stop_token token() const { return source_.get_token(); }
    // 0 while no signal came; else the exit status a shell expects (130 SIGINT, 143 SIGTERM).
    int exit_status() const {
        const int signal = received_.load();
        return signal ? 128 + signal : 0;
    }

private:
    sigset_t signals_;
    std::stop_source source_;
    std::atomic<int> received_{0};
};

// The process's one SignalStop; main() creates it before any other thread starts.
inline SignalStop& signal_stop() {
    static SignalStop instance;
    return instance;
}

}  // namespace kms::cli
