// The CUDA back end's registry entry.
#include "kms/gpu_backends.hpp"

#include "kms/backends.hpp"

#if KMS_HAVE_CUDA
#include "solvers/cuda_backend.hpp"
#include "spectral/eigen_cusolver.hpp"
#include "kms/cuda_init.hpp"
#include "kms/gpu_scores.hpp"
#endif

namespace kms {

#if KMS_HAVE_CUDA
void register_gpu_solvers();  // generated: every KMS_SOLVER_REGISTRATION in gpu/src/solvers
#endif

void register_gpu_backends() {
    BackendEntry entry;
    entry.backend = Backend::Cuda;
    entry.label = "CUDA";
    entry.uses_block_size = true;
#if KMS_HAVE_CUDA
    entry.device_labels = true;
    register_gpu_solvers();  // each solver file's factory (kms/algorithms.hpp)
    entry.variants = {KernelVariant::Global, KernelVariant::Shared};
    // --solver auto: on the GPU the fastest exact solver depends on the data's structure
    // as much as on n, d and k (docs/gpu-benchmark.md: Exponion is 2x Lloyd's speed on
    // 64-D blobs at k = 1000 and 1.8x slower on uniform 64-D data, where Lloyd's int8
    // filter wins), so fit() races these on the run's own data. Elkan (n·k bounds) and
    // Yinyang (never the fastest in the map) are left out of the race.
    entry.race_candidates = [](std::size_t, std::size_t, std::size_t k) {
        return k < 2 ? std::vector<Algorithm>{} : std::vector<Algorithm>{Algorithm::Lloyd, Algorithm::Hamerly,
                                                                         Algorithm::Exponion};
    };
    entry.availability = cuda_availability;
    entry.initialize = [](const Matrix<double>& points, std::size_t k, const InitOptions& init,
                          const std::string& source_name, const SolverConfig& config) {
        return cuda_initialize_centroids(points, k, init, source_name, config.cuda_device);
    };
    entry.initialize_device = [](const DeviceMatrix& points, std::size_t k, const InitOptions& init,
                                 const std::string& source_name, const SolverConfig& config) {
        return cuda_initialize_centroids(points, k, init, source_name, config.cuda_device);
    };
    entry.device_count = cuda_device_count;
    entry.smallest_eigenpairs = [](const Matrix<double>& symmetric, std::size_t count, const SolverConfig& config) {
        return cuda_smallest_eigenpairs(symmetric, count, config.cuda_device);
    };
    entry.silhouette = [](const Matrix<double>& points, std::span<const std::int32_t> labels, std::stop_token stop,
                          const SolverConfig& config) {
        return gpu_silhouette(points, labels, stop, config.cuda_device);
    };
#else
    entry.availability = [] {
        return BackendAvailability{false,
                                   "this build has no CUDA back end (no CUDA compiler was found when it was configured)"};
    };
#endif
    register_backend(std::move(entry));
}

}  // namespace kms
