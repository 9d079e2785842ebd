// CUDA–OpenGL interop: point colours written straight into a registered GL buffer.
#include "kms/gl_interop.hpp"

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <vector>

#include "kms/error.hpp"

namespace kms {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw Error(std::string("CUDA–OpenGL interop: ") + what + ": " + cudaGetErrorString(status));
}

__global__ void label_colours_kernel(const std::int32_t* labels, std::size_t n, const std::uint32_t* palette,
                                     std::int32_t palette_size, std::uint32_t unassigned, std::uint32_t* colours) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::int32_t label = labels[i];
        colours[i] = (label >= 0 && label < palette_size) ? palette[label] : unassigned;
    }
}

__global__ void status_colours_kernel(const PointStatus* status, std::size_t n, std::uint32_t skipped,
                                      std::uint32_t recomputed, std::uint32_t* colours) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        colours[i] = status[i] == PointStatus::Skipped ? skipped : recomputed;
}

unsigned grid_for(std::size_t n) {
    constexpr std::size_t kBlock = 256;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    return static_cast<unsigned>(blocks < 65535 ? (blocks ? blocks : 1) : 65535);
}

class CudaGlColourBuffer final : public GlColourBuffer {
public:
    CudaGlColourBuffer(unsigned int gl_buffer, std::size_t points) : points_(points) {
        check(cudaGraphicsGLRegisterBuffer(&resource_, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard),
              "cudaGraphicsGLRegisterBuffer");
    }
    ~CudaGlColourBuffer() override {
        if (palette_) cudaFree(palette_);
        if (resource_) cudaGraphicsUnregisterResource(resource_);
    }

    void set_palette(std::span<const std::uint32_t> palette, std::uint32_t unassigned) override {
        unassigned_ = unassigned;
        if (palette.size() > palette_capacity_) {
            if (palette_) cudaFree(palette_);
            palette_ = nullptr;
            check(cudaMalloc(&palette_, palette.size() * sizeof(std::uint32_t)), "cudaMalloc(palette)");
            palette_capacity_ = palette.size();
        }
        palette_size_ = palette.size();
        if (!palette.empty())
            check(cudaMemcpy(palette_, palette.data(), palette.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
                  "cudaMemcpy(palette)");
    }

    void write_label_colours(const std::int32_t* device_labels, std::size_t n) override {
        std::uint32_t* colours = map(n);
        label_colours_kernel<<<grid_for(n), 256>>>(device_labels, n, palette_, static_cast<std::int32_t>(palette_size_),
                                                   unassigned_, colours);
        unmap("label colours kernel");
    }

    void write_status_colours(const PointStatus* device_status, std::size_t n, std::uint32_t skipped,
                              std::uint32_t recomputed) override {
        std::uint32_t* colours = map(n);
        status_colours_kernel<<<grid_for(n), 256>>>(device_status, n, skipped, recomputed, colours);
        unmap("status colours kernel");
    }

private:
    std::uint32_t* map(std::size_t n) {
        if (n > points_) throw Error("CUDA–OpenGL interop: " + std::to_string(n) + " points for a buffer of " +
                                     std::to_string(points_));
        // The solver's stream may still be writing the labels.
        check(cudaDeviceSynchronize(), "waiting for the solver");
        check(cudaGraphicsMapResources(1, &resource_, 0), "cudaGraphicsMapResources");
        void* pointer = nullptr;
        std::size_t bytes = 0;
        check(cudaGraphicsResourceGetMappedPointer(&pointer, &bytes, resource_), "cudaGraphicsResourceGetMappedPointer");
        if (bytes < n * sizeof(std::uint32_t)) {
            cudaGraphicsUnmapResources(1, &resource_, 0);
            throw Error("CUDA–OpenGL interop: the GL buffer is smaller than the point colours");
        }
        return static_cast<std::uint32_t*>(pointer);
    }
    void unmap(const char* what) {
        const cudaError_t launch = cudaGetLastError();
        const cudaError_t unmapped = cudaGraphicsUnmapResources(1, &resource_, 0);
        check(launch, what);
        check(unmapped, "cudaGraphicsUnmapResources");
    }

    cudaGraphicsResource_t resource_ = nullptr;
    std::size_t points_ = 0;
    std::uint32_t* palette_ = nullptr;
    std::size_t palette_capacity_ = 0;
    std::size_t palette_size_ = 0;
    std::uint32_t unassigned_ = 0;
};

}  // namespace

GlInteropAvailability gl_interop_availability() {
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess) return {false, std::string("no usable CUDA driver: ") + cudaGetErrorString(status)};
    if (devices == 0) return {false, "no CUDA device"};
    return {true, {}};
}

std::unique_ptr<GlColourBuffer> GlColourBuffer::register_buffer(unsigned int gl_buffer, std::size_t points) {
    const GlInteropAvailability availability = gl_interop_availability();
    if (!availability.available) throw Error("CUDA–OpenGL interop is unavailable: " + availability.reason);
    return std::make_unique<CudaGlColourBuffer>(gl_buffer, points);
}

}  // namespace kms
