#pragma once
// Sparse points on the CPU, what the solvers own (kms/sparse.hpp says what they do and
// adds fit() over them): the CSR view, the solver, the seeding, the assignment.
// Apart from sparse.hpp so that the solvers need not include the fit layer above them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/backends.hpp"
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

// Each point's nearest centroid (the sparse distance, ties to the lowest index) and the
// (weighted) inertia; a stop request throws kms::Cancelled.
template <typename T>
Assignment assign_sparse(const SparseMatrix<T>& points, const Matrix<double>& centroids, int threads,
                         const std::vector<double>* sample_weight = nullptr, std::stop_token stop = {});

}  // namespace kms
