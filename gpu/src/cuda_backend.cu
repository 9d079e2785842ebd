// Entry points of the CUDA back end (cuda_backend.hpp) and its error check.
#include "cuda_backend.hpp"

#include <cmath>
#include <string>

#include "cuda_common.hpp"
#include "kms/error.hpp"
#include "solvers/cuda_solvers.hpp"

namespace kms {
namespace cuda {

void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();
    throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

namespace {

template <typename T>
std::unique_ptr<Solver> make_for_precision(const SolverConfig& config) {
    switch (config.algorithm) {
        case Algorithm::Lloyd: return make_lloyd_solver<T>(config);
        case Algorithm::Elkan: return make_elkan_solver<T>(config);
        case Algorithm::Hamerly: return make_hamerly_solver<T>(config);
        case Algorithm::Yinyang: return make_yinyang_solver<T>(config);
        case Algorithm::Exponion: return make_exponion_solver<T>(config);
        default: {
            std::string name(to_string(config.algorithm));
            if (name == "?") name = "#" + std::to_string(static_cast<int>(config.algorithm));
            throw Error("algorithm " + name + " is not available on the CUDA back end " +
                        config.backend_name());
        }
    }
}

}  // namespace
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

std::unique_ptr<Solver> make_cuda_solver(const SolverConfig& config) {
    if (config.backend != Backend::Cuda) throw Error("back end " + config.backend_name() + " is not a CUDA back end");
    config.validate();
    int count = 0;
    cuda::check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (config.cuda_device < 0 || config.cuda_device >= count)
        throw Error("CUDA device " + std::to_string(config.cuda_device) + " does not exist (" + std::to_string(count) +
                    " device(s) found)");
    if (config.precision == Precision::F32) return cuda::make_for_precision<float>(config);
    return cuda::make_for_precision<double>(config);
}

}  // namespace kms
