// Projections of latitude/longitude for clustering (kms/geo.hpp).
#include "kms/geo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/row_source.hpp"
#include "kms/short_number.hpp"

namespace kms {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRadians = kPi / 180.0;

// Longitude in [-180, 180).
double wrap_longitude(double degrees) {
    double wrapped = std::fmod(degrees + 180.0, 360.0);
    if (wrapped < 0) wrapped += 360.0;
    return wrapped - 180.0;
}

struct LongitudeArc {
    double start = 0.0, span = 0.0;  // the shortest arc eastwards from `start` holding every longitude
    bool crosses_antimeridian = false;
};

constexpr std::size_t kLongitudeBins = 65536;

std::size_t longitude_bin(double wrapped) {
    const auto bin = static_cast<std::size_t>((wrapped + 180.0) / 360.0 * static_cast<double>(kLongitudeBins));
    return std::min(bin, kLongitudeBins - 1);
}

// The largest gap between neighbouring longitudes, the wrap-around gap (last → first
// + 360) first, ties to the first in sorted order: the walk of the sorted longitudes,
// over the bins' least and largest values. A gap inside a bin is at most its width,
// never larger than the largest gap between bins unless the data fill every bin.
LongitudeArc longitude_arc(const std::vector<double>& low, const std::vector<double>& high) {
    std::size_t first = 0, last = kLongitudeBins - 1;
    while (first < kLongitudeBins && std::isnan(low[first])) ++first;
    while (last > first && std::isnan(low[last])) --last;
    double largest = low[first] + 360.0 - high[last];
    LongitudeArc arc{low[first], 360.0 - largest, false};
    double previous = high[first];
    for (std::size_t b = first + 1; b <= last; ++b) {
        if (std::isnan(low[b])) continue;
        const double gap = low[b] - previous;
        if (gap > largest) {
            largest = gap;
            arc = {low[b], 360.0 - gap, true};  // the arc runs east from low[b] through ±180 to `previous`
        }
        previous = high[b];
    }
    return arc;
}

std::string degrees_text(double lat, double lon) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.4f° %c, %.4f° %c", std::abs(lat), lat < 0 ? 'S' : 'N', std::abs(lon),
                  lon < 0 ? 'W' : 'E');
    return buffer;
}

}  // namespace

GeoStatistics::GeoStatistics()
    : bin_low_(kLongitudeBins, std::numeric_limits<double>::quiet_NaN()),
      bin_high_(kLongitudeBins, std::numeric_limits<double>::quiet_NaN()) {}

void GeoStatistics::add(double lat, double lon) {
    ++rows_;
    lat_sum_ += lat;
    lat_min_ = std::min(lat_min_, lat);
    lat_max_ = std::max(lat_max_, lat);
    const double wrapped = wrap_longitude(lon);
    const std::size_t bin = longitude_bin(wrapped);
    if (std::isnan(bin_low_[bin])) {
        bin_low_[bin] = bin_high_[bin] = wrapped;
    } else {
        bin_low_[bin] = std::min(bin_low_[bin], wrapped);
        bin_high_[bin] = std::max(bin_high_[bin], wrapped);
    }
}

void GeoStatistics::add(const Matrix<double>& degrees) {
    if (degrees.cols() != 2) throw Error("geographic data: not latitude, longitude");
    for (std::size_t i = 0; i < degrees.rows(); ++i) add(degrees(i, 0), degrees(i, 1));
}

