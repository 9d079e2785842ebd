// The CUDA–GL interop entry points of a build without CUDA, or without OpenGL's headers:
// unavailable, with the reason.
#include "kms/gl_interop.hpp"

#if !KMS_HAVE_GL_INTEROP
#include "kms/error.hpp"

namespace kms {

GlInteropAvailability gl_interop_availability() {
    if (!KMS_HAVE_CUDA)
        return {false, "this build has no CUDA back end (no CUDA compiler was found when it was configured)"};
    return {false, "this build has no CUDA–OpenGL interop (OpenGL's GL/gl.h was not found when it was configured)"};
}

std::unique_ptr<GlColourBuffer> GlColourBuffer::register_buffer(unsigned int, std::size_t) {
    throw Error("CUDA–OpenGL interop is unavailable: " + gl_interop_availability().reason);
}

}  // namespace kms
#endif
