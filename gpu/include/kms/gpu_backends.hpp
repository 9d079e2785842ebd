#pragma once
// Registers the CUDA back end (solvers, initialiser, silhouette) in the core
// registry (kms/backends.hpp). Programs that want CUDA call it once at start-up;
// in a build without CUDA it registers the back end as unavailable, with the reason.
namespace kms {
void register_gpu_backends();
}  // namespace kms
