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
#include <memory>
#include <stop_token>
#include <string>

#include "kms/fit.hpp"
#include "kms/sparse_solver.hpp"

namespace kms {

// fit() over sparse points: fit()'s checks and restarts (the lowest inertia kept),
// each restart stepped by KMeansRun (the step loop, stop rule and final relabel of
// every fit) over make_sparse_solver's solver. Algorithm::Auto runs Lloyd (Elkan
// gives the same labels and centroids; FitResult::solver_choice says so).
FitResult fit(std::shared_ptr<const SparseMatrix<double>> points, const FitOptions& options,
              FitObserver* observer = nullptr, std::stop_token stop = {}, const std::string& source_name = "data");
FitResult fit(std::shared_ptr<const SparseMatrix<float>> points, const FitOptions& options,
              FitObserver* observer = nullptr, std::stop_token stop = {}, const std::string& source_name = "data");

}  // namespace kms
