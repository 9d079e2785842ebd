// Geographic data (kms/geo.hpp, load_geo_table in kms/io.hpp, the geo-cities
// generator, kmeans-cli run --geo): projections and their round trips, known
// distances, the frame rule, column detection, refused values with their line,
// and clustering that finds the generator's cities again.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/generate.hpp"
#include "kms/geo.hpp"
#include "kms/io.hpp"
#include "kms/random.hpp"
#include "test_support.hpp"

namespace {

kms::Matrix<double> random_degrees(std::size_t n, double lat_low, double lat_high, double lon_low, double lon_high,
                                   std::uint64_t seed) {
    kms::Matrix<double> degrees(n, 2);
    for (std::size_t i = 0; i < n; ++i) {
        degrees(i, 0) = lat_low + (lat_high - lat_low) * kms::random_uniform(seed, 1, i);
        double lon = lon_low + (lon_high - lon_low) * kms::random_uniform(seed, 2, i);
        if (lon >= 180) lon -= 360;
        degrees(i, 1) = lon;
    }
    return degrees;
}

double longitude_difference(double a, double b) {
    const double d = std::fmod(std::abs(a - b), 360.0);
    return std::min(d, 360.0 - d);
}

void write(const QString& path, const std::string& text) { std::ofstream(path.toStdString(), std::ios::binary) << text; }

std::string load_error(const QString& path, const kms::GeoColumns& columns = {}) {
    try {
        kms::load_geo_table(path.toStdString(), columns);
    } catch (const kms::InputError& error) {
        return error.what();
    }
    return "(no error)";
}

using Cli = kms::test::CliRun;
using kms::test::run_cli;

}  // namespace

class TestGeo : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString path(const char* name) const { return dir_.filePath(name); }

