#include "kms/backends.hpp"

#include "kms/error.hpp"

#if KMS_HAVE_CUDA
#include "cuda_backend.hpp"
#endif

namespace kms {

namespace {
bool is_cuda(Backend backend) { return backend == Backend::CudaGlobal || backend == Backend::CudaShared; }
}  // namespace

BackendAvailability backend_availability(Backend backend) {
    if (!is_cuda(backend)) return {true, {}};
#if KMS_HAVE_CUDA
    return cuda_availability();
#else
    return {false, "this build has no CUDA back end (no CUDA compiler was found when it was configured)"};
#endif
}

std::unique_ptr<Solver> make_solver(const SolverConfig& config) {
    if (!is_cuda(config.backend)) return make_cpu_solver(config);
    const BackendAvailability availability = backend_availability(config.backend);
    if (!availability.available)
        throw Error("back end " + std::string(to_string(config.backend)) + " is unavailable: " + availability.reason);
#if KMS_HAVE_CUDA
    return make_cuda_solver(config);
#else
    return nullptr;  // unreachable: availability is false without CUDA
#endif
}

}  // namespace kms
