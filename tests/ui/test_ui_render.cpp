// Rendering of the studio's OpenGL view, checked pixel by pixel: points in
// their cluster colours at known positions, the bounds and difference
// colourings, centroid markers and Voronoi cells; and `kmeans-studio
// --screenshot` end to end. Needs an OpenGL 3.3 context (CTest runs it under
// xvfb-run with Mesa); without one it skips with the reason.
#include <QtTest>

#include <QApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QProcess>
#include <QSurfaceFormat>
#include <QTemporaryDir>

#include "kms/gl_interop.hpp"
#include "test_support.hpp"
#include "ui/gl_test_support.hpp"
#include "view/point_cloud_view.hpp"
#include "view/point_colours.hpp"

using namespace kms;
using namespace kms::ui;

using kms::test::core_33;

namespace {

bool near(QRgb pixel, PackedRgba expected, int tolerance = 2) {
    return std::abs(qRed(pixel) - red_of(expected)) <= tolerance &&
           std::abs(qGreen(pixel) - green_of(expected)) <= tolerance &&
           std::abs(qBlue(pixel) - blue_of(expected)) <= tolerance;
}

QString describe(QRgb pixel) {
    return QStringLiteral("(%1, %2, %3)").arg(qRed(pixel)).arg(qGreen(pixel)).arg(qBlue(pixel));
}
QString describe_packed(PackedRgba colour) {
    return QStringLiteral("(%1, %2, %3)").arg(red_of(colour)).arg(green_of(colour)).arg(blue_of(colour));
}

PackedRgba mix(PackedRgba over, double alpha) {
    const double background = 0.985 * 255.0;
    auto channel = [&](std::uint8_t c) { return std::uint8_t(std::lround(background * (1 - alpha) + c * alpha)); };
    return pack_rgba(channel(red_of(over)), channel(green_of(over)), channel(blue_of(over)));
}

}  // namespace

class TestUiRender : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<PointCloudView> view_;
    std::vector<QPointF> world_ = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0.5, 0.5}};

    QImage frame() {
        view_->update();
        QTest::qWait(50);
        return view_->grabFramebuffer();
    }
    QRgb pixel_at(const QImage& image, QPointF world) {
        const QPointF p = view_->world_to_pixel(world) * view_->devicePixelRatioF();
        return image.pixel(int(std::floor(p.x())), int(std::floor(p.y())));
    }

