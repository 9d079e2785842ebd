#pragma once
// Shared by the libFuzzer targets: the checks every successful load must pass.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "kms/matrix.hpp"

namespace kms::fuzz {

// A loaded matrix is never empty, has rows × cols values, and only finite ones.
inline void check_matrix(const Matrix<double>& matrix) {
    if (matrix.rows() == 0 || matrix.cols() == 0 || matrix.size() != matrix.rows() * matrix.cols()) {
        std::fprintf(stderr, "loaded a malformed matrix: %zu x %zu, %zu values\n", matrix.rows(), matrix.cols(),
                     matrix.size());
        std::abort();
    }
    for (const double value : matrix.values())
        if (!std::isfinite(value)) {
            std::fprintf(stderr, "loaded a non-finite value\n");
            std::abort();
        }
}

}  // namespace kms::fuzz
