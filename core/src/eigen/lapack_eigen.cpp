// LAPACK's dsyevr for the smallest eigenpairs (kms/eigen.hpp), through the LAPACKE
// CMake found (KMS_HAVE_LAPACKE); otherwise every call says what to install instead
// of doing something else. The library is opened on first use (dlopen), not linked:
// loading OpenBLAS starts its threads, and before main() they would not carry
// kmeans-cli's blocked signals (core/CMakeLists.txt says what went wrong).
#include "kms/eigen.hpp"

#include <mutex>
#include <string>
#include <vector>

#include "kms/error.hpp"

#ifdef KMS_HAVE_LAPACKE
#include <dlfcn.h>
#include <lapacke.h>
#endif

namespace kms {

#ifdef KMS_HAVE_LAPACKE
namespace {
struct Lapacke {
    decltype(&LAPACKE_dsyevr) dsyevr = nullptr;
    decltype(&LAPACKE_dlamch) dlamch = nullptr;
    std::string error;  // why it could not be opened
};

// The library found at configure time, else the runtime package's soname. Once opened
// it is kept for the process's life. A failed open is tried again at the next call:
// it may have been a passing shortage of memory, as in the studio.
Lapacke lapacke() {
    static std::mutex mutex;
    static Lapacke opened;
    const std::lock_guard lock(mutex);
    if (opened.dsyevr && opened.dlamch) return opened;
    Lapacke result;
    void* handle = nullptr;
    for (const char* name : {KMS_LAPACKE_LIBRARY, "liblapacke.so.3"}) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        result.error += std::string(result.error.empty() ? "" : "; ") + dlerror();
    }
    if (!handle) return result;
    result.dsyevr = reinterpret_cast<decltype(&LAPACKE_dsyevr)>(dlsym(handle, "LAPACKE_dsyevr"));
    result.dlamch = reinterpret_cast<decltype(&LAPACKE_dlamch)>(dlsym(handle, "LAPACKE_dlamch"));
    if (!result.dsyevr || !result.dlamch) result.error = "LAPACKE_dsyevr or LAPACKE_dlamch missing from " + std::string(KMS_LAPACKE_LIBRARY);
    else opened = result;
    return result;
}
}  // namespace
#endif

bool lapack_built() {
#ifdef KMS_HAVE_LAPACKE
    return true;
#else
    return false;
#endif
}

std::string lapack_load_failure_message(const std::string& loader_error) {
    // The dynamic loader says "failed to map segment" or "cannot allocate memory" when the
    // address space is full (a `ulimit -v`, a cgroup): installing packages would not help.
    const auto says = [&](const char* text) { return loader_error.find(text) != std::string::npos; };
    const bool memory = says("failed to map segment") || says("annot allocate memory");
    return "cannot load LAPACKE (" + loader_error + "): spectral clustering needs LAPACK's eigensolver, which this " +
           "program was built to load at run time; " +
           (memory ? std::string("there is not enough memory to load it (is the address space limited, e.g. by ulimit -v?)")
                   : std::string("install the runtime libraries (Debian/Ubuntu: liblapacke and libopenblas0)"));
}

std::string lapack_missing_message() {
    return "spectral clustering needs LAPACK's eigensolver, and this program was built without LAPACKE: install "
           "liblapacke-dev and libopenblas-dev (Debian/Ubuntu; scripts/install-deps.sh does it), then configure and "
           "build again";
}

EigenPairs lapack_smallest_eigenpairs(const Matrix<double>& matrix, std::size_t count) {
    const std::size_t n = matrix.rows();
    if (matrix.cols() != n) throw Error("eigensolver: the matrix is not square");
    if (count < 1 || count > n)
        throw Error("eigensolver: asked for " + std::to_string(count) + " eigenpairs of a " + std::to_string(n) +
                    " x " + std::to_string(n) + " matrix");
#ifdef KMS_HAVE_LAPACKE
    Matrix<double> work = matrix;  // dsyevr overwrites its input
    EigenPairs result;
    result.values.assign(n, 0.0);
    result.vectors = Matrix<double>(n, count);
    std::vector<lapack_int> support(2 * n);
    lapack_int found = 0;
    const auto size = static_cast<lapack_int>(n);
    // abstol = safe minimum: the most accurate eigenvalues dsyevr gives (its documentation's advice).
    const Lapacke library = lapacke();
    if (!library.dsyevr || !library.dlamch) throw Error(lapack_load_failure_message(library.error));
    const lapack_int info =
        library.dsyevr(LAPACK_ROW_MAJOR, 'V', 'I', 'U', size, work.data(), size, 0.0, 0.0, 1,
                       static_cast<lapack_int>(count), library.dlamch('S'), &found, result.values.data(),
                       result.vectors.data(), static_cast<lapack_int>(count), support.data());
    if (info != 0 || found != static_cast<lapack_int>(count))
        throw Error("eigensolver: LAPACK dsyevr failed (info " + std::to_string(info) + ", " + std::to_string(found) +
                    " of " + std::to_string(count) + " eigenpairs)");
    result.values.resize(count);
    result.method = "LAPACK dsyevr (CPU)";
    return result;
#else
    throw Error(lapack_missing_message());
#endif
}

}  // namespace kms
