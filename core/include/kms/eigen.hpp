#pragma once
// Eigenpairs of dense symmetric matrices: what spectral clustering needs from a
// linear-algebra library. The CPU path is LAPACK's dsyevr (through LAPACKE, when
// the build found it); a device plugs its own in through the back-end registry
// (BackendEntry::smallest_eigenpairs, kms/backends.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "kms/matrix.hpp"

namespace kms {

struct EigenPairs {
    std::vector<double> values;  // ascending
    Matrix<double> vectors;      // n × values.size(): column j is the unit eigenvector of values[j]
    std::string method;          // for reports: "LAPACK dsyevr (CPU)"
};

// Whether this build has LAPACKE (found when it was configured).
bool lapack_built();
// What to install when it has not, in a sentence.
std::string lapack_missing_message();
// Why a build with LAPACKE could not load it at run time, from the dynamic loader's
// error: not enough memory (say so), or the runtime libraries missing (say which).
std::string lapack_load_failure_message(const std::string& loader_error);

// The `count` smallest eigenvalues of the symmetric n × n `matrix` (only its upper
// triangle is read) and their eigenvectors, by LAPACK's dsyevr. Throws kms::Error
// with lapack_missing_message() when the build has no LAPACKE, kms::Error for
// count outside [1, n] or a LAPACK failure.
EigenPairs lapack_smallest_eigenpairs(const Matrix<double>& matrix, std::size_t count);

}  // namespace kms
