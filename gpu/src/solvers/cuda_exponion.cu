// Exponion on the device (solvers/cuda_exponion.hpp, kernels/exponion.cu): its registration.
#include "kms/algorithms.hpp"
#include "solvers/cuda_exponion.hpp"

KMS_SOLVER_REGISTRATION(exponion_cuda) {
    kms::register_solver(kms::Algorithm::Exponion, kms::Backend::Cuda, kms::cuda::make_on_device<kms::cuda::ExponionCuda>,
                         {.streams_points = true});
}