void GeoStatistics::merge(Communicator& ranks, std::span<const double> latitudes) {
    std::uint64_t rows = rows_;
    ranks.sum(std::span<std::uint64_t>(&rows, 1));
    rows_ = static_cast<std::size_t>(rows);
    // std::min / std::max keep the first of equal values (-0 and 0): rank order is row order.
    const std::vector<double> ends = ranks.allgather(std::vector<double>{lat_min_, lat_max_});
    const std::vector<double> lows = ranks.allgather(bin_low_), highs = ranks.allgather(bin_high_);
    lat_min_ = 90.0, lat_max_ = -90.0;
    std::fill(bin_low_.begin(), bin_low_.end(), std::numeric_limits<double>::quiet_NaN());
    std::fill(bin_high_.begin(), bin_high_.end(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t r = 0; r < ends.size() / 2; ++r) {
        lat_min_ = std::min(lat_min_, ends[2 * r]);
        lat_max_ = std::max(lat_max_, ends[2 * r + 1]);
        for (std::size_t b = 0; b < kLongitudeBins; ++b) {
            const double low = lows[r * kLongitudeBins + b], high = highs[r * kLongitudeBins + b];
            if (std::isnan(low)) continue;
            bin_low_[b] = std::isnan(bin_low_[b]) ? low : std::min(bin_low_[b], low);
            bin_high_[b] = std::isnan(bin_high_[b]) ? high : std::max(bin_high_[b], high);
        }
    }
    // The sum in row order: rank r goes on from ranks 0..r-1's running sum (one broadcast a rank).
    double running = 0.0;
    for (int r = 0; r < ranks.size(); ++r) {
        if (r == ranks.rank())
            for (const double lat : latitudes) running += lat;
        ranks.broadcast(std::span<double>(&running, 1), r);
    }
    lat_sum_ = running;
}

GeoProjection GeoProjection::with_frame(const Matrix<double>& degrees, GeoFrame frame) {
    if (degrees.rows() == 0 || degrees.cols() != 2) throw Error("geographic data: no points (or not latitude, longitude)");
    GeoStatistics statistics;
    statistics.add(degrees);
    return with_frame(statistics, frame);
}

GeoProjection GeoProjection::choose(const Matrix<double>& degrees) {
    if (degrees.rows() == 0 || degrees.cols() != 2) throw Error("geographic data: no points (or not latitude, longitude)");
    GeoStatistics statistics;
    statistics.add(degrees);
    return choose(statistics);
}

GeoProjection GeoProjection::with_frame(const GeoStatistics& statistics, GeoFrame frame) {
    if (statistics.rows_ == 0) throw Error("geographic data: no points (or not latitude, longitude)");
    const LongitudeArc arc = longitude_arc(statistics.bin_low_, statistics.bin_high_);
    GeoProjection projection;
    projection.frame = frame;
    projection.lat0 = statistics.lat_sum_ / static_cast<double>(statistics.rows_);
    projection.lon0 = wrap_longitude(arc.start + arc.span / 2);
    if (frame == GeoFrame::Equirectangular && std::abs(projection.lat0) > 89.0)
        throw Error("geographic data: the equirectangular map needs a mean latitude within 89° of the equator");
    return projection;
}

GeoProjection GeoProjection::choose(const GeoStatistics& statistics) {
    GeoProjection projection = with_frame(statistics, GeoFrame::Sphere);
    const LongitudeArc arc = longitude_arc(statistics.bin_low_, statistics.bin_high_);
    const double lat_min = statistics.lat_min_, lat_max = statistics.lat_max_;
    // cos is concave on [-90°, 90°]: the scale's extremes are at the ends of the
    // latitude range, or at the equator when the range holds it.
    const double cos0 = std::cos(projection.lat0 * kRadians);
    double scale_error = 0.0;
    for (const double lat : {lat_min, lat_max, std::clamp(0.0, lat_min, lat_max)})
        scale_error = std::max(scale_error, cos0 > 0 ? std::abs(std::cos(lat * kRadians) / cos0 - 1.0) : 1.0);
    char span[160];
    std::snprintf(span, sizeof span, "the data spans %.3g° of latitude and %.3g° of longitude, east-west scale error %.2g %%",
                  lat_max - lat_min, arc.span, 100.0 * scale_error);
    if (arc.crosses_antimeridian) {
        projection.reason = "3-D: the data crosses the antimeridian (" + std::string(span) + ")";
    } else if (arc.span > kGeoMaxLongitudeSpan) {
        projection.reason = "3-D: more than 30° of longitude (" + std::string(span) + ")";
    } else if (scale_error > kGeoMaxScaleError) {
        projection.reason = "3-D: the equirectangular east-west scale error would exceed 5 % (" + std::string(span) + ")";
    } else {
        projection.frame = GeoFrame::Equirectangular;
        projection.reason = "equirectangular: " + std::string(span);
    }
    return projection;
}

void GeoProjection::project(double lat, double lon, double* out) const {
    if (frame == GeoFrame::Equirectangular) {
        const double cos0 = std::cos(lat0 * kRadians);
        out[0] = kEarthRadiusKm * cos0 * wrap_longitude(lon - lon0) * kRadians;
        out[1] = kEarthRadiusKm * (lat - lat0) * kRadians;
    } else {
        const double phi = lat * kRadians, lambda = lon * kRadians;
        out[0] = kEarthRadiusKm * std::cos(phi) * std::cos(lambda);
        out[1] = kEarthRadiusKm * std::cos(phi) * std::sin(lambda);
        out[2] = kEarthRadiusKm * std::sin(phi);
    }
}

Matrix<double> GeoProjection::project(const Matrix<double>& degrees) const {
    const std::size_t n = degrees.rows();
    Matrix<double> out(n, dimensions());
    for (std::size_t i = 0; i < n; ++i) project(degrees(i, 0), degrees(i, 1), &out(i, 0));
    return out;
}

Matrix<double> GeoProjection::to_degrees(const Matrix<double>& projected) const {
    if (projected.cols() != dimensions())
        throw Error("geographic centroids: " + std::to_string(projected.cols()) + " coordinates, expected " +
                    std::to_string(dimensions()));
    Matrix<double> out(projected.rows(), 2);
    const double cos0 = std::cos(lat0 * kRadians);
    for (std::size_t i = 0; i < projected.rows(); ++i) {
        if (frame == GeoFrame::Equirectangular) {
            out(i, 0) = lat0 + projected(i, 1) / kEarthRadiusKm / kRadians;
            out(i, 1) = wrap_longitude(lon0 + projected(i, 0) / (kEarthRadiusKm * cos0) / kRadians);
        } else {
            const double x = projected(i, 0), y = projected(i, 1), z = projected(i, 2);
            const double horizontal = std::hypot(x, y);
            if (!(std::hypot(horizontal, z) > 1e-9 * kEarthRadiusKm))
                throw Error("geographic centroid " + std::to_string(i) +
                            " is at the centre of the Earth (its points are spread evenly around the globe): it has "
                            "no latitude or longitude");
            out(i, 0) = std::atan2(z, horizontal) / kRadians;
            out(i, 1) = horizontal > 0 ? wrap_longitude(std::atan2(y, x) / kRadians) : 0.0;
        }
    }
    return out;
}

std::string GeoProjection::describe() const {
    if (frame == GeoFrame::Sphere) return "3-D unit vectors x R (km, Earth-centred)";
    return "equirectangular around " + degrees_text(lat0, lon0) + " (km)";
}

GeoData geo_data_from_degrees(Dataset degrees, const GeoOptions& options) {
    if (degrees.d() != 2)
        throw InputError::whole(degrees.name, std::to_string(degrees.d()) +
                                                  " columns: geographic data is latitude, longitude (2 columns)");
    for (std::size_t i = 0; i < degrees.n(); ++i)
        check_geo_coordinates(degrees.name, i + 1, degrees.points(i, 0), degrees.points(i, 1));
    GeoData data;
    data.projection = options.frame ? GeoProjection::with_frame(degrees.points, *options.frame)
                                    : GeoProjection::choose(degrees.points);
    if (options.frame) data.projection.reason = "chosen with --geo-projection";
    data.projected.name = degrees.name;
    data.projected.points = data.projection.project(degrees.points);
    data.projected.truth_labels = std::move(degrees.truth_labels);
    if (degrees.truth_centroids.rows() > 0 && degrees.truth_centroids.cols() == 2)
        data.projected.truth_centroids = data.projection.project(degrees.truth_centroids);
    data.degrees = std::move(degrees.points);
    return data;
}

GeoData load_geo_data(const std::string& path, const GeoOptions& options, const LoadOptions& load) {
    GeoTable table = load_geo_table(path, options.columns, load);
    Dataset degrees;
    degrees.name = path;
    degrees.points = std::move(table.degrees);
    GeoData data = geo_data_from_degrees(std::move(degrees), options);
    data.lat_column = table.lat_column;
    data.lon_column = table.lon_column;
    return data;
}

Matrix<double> load_geo_centroids(const std::string& path, std::size_t k, const GeoProjection& projection,
                                  const LoadOptions& load) {
    LoadOptions options = load;
    options.attach_ground_truth = false;
    const Matrix<double> degrees = load_matrix(path, options);
    if (degrees.cols() != 2 || degrees.rows() != k)
        throw InputError::whole(path, "the initial centroids are " + std::to_string(degrees.rows()) + " rows × " +
                                          std::to_string(degrees.cols()) + " columns; expected k = " + std::to_string(k) +
                                          " rows of latitude, longitude in degrees (as --centroids-out writes them)");
    for (std::size_t i = 0; i < degrees.rows(); ++i)
        for (std::size_t j = 0; j < 2; ++j) {
            const double limit = j == 0 ? 90.0 : 180.0;
            if (!(std::fabs(degrees(i, j)) <= limit))
                throw InputError::whole(path, std::string(j == 0 ? "latitude " : "longitude ") +
                                                  short_number(degrees(i, j)) + " of centroid " + std::to_string(i + 1) +
                                                  " is outside [-" + short_number(limit) + ", " + short_number(limit) +
                                                  "] degrees");
        }
    return projection.project(degrees);
}

namespace {
// The projected rows of a .npy table of degrees (open_geo_rows), a block at a time.
class GeoRowSource final : public RowSource {
public:
    GeoRowSource(std::shared_ptr<const RowSource> file, std::size_t lat, std::size_t lon, GeoProjection projection,
                 int threads)
        : file_(std::move(file)), lat_(lat), lon_(lon), projection_(std::move(projection)), threads_(threads) {}
    std::size_t rows() const override { return file_->rows(); }
    std::size_t cols() const override { return projection_.dimensions(); }
    const std::string& name() const override { return file_->name(); }
    std::size_t file_row_bytes() const override { return file_->file_row_bytes(); }
    void read(std::size_t first, std::size_t count, double* out) const override { read_as(first, count, out); }
    void read(std::size_t first, std::size_t count, float* out) const override { read_as(first, count, out); }

private:
    // The degrees through a staging buffer of 4 MiB, each row checked (the file may
    // have changed since the statistics) and projected in double, as in memory, over
    // `threads_` OpenMP threads (a team of the reader's own: on one thread the 3-D
    // frame's sines and cosines ran at ~290 MB/s of a 2-column file, 8x slower than the
    // loaded run's steps, dev VM). Rows are independent: the bits do not depend on it.
    template <typename T>
    void read_as(std::size_t first, std::size_t count, T* out) const {
        const std::size_t file_cols = file_->cols(), dims = cols();
        const std::size_t per_read = std::max<std::size_t>(1, (std::size_t{4} << 20) / (8 * file_cols));
        std::vector<double> degrees(std::min(count, per_read) * file_cols);
        for (std::size_t start = 0; start < count; start += per_read) {
            const std::size_t take = std::min(per_read, count - start);
            file_->read(first + start, take, degrees.data());
            const auto rows = static_cast<std::int64_t>(take);
            std::int64_t bad = rows;  // the first row out of range (the message of one thread)
#pragma omp parallel for num_threads(std::max(1, threads_)) if (threads_ > 1) reduction(min : bad) schedule(static)
            for (std::int64_t r = 0; r < rows; ++r) {
                const auto i = static_cast<std::size_t>(r);
                const double lat = degrees[i * file_cols + lat_], lon = degrees[i * file_cols + lon_];
                if (!(std::abs(lat) <= 90.0 && std::abs(lon) <= 180.0)) {
                    bad = std::min(bad, r);
                    continue;
                }
                double point[3];
                projection_.project(lat, lon, point);
                for (std::size_t c = 0; c < dims; ++c) out[(start + i) * dims + c] = static_cast<T>(point[c]);
            }
            if (bad < rows) {
                const auto i = static_cast<std::size_t>(bad);
                check_geo_coordinates(name(), first + start + i + 1, degrees[i * file_cols + lat_], degrees[i * file_cols + lon_]);
            }
        }
    }

    std::shared_ptr<const RowSource> file_;
    std::size_t lat_, lon_;
    GeoProjection projection_;
    int threads_;
};
}  // namespace

namespace {
// The projection of `statistics` as --geo-projection asks (GeoData's and GeoRows' alike).
GeoProjection projection_of(const GeoStatistics& statistics, const GeoOptions& options) {
    GeoProjection projection = options.frame ? GeoProjection::with_frame(statistics, *options.frame)
                                             : GeoProjection::choose(statistics);
    if (options.frame) projection.reason = "chosen with --geo-projection";
    return projection;
}

// Rows [first, first + count) of a rank's equal share (statistics only: any split merges to the same).
std::pair<std::size_t, std::size_t> equal_share(std::size_t rows, const Communicator* ranks) {
    if (!ranks) return {0, rows};
    const auto r = static_cast<std::uint64_t>(ranks->rank()), m = static_cast<std::uint64_t>(ranks->size());
    const std::size_t first = static_cast<std::size_t>(rows * r / m), last = static_cast<std::size_t>(rows * (r + 1) / m);
    return {first, last - first};
}
}  // namespace

GeoRows open_geo_rows(const std::string& path, const GeoOptions& options, std::size_t buffer_bytes, int threads,
                      Communicator* ranks) {
    std::shared_ptr<const RowSource> file = open_matrix_rows(path);
    // Plain variables, not structured bindings: lambdas below capture them (clang 14,
    // the sanitizer and fuzz builds' compiler, cannot capture a binding).
    const std::pair<std::size_t, std::size_t> columns = npy_geo_columns(path, file->cols(), options.columns);
    const std::size_t lat = columns.first, lon = columns.second;
    if (file->rows() == 0) throw InputError::whole(path, "no rows of latitude, longitude");
    // The pass of statistics: every row in order, as GeoProjection::choose takes them in
    // memory; under ranks each rank's share, merged.
    const auto share = equal_share(file->rows(), ranks);
    const std::size_t first = share.first, count = share.second;
    GeoStatistics statistics;
    std::vector<double> latitudes;  // under ranks, for the merge's running sum
    std::vector<double> buffers[2];
    const std::size_t row_bytes = file->cols() * sizeof(double);
    const std::size_t block_rows =
        std::max<std::size_t>(1, std::min(buffer_bytes / 2, std::size_t{64} << 20) / row_bytes);
    // (Under ranks a bad value in one share stops every rank before the merge's collectives.)
    agreed(ranks, [&] {
        if (count > 0)
            read_blocks(*file, first, count, block_rows, buffers, threads,
                        [&](std::size_t begin, std::size_t rows, const double* values) {
                            for (std::size_t r = 0; r < rows; ++r) {
                                const double row_lat = values[r * file->cols() + lat],
                                             row_lon = values[r * file->cols() + lon];
                                check_geo_coordinates(path, first + begin + r + 1, row_lat, row_lon);
                                statistics.add(row_lat, row_lon);
                                if (ranks) latitudes.push_back(row_lat);
                            }
                        });
    });
    for (auto& buffer : buffers) std::vector<double>().swap(buffer);
    if (ranks) statistics.merge(*ranks, latitudes);
    GeoRows rows;
    rows.projection = projection_of(statistics, options);
    rows.lat_column = "column " + std::to_string(lat + 1);
    rows.lon_column = "column " + std::to_string(lon + 1);
    rows.projected = std::make_shared<const GeoRowSource>(std::move(file), lat, lon, rows.projection, threads);
    return rows;
}

GeoBlock load_geo_npy_block(const std::string& path, const GeoOptions& options, Communicator& ranks,
                            const std::function<std::vector<std::size_t>(std::size_t, std::size_t)>& blocks) {
    const MatrixFileShape shape = matrix_file_shape(path);
    const std::pair<std::size_t, std::size_t> columns = npy_geo_columns(path, shape.cols, options.columns);
    const std::size_t lat = columns.first, lon = columns.second;  // not bindings: captured below (clang 14)
    if (shape.rows == 0) throw InputError::whole(path, "no rows of latitude, longitude");
    // The rows of [first, first + count) of the file, `lat` and `lon` only, checked; read
    // 64 Ki rows at a time (all columns of those rows, then dropped).
    const auto degrees_of = [&](std::size_t first, std::size_t count) {
        Matrix<double> degrees(count, 2);
        constexpr std::size_t kRows = std::size_t{1} << 16;
        for (std::size_t start = 0; start < count; start += kRows) {
            const Matrix<double> rows = load_matrix_rows(path, first + start, std::min(kRows, count - start));
            for (std::size_t i = 0; i < rows.rows(); ++i) {
                check_geo_coordinates(path, first + start + i + 1, rows(i, lat), rows(i, lon));
                degrees(start + i, 0) = rows(i, lat);
                degrees(start + i, 1) = rows(i, lon);
            }
        }
        return degrees;
    };
    GeoStatistics statistics;
    {
        const auto rank_share = equal_share(shape.rows, &ranks);
        const std::size_t first = rank_share.first, count = rank_share.second;
        Matrix<double> share;
        agreed(&ranks, [&] { share = degrees_of(first, count); });  // a bad value: every rank stops here
        statistics.add(share);
        std::vector<double> latitudes(count);
        for (std::size_t i = 0; i < count; ++i) latitudes[i] = share(i, 0);
        statistics.merge(ranks, latitudes);
    }
    GeoBlock block;
    block.global_rows = shape.rows;
    block.data.projection = projection_of(statistics, options);
    const std::vector<std::size_t> first = blocks(shape.rows, block.data.projection.dimensions());
    const auto r = static_cast<std::size_t>(ranks.rank());
    block.first_row = first[r];
    block.data.degrees = degrees_of(first[r], first[r + 1] - first[r]);
    block.data.projected.name = path;
    block.data.projected.points = block.data.projection.project(block.data.degrees);
    block.data.lat_column = "column " + std::to_string(lat + 1);
    block.data.lon_column = "column " + std::to_string(lon + 1);
    return block;
}

double great_circle_km(double lat1, double lon1, double lat2, double lon2) {
    const double dphi = (lat2 - lat1) * kRadians, dlambda = (lon2 - lon1) * kRadians;
    const double a = std::sin(dphi / 2) * std::sin(dphi / 2) +
                     std::cos(lat1 * kRadians) * std::cos(lat2 * kRadians) * std::sin(dlambda / 2) * std::sin(dlambda / 2);
    return 2.0 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(a)));
}

}  // namespace kms
