// Entry points of the CUDA back end (cuda_backend.hpp), its error check and the solvers' device check.
#include "solvers/cuda_backend.hpp"

#include <cmath>
#include <string>

#include "cuda_common.hpp"
#include "kms/error.hpp"
#include "solvers/cuda_solver_base.hpp"

namespace kms {
namespace cuda {

void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();
    throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

}  // namespace cuda

BackendAvailability cuda_availability() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        return {false, std::string("no usable CUDA driver or device: ") + cudaGetErrorString(status)};
    }
    if (count == 0) return {false, "no CUDA device found"};
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return {false, "cannot query CUDA device 0"};
    }
    if (props.major < 7)
        return {false, std::string("CUDA device 0 (") + props.name + ") has compute capability " +
                           std::to_string(props.major) + "." + std::to_string(props.minor) +
                           "; this build needs 7.0 or newer"};
    return {true, {}};
}

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

namespace cuda {
void check_solver_device(const SolverConfig& config) {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (config.cuda_device < 0 || config.cuda_device >= count)
        throw Error("CUDA device " + std::to_string(config.cuda_device) + " does not exist (" + std::to_string(count) +
                    " device(s) found)");
}
}  // namespace cuda

}  // namespace kms