private slots:
    // The projection from one pass of statistics (GeoStatistics, rows fed in blocks)
    // is the one of every row sorted in memory: the centre from the largest gap between
    // sorted longitudes (the wrap-around gap first, ties to the first), the mean latitude.
    void projection_from_one_pass_of_statistics() {
        const auto reference_lon0 = [](const kms::Matrix<double>& degrees) {
            std::vector<double> lon(degrees.rows());
            for (std::size_t i = 0; i < lon.size(); ++i) {
                double wrapped = std::fmod(degrees(i, 1) + 180.0, 360.0);
                if (wrapped < 0) wrapped += 360.0;
                lon[i] = wrapped - 180.0;
            }
            std::sort(lon.begin(), lon.end());
            double largest = lon.front() + 360.0 - lon.back(), start = lon.front();
            for (std::size_t i = 0; i + 1 < lon.size(); ++i)
                if (lon[i + 1] - lon[i] > largest) {
                    largest = lon[i + 1] - lon[i];
                    start = lon[i + 1];
                }
            double centre = std::fmod(start + (360.0 - largest) / 2 + 180.0, 360.0);
            if (centre < 0) centre += 360.0;
            return centre - 180.0;
        };
        const std::pair<double, double> regions[][2] = {
            {{45.0, 50.0}, {2.0, 9.0}},       // Western Europe: equirectangular
            {{-20.0, 10.0}, {170.0, 195.0}},  // across the antimeridian: 3-D
            {{-60.0, 70.0}, {-170.0, 170.0}}, // nearly everywhere
            {{64.0, 66.0}, {-20.0, -14.0}}};  // far north, narrow
        for (const auto& region : regions) {
            kms::Matrix<double> degrees(5003, 2);
            for (std::size_t i = 0; i < degrees.rows(); ++i) {
                degrees(i, 0) = region[0].first + (region[0].second - region[0].first) * kms::random_uniform(11, 1, i);
                degrees(i, 1) = region[1].first + (region[1].second - region[1].first) * kms::random_uniform(11, 2, i);
            }
            kms::GeoStatistics pieces;  // in blocks of 777 rows, as a file read a block at a time
            for (std::size_t first = 0; first < degrees.rows(); first += 777)
                for (std::size_t i = first; i < std::min(degrees.rows(), first + 777); ++i) pieces.add(degrees(i, 0), degrees(i, 1));
            const kms::GeoProjection whole = kms::GeoProjection::choose(degrees);
            const kms::GeoProjection streamed = kms::GeoProjection::choose(pieces);
            QCOMPARE(streamed.frame, whole.frame);
            QCOMPARE(streamed.lat0, whole.lat0);
            QCOMPARE(streamed.lon0, whole.lon0);
            QCOMPARE(streamed.reason, whole.reason);
            double sum = 0.0;
            for (std::size_t i = 0; i < degrees.rows(); ++i) sum += degrees(i, 0);
            QCOMPARE(whole.lat0, sum / static_cast<double>(degrees.rows()));
            QCOMPARE(whole.lon0, reference_lon0(degrees));
        }
    }

    void initTestCase() { QVERIFY(dir_.isValid()); }

    void known_distances() {
        const double one_degree = kms::kEarthRadiusKm * M_PI / 180.0;
        QVERIFY(std::abs(one_degree - 111.195) < 0.001);
        QVERIFY(std::abs(kms::great_circle_km(10, 20, 11, 20) - one_degree) < 1e-9);
        QVERIFY(std::abs(kms::great_circle_km(0, 0, 0, 90) - kms::kEarthRadiusKm * M_PI / 2) < 1e-6);
        QVERIFY(std::abs(kms::great_circle_km(0, 179.5, 0, -179.5) - one_degree) < 1e-6);  // across the antimeridian
        // The equirectangular map: north-south exact, east-west exact at its centre latitude.
        kms::Matrix<double> degrees(3, 2);
        degrees(0, 0) = 60; degrees(0, 1) = 10;
        degrees(1, 0) = 61; degrees(1, 1) = 10;
        degrees(2, 0) = 60; degrees(2, 1) = 11;
        kms::GeoProjection map = kms::GeoProjection::with_frame(degrees, kms::GeoFrame::Equirectangular);
        map.lat0 = 60;
        const kms::Matrix<double> km = map.project(degrees);
        QVERIFY(std::abs(std::hypot(km(1, 0) - km(0, 0), km(1, 1) - km(0, 1)) - one_degree) < 1e-9);
        QVERIFY(std::abs(std::hypot(km(2, 0) - km(0, 0), km(2, 1) - km(0, 1)) - one_degree / 2) < 1e-9);  // cos 60° = ½
        // The sphere: R times unit vectors, chords.
        const kms::GeoProjection sphere = kms::GeoProjection::with_frame(degrees, kms::GeoFrame::Sphere);
        const kms::Matrix<double> xyz = sphere.project(degrees);
        for (std::size_t i = 0; i < 3; ++i)
            QVERIFY(std::abs(std::sqrt(xyz(i, 0) * xyz(i, 0) + xyz(i, 1) * xyz(i, 1) + xyz(i, 2) * xyz(i, 2)) -
                             kms::kEarthRadiusKm) < 1e-9);
        const double chord = std::sqrt(std::pow(xyz(1, 0) - xyz(0, 0), 2) + std::pow(xyz(1, 1) - xyz(0, 1), 2) +
                                       std::pow(xyz(1, 2) - xyz(0, 2), 2));
        QVERIFY(std::abs(chord - one_degree) < 0.002);  // 2R sin(½°) vs R·1°: 1.4 m apart
        QVERIFY(std::abs(chord - one_degree) > 0.001);
    }

    void round_trip_data() {
        QTest::addColumn<double>("lat_low");
        QTest::addColumn<double>("lat_high");
        QTest::addColumn<double>("lon_low");
        QTest::addColumn<double>("lon_high");
        QTest::addColumn<int>("frame");  // what the rule must pick: 0 equirectangular, 1 sphere
        QTest::newRow("Paris region") << 48.0 << 49.5 << 1.5 << 3.5 << 0;
        QTest::newRow("equator, 20 degrees") << -8.0 << 8.0 << 30.0 << 50.0 << 0;
        QTest::newRow("southern") << -35.0 << -33.0 << 150.0 << 152.0 << 0;
        QTest::newRow("across the antimeridian") << -20.0 << -15.0 << 178.0 << 183.0 << 1;
        QTest::newRow("60 degrees of longitude") << 40.0 << 42.0 << -10.0 << 50.0 << 1;
        QTest::newRow("20 degrees of latitude at 50N") << 40.0 << 60.0 << 0.0 << 5.0 << 1;
        QTest::newRow("the globe") << -89.0 << 89.0 << -180.0 << 180.0 << 1;
    }
    void round_trip() {
        QFETCH(double, lat_low);
        QFETCH(double, lat_high);
        QFETCH(double, lon_low);
        QFETCH(double, lon_high);
        QFETCH(int, frame);
        const kms::Matrix<double> degrees = random_degrees(500, lat_low, lat_high, lon_low, lon_high, 17);
        const kms::GeoProjection chosen = kms::GeoProjection::choose(degrees);
        QCOMPARE(int(chosen.frame), frame);
        QVERIFY(!chosen.reason.empty());
        if (QByteArray(QTest::currentDataTag()).contains("antimeridian"))
            QVERIFY2(chosen.reason.find("antimeridian") != std::string::npos, chosen.reason.c_str());
        for (const kms::GeoFrame f : {kms::GeoFrame::Equirectangular, kms::GeoFrame::Sphere}) {
            const kms::GeoProjection projection = kms::GeoProjection::with_frame(degrees, f);
            const kms::Matrix<double> back = projection.to_degrees(projection.project(degrees));
            for (std::size_t i = 0; i < degrees.rows(); ++i) {
                QVERIFY(std::abs(back(i, 0) - degrees(i, 0)) < 1e-9);
                QVERIFY(longitude_difference(back(i, 1), degrees(i, 1)) < 1e-9);
                QVERIFY(back(i, 1) >= -180 && back(i, 1) < 180);
            }
        }
        // Centred: the equirectangular centre lies inside the data's longitude arc.
        if (frame == 0) QVERIFY(chosen.lon0 >= lon_low && chosen.lon0 <= lon_high);
    }

    void sphere_centroid_is_normalised() {
        kms::Matrix<double> degrees(2, 2);
        degrees(0, 0) = 0; degrees(0, 1) = 179;
        degrees(1, 0) = 0; degrees(1, 1) = -179;
        const kms::GeoProjection sphere = kms::GeoProjection::with_frame(degrees, kms::GeoFrame::Sphere);
        const kms::Matrix<double> xyz = sphere.project(degrees);
        kms::Matrix<double> mean(1, 3);
        for (std::size_t c = 0; c < 3; ++c) mean(0, c) = (xyz(0, c) + xyz(1, c)) / 2;  // inside the sphere
        const kms::Matrix<double> back = sphere.to_degrees(mean);
        QVERIFY(std::abs(back(0, 0)) < 1e-9);
        QVERIFY(longitude_difference(back(0, 1), 180.0) < 1e-9);  // not 0: the antimeridian is handled
        kms::Matrix<double> centre(1, 3);
        QVERIFY_THROWS_EXCEPTION(kms::Error, sphere.to_degrees(centre));
    }

    void columns_detected() {
        write(path("cities.csv"),
              "\xEF\xBB\xBF# a comment\r\nName,Lat,Lng,Population\r\n\"Paris, France\",48.8566,2.3522,2148000\r\n"
              "\"Quote \"\"q\"\" town\",-33.9,+151.2,1\r\n\r\nLondon,51.5074,-0.1278,8982000\r\n");
        const kms::GeoTable table = kms::load_geo_table(path("cities.csv").toStdString());
        QCOMPARE(table.degrees.rows(), std::size_t(3));
        QCOMPARE(table.lat_column, std::string("Lat"));
        QCOMPARE(table.lon_column, std::string("Lng"));
        QCOMPARE(table.degrees(0, 0), 48.8566);
        QCOMPARE(table.degrees(1, 1), 151.2);
        QCOMPARE(table.degrees(2, 1), -0.1278);
        write(path("tabs.tsv"), "id\tLONGITUDE\tLATITUDE\n1\t10.5\t-5.25\n");
        const kms::GeoTable tabs = kms::load_geo_table(path("tabs.tsv").toStdString());
        QCOMPARE(tabs.degrees(0, 0), -5.25);
        QCOMPARE(tabs.degrees(0, 1), 10.5);
        write(path("semi.csv"), "latitude;long;note\n1,5;2;x\n");  // a decimal comma is no number
        QVERIFY2(load_error(path("semi.csv")).find(":2: latitude '1,5' is not a number") != std::string::npos,
                 load_error(path("semi.csv")).c_str());
        // Named or numbered by hand.
        write(path("named.csv"), "y,x,lat\n10,20,99\n");
        const kms::GeoTable named = kms::load_geo_table(path("named.csv").toStdString(), {"Y", "2"});
        QCOMPARE(named.degrees(0, 0), 10.0);
        QCOMPARE(named.degrees(0, 1), 20.0);
        // None, two, or a column that is not there: the header is named.
        QVERIFY(load_error(path("named.csv")).find(":1: no longitude column in the header ('y', 'x', 'lat')") !=
                std::string::npos);
        write(path("two.csv"), "lat,latitude,lon\n1,2,3\n");
        QVERIFY(load_error(path("two.csv")).find("two latitude columns ('lat' and 'latitude')") != std::string::npos);
        QVERIFY(load_error(path("named.csv"), {"height", "x"}).find("--lat 'height': no such column") != std::string::npos);
        QVERIFY(load_error(path("named.csv"), {"4", "x"}).find("--lat 4: the header has 3 columns") != std::string::npos);
    }

    // The bundled real coordinates (tzdata's zone1970.tab, public domain) load with detected columns.
    void bundled_time_zone_cities() {
        const std::string source_dir = kms::test::env_or_empty("KMS_SOURCE_DIR");
        if (source_dir.empty()) QSKIP("KMS_SOURCE_DIR is not set (run through CTest)");
        const kms::GeoTable table = kms::load_geo_table(source_dir + "/resources/data/tz-cities.csv");
        QVERIFY(table.degrees.rows() > 300);
        QCOMPARE(table.lat_column, std::string("latitude"));
        const kms::GeoData geo = kms::geo_data_from_degrees({"tz", table.degrees, {}, {}}, {});
        QCOMPARE(int(geo.projection.frame), int(kms::GeoFrame::Sphere));  // the whole globe
    }

    void bad_values_name_their_line_data() {
        QTest::addColumn<QString>("row");
        QTest::addColumn<QString>("reason");
        QTest::newRow("latitude 91") << "91,0" << "latitude 91 is outside [-90, 90]";
        QTest::newRow("latitude -90.5") << "-90.5,0" << "latitude -90.5 is outside [-90, 90]";
        QTest::newRow("longitude 180.01") << "0,180.01" << "longitude 180.01 is outside [-180, 180]";
        QTest::newRow("NaN") << "nan,0" << "latitude is NaN";
        QTest::newRow("infinity") << "0,-inf" << "longitude -inf is outside";
        QTest::newRow("text") << "north,0" << "latitude 'north' is not a number";
        QTest::newRow("empty") << ",5" << "latitude is empty";
        QTest::newRow("short") << "5" << "1 fields, but the longitude is field 2";
        QTest::newRow("open quote") << "\"5,6" << "a quote is not closed";
    }
    void bad_values_name_their_line() {
        QFETCH(QString, row);
        QFETCH(QString, reason);
        // Line 5: the comment and the blank line count as lines of the file.
        write(path("bad.csv"), "# cities\nlat,lon\n1,2\n\n" + row.toStdString() + "\n3,4\n");
        const std::string error = load_error(path("bad.csv"));
        QVERIFY2(error.find(path("bad.csv").toStdString() + ":5: " + reason.toStdString()) != std::string::npos,
                 error.c_str());
    }

    void generator_is_deterministic_and_in_bounds() {
        const kms::Dataset a = kms::generate_dataset("geo-cities:n=2000,k=5,spread_km=30,lon_min=170,lon_max=200", 9);
        const kms::Dataset b = kms::generate_dataset("geo-cities:n=2000,k=5,spread_km=30,lon_min=170,lon_max=200", 9);
        QCOMPARE(a.points.rows(), std::size_t(2000));
        QCOMPARE(std::memcmp(a.points.data(), b.points.data(), 2000 * 2 * sizeof(double)), 0);
        QCOMPARE(a.truth_centroids.rows(), std::size_t(5));
        for (std::size_t c = 0; c < 5; ++c) {
            QVERIFY(a.truth_centroids(c, 0) >= -60 && a.truth_centroids(c, 0) <= 70);
            const double lon = a.truth_centroids(c, 1) < 0 ? a.truth_centroids(c, 1) + 360 : a.truth_centroids(c, 1);
            QVERIFY(lon >= 170 && lon <= 200);
        }
        for (std::size_t i = 0; i < a.n(); ++i) {
            QVERIFY(std::abs(a.points(i, 0)) <= 90 && a.points(i, 1) >= -180 && a.points(i, 1) <= 180);
            // Every point lies within 9 spreads (Box–Muller's largest value is 8.6) of its centre.
            const auto c = std::size_t(a.truth_labels[i]);
            QVERIFY(kms::great_circle_km(a.points(i, 0), a.points(i, 1), a.truth_centroids(c, 0), a.truth_centroids(c, 1)) <
                    9 * 30 * std::sqrt(2.0));
        }
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::generate_dataset("geo-cities:lat_min=10,lat_max=5", 1));
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::generate_dataset("geo-cities:lon_min=0,lon_max=400", 1));
        QVERIFY_THROWS_EXCEPTION(kms::InputError, kms::generate_dataset("geo-cities:spread_km=5000", 1));
    }

    // k-means in km finds the generator's cities again, in either frame.
    void clustering_recovers_the_cities_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("frame");
        QTest::newRow("region") << "geo-cities:n=3000,k=5,spread_km=15,lat_min=44,lat_max=50,lon_min=0,lon_max=9" << 1 << 0;
        QTest::newRow("tropics") << "geo-cities:n=2400,k=4,spread_km=20,lat_min=-10,lat_max=10,lon_min=20,lon_max=40" << 2 << 0;
        QTest::newRow("antimeridian") << "geo-cities:n=3000,k=5,spread_km=25,lat_min=-30,lat_max=0,lon_min=165,lon_max=200" << 3 << 1;
        QTest::newRow("globe") << "geo-cities:n=4000,k=8,spread_km=60" << 4 << 1;
    }
    void clustering_recovers_the_cities() {
        QFETCH(QString, spec);
        QFETCH(int, seed);
        QFETCH(int, frame);
        kms::Dataset generated = kms::generate_dataset(spec.toStdString(), std::uint64_t(seed));
        const kms::Matrix<double> truth = generated.truth_centroids;
        // Each city's tolerance: 4 × its points' RMS distance from the centre / √points (the
        // standard error of a mean, ×4 of the RMS: more than 5 standard errors), plus 0.5 km.
        std::vector<double> squares(truth.rows(), 0.0), counts(truth.rows(), 0.0);
        for (std::size_t i = 0; i < generated.n(); ++i) {
            const auto t = std::size_t(generated.truth_labels[i]);
            squares[t] += std::pow(kms::great_circle_km(generated.points(i, 0), generated.points(i, 1), truth(t, 0), truth(t, 1)), 2);
            counts[t] += 1;
        }
        const kms::GeoData geo = kms::geo_data_from_degrees(std::move(generated), {});
        QCOMPARE(int(geo.projection.frame), frame);
        kms::FitOptions options;
        options.k = truth.rows();
        options.n_init = 4;
        options.init.seed = std::uint64_t(seed);
        options.solver.backend = kms::Backend::Sequential;
        const kms::FitResult fit =
            kms::fit(std::make_shared<const kms::Matrix<double>>(geo.projected.points), options);
        const kms::Matrix<double> found = geo.projection.to_degrees(fit.centroids);
        for (std::size_t t = 0; t < truth.rows(); ++t) {
            double nearest = 1e300;
            for (std::size_t c = 0; c < found.rows(); ++c)
                nearest = std::min(nearest, kms::great_circle_km(truth(t, 0), truth(t, 1), found(c, 0), found(c, 1)));
            const double tolerance = 4 * std::sqrt(squares[t] / counts[t]) / std::sqrt(counts[t]) + 0.5;
            QVERIFY2(nearest < tolerance, qPrintable(QString("city %1 is %2 km from the nearest centroid (tolerance %3)")
                                                         .arg(t).arg(nearest).arg(tolerance)));
        }
    }

    void cli_run_geo() {
        if (kms::test::env_or_empty("KMS_CLI").empty()) QSKIP("KMS_CLI is not set (run through CTest)");
        const QString spec = "geo-cities:n=1500,k=3,spread_km=10,lat_min=50,lat_max=53,lon_min=4,lon_max=9";
        const Cli generated = run_cli({"generate", "--generate", spec, "--seed", "5", "--out", path("gen.csv"),
                                       "--centroids-out", path("truth.csv")});
        QVERIFY2(generated.exit_code == 0, qPrintable(generated.err));
        const Cli r = run_cli({"run", "--input", path("gen.csv"), "--geo", "--k", "3", "--n-init", "3", "--seed", "5",
                               "--report", "json", "--centroids-out", path("found.csv")});
        QVERIFY2(r.exit_code == 0, qPrintable(r.err));
        const QJsonObject summary =
            QJsonDocument::fromJson(r.out.split('\n', Qt::SkipEmptyParts).back().toUtf8()).object();
        QVERIFY2(summary["geo_projection"].toString().startsWith("equirectangular"), qPrintable(r.out));
        QCOMPARE(summary["centroids_degrees"].toArray().size(), 3);
        const kms::GeoTable truth = kms::load_geo_table(path("truth.csv").toStdString());
        const kms::Matrix<double> found = kms::load_matrix(path("found.csv").toStdString());
        QCOMPARE(found.rows(), std::size_t(3));
        for (std::size_t t = 0; t < 3; ++t) {
            double nearest = 1e300;
            for (std::size_t c = 0; c < 3; ++c)
                nearest = std::min(nearest, kms::great_circle_km(truth.degrees(t, 0), truth.degrees(t, 1), found(c, 0),
                                                                 found(c, 1)));
            QVERIFY(nearest < 3.0);
        }
        // Issue 39: --init takes the degrees --centroids-out wrote (it read them as km): a run
        // restarted from its own centroids stops where it was, at the same inertia.
        for (const char* frame : {"equirectangular", "sphere"}) {
            const Cli first = run_cli({"run", "--input", path("gen.csv"), "--geo", "--geo-projection", frame, "--k", "3",
                                       "--seed", "5", "--report", "json", "--centroids-out", path("first.csv")});
            QVERIFY2(first.exit_code == 0, qPrintable(first.err));
            const Cli again = run_cli({"run", "--input", path("gen.csv"), "--geo", "--geo-projection", frame, "--k", "3",
                                       "--init", path("first.csv"), "--report", "json"});
            QVERIFY2(again.exit_code == 0, qPrintable(again.err));
            const auto inertia = [](const Cli& cli) {
                return QJsonDocument::fromJson(cli.out.split('\n', Qt::SkipEmptyParts).back().toUtf8())
                    .object()["inertia"]
                    .toDouble();
            };
            QVERIFY2(std::fabs(inertia(again) - inertia(first)) <= 1e-6 * inertia(first),
                     qPrintable(QString("%1: %2 then %3").arg(frame).arg(inertia(first)).arg(inertia(again))));
        }
        write(path("three.csv"), "50,4,0\n51,5,0\n52,6,0\n");
        const Cli three = run_cli({"run", "--input", path("gen.csv"), "--geo", "--k", "3", "--init", path("three.csv")});
        QCOMPARE(three.exit_code, 1);
        QVERIFY2(three.err.contains(path("three.csv") + ": the initial centroids are 3 rows × 3 columns; expected k = 3 "
                                                        "rows of latitude, longitude in degrees"),
                 qPrintable(three.err));
        write(path("badlat.csv"), "50,4\n51,5\n95,6\n");
        const Cli badlat = run_cli({"run", "--input", path("gen.csv"), "--geo", "--k", "3", "--init", path("badlat.csv")});
        QCOMPARE(badlat.exit_code, 1);
        QVERIFY2(badlat.err.contains(path("badlat.csv") + ": latitude 95 of centroid 3 is outside [-90, 90] degrees"),
                 qPrintable(badlat.err));
        // A .npy of latitude, longitude (issue 42): loaded, or read a block at a time (--out-of-core on:
        // the projection from one pass of statistics), the same files; its faults named.
        const Cli npy_generated = run_cli({"generate", "--generate", spec, "--seed", "5", "--out", path("gen.npy")});
        QVERIFY2(npy_generated.exit_code == 0, qPrintable(npy_generated.err));
        for (const char* frame : {"auto", "sphere"}) {
            QByteArray files[2];
            for (const char* when : {"off", "on"}) {
                const Cli run = run_cli({"run", "--input", path("gen.npy"), "--geo", "--geo-projection", frame, "--k", "3",
                                         "--seed", "5", "--out-of-core", when, "--report", "json", "--centroids-out",
                                         path("npy-centroids.csv"), "--labels-out", path("npy-labels.txt")});
                QVERIFY2(run.exit_code == 0, qPrintable(run.err));
                QVERIFY2(run.out.contains("\"geo_projection\":\"") && run.out.contains("\"centroids_degrees\"") &&
                             run.out.contains("\"out_of_core\"") == (std::string(when) == "on"),
                         qPrintable(run.out));
                QFile centroids(path("npy-centroids.csv")), labels(path("npy-labels.txt"));
                QVERIFY(centroids.open(QIODevice::ReadOnly) && labels.open(QIODevice::ReadOnly));
                files[std::string(when) == "on"] = centroids.readAll() + labels.readAll();
            }
            QVERIFY2(files[0] == files[1], frame);
        }
        write(path("table.npy"), std::string("\x93NUMPY\x01\x00", 8));
        const Cli npy = run_cli({"run", "--input", path("table.npy"), "--geo", "--k", "1"});
        QCOMPARE(npy.exit_code, 1);
        QVERIFY2(npy.err.contains(path("table.npy") + ": "), qPrintable(npy.err));
        for (const char* when : {"off", "on"}) {
            const Cli named_npy = run_cli({"run", "--input", path("gen.npy"), "--lat", "latitude", "--k", "1",
                                           "--out-of-core", when});
            QCOMPARE(named_npy.exit_code, 1);
            QVERIFY2(named_npy.err.contains(path("gen.npy") + ": a .npy has no column names: give both --lat and --lon"),
                     qPrintable(named_npy.err));
        }
        const Cli text_ooc = run_cli({"run", "--input", path("gen.csv"), "--geo", "--k", "1", "--out-of-core", "on"});
        QCOMPARE(text_ooc.exit_code, 2);
        QVERIFY2(text_ooc.err.contains("--out-of-core on: " + path("gen.csv") +
                                       " is not a NumPy .npy file: a --geo text table is loaded whole (convert it to "
                                       "a .npy of latitude, longitude, e.g. numpy.save)"),
                 qPrintable(text_ooc.err));
        // Columns named on the command line; the sphere forced; refused values exit 1 with path:line.
        write(path("named.csv"), "name,y,x\nA,50.1,4.2\nB,50.2,4.3\nC,52.9,8.8\n");
        const Cli named = run_cli({"run", "--input", path("named.csv"), "--lat", "y", "--lon", "x", "--k", "2",
                                   "--geo-projection", "sphere"});
        QVERIFY2(named.exit_code == 0, qPrintable(named.err));
        QVERIFY(named.out.contains("# geo: 3-D unit vectors"));
        QVERIFY(named.out.contains("# centroid 1: latitude"));
        write(path("far.csv"), "lat,lon\n1,2\n95,3\n");
        const Cli far = run_cli({"run", "--input", path("far.csv"), "--geo", "--k", "1"});
        QCOMPARE(far.exit_code, 1);
        QVERIFY2(far.err.contains(path("far.csv") + ":3: latitude 95 is outside [-90, 90]"), qPrintable(far.err));
        const Cli sweep = run_cli({"sweep", "--generate", spec, "--geo", "--k-range", "2:5", "--seed", "5"});
        QVERIFY2(sweep.exit_code == 0, qPrintable(sweep.err));
        QVERIFY2(sweep.out.contains("# elbow (kneedle on inertia): k = 3"), qPrintable(sweep.out));
        const Cli usage = run_cli({"run", "--generate", spec, "--k", "2", "--geo-projection", "sphere"});
        QCOMPARE(usage.exit_code, 2);
        QVERIFY(usage.err.contains("--geo-projection needs --geo"));
        const Cli columns = run_cli({"run", "--generate", spec, "--k", "2", "--lat", "y"});
        QCOMPARE(columns.exit_code, 2);
        QVERIFY(columns.err.contains("--lat and --lon name columns of an --input table"));
    }
};

QTEST_GUILESS_MAIN(TestGeo)
#include "test_geo.moc"
