#pragma once
// Dense row-major matrix: n points × d coordinates, contiguous, so the
// distance loop over one point's coordinates walks consecutive memory.
//
// A matrix either owns its values or is a read-only view of values someone else
// owns (Matrix::view: a NumPy array read in place by the Python module). A view
// is only read (through const access); copying a view makes an owning copy.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <memory>
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
    // rows × cols values at `data`, read in place; `owner` keeps them alive.
    static Matrix view(std::size_t rows, std::size_t cols, const T* data, std::shared_ptr<const void> owner) {
        Matrix m;
        m.rows_ = rows;
        m.cols_ = cols;
        m.external_ = data;
        m.owner_ = std::move(owner);
        return m;
    }
    Matrix(const Matrix& other) : rows_(other.rows_), cols_(other.cols_), values_(other.values_) {
        if (other.external_) values_.assign(other.external_, other.external_ + other.size());
    }
    Matrix& operator=(const Matrix& other) {
        if (this != &other) *this = Matrix(other);
        return *this;
    }
    Matrix(Matrix&&) noexcept = default;
    Matrix& operator=(Matrix&&) noexcept = default;

    std::size_t rows() const noexcept { return rows_; }
    std::size_t cols() const noexcept { return cols_; }
    std::size_t size() const noexcept { return external_ ? rows_ * cols_ : values_.size(); }
    bool empty() const noexcept { return size() == 0; }
    bool is_view() const noexcept { return external_ != nullptr; }

    T* data() noexcept { assert(!external_); return values_.data(); }
    const T* data() const noexcept { return external_ ? external_ : values_.data(); }
    T* row(std::size_t i) noexcept { return data() + i * cols_; }
    const T* row(std::size_t i) const noexcept { return data() + i * cols_; }
    std::span<T> row_span(std::size_t i) noexcept { return {row(i), cols_}; }
    std::span<const T> row_span(std::size_t i) const noexcept { return {row(i), cols_}; }
    T& operator()(std::size_t i, std::size_t j) noexcept { return data()[i * cols_ + j]; }
    const T& operator()(std::size_t i, std::size_t j) const noexcept { return data()[i * cols_ + j]; }

    // All values in row order (a view's too).
    std::span<const T> span() const noexcept { return {data(), size()}; }
    // The owned values (not of a view).
    std::vector<T>& values() noexcept { assert(!external_); return values_; }
    const std::vector<T>& values() const noexcept { assert(!external_); return values_; }

    // Element-wise conversion (e.g. the double dataset to a float solver copy).
    template <typename U>
    Matrix<U> cast() const {
        const T* in = data();
        std::vector<U> out(size());
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<U>(in[i]);
        return Matrix<U>(rows_, cols_, std::move(out));
    }

    friend bool operator==(const Matrix& a, const Matrix& b) {
        return a.rows_ == b.rows_ && a.cols_ == b.cols_ && std::equal(a.data(), a.data() + a.size(), b.data());
    }

private:
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::vector<T> values_;
    const T* external_ = nullptr;          // a view's values
    std::shared_ptr<const void> owner_;    // keeps a view's values alive
};

}  // namespace kms
