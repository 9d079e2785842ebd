#pragma once
// Which vector instructions the CPU solvers' distance kernels use. Every level
// gives bitwise the same labels, bounds and centroids (same operations in the
// same order per distance, no FMA, ties to the lowest index); the levels differ
// only in speed. The level is chosen once from the CPU (the widest it has), or
// from the environment variable KMS_SIMD=scalar|baseline|avx2|avx512 (clamped
// to what the CPU supports), for benchmarks and for the tests that compare the
// vector paths with the scalar one.
#include <optional>
#include <string_view>
#include <vector>

namespace kms {

enum class SimdLevel {
    Scalar,    // the reference: one distance at a time, a sequential arg-min scan
    Baseline,  // vector kernels at the build's baseline (SSE2 on x86-64)
    Avx2,      // 256-bit vectors
    Avx512,    // 512-bit vectors (AVX-512 F/VL/DQ/BW)
};

const char* to_string(SimdLevel level);
std::optional<SimdLevel> parse_simd_level(std::string_view name);

// The widest level this CPU runs.
SimdLevel detected_simd_level();
// Every level this CPU runs, narrowest first (Scalar and Baseline always).
std::vector<SimdLevel> supported_simd_levels();
// The level the kernels use now.
SimdLevel active_simd_level();
// Use `level` from now on (clamped to detected_simd_level()); returns the level
// in force. For tests and benchmarks: not to be called while a solver runs.
SimdLevel force_simd_level(SimdLevel level);

}  // namespace kms
