// Geographic data in the studio (ui/geo/), offscreen: a geo-* generator gives a
// bundle with its map (km on both axes, centroids through the same linear map),
// the graticule's spacing follows the extent, its lines are where the degrees are,
// and the equirectangular map keeps distances (the view's aspect ratio).
#include <QtTest>

#include <QApplication>
#include <QTemporaryDir>

#include <cmath>

#include "geo/geo_view.hpp"
#include "kms/geo.hpp"
#include "run/run_controller.hpp"
#include "window/run_exports.hpp"
#include "test_support.hpp"

using namespace kms;
using namespace kms::ui;

// k = 4, sequential, on generated data (the setup returned for changes).
RunSetup generated(RunController& controller, const QString& spec, quint64 seed) {
    RunSetup setup;
    setup.k = 4;
    setup.config.backend = Backend::Sequential;
    controller.set_k_from_data(false);
    controller.set_setup(setup);
    controller.generate(spec, seed);
    return setup;
}

class TestUiGeo : public QObject {
    Q_OBJECT
private slots:
    void graticule_step_follows_extent() {
        QCOMPARE(graticule_step(0.3), 0.1);
        QCOMPARE(graticule_step(3.0), 0.5);
        QCOMPARE(graticule_step(7.5), 1.0);
        QCOMPARE(graticule_step(30.0), 5.0);
        QCOMPARE(graticule_step(75.0), 10.0);
        QCOMPARE(graticule_step(200.0), 30.0);
    }

    void generated_cities_get_a_map_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("frame");
        QTest::newRow("region") << "geo-cities:n=800,k=4,spread_km=20,lat_min=44,lat_max=47,lon_min=2,lon_max=6" << 0;
        QTest::newRow("continent") << "geo-cities:n=800,k=4,spread_km=50,lat_min=35,lat_max=60,lon_min=-10,lon_max=40" << 1;
    }
    void generated_cities_get_a_map() {
        QFETCH(QString, spec);
        QFETCH(int, frame);
        RunController controller;
        RunSetup setup = generated(controller, spec, 3);
        QVERIFY(kms::test::wait_for([&] { return controller.ready() && !controller.busy(); }));
        const DatasetBundle& bundle = controller.dataset();
        QVERIFY(bundle.geo);
        QCOMPARE(int(bundle.geo->projection.frame), frame);
        QCOMPARE(bundle.d(), std::size_t(frame == 0 ? 2 : 3));
        // The map is in km: 1° of latitude at the centre is 111.2 km on screen, up the y axis.
        const GeoProjection& projection = bundle.geo->projection;
        Matrix<double> two(2, 2);
        two(0, 0) = projection.lat0; two(0, 1) = projection.lon0;
        two(1, 0) = projection.lat0 + 1; two(1, 1) = projection.lon0;
        const Matrix<double> km = projection.project(two);
        const auto a = bundle.projection.project(km.row(0)), b = bundle.projection.project(km.row(1));
        QVERIFY(std::abs(b[0] - a[0]) < 0.05);
        QVERIFY(std::abs((b[1] - a[1]) - kEarthRadiusKm * M_PI / 180) < 0.05);
        // East is +x: 1° of longitude is 111.2·cos φ0 km across.
        two(1, 0) = projection.lat0; two(1, 1) = projection.lon0 + 1;
        const auto c = bundle.projection.project(projection.project(two).row(1));
        QVERIFY(std::abs((c[0] - a[0]) - kEarthRadiusKm * M_PI / 180 * std::cos(projection.lat0 * M_PI / 180)) < 0.2);

        // The graticule: lines and labels; a parallel's points all sit at one latitude.
        const MapOverlay overlay = map_overlay(*bundle.geo, bundle.projection);
        QVERIFY(overlay.scale_bar);
        QVERIFY(overlay.lines.size() >= 4);
        bool north = false, east = false;
        for (const MapLine& line : overlay.lines) {
            north = north || (line.label_left && line.label.contains(QStringLiteral("°N")));
            east = east || (!line.label_left && line.label.contains(QStringLiteral("°E")));
        }
        QVERIFY(north && east);
        // A parallel's points all sit at one latitude: straight across the equirectangular map.
        const MapLine& parallel = overlay.lines.front();
        QVERIFY(parallel.label_left);
        if (frame == 0)
            for (const QPointF& point : parallel.points) QCOMPARE(point.y(), parallel.points.front().y());
    }

    // One frame for --init and outputs (issue 39): the studio exports a geographic run's centroids
    // in degrees, and --init reads degrees back into the run's km (as kmeans-cli); a file in km
    // (outside the degree ranges) is refused by name.
    void centroids_round_trip_in_degrees() {
        RunController controller;
        RunSetup setup =
            generated(controller, "geo-cities:n=600,k=4,spread_km=20,lat_min=44,lat_max=47,lon_min=2,lon_max=6", 5);
        QVERIFY(kms::test::wait_for([&] { return controller.ready() && !controller.busy(); }));
        controller.run_steps(3);
        QVERIFY(kms::test::wait_for([&] { return !controller.busy() && controller.latest_iteration() >= 3; }));
        const Matrix<double> km = controller.displayed_centroids();
        QTemporaryDir dir;
        const QString path = dir.filePath("centroids.csv");
        export_centroids(controller, path);
        const Matrix<double> degrees = load_matrix(path.toStdString());
        QCOMPARE(degrees.cols(), std::size_t(2));
        for (std::size_t c = 0; c < degrees.rows(); ++c) {
            QVERIFY2(degrees(c, 0) > 43.5 && degrees(c, 0) < 47.5, "latitude of an exported centroid");
            QVERIFY2(degrees(c, 1) > 1.5 && degrees(c, 1) < 6.5, "longitude of an exported centroid");
        }
        // Read back as the initial centroids: the same km, to the CSV's 17 digits.
        setup.init.method = InitMethod::File;
        setup.init.path = path.toStdString();
        controller.set_setup(setup);
        const auto started_from_export = [&] {
            const Matrix<double>& start = controller.initial_centroids();
            if (!controller.ready() || controller.busy() || start.rows() != km.rows() || start.cols() != km.cols())
                return false;
            for (std::size_t c = 0; c < km.rows(); ++c)
                for (std::size_t j = 0; j < km.cols(); ++j)
                    if (!(std::abs(start(c, j) - km(c, j)) < 1e-6)) return false;
            return true;
        };
        QVERIFY2(kms::test::wait_for(started_from_export), "the run did not start from the exported centroids");
        // A latitude past the pole (e.g. km taken for degrees) is refused, naming the file.
        const QString km_path = dir.filePath("km.csv");
        Matrix<double> outside = degrees;
        outside(1, 0) = 91.0;
        {
            OutputFile out(km_path.toStdString());
            write_csv(out, outside, "");
            out.commit();
        }
        QString failure;
        QObject::connect(&controller, &RunController::errorOccurred, [&](const QString& message) { failure = message; });
        setup.init.path = km_path.toStdString();
        controller.set_setup(setup);
        QVERIFY(kms::test::wait_for([&] { return !failure.isEmpty(); }));
        QVERIFY2(failure.contains("km.csv") && failure.contains("latitude 91 of centroid 2"), qPrintable(failure));
    }
};

QTEST_MAIN(TestUiGeo)
#include "test_ui_geo.moc"
