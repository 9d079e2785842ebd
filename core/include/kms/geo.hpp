#pragma once
// Latitude/longitude data clustered in kilometres (docs/geographic.md). k-means
// needs a space where straight-line distance means distance on the ground, so
// degrees are projected first and centroids are brought back to degrees:
//  - regional data: the equirectangular map around the data's centre
//    (x = R·Δλ·cos φ0 east, y = R·Δφ north, km), where east–west distances are
//    right at the mean latitude φ0 and off by cos φ / cos φ0 elsewhere;
//  - anything wider (see GeoProjection::choose): R times the 3-D unit vector, so
//    distances are chords (0.1 % shorter than the great-circle distance at 1000 km)
//    and the antimeridian and the poles need no special case; a centroid, the mean
//    of unit vectors, lies inside the sphere and is projected back onto it.
// The loader of lat/lon tables is in kms/io.hpp (load_geo_table).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/io.hpp"
#include "kms/matrix.hpp"

namespace kms {

class Communicator;
class RowSource;

inline constexpr double kEarthRadiusKm = 6371.0088;  // the mean Earth radius (IUGG)

enum class GeoFrame { Equirectangular, Sphere };

// The equirectangular map is used while the east–west scale error over the data's
// latitudes stays within this fraction, and the data spans at most kGeoMaxLongitudeSpan
// degrees of longitude without crossing the antimeridian.
inline constexpr double kGeoMaxScaleError = 0.05;
inline constexpr double kGeoMaxLongitudeSpan = 30.0;

// What choosing a projection needs of the data, gathered in one pass over the rows
// in any number of pieces (a file read a block at a time, a rank's rows), in bounded
// memory: the latitude sum (in row order), its least and largest, and each of 65 536
// longitude bins' least and largest value. The largest gap between longitudes (which
// places the map's centre) lies between two occupied bins unless the data fill every
// bin's width around the whole circle (then the 3-D frame is chosen either way), so
// the choice is the one every row in memory would give, bit for bit.
class GeoStatistics {
public:
    GeoStatistics();
    void add(double lat, double lon);                // one row, in row order
    void add(const Matrix<double>& degrees);         // rows of latitude, longitude, in order
    std::size_t rows() const { return rows_; }
    // Under ranks (each holding the statistics of its block, the blocks in rank order
    // covering the rows in order): the whole data set's statistics on every rank, bit
    // for bit one pass over every row: counts summed, extremes merged in rank order,
    // and the latitude sum carried from rank to rank, each continuing the running sum
    // over its block's `latitudes` (in order) once the ranks before it have.
    void merge(Communicator& ranks, std::span<const double> latitudes);

private:
    friend struct GeoProjection;
    std::size_t rows_ = 0;
    double lat_sum_ = 0.0, lat_min_ = 90.0, lat_max_ = -90.0;
    std::vector<double> bin_low_, bin_high_;  // per longitude bin (wrapped to [-180, 180)); NaN: empty
};

struct GeoProjection {
    GeoFrame frame = GeoFrame::Equirectangular;
    double lat0 = 0.0, lon0 = 0.0;  // degrees: the centre of the equirectangular map
    std::string reason;             // why this frame (for reports)

    // The frame the rule above picks for `degrees` (n × 2: latitude, longitude),
    // centred on the mean latitude and the middle of the shortest longitude arc
    // that holds every point. Throws kms::Error for no points.
    static GeoProjection choose(const Matrix<double>& degrees);
    // That centre with a given frame (the --geo-projection override).
    static GeoProjection with_frame(const Matrix<double>& degrees, GeoFrame frame);
    // The same from the statistics of one pass (GeoStatistics): no row kept.
    static GeoProjection choose(const GeoStatistics& statistics);
    static GeoProjection with_frame(const GeoStatistics& statistics, GeoFrame frame);

