// The number range a weighted fit can work in, and no non-finite result reported as
// success (kms/fit.hpp; issue 39). The data's own range is every solver's check
// (check_solver_data in kms/solver_support.hpp). Refused up front, with the range,
// rather than rescaled: rescaling by a power of two is exact, but it would have to
// reach every number the user sees (initial centroids, --tol, the inertia, the
// scores, the studio's axes); the message says what to do instead.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/short_number.hpp"
#include "kms/fit.hpp"

namespace kms {
namespace {

template <typename T>
struct Limits {
    static constexpr double largest = double(std::numeric_limits<T>::max());
    static constexpr double smallest_normal = double(std::numeric_limits<T>::min());
};

std::string precision_name(Precision precision) { return std::string(to_string(precision)); }

// `biggest()`: the data's largest |x|, asked for once the weights themselves pass (a
// matrix's values, or a pass over a file's rows).
template <typename Biggest>
void check_weights(const std::vector<double>* weights, Precision precision, const std::string& source,
                   Biggest&& biggest_of_data) {
    const bool f32 = precision == Precision::F32;
    const double largest = f32 ? Limits<float>::largest : Limits<double>::largest;
    const double smallest_normal = f32 ? Limits<float>::smallest_normal : Limits<double>::smallest_normal;
    const std::string name = precision_name(precision);
    const std::string f64_helps = f32 ? " or use --precision f64" : "";
    // The update sums w·x in the solver's precision, the weights converted to it: a
    // subnormal weight loses digits there (1e-320, all equal, moved the centroids), and
    // the sums overflow when Σw·max|x| does (1e307 × 10 gave a NaN inertia, "converged").
    double total = 0.0;
    for (std::size_t i = 0; i < weights->size(); ++i) {
        const double w = (*weights)[i];
        total += w;
        if (w > 0.0 && (w < smallest_normal || w > largest))
            throw InputError::whole(source, "sample weight " + std::to_string(i + 1) + " (" + short_number(w) +
                                                ") is outside the " + name + " range of normal numbers " +
                                                short_number(smallest_normal) + " .. " + short_number(largest) +
                                                ": rescale the weights (only their ratios matter)" + f64_helps);
    }
    const double biggest = biggest_of_data();
    if (biggest > 0.0 && total > largest / biggest)
        throw InputError::whole(source, "the sample weights sum to " + short_number(total) +
                                            " and the coordinates reach " + short_number(biggest) +
                                            ": the centroid update's weighted sums overflow " + name +
                                            "; scale the weights down (only their ratios matter)" + f64_helps);
}

template <typename T>
void check_matrix_weights(const Matrix<T>& points, const std::vector<double>* weights, Precision precision,
                          const std::string& source) {
    if (!weights || points.size() == 0) return;
    check_weights(weights, precision, source, [&] {
        double biggest = 0.0;
        for (const T x : points.values()) biggest = std::max(biggest, std::fabs(double(x)));
        return biggest;
    });
}

}  // namespace

void check_weight_range(const Matrix<double>& points, const std::vector<double>* weights, Precision precision,
                        const std::string& source_name) {
    check_matrix_weights(points, weights, precision, source_name);
}

void check_weight_range(const Matrix<float>& points, const std::vector<double>* weights, Precision precision,
                        const std::string& source_name) {
    check_matrix_weights(points, weights, precision, source_name);
}

void check_weight_range(const RowSource& source, std::size_t first_row, std::size_t rows,
                        const std::vector<double>* weights, Precision precision, std::size_t block_rows,
                        const std::string& source_name) {
    const std::size_t d = source.cols();
    if (!weights || rows == 0 || d == 0) return;
    check_weights(weights, precision, source_name, [&] {
        // The rows as loaded (doubles), a block at a time: the loaded matrix's largest |x|.
        block_rows = std::max<std::size_t>(1, std::min(block_rows, rows));
        std::vector<double> block(block_rows * d);
        double biggest = 0.0;
        for (std::size_t start = 0; start < rows; start += block_rows) {
            const std::size_t count = std::min(block_rows, rows - start);
            source.read(first_row + start, count, block.data());
            for (std::size_t e = 0; e < count * d; ++e) biggest = std::max(biggest, std::fabs(block[e]));
        }
        return biggest;
    });
}

void check_finite_result(const Matrix<double>& centroids, double inertia, Precision precision,
                         const std::string& source_name) {
    const std::string name = precision_name(precision);
    const std::string f64_helps = precision == Precision::F32 ? " or use --precision f64" : "";
    for (std::size_t c = 0; c < centroids.rows(); ++c)
        for (std::size_t j = 0; j < centroids.cols(); ++j)
            if (!std::isfinite(centroids(c, j)))
                throw InputError::whole(source_name, "centroid " + std::to_string(c) + " is not finite (" +
                                                         short_number(centroids(c, j)) + " in column " +
                                                         std::to_string(j) + "): the " + name +
                                                         " sums of the centroid update overflowed; rescale the data "
                                                         "or the weights" + f64_helps);
    if (!std::isfinite(inertia))
        throw InputError::whole(source_name, "the inertia is not finite (" + short_number(inertia) + "): the " + name +
                                                 " sum of squared distances overflowed; rescale the data or the "
                                                 "weights" + f64_helps);
}

}  // namespace kms
