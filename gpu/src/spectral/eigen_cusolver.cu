// The CUDA back end's eigensolver for spectral clustering (BackendEntry::
// smallest_eigenpairs): cuSOLVER's dense symmetric syevd, all eigenpairs of the
// representatives' Laplacian on the device, the `count` smallest kept. cuSOLVER
// (hundreds of MB) is opened at first use, so programs that never ask for it
// neither load it nor need it installed; without it the error says what to install.
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <dlfcn.h>

#include <mutex>

#include <string>
#include <vector>

#include "cuda_common.hpp"
#include "spectral/eigen_cusolver.hpp"
#include "kms/error.hpp"

namespace kms {

namespace {
struct CusolverLibrary {
    decltype(&cusolverDnCreate) create = nullptr;
    decltype(&cusolverDnDestroy) destroy = nullptr;
    decltype(&cusolverDnDsyevd_bufferSize) syevd_buffer_size = nullptr;
    decltype(&cusolverDnDsyevd) syevd = nullptr;
};

const CusolverLibrary& cusolver() {
    static CusolverLibrary library;
    static std::string missing;
    static std::once_flag once;
    std::call_once(once, [] {
        void* handle = nullptr;
        for (const char* name : {"libcusolver.so", "libcusolver.so.12", "libcusolver.so.11", "libcusolver.so.13"})
            if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        if (!handle) {
            missing = "the CUDA eigen-path needs cuSOLVER (libcusolver.so, part of the CUDA toolkit), which was not "
                      "found; add its folder to LD_LIBRARY_PATH or use --backend omp";
            return;
        }
        library.create = reinterpret_cast<decltype(&cusolverDnCreate)>(dlsym(handle, "cusolverDnCreate"));
        library.destroy = reinterpret_cast<decltype(&cusolverDnDestroy)>(dlsym(handle, "cusolverDnDestroy"));
        library.syevd_buffer_size =
            reinterpret_cast<decltype(&cusolverDnDsyevd_bufferSize)>(dlsym(handle, "cusolverDnDsyevd_bufferSize"));
        library.syevd = reinterpret_cast<decltype(&cusolverDnDsyevd)>(dlsym(handle, "cusolverDnDsyevd"));
        if (!library.create || !library.destroy || !library.syevd_buffer_size || !library.syevd) {
            library = CusolverLibrary{};
            missing = "the cuSOLVER library found lacks cusolverDnDsyevd";
        }
    });
    if (!library.syevd) throw Error(missing);
    return library;
}

void check_cusolver(cusolverStatus_t status, const char* what) {
    if (status != CUSOLVER_STATUS_SUCCESS)
        throw Error(std::string("cuSOLVER: ") + what + " failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

struct SolverHandle {
    cusolverDnHandle_t handle = nullptr;
    SolverHandle() { check_cusolver(cusolver().create(&handle), "creating a handle"); }
    ~SolverHandle() { cusolver().destroy(handle); }
    SolverHandle(const SolverHandle&) = delete;
    SolverHandle& operator=(const SolverHandle&) = delete;
};
}  // namespace

EigenPairs cuda_smallest_eigenpairs(const Matrix<double>& matrix, std::size_t count, int device) {
    const std::size_t n = matrix.rows();
    if (n == 0 || matrix.cols() != n) throw Error("the eigensolver needs a square, non-empty matrix");
    if (count < 1 || count > n)
        throw Error("asked for " + std::to_string(count) + " eigenpairs of a " + std::to_string(n) + " × " +
                    std::to_string(n) + " matrix");
    if (n > 46340) throw Error("cuSOLVER's syevd takes at most 46340 rows here (int indexing); this matrix has " +
                               std::to_string(n));
    KMS_CUDA_CHECK(cudaSetDevice(device));
    cusolver();  // a clear error before any device work when cuSOLVER is missing
    SolverHandle solver;
    const int size = static_cast<int>(n);
    // Row-major symmetric = column-major symmetric; its upper triangle (row-major)
    // is the column-major lower one.
    const cublasFillMode_t fill = CUBLAS_FILL_MODE_LOWER;
    cuda::DeviceBuffer<double> a, w, work;
    cuda::DeviceBuffer<int> info;
    a.allocate(n * n, "the Laplacian");
    w.allocate(n, "its eigenvalues");
    info.allocate(1, "the eigensolver's status");
    KMS_CUDA_CHECK(cudaMemcpy(a.get(), matrix.data(), n * n * sizeof(double), cudaMemcpyHostToDevice));
    int lwork = 0;
    check_cusolver(cusolver().syevd_buffer_size(solver.handle, CUSOLVER_EIG_MODE_VECTOR, fill, size, a.get(), size,
                                               w.get(), &lwork),
                   "sizing syevd's workspace");
    work.allocate(static_cast<std::size_t>(lwork), "the eigensolver's workspace");
    check_cusolver(cusolver().syevd(solver.handle, CUSOLVER_EIG_MODE_VECTOR, fill, size, a.get(), size, w.get(),
                                    work.get(), lwork, info.get()),
                   "syevd");
    int status = 0;
    KMS_CUDA_CHECK(cudaMemcpy(&status, info.get(), sizeof(int), cudaMemcpyDeviceToHost));
    if (status != 0)
        throw Error("cuSOLVER syevd did not converge (info " + std::to_string(status) + ") on the " +
                    std::to_string(n) + " × " + std::to_string(n) + " Laplacian");
    std::vector<double> values(n), vectors(n * count);  // ascending; column j of A holds eigenvector j
    KMS_CUDA_CHECK(cudaMemcpy(values.data(), w.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
    KMS_CUDA_CHECK(cudaMemcpy(vectors.data(), a.get(), n * count * sizeof(double), cudaMemcpyDeviceToHost));
    EigenPairs result;
    result.values.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
    result.vectors = Matrix<double>(n, count);
    for (std::size_t j = 0; j < count; ++j)
        for (std::size_t i = 0; i < n; ++i) result.vectors(i, j) = vectors[j * n + i];
    result.method = "cuSOLVER syevd (CUDA device " + std::to_string(device) + ")";
    return result;
}

}  // namespace kms
