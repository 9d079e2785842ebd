#pragma once
// Internal to core/src/init: the allocator of the tree's per-point arrays
// (bounded_nearest.hpp). From 4 MiB on a buffer is 2 MiB-aligned and marked for
// transparent huge pages, so that first touching it faults once per 2 MiB instead of
// once per 4 KiB: a k-means‖ seeding of 10^6 × 2 points fills ~60 MB of fresh
// arrays, ~15,000 faults with 4 KiB pages (~10 % of its time on the development VM,
// whose kernel gives huge pages only where asked: "madvise").
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kms::seeding {

template <typename T>
struct LargeAllocator {
    using value_type = T;
    static constexpr std::size_t kLarge = std::size_t{4} << 20, kHuge = std::size_t{2} << 20;

    LargeAllocator() = default;
    template <typename U>
    LargeAllocator(const LargeAllocator<U>&) noexcept {}

    T* allocate(std::size_t count) {
        if (count > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = count * sizeof(T);
        if (bytes < kLarge) return std::allocator<T>{}.allocate(count);
        const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* buffer = std::aligned_alloc(kHuge, rounded);
        if (!buffer) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(buffer, rounded, MADV_HUGEPAGE);  // a hint: refused, the pages are 4 KiB as before
#endif
        return static_cast<T*>(buffer);
    }
    void deallocate(T* buffer, std::size_t count) noexcept {
        if (count * sizeof(T) < kLarge) std::allocator<T>{}.deallocate(buffer, count);
        else std::free(buffer);
    }
    template <typename U>
    bool operator==(const LargeAllocator<U>&) const noexcept { return true; }
};

template <typename T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

// `count` values from LargeAllocator, not initialised (for scratch written before it is read).
template <typename T>
class LargeBuffer {
public:
    explicit LargeBuffer(std::size_t count) : count_(count), data_(LargeAllocator<T>{}.allocate(count)) {}
    ~LargeBuffer() { LargeAllocator<T>{}.deallocate(data_, count_); }
    LargeBuffer(const LargeBuffer&) = delete;
    LargeBuffer& operator=(const LargeBuffer&) = delete;
    T* data() { return data_; }

private:
    std::size_t count_;
    T* data_;
};

}  // namespace kms::seeding
