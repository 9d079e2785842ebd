// kmeans-studio: the GUI. With --screenshot it is also a scripted renderer:
// load, run N steps, save the window as PNG, exit (0 ok, 1 error on stderr).
#include <QApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QScreen>
#include <QSurfaceFormat>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "export/animation_export.hpp"
#include "kms/error.hpp"
#include "kms/gpu_backends.hpp"
#include "main_window.hpp"
#include "run/openmp_policy.hpp"
#include "studio/studio_options.hpp"
#include "studio/scripted_run.hpp"

namespace {

// The studio's GUI thread (and a software GL renderer's threads) share the cores with
// the OpenMP workers, and libgomp's spinning workers then make a step many times
// slower (docs/studio.md, "Timing"): unless the user chose a policy, wait passively.
// libgomp reads the variable when it is loaded, before main(), so the studio starts
// itself once more with it set; if that fails it goes on as it is.
void wait_passively_in_openmp(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::setenv(kms::ui::kStudioSetWaitPolicy, "1", 1);
    ::execv("/proc/self/exe", argv);
    ::unsetenv("OMP_WAIT_POLICY");
    ::unsetenv(kms::ui::kStudioSetWaitPolicy);
}

}  // namespace

int main(int argc, char** argv) {
    wait_passively_in_openmp(argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    kms::register_gpu_backends();
    kms::ui::StudioOptions options;
    try {
        options = kms::ui::parse_studio_options(args);
    } catch (const kms::UsageError& error) {
        std::fprintf(stderr, "kmeans-studio: %s\n(see 'kmeans-studio --help')\n", error.what());
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "kmeans-studio: %s\n", error.what());
        return 1;
    }
    if (options.help) {
        std::fputs(kms::ui::studio_usage().c_str(), stdout);
        return 0;
    }
    // An .mp4 this build cannot write is refused before any work (it says what to install).
    if (const QString error = kms::ui::AnimationExport::format_error(QString::fromStdString(options.export_animation));
        !options.export_animation.empty() && !error.isEmpty()) {
        std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(error));
        return 1;
    }

    // OpenGL 3.3 core profile for every GL widget (set before the application exists).
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setSamples(0);
    QSurfaceFormat::setDefaultFormat(format);

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("kmeans-studio"));
    {
        // The point view needs OpenGL 3.3; without it Qt's widget flush crashes (seen with
        // QT_QPA_PLATFORM=offscreen), so say so and stop before building the window.
        // The offscreen and minimal platforms may hand out a context (through GLX when a display
        // is there) yet cannot host a QOpenGLWidget.
        const QString platform = QGuiApplication::platformName();
        const bool widget_platform = platform != QStringLiteral("offscreen") && platform != QStringLiteral("minimal");
        QOpenGLContext context;
        QOffscreenSurface surface;
        surface.create();
        if (!widget_platform || !context.create() || !context.makeCurrent(&surface) ||
            context.format().majorVersion() * 10 + context.format().minorVersion() < 33) {
            std::fprintf(stderr,
                         "kmeans-studio: no OpenGL 3.3 context on the display platform '%s': run it on a desktop or "
                         "under xvfb-run (Mesa), or use kmeans-cli for the same runs without a window\n",
                         qPrintable(platform));
            return 1;
        }
        context.doneCurrent();
    }
    kms::ui::MainWindow window;
    const QSize available = window.screen()->availableGeometry().size();
    if (options.width > 0) {
        window.resize(options.width, options.height);
        window.show();
    } else if (options.scripted()) {
        window.resize(available);  // a scripted run renders what the screen shows
        window.show();
    } else if (available.width() < 1400 || available.height() < 900) {
        window.showMaximized();  // a projector: all of it, the window manager's frame included
    } else {
        window.show();
    }

    kms::ui::ScriptedRun script(window, options);
    int exit_code = 0;
    QObject::connect(&script, &kms::ui::ScriptedRun::finished, &app, [&](int code) {
        exit_code = code;
        app.exit(code);
    });
    script.start();
    const int loop_code = app.exec();
    return options.scripted() ? exit_code : loop_code;
}
