#pragma once
// cp.async (sm_80+) helpers for the kernels that stream rows through shared memory
// (the int8 filter, the staged small-k search). Included by .cu files only.
#include <cuda_runtime.h>

namespace kms::cuda {

// Into shared memory: 16 bytes bypassing L1, or one 4- or 8-byte
// element (not 16-byte aligned rows). Older targets, which never launch the kernels
// that use it (the int8 filter, the staged small-k search), get a synchronous copy,
// so every listed architecture still compiles.
__device__ __forceinline__ void cp_async16(void* shared, const void* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
#else
    *static_cast<int4*>(shared) = *static_cast<const int4*>(global);
#endif
}
template <typename T>
__device__ __forceinline__ void cp_async_element(T* shared, const T* global) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(address), "l"(global), "n"(sizeof(T)));
#else
    *shared = *global;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

}  // namespace kms::cuda
