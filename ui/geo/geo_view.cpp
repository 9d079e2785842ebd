#include "geo/geo_view.hpp"

#include <algorithm>
#include <cmath>

namespace kms::ui {

namespace {

constexpr double kRadians = 3.14159265358979323846 / 180.0;

QString degrees_label(double value, char positive, char negative, double step) {
    const int decimals = step < 1 ? 1 : 0;
    const double shown = std::abs(value) < 1e-9 ? 0.0 : value;
    return QString::number(std::abs(shown), 'f', decimals) + QStringLiteral("°") +
           (shown == 0 ? QString() : QString(QChar(shown > 0 ? positive : negative)));
}

double wrap_longitude(double degrees) {
    double wrapped = std::fmod(degrees + 180.0, 360.0);
    if (wrapped < 0) wrapped += 360.0;
    return wrapped - 180.0;
}

}  // namespace

Projection2D GeoView::view_projection() const {
    if (projection.frame == GeoFrame::Equirectangular) return Projection2D::linear({0.0, 0.0}, {1.0, 0.0, 0.0, 1.0});
    // East and north at the centre, as rows of a 2 × 3 map of the Earth-centred km.
    const double phi = projection.lat0 * kRadians, lambda = projection.lon0 * kRadians;
    return Projection2D::linear({0.0, 0.0, 0.0}, {-std::sin(lambda), std::cos(lambda), 0.0,  //
                                                  -std::sin(phi) * std::cos(lambda), -std::sin(phi) * std::sin(lambda),
                                                  std::cos(phi)});
}

std::shared_ptr<const GeoView> make_geo_view(const GeoData& data) {
    auto view = std::make_shared<GeoView>();
    view->projection = data.projection;
    const Matrix<double>& degrees = data.degrees;
    view->lat_min = 90;
    view->lat_max = -90;
    std::vector<double> lon(degrees.rows());
    for (std::size_t i = 0; i < degrees.rows(); ++i) {
        view->lat_min = std::min(view->lat_min, degrees(i, 0));
        view->lat_max = std::max(view->lat_max, degrees(i, 0));
        lon[i] = wrap_longitude(degrees(i, 1));
    }
    std::sort(lon.begin(), lon.end());
    double largest = lon.empty() ? 360 : lon.front() + 360 - lon.back();
    view->lon_start = lon.empty() ? 0 : lon.front();
    for (std::size_t i = 0; i + 1 < lon.size(); ++i)
        if (lon[i + 1] - lon[i] > largest) {
            largest = lon[i + 1] - lon[i];
            view->lon_start = lon[i + 1];
        }
    view->lon_span = 360 - largest;
    return view;
}

double graticule_step(double degrees) {
    for (const double step : {0.1, 0.5, 1.0, 5.0, 10.0})
        if (degrees <= 8 * step) return step;
    return 30.0;
}

MapOverlay map_overlay(const GeoView& geo, const Projection2D& view) {
    MapOverlay overlay;
    overlay.scale_bar = true;
    const double step = graticule_step(std::max(geo.lat_max - geo.lat_min, geo.lon_span));
    const bool sphere = geo.projection.frame == GeoFrame::Sphere;
    // The centre's direction: the front of the globe is within 90° of it.
    const double phi0 = geo.projection.lat0 * kRadians, lambda0 = geo.projection.lon0 * kRadians;
    const double cx = std::cos(phi0) * std::cos(lambda0), cy = std::cos(phi0) * std::sin(lambda0), cz = std::sin(phi0);
    const double lat_low = std::max(-90.0, std::floor(geo.lat_min / step) * step - step);
    const double lat_high = std::min(90.0, std::ceil(geo.lat_max / step) * step + step);
    const double lon_low = std::floor(geo.lon_start / step) * step - step;
    const double lon_high = std::ceil((geo.lon_start + geo.lon_span) / step) * step + step;
    // A polyline of (lat, lon) samples in world coordinates, broken where it leaves the front.
    const auto add_line = [&](auto point_at, const QString& label, bool label_left) {
        constexpr int kSamples = 120;
        Matrix<double> degrees(kSamples + 1, 2);
        for (int s = 0; s <= kSamples; ++s) {
            const auto [lat, lon] = point_at(double(s) / kSamples);
            degrees(std::size_t(s), 0) = lat;
            degrees(std::size_t(s), 1) = wrap_longitude(lon);
        }
        const Matrix<double> projected = geo.projection.project(degrees);
        MapLine line{{}, label, label_left};
        for (std::size_t s = 0; s < projected.rows(); ++s) {
            const double* row = projected.row(s);
            if (sphere && row[0] * cx + row[1] * cy + row[2] * cz <= 0) {  // behind the globe
                if (line.points.size() > 1) overlay.lines.push_back(line);
                line.points.clear();
                continue;
            }
            const auto xy = view.project(row);
            line.points.emplace_back(xy[0], xy[1]);
        }
        if (line.points.size() > 1) overlay.lines.push_back(std::move(line));
    };
    for (double lat = lat_low; lat <= lat_high + 1e-9; lat += step)
        add_line([&](double t) { return std::pair{lat, lon_low + t * (lon_high - lon_low)}; },
                 degrees_label(lat, 'N', 'S', step), true);
    for (double lon = lon_low; lon <= lon_high + 1e-9; lon += step)
        add_line([&](double t) { return std::pair{lat_low + t * (lat_high - lat_low), lon}; },
                 degrees_label(wrap_longitude(lon), 'E', 'W', step), false);
    return overlay;
}

}  // namespace kms::ui
