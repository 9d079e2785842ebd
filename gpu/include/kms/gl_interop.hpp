#pragma once
// CUDA–OpenGL interop for the studio: a GL vertex buffer of packed RGBA8 point
// colours is registered with CUDA (cudaGraphicsGLRegisterBuffer) and a kernel
// writes each point's colour from the solver's device labels or point status,
// so labels never leave the GPU for rendering. No Qt, no GL headers here.
// Every call needs the GL context that owns the buffer to be current on the
// calling thread. Without CUDA (KMS_HAVE_CUDA == 0) it reports itself unavailable.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kms/solver.hpp"

namespace kms {

struct GlInteropAvailability {
    bool available = false;
    std::string reason;  // why not
};

// Built with CUDA and a CUDA device is visible. (Whether the current GL context
// lives on that device is only known when a buffer is registered.)
GlInteropAvailability gl_interop_availability();

class GlColourBuffer {
public:
    // Registers GL buffer `gl_buffer` (at least `points` × 4 bytes). Throws
    // kms::Error with the CUDA error text when it cannot (no CUDA, GL context
    // on another GPU or a software renderer, ...).
    static std::unique_ptr<GlColourBuffer> register_buffer(unsigned int gl_buffer, std::size_t points);
    virtual ~GlColourBuffer() = default;

    // Colour of label i is palette[i]; labels outside the palette (−1: not
    // assigned yet) get `unassigned`. Colours are packed 0xAABBGGRR.
    virtual void set_palette(std::span<const std::uint32_t> palette, std::uint32_t unassigned) = 0;
    // Colours from device labels (n entries, device pointer).
    virtual void write_label_colours(const std::int32_t* device_labels, std::size_t n) = 0;
    // Colours from device point status: skipped / recomputed.
    virtual void write_status_colours(const PointStatus* device_status, std::size_t n, std::uint32_t skipped,
                                      std::uint32_t recomputed) = 0;
};

}  // namespace kms
