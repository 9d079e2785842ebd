#pragma once
// The squared distance of a sparse row to a dense centroid, shared by the sparse
// solvers, the sparse seeding and assign_sparse (kms/sparse.hpp): one function, so
// Lloyd, Elkan and the relabel compare the same numbers.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kms/sparse_solver.hpp"

namespace kms::sparse {

// A row's stored entries.
template <typename T>
struct Row {
    const std::int32_t* index;
    const T* value;
    std::size_t count;
};

template <typename T>
Row<T> row(const SparseMatrix<T>& m, std::size_t i) {
    const auto begin = static_cast<std::size_t>(m.indptr[i]), end = static_cast<std::size_t>(m.indptr[i + 1]);
    return {m.indices + begin, m.values + begin, end - begin};
}

// ||x||² in double, entries in stored order.
template <typename T>
double squared_norm(Row<T> x) {
    double sum = 0.0;
    for (std::size_t e = 0; e < x.count; ++e) {
        const double v = static_cast<double>(x.value[e]);
        sum += v * v;
    }
    return sum;
}

// ||c||² of a dense centroid in double, coordinates in order.
inline double squared_norm(const double* c, std::size_t d) {
    double sum = 0.0;
    for (std::size_t j = 0; j < d; ++j) sum += c[j] * c[j];
    return sum;
}

// max(0, (xx + cc) − 2 x·c): scikit-learn's sparse formula, in double.
template <typename T>
double squared_distance(Row<T> x, double xx, const double* c, double cc) {
    double dot = 0.0;
    for (std::size_t e = 0; e < x.count; ++e) dot += static_cast<double>(x.value[e]) * c[x.index[e]];
    const double s = (xx + cc) - 2.0 * dot;
    return s > 0.0 ? s : 0.0;
}

// All k squared distances of a row at once from the centroids transposed (ct: d × k,
// ct[j·k + c] = c_j) and their squared norms: the same numbers as squared_distance
// (each dot product summed over the row's entries in the same order), with each entry
// reading one contiguous row of k values instead of k scattered ones.
template <typename T>
void squared_distances(Row<T> x, double xx, const double* ct, const double* cc, std::size_t k, double* out) {
    std::fill(out, out + k, 0.0);
    for (std::size_t e = 0; e < x.count; ++e) {
        const double v = static_cast<double>(x.value[e]);
        const double* column = ct + static_cast<std::size_t>(x.index[e]) * k;
        for (std::size_t c = 0; c < k; ++c) out[c] += v * column[c];
    }
    for (std::size_t c = 0; c < k; ++c) {
        const double s = (xx + cc[c]) - 2.0 * out[c];
        out[c] = s > 0.0 ? s : 0.0;
    }
}

// The centroids transposed (d × k) for squared_distances.
inline std::vector<double> transposed(const double* centroids, std::size_t k, std::size_t d) {
    std::vector<double> ct(k * d);
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t j = 0; j < d; ++j) ct[j * k + c] = centroids[c * d + j];
    return ct;
}

// A bound on |computed − exact| of squared_distance for any centroid of norm at most
// `max_c_norm`: each of the three sums (nnz, nnz and d terms) and the two additions
// err by at most (m + 2)·u times (|x| + |c|)², m = max(nnz, d), u = 2^-53; doubled,
// plus the smallest normal number so that the margin is never zero.
inline double distance_error(std::size_t nnz, std::size_t d, double x_norm, double max_c_norm) {
    const double m = static_cast<double>(std::max(nnz, d)) + 4.0;
    const double r = x_norm + max_c_norm;
    return 2.0 * m * 0x1.0p-53 * r * r * (1.0 + 0x1.0p-40) + 0x1.0p-1022;
}

}  // namespace kms::sparse
