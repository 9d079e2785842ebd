#pragma once
// Sparse points (CSR: SciPy's csr_matrix, scikit-learn's sparse input) on the CPU.
//
// Exact Lloyd and Elkan over sparse rows, float or double values, weighted or not,
// each step costing O(nnz · k) (Lloyd) or less (Elkan) plus O(k · d) for the centroids,
// never O(n · d). The squared distance of a sparse point x to a dense centroid c is
// scikit-learn's ||x||² − 2 x·c + ||c||² (clamped at 0), computed in double (float
// values widened exactly, so float data fits as the same values in double do, bit for
// bit), every sum in index order; Elkan's bounds are widened by that formula's
// round-off, so Elkan gives Lloyd's labels and centroids bit for bit. The update sums
// each cluster's points in increasing row order: results are the same bits for any
// thread count. Empty clusters, stopping, restarts and the final relabel are the fit
// layer's (kms/fit.hpp; fit() below runs its loop).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/fit.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"
#include "kms/solver.hpp"

namespace kms {

// A CSR view: row i's non-zeros are values[indptr[i] .. indptr[i+1]) at columns
// indices[...]. The arrays are not copied; `owner` keeps them alive.
template <typename T>
struct SparseMatrix {
    std::size_t rows = 0, cols = 0;
    const std::int64_t* indptr = nullptr;   // rows + 1 offsets, indptr[0] = 0, non-decreasing
    const std::int32_t* indices = nullptr;  // column of each stored value, in [0, cols)
    const T* values = nullptr;
    std::shared_ptr<const void> owner;

    std::size_t nnz() const { return rows ? static_cast<std::size_t>(indptr[rows]) : 0; }
    // Throws InputError (naming `source_name`) for malformed offsets or columns and
    // for NaN or infinite values.
    void check(const std::string& source_name) const;
};

// A solver over sparse points: Algorithm::Lloyd or Algorithm::Elkan, on the
// sequential or OpenMP back end (others throw UsageError naming the choice).
template <typename T>
std::unique_ptr<Solver> make_sparse_solver(std::shared_ptr<const SparseMatrix<T>> points, const SolverConfig& config);

// Initial centroids of sparse points by the rules of kms/init.hpp (the same random
// streams, blocked sums and fallbacks; distances by the sparse formula above, so the
// choices are the dense seeding's except where round-off decides), or
// InitMethod::File's given centroids. `chosen` (optional) receives the chosen rows.
template <typename T>
Matrix<double> initialize_centroids(const SparseMatrix<T>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name = "data", std::vector<std::size_t>* chosen = nullptr);

// fit() over sparse points: fit()'s checks and restarts (the lowest inertia kept),
// each restart stepped by KMeansRun (the step loop, stop rule and final relabel of
// every fit) over make_sparse_solver's solver. Algorithm::Auto runs Lloyd (Elkan
// gives the same labels and centroids; FitResult::solver_choice says so).
FitResult fit(std::shared_ptr<const SparseMatrix<double>> points, const FitOptions& options,
              FitObserver* observer = nullptr, std::stop_token stop = {}, const std::string& source_name = "data");
FitResult fit(std::shared_ptr<const SparseMatrix<float>> points, const FitOptions& options,
              FitObserver* observer = nullptr, std::stop_token stop = {}, const std::string& source_name = "data");

// Each point's nearest centroid (the sparse distance, ties to the lowest index) and the
// (weighted) inertia; a stop request throws kms::Cancelled.
template <typename T>
Assignment assign_sparse(const SparseMatrix<T>& points, const Matrix<double>& centroids, int threads,
                         const std::vector<double>* sample_weight = nullptr, std::stop_token stop = {});

}  // namespace kms