    std::size_t dimensions() const { return frame == GeoFrame::Sphere ? 3 : 2; }
    // n × 2 (x east, y north, km) or n × 3 (km, Earth-centred).
    Matrix<double> project(const Matrix<double>& degrees) const;
    // One point into out[0, dimensions()): project()'s row, bit for bit.
    void project(double lat, double lon, double* out) const;
    // Rows of `projected` (e.g. centroids) back to latitude, longitude in degrees,
    // longitude in [-180, 180). A 3-D row is normalised onto the sphere first; a
    // row at the centre of the Earth has no direction (kms::Error naming it).
    Matrix<double> to_degrees(const Matrix<double>& projected) const;
    // "equirectangular around 48.85° N, 2.35° E" / "3-D unit vectors × R".
    std::string describe() const;
};

// What --geo, --lat, --lon and --geo-projection ask for (kms/options.hpp parses them).
struct GeoOptions {
    bool enabled = false;
    GeoColumns columns;              // empty: found by name
    std::optional<GeoFrame> frame;   // none: GeoProjection::choose
};

// Data to cluster: the points in km, with the degrees they came from.
struct GeoData {
    Dataset projected;        // n × 2 or n × 3 km; truth labels kept, truth centroids projected
    Matrix<double> degrees;   // n × 2: latitude, longitude
    GeoProjection projection;
    std::string lat_column, lon_column;  // from a file's header; empty for generated data
};
// A latitude/longitude table (load_geo_table), projected.
GeoData load_geo_data(const std::string& path, const GeoOptions& options, const LoadOptions& load = {});
// Data already in degrees (a generator's: n × 2 latitude, longitude), checked and
// projected. InputError naming the data and the row for a value out of range.
GeoData geo_data_from_degrees(Dataset degrees, const GeoOptions& options);

// A .npy table of latitude, longitude (load_geo_table's columns) read a block at a
// time (out of core, kms/row_source.hpp), projected: the projection chosen from one
// pass of statistics over the file (GeoStatistics, the coordinates checked on the way;
// read in blocks of at most `buffer_bytes` / 2, the values checked over `threads`),
// then each block projected as it is read (over `threads`), so that nothing holds every row. Its rows
// are load_geo_data's projected points bit for bit (rounded to float for a float
// read). Errors: load_geo_table's for the file, its columns and its values.
struct GeoRows {
    std::shared_ptr<const RowSource> projected;  // rows × projection.dimensions(), km
    GeoProjection projection;
    std::string lat_column, lon_column;          // "column N" of the file
};
// `ranks`: each rank's pass covers only its equal share of the rows (keeping their
// latitudes, 8 bytes a row, until the statistics are merged: GeoStatistics::merge).
GeoRows open_geo_rows(const std::string& path, const GeoOptions& options, std::size_t buffer_bytes, int threads,
                      Communicator* ranks = nullptr);

// Under ranks, a .npy table loaded: this rank's rows only, projected. The statistics
// come from an equal share of the rows per rank (merged), then the rank reads its rows
// of `blocks(rows, d)` (the solver's split for the projection's d, kms::rank_blocks):
// load_geo_data's projection and points of those rows, bit for bit.
struct GeoBlock {
    GeoData data;                      // the rank's rows: projected (name: the path) and their degrees
    std::size_t global_rows = 0, first_row = 0;
};
GeoBlock load_geo_npy_block(const std::string& path, const GeoOptions& options, Communicator& ranks,
                            const std::function<std::vector<std::size_t>(std::size_t, std::size_t)>& blocks);

// Initial centroids of a geographic run (--geo --init FILE, the CLI and the studio alike):
// k rows of latitude, longitude in degrees, as --centroids-out and the studio's export write
// them, checked (shape, ranges: InputError naming the file) and projected into the run's frame.
Matrix<double> load_geo_centroids(const std::string& path, std::size_t k, const GeoProjection& projection,
                                  const LoadOptions& load = {});

// The great-circle distance (haversine) in km on the sphere of kEarthRadiusKm.
double great_circle_km(double lat1, double lon1, double lat2, double lon2);

}  // namespace kms
