// Frame time of the studio's OpenGL point view for n points (default 1M and
// 10M): median wall time of a pan frame (camera change only) and of a relabel
// frame (new labels → colours uploaded with glBufferSubData), each ended with
// glFinish so the GPU work is inside the measurement.
// Usage: xvfb-run -a bench_studio_frame [n ...]   (prints a Markdown table)
#include <QApplication>
#include <QElapsedTimer>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "kms/random.hpp"
#include "view/point_cloud_view.hpp"

namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

// Synchronous frame: paint now, then wait for the GL work to finish.
double frame_ms(kms::ui::PointCloudView& view) {
    QElapsedTimer timer;
    timer.start();
    view.repaint();
    view.makeCurrent();
    view.context()->functions()->glFinish();
    view.doneCurrent();
    QCoreApplication::processEvents();
    return double(timer.nsecsElapsed()) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setSwapInterval(0);  // no vsync: measure the work, not the display rate
    QSurfaceFormat::setDefaultFormat(format);
    QApplication app(argc, argv);

    std::vector<std::size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::stoull(argv[i]));
    if (sizes.empty()) sizes = {1'000'000, 10'000'000};
    constexpr int kFrames = 15;
    constexpr std::size_t kClusters = 20;

    kms::ui::PointCloudView view;
    view.setFixedSize(1280, 800);
    view.set_point_size(2.0);
    view.show();
    QElapsedTimer wait;
    wait.start();
    while (view.renderer().isEmpty() && wait.elapsed() < 10000) QCoreApplication::processEvents();
    if (view.renderer().isEmpty()) {
        std::fprintf(stderr, "bench_studio_frame: no OpenGL context (run under xvfb-run or on a desktop)\n");
        return 1;
    }
    std::printf("GL renderer: %s\n\n", qPrintable(view.renderer()));
    std::printf("| points | pan frame, median ms | relabel frame (glBufferSubData), median ms | frames |\n");
    std::printf("|---:|---:|---:|---:|\n");
    for (const std::size_t n : sizes) {
        // Gaussian-ish blobs in [-10, 10]^2, deterministic.
        auto positions = std::make_shared<std::vector<float>>(2 * n);
        std::vector<std::vector<std::int32_t>> label_sets(2, std::vector<std::int32_t>(n));
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t c = kms::random_below(1, 0, i, kClusters);
            const double cx = -9.0 + 18.0 * kms::random_uniform(1, 1, c), cy = -9.0 + 18.0 * kms::random_uniform(1, 2, c);
            (*positions)[2 * i] = float(cx + (kms::random_uniform(1, 3, i) + kms::random_uniform(1, 4, i) - 1.0));
            (*positions)[2 * i + 1] = float(cy + (kms::random_uniform(1, 5, i) + kms::random_uniform(1, 6, i) - 1.0));
            label_sets[0][i] = std::int32_t(c);
            label_sets[1][i] = std::int32_t((c + 1) % kClusters);
        }
        view.set_points(positions);
        view.set_labels(std::make_shared<const std::vector<std::int32_t>>(label_sets[0]), kClusters, 1);
        view.fit();
        frame_ms(view);  // upload positions and colours once
        std::vector<double> pan, relabel;
        for (int f = 0; f < kFrames; ++f) {
            view.camera()->pan_pixels(QPointF(f % 2 ? 7.0 : -7.0, 3.0));
            pan.push_back(frame_ms(view));
        }
        for (int f = 0; f < kFrames; ++f) {
            view.set_labels(std::make_shared<const std::vector<std::int32_t>>(label_sets[std::size_t(f % 2)]), kClusters,
                            2 + f);
            relabel.push_back(frame_ms(view));
        }
        std::printf("| %zu | %.2f | %.2f | %d |\n", n, median(pan), median(relabel), kFrames);
        std::fflush(stdout);
    }
    return 0;
}
