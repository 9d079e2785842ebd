#include "view/projection.hpp"

#include <cmath>

namespace kms::ui {

namespace {

// Leading eigenvector of a symmetric positive semi-definite d × d matrix by
// power iteration; the start vector is fixed so the view is deterministic.
std::vector<double> leading_eigenvector(const std::vector<double>& matrix, std::size_t d, std::size_t hint_axis) {
    std::vector<double> v(d, 0.1), next(d);
    v[hint_axis % d] = 1.0;
    for (int iteration = 0; iteration < 500; ++iteration) {
        double norm = 0.0;
        for (std::size_t i = 0; i < d; ++i) {
            double sum = 0.0;
            for (std::size_t j = 0; j < d; ++j) sum += matrix[i * d + j] * v[j];
            next[i] = sum;
            norm += sum * sum;
        }
        norm = std::sqrt(norm);
        if (norm == 0.0) return v;  // zero matrix: any axis will do
        double change = 0.0;
        for (std::size_t i = 0; i < d; ++i) {
            next[i] /= norm;
            change += std::abs(next[i] - v[i]);
        }
        v.swap(next);
        if (change < 1e-12) break;
    }
    // A sign convention so re-fitting never mirrors the picture.
    std::size_t largest = 0;
    for (std::size_t i = 1; i < d; ++i)
        if (std::abs(v[i]) > std::abs(v[largest])) largest = i;
    if (v[largest] < 0)
        for (double& x : v) x = -x;
    return v;
}

}  // namespace

Projection2D Projection2D::linear(std::vector<double> centre, std::vector<double> axes) {
    Projection2D projection;
    projection.dims_ = centre.size();
    projection.centre_ = std::move(centre);
    projection.axes_ = std::move(axes);
    projection.axes_.resize(2 * projection.dims_, 0.0);
    return projection;
}

Projection2D Projection2D::fit(const Matrix<double>& points, ProjectionMode mode) {
    Projection2D projection;
    const std::size_t d = points.cols();
    projection.dims_ = d;
    projection.centre_.assign(d, 0.0);
    projection.axes_.assign(2 * d, 0.0);
    if (d == 0) return projection;
    if (mode == ProjectionMode::FirstTwoDimensions || d <= 2 || points.rows() < 2) {
        projection.mode_ = ProjectionMode::FirstTwoDimensions;
        projection.axes_[0] = 1.0;
        if (d >= 2) projection.axes_[d + 1] = 1.0;
        return projection;
    }
    projection.mode_ = ProjectionMode::Pca;
    const std::size_t n = points.rows();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) projection.centre_[j] += points(i, j);
    for (double& c : projection.centre_) c /= static_cast<double>(n);
    std::vector<double> covariance(d * d, 0.0);
    std::vector<double> centred(d);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j) centred[j] = points(i, j) - projection.centre_[j];
        for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = a; b < d; ++b) covariance[a * d + b] += centred[a] * centred[b];
    }
    for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = a; b < d; ++b) {
            covariance[a * d + b] /= static_cast<double>(n - 1);
            covariance[b * d + a] = covariance[a * d + b];
        }
    const std::vector<double> first = leading_eigenvector(covariance, d, 0);
    double lambda = 0.0;
    for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) lambda += first[a] * covariance[a * d + b] * first[b];
    // Deflate, then the next leading vector is the second component.
    for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) covariance[a * d + b] -= lambda * first[a] * first[b];
    std::vector<double> second = leading_eigenvector(covariance, d, 1);
    // Re-orthogonalise against the first axis (power iteration leaves rounding).
    double dot = 0.0;
    for (std::size_t j = 0; j < d; ++j) dot += second[j] * first[j];
    double norm = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        second[j] -= dot * first[j];
        norm += second[j] * second[j];
    }
    norm = std::sqrt(norm);
    for (std::size_t j = 0; j < d; ++j) {
        projection.axes_[j] = first[j];
        projection.axes_[d + j] = norm > 0 ? second[j] / norm : (j == 1 ? 1.0 : 0.0);
    }
    return projection;
}

std::array<double, 2> Projection2D::project(const double* point) const {
    const std::size_t d = dims_;
    double x = 0.0, y = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
        const double c = point[j] - centre_[j];
        x += c * axes_[j];
        y += c * axes_[d + j];
    }
    return {x, y};
}

std::vector<float> Projection2D::project_all(const Matrix<double>& points) const {
    std::vector<float> out(points.rows() * 2);
    for (std::size_t i = 0; i < points.rows(); ++i) {
        const auto p = project(points.row(i));
        out[2 * i] = static_cast<float>(p[0]);
        out[2 * i + 1] = static_cast<float>(p[1]);
    }
    return out;
}

std::vector<double> Projection2D::unproject(double x, double y) const {
    std::vector<double> point(centre_);
    for (std::size_t j = 0; j < dims_; ++j) point[j] += x * axes_[j] + y * axes_[dims_ + j];
    return point;
}

}  // namespace kms::ui
