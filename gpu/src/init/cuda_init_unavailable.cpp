// Without a CUDA build the GPU initialiser reports that it is unavailable.
#include "kms/cuda_init.hpp"

#include "kms/error.hpp"

#if !KMS_HAVE_CUDA
namespace kms {
Matrix<double> cuda_initialize_centroids(const Matrix<double>&, std::size_t, const InitOptions&, const std::string&,
                                         int) {
    throw Error("GPU initialisation is unavailable: this build has no CUDA back end");
}
Matrix<double> cuda_initialize_centroids(const DeviceMatrix&, std::size_t, const InitOptions&, const std::string&,
                                         int) {
    throw Error("GPU initialisation is unavailable: this build has no CUDA back end");
}
}  // namespace kms
#endif
