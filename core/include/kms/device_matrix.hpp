#pragma once
// Points that live in a device's memory (a CuPy array, a PyTorch CUDA tensor):
// n × d row-major values at a device address, never read by the host. A back end
// whose solvers take device data (CUDA: Solver::set_device_data) clusters them in
// place; fit() and assign() take them through their DeviceMatrix overloads.
#include <cstddef>
#include <memory>

#include "kms/solver.hpp"

namespace kms {

struct DeviceMatrix {
    const void* data = nullptr;          // device address of rows × cols values, row-major, contiguous
    std::size_t rows = 0, cols = 0;
    Precision element = Precision::F64;  // the values' type: F32 float, F64 double
    int device = 0;                      // the CUDA device that holds them; -1: not said (the back end
                                         // reads it off the address, as for __cuda_array_interface__)
    std::shared_ptr<const void> owner;   // keeps the memory alive (the Python array)
};

}  // namespace kms
