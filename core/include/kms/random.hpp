#pragma once
// Counter-based random numbers: value = mix(seed, stream, counter), with no
// state carried between draws. The CPU and a CUDA kernel (or 1 vs 16 threads)
// draw exactly the same numbers for the same (seed, stream, counter).
// This header is shared with gpu/: it must stay free of anything but <cstdint>.
#include <cstdint>

#if defined(__CUDACC__)
#define KMS_HOST_DEVICE __host__ __device__
#else
#define KMS_HOST_DEVICE
#endif

namespace kms {

KMS_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// 64 random bits for (seed, stream, counter). Streams separate independent uses
// (e.g. one per generator component, one per k-means++ round).
KMS_HOST_DEVICE inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
    return splitmix64(splitmix64(splitmix64(seed) ^ (stream * 0xD1B54A32D192ED03ull)) ^
                      (counter * 0x8CB92BA72F3D8DD7ull));
}

// Uniform double in [0, 1) with 53 random bits.
KMS_HOST_DEVICE inline double random_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
    return static_cast<double>(random_bits(seed, stream, counter) >> 11) * 0x1.0p-53;
}

// Uniform integer in [0, bound) (bound > 0), by 128-bit multiply (Lemire), no modulo bias
// worth noting for bound ≤ 2^32.
KMS_HOST_DEVICE inline std::uint64_t random_below(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter,
                                                  std::uint64_t bound) {
    const std::uint64_t r = random_bits(seed, stream, counter);
#if defined(__CUDA_ARCH__)
    return __umul64hi(r, bound);
#else
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * bound) >> 64);
#endif
}

}  // namespace kms