private slots:
    void initTestCase() {
        if (!qEnvironmentVariableIsEmpty("KMS_NO_XVFB"))
            QSKIP("no xvfb-run was found when this build was configured: no X server for an OpenGL context "
                  "(install xvfb to run the rendering test)");
        if (!kms::test::have_gl_33())
            QSKIP("no OpenGL 3.3 core context on this display/platform (run under xvfb-run with Mesa, "
                  "or on a desktop): rendering not checked");

        view_ = std::make_unique<PointCloudView>();
        view_->setFixedSize(240, 240);
        std::vector<float> positions;
        for (const QPointF& p : world_) {
            positions.push_back(float(p.x()));
            positions.push_back(float(p.y()));
        }
        view_->set_points(std::make_shared<const std::vector<float>>(positions));
        view_->set_point_size(9);
        view_->set_show_trails(false);
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
        view_->fit();
        QVERIFY2(!view_->renderer().isEmpty(), "the view never initialised OpenGL");
        qInfo("GL renderer: %s", qPrintable(view_->renderer()));
    }

    void points_take_their_cluster_colour() {
        view_->set_labels(std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{0, 1, 2, 3, 4}),
                          5, 1);
        const QImage image = frame();
        for (std::size_t i = 0; i < world_.size(); ++i) {
            const QRgb pixel = pixel_at(image, world_[i]);
            QVERIFY2(near(pixel, cluster_colour(i)),
                     qPrintable(QStringLiteral("point %1: %2, expected %3").arg(i).arg(describe(pixel), describe_packed(cluster_colour(i)))));
        }
        // Between the points: background.
        const QRgb empty = pixel_at(image, QPointF(0.25, 0.25));
        QVERIFY2(near(empty, pack_rgba(251, 251, 251)), qPrintable(describe(empty)));
        // Unassigned points (before the first step) are grey.
        view_->set_labels(nullptr, 5, 0);
        QVERIFY(near(pixel_at(frame(), world_[2]), kUnassignedColour));
    }

    void bounds_and_difference_colourings() {
        using S = PointStatus;
        view_->set_labels(std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{0, 1, 2, 3, 4}),
                          5, 2);
        view_->set_point_status(std::make_shared<const std::vector<PointStatus>>(
            std::vector<PointStatus>{S::Skipped, S::Recomputed, S::Skipped, S::Recomputed, S::Skipped}));
        view_->set_colour_mode(ColourMode::Bounds);
        QImage image = frame();
        for (std::size_t i = 0; i < world_.size(); ++i) {
            const PackedRgba expected = i % 2 == 0 ? kSkippedColour : kRecomputedColour;
            QVERIFY2(near(pixel_at(image, world_[i]), expected),
                     qPrintable(QStringLiteral("point %1: %2").arg(i).arg(describe(pixel_at(image, world_[i])))));
        }
        view_->set_reference_labels(
            std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{0, 1, 0, 3, 1}));
        view_->set_colour_mode(ColourMode::Difference);
        image = frame();
        const bool differs[] = {false, false, true, false, true};
        for (std::size_t i = 0; i < world_.size(); ++i)
            QVERIFY(near(pixel_at(image, world_[i]), differs[i] ? kDifferColour : kAgreeColour));
        view_->set_colour_mode(ColourMode::Labels);
    }

    void centroid_markers_and_voronoi_cells() {
        view_->set_labels(std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{0, 1, 0, 1, 0}),
                          2, 3);
        const QPointF left(0.0, 0.5), right(1.0, 0.5);
        view_->set_centroids({left, right}, {});
        view_->set_show_voronoi(true);
        const QImage image = frame();
        const double dpr = view_->devicePixelRatioF();
        // Marker: a white cross at the centre, the cluster colour off the cross.
        const QPointF centre = view_->world_to_pixel(right) * dpr;
        QVERIFY2(near(image.pixel(int(centre.x()), int(centre.y())), pack_rgba(255, 255, 255), 3),
                 qPrintable(describe(image.pixel(int(centre.x()), int(centre.y())))));
        const QRgb fill = image.pixel(int(centre.x() + 3 * dpr), int(centre.y() + 3 * dpr));
        QVERIFY2(near(fill, cluster_colour(1), 3), qPrintable(describe(fill)));
        // Voronoi: each side tinted by its nearest centroid, a dark border on the bisector.
        const QRgb left_cell = pixel_at(image, QPointF(0.25, 0.15));
        const QRgb right_cell = pixel_at(image, QPointF(0.75, 0.15));
        QVERIFY2(near(left_cell, mix(cluster_colour(0), 0.22), 3), qPrintable(describe(left_cell)));
        QVERIFY2(near(right_cell, mix(cluster_colour(1), 0.22), 3), qPrintable(describe(right_cell)));
        const QRgb border = pixel_at(image, QPointF(0.5, 0.2));
        QVERIFY2(near(border, mix(pack_rgba(64, 64, 64), 0.7), 4), qPrintable(describe(border)));
        view_->set_show_voronoi(false);
        view_->set_centroids({}, {});
    }

    void interop_unavailable_falls_back_to_host_labels() {
        const GlInteropAvailability availability = gl_interop_availability();
        if (availability.available)
            QSKIP("CUDA-GL interop is available here: the fallback path is not what runs (the device run covers interop)");
        const auto labels = std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{4, 3, 2, 1, 0});
        QVERIFY(!view_->write_device_colours(nullptr, nullptr, world_.size(), 7));
        QVERIFY(view_->interop_failed());
        QVERIFY2(view_->interop_message().contains(QString::fromStdString(availability.reason)),
                 qPrintable(view_->interop_message()));
        // Host labels still colour the points.
        view_->set_labels(labels, 5, 7);
        const QImage image = frame();
        for (std::size_t i = 0; i < world_.size(); ++i) QVERIFY(near(pixel_at(image, world_[i]), cluster_colour(4 - i)));
    }

    void scripted_screenshot() {
        const QString studio = qEnvironmentVariable("KMS_STUDIO");
        if (studio.isEmpty()) QSKIP("KMS_STUDIO (path of kmeans-studio) is not set: run through CTest");
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("shot.png"));
        QProcess process;
        process.start(studio, {"--generate", "blobs:n=800,k=3,d=2", "--seed", "4", "--k", "3", "--steps", "3",
                               "--size", "1280x820", "--colour", "bounds", "--solver", "hamerly", "--screenshot", png});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1280, 820));
        // The bounds view of Hamerly after 3 steps shows both skipped (green) and recomputed (red) points.
        int skipped = 0, recomputed = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QRgb p = image.pixel(x, y);
                skipped += near(p, kSkippedColour, 1);
                recomputed += near(p, kRecomputedColour, 1);
            }
        QVERIFY2(skipped > 50 && recomputed > 0,
                 qPrintable(QStringLiteral("skipped %1 px, recomputed %2 px").arg(skipped).arg(recomputed)));

        // Errors: stderr names the problem, exit code 1, no image.
        const QString missing = dir.filePath(QStringLiteral("no-such-file.csv"));
        process.start(studio, {"--input", missing, "--screenshot", dir.filePath(QStringLiteral("x.png"))});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains(QStringLiteral("no-such-file.csv")));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.png"))));
        process.start(studio, {"--generate", "blobs:n=50,k=2", "--k", "500", "--screenshot", dir.filePath(QStringLiteral("y.png"))});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 1);
        QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains(QStringLiteral("k")));
        // A bad option is bad usage: exit 2, as kmeans-cli.
        process.start(studio, {"--k", "nope"});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains(QStringLiteral("--k")));
    }

    void cleanupTestCase() { view_.reset(); }
};

int main(int argc, char** argv) {
    QSurfaceFormat::setDefaultFormat(core_33());  // before the application, as the studio does
    QApplication app(argc, argv);
    TestUiRender test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_ui_render.moc"
