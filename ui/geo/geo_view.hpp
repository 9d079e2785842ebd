#pragma once
// Geographic data on screen (docs/geographic.md): the map the point view shows,
// its graticule and its scale bar. The points are clustered in km (kms/geo.hpp);
// the view draws them in km too, so the aspect ratio is right by construction:
//  - equirectangular frame: the clustering plane itself (x east, y north, km);
//  - 3-D frame: the orthographic map around the data's centre (east and north unit
//    vectors there, times R): true to scale at the centre, the back of the globe
//    (beyond 90° from the centre) overlaps the front.
#include <memory>

#include "kms/geo.hpp"
#include "view/point_cloud_view.hpp"
#include "view/projection.hpp"

namespace kms::ui {

struct GeoView {
    GeoProjection projection;                   // the clustering frame
    double lat_min = 0, lat_max = 0;            // the data's extent, degrees
    double lon_start = 0, lon_span = 0;         // its shortest longitude arc, eastwards from lon_start

    // The 2-D map of the projected points (a linear map, so centroids and dragging work as for any data).
    Projection2D view_projection() const;
};

// The extent of `data`'s degrees and its projection.
std::shared_ptr<const GeoView> make_geo_view(const GeoData& data);

// Graticule spacing for an extent of `degrees`: 0.1, 0.5, 1, 5, 10 or 30 degrees,
// about 3 to 8 lines across.
double graticule_step(double degrees);

// Parallels and meridians every graticule_step() over the data's extent (with one
// step of margin), labelled in degrees, mapped through the frame and `view` into
// the view's world coordinates (km); the scale bar is in km.
MapOverlay map_overlay(const GeoView& geo, const Projection2D& view);

}  // namespace kms::ui
