#pragma once
// Ceilings of the device, measured in the benchmark's own run.
#include <cstddef>

namespace bench {

struct Ceilings {
    double copy_bandwidth_gbs = 0.0;  // device-to-device copy, bytes read + written per second
    double fp32_tflops = 0.0;         // FMA loop, 2 flops per FMA
    double fp64_tflops = 0.0;         // the same loop in double
};

Ceilings measure_ceilings();
// Host-to-device copy rate of `bytes` (pinned or pageable host memory); median ms in *ms_out.
double host_to_device_gbs(std::size_t bytes, bool pinned, double* ms_out);

}  // namespace bench
