#pragma once
// The CUDA back end's availability and devices (cuda_backend.cu), for its registry
// entry (gpu_backends.cpp).
#include "kms/backends.hpp"

namespace kms {
BackendAvailability cuda_availability();
// Devices the driver shows (0 without a driver).
int cuda_device_count();
}  // namespace kms
