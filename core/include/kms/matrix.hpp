#pragma once
// Dense row-major matrix: n points × d coordinates, contiguous, so the
// distance loop over one point's coordinates walks consecutive memory.
#include <cassert>
#include <cstddef>
#include <span>
#include <vector>

namespace kms {

template <typename T>
class Matrix {
public:
    using value_type = T;

    Matrix() = default;
    Matrix(std::size_t rows, std::size_t cols, T fill = T{})
        : rows_(rows), cols_(cols), values_(rows * cols, fill) {}
    Matrix(std::size_t rows, std::size_t cols, std::vector<T> values)
        : rows_(rows), cols_(cols), values_(std::move(values)) {
        assert(values_.size() == rows_ * cols_);
    }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t size() const noexcept { return values_.size(); }
    bool empty() const noexcept { return values_.empty(); }

    T* data() noexcept { return values_.data(); }
    const T* data() const noexcept { return values_.data(); }
    T* row(std::size_t i) noexcept { return values_.data() + i * cols_; }
    const T* row(std::size_t i) const noexcept { return values_.data() + i * cols_; }
    std::span<T> row_span(std::size_t i) noexcept { return {row(i), cols_}; }
    std::span<const T> row_span(std::size_t i) const noexcept { return {row(i), cols_}; }
    T& operator()(std::size_t i, std::size_t j) noexcept { return values_[i * cols_ + j]; }
    const T& operator()(std::size_t i, std::size_t j) const noexcept { return values_[i * cols_ + j]; }

    std::vector<T>& values() noexcept { return values_; }
    const std::vector<T>& values() const noexcept { return values_; }

    // Element-wise conversion (e.g. the double dataset to a float solver copy).
    template <typename U>
    Matrix<U> cast() const {
        std::vector<U> out(values_.size());
        for (std::size_t i = 0; i < values_.size(); ++i) out[i] = static_cast<U>(values_[i]);
        return Matrix<U>(rows_, cols_, std::move(out));
    }

    friend bool operator==(const Matrix& a, const Matrix& b) {
        return a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.values_ == b.values_;
    }

private:
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::vector<T> values_;
};

}  // namespace kms
