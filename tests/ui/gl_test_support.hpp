#pragma once
// What the rendering suites share: the studio's OpenGL format and whether this
// display gives a context of it (they skip, saying why, when not).
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QSurfaceFormat>

namespace kms::test {

// OpenGL 3.3 core profile, as kmeans-studio asks for.
inline QSurfaceFormat core_33() {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    return format;
}

// True when an OpenGL 3.3 core context can be made current on this display;
// false without one, or when the build found no xvfb-run (KMS_NO_XVFB).
inline bool have_gl_33() {
    if (!qEnvironmentVariableIsEmpty("KMS_NO_XVFB")) return false;
    QOpenGLContext context;
    context.setFormat(core_33());
    QOffscreenSurface surface;
    surface.setFormat(core_33());
    surface.create();
    const bool ok = context.create() && context.makeCurrent(&surface) &&
                    context.format().majorVersion() * 10 + context.format().minorVersion() >= 33;
    if (ok) context.doneCurrent();
    return ok;
}

}  // namespace kms::test
