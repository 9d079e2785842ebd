#pragma once
// A loaded or generated point set, with ground truth when the source has one.
#include <cstdint>
#include <string>
#include <vector>

#include "kms/matrix.hpp"

namespace kms {

struct Dataset {
    std::string name;                    // file path or generator spec, for messages and reports
    Matrix<double> points;               // n × d, always stored in double; solvers convert
    std::vector<std::int32_t> truth_labels;  // 0-based, empty when unknown
    Matrix<double> truth_centroids;      // k × d, 0 rows when unknown

    std::size_t n() const noexcept { return points.rows(); }
    std::size_t d() const noexcept { return points.cols(); }
};

}  // namespace kms
