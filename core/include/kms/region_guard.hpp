#pragma once
// Exceptions and OpenMP regions. An exception that leaves a parallel region ends
// the process (the runtime calls std::terminate: "terminate called after throwing
// std::bad_alloc" for a thread's scratch that did not fit, issue 39). What may throw
// inside a region (a thread's scratch, a push_back) runs under RegionGuard::run():
// the first exception is kept, the threads skip their remaining work (failed()), and
// rethrow() after the region throws it where it can be caught and reported.
//
//     RegionGuard guard;
//     #pragma omp parallel
//     {
//         std::vector<T> scratch;
//         guard.run([&] { scratch.resize(size); });
//         #pragma omp for                      // every thread still meets the loop
//         for (...) if (!guard.failed()) ...
//     }
//     guard.rethrow();
#include <atomic>
#include <exception>
#include <mutex>

namespace kms {

class RegionGuard {
public:
    // Runs `work`; an exception it throws is kept (the first of all threads'). Returns
    // whether it completed.
    template <typename Work>
    bool run(Work&& work) noexcept {
        try {
            work();
            return true;
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!first_) first_ = std::current_exception();
            failed_.store(true, std::memory_order_relaxed);
            return false;
        }
    }
    // Whether any thread's work threw: the others leave the rest of theirs undone.
    bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
    // After the region: throws the kept exception, if any.
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::mutex mutex_;
    std::exception_ptr first_;
    std::atomic<bool> failed_{false};
};

}  // namespace kms
