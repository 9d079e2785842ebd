#pragma once
// 2D view of d-dimensional data: the first two coordinates, or the two leading
// principal components (power iteration on the d × d covariance, deflated once).
// Clustering always happens in full d; only the view is projected.
#include <array>
#include <cstddef>
#include <vector>

#include "kms/matrix.hpp"

namespace kms::ui {

enum class ProjectionMode { FirstTwoDimensions, Pca };

class Projection2D {
public:
    Projection2D() = default;
    // Fits the projection to the data (mean and axes for PCA). d = 1 maps to (x, 0).
    static Projection2D fit(const Matrix<double>& points, ProjectionMode mode);
    // A given linear map: x = axes[0..d) · (p − centre), y = axes[d..2d) · (p − centre)
    // (geographic data's map, ui/geo/). Shown as FirstTwoDimensions.
    static Projection2D linear(std::vector<double> centre, std::vector<double> axes);

    ProjectionMode mode() const noexcept { return mode_; }
    std::size_t input_dimensions() const noexcept { return dims_; }

    std::array<double, 2> project(const double* point) const;
    // Row-major n × 2 floats for a vertex buffer.
    std::vector<float> project_all(const Matrix<double>& points) const;
    // A 2D position back in d dimensions (the point on the projection plane);
    // used when the user places a centroid with the mouse.
    std::vector<double> unproject(double x, double y) const;

    // Unit axes (2 × d) and centre (d); for PCA the axes are orthonormal.
    const std::vector<double>& axes() const noexcept { return axes_; }
    const std::vector<double>& centre() const noexcept { return centre_; }

private:
    ProjectionMode mode_ = ProjectionMode::FirstTwoDimensions;
    std::size_t dims_ = 0;
    std::vector<double> centre_;  // subtracted before projecting (PCA) or zeros
    std::vector<double> axes_;    // row 0 = x axis, row 1 = y axis, each d long
};

}  // namespace kms::ui
