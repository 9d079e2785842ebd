// Seeded point-set generators.
//
// Determinism: every value is a pure function of (seed, stream, counter) through
// the counter-based RNG in kms/random.hpp, so the output does not depend on the
// OpenMP thread count, the standard library or the platform. No std::
// distributions are used, and the Gaussian (Box–Muller) uses the portable log,
// sin and cos below, built from + - * / and sqrt only (all correctly rounded in
// IEEE arithmetic; the project compiles with -ffp-contract=off), so libm
// differences cannot change a single bit.
//
// Shuffling: cluster membership is not sorted by index. Point i takes "slot"
// permute(i), a bijection of [0, n) computed on the fly by a keyed Feistel
// network with cycle walking; slots are laid out cluster by cluster, so the
// cluster sizes are exact while the order is scrambled. This costs O(1) time
// and no memory per point, so it is used for every n (10^8 included).
#include "kms/generate.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/error.hpp"
#include "kms/zeroed.hpp"
#include "kms/random.hpp"

namespace kms {
namespace {

// ---------------------------------------------------------------------------
// Portable elementary functions (bitwise identical on every IEEE platform).

// Series coefficients, computed once at compile time (IEEE-rounded divisions,
// like literals), so the hot loops only multiply and add.
struct SeriesCoefficients {
    double log_odd[12];  // 1 / (2j + 1), j = 0..11
    double sin[10];      // sin[m/2] = 1 / (m (m + 1)) for m = 2, 4, ..., 18
    double cos[10];      // cos[(m-1)/2] = 1 / (m (m + 1)) for m = 1, 3, ..., 19
};

constexpr SeriesCoefficients make_series_coefficients() {
    SeriesCoefficients c{};
    for (int j = 0; j < 12; ++j) c.log_odd[j] = 1.0 / (2 * j + 1);
    for (int m = 2; m <= 18; m += 2) c.sin[m / 2] = 1.0 / (static_cast<double>(m) * (m + 1));
    for (int m = 1; m <= 19; m += 2) c.cos[(m - 1) / 2] = 1.0 / (static_cast<double>(m) * (m + 1));
    return c;
}

constexpr SeriesCoefficients kSeries = make_series_coefficients();

// Natural logarithm of x > 0 (finite): x = m·2^e with m in [√½, √2), then
// ln m = 2·atanh(s), s = (m-1)/(m+1), |s| ≤ 0.172, as an odd series to s^23.
double portable_log(double x) {
    int exponent = 0;
    double mantissa = std::frexp(x, &exponent);  // exact: x = mantissa · 2^exponent, mantissa in [0.5, 1)
    if (mantissa < 0.70710678118654752440) {
        mantissa *= 2.0;  // exact
        exponent -= 1;
    }
    const double s = (mantissa - 1.0) / (mantissa + 1.0);
    const double s2 = s * s;
    double series = kSeries.log_odd[11];
    for (int j = 10; j >= 0; --j) series = kSeries.log_odd[j] + s2 * series;
    constexpr double kLn2 = 0.69314718055994530942;
    return 2.0 * s * series + static_cast<double>(exponent) * kLn2;
}

struct SinCos {
    double sin;
    double cos;
};

// sin and cos of β in [0, π/4] by Taylor series (the next term is below 1e-19).
SinCos sincos_small(double beta) {
    const double b2 = beta * beta;
    // sin β = β (1 - β²/(2·3) (1 - β²/(4·5) (1 - ... ))), nested from the inside out.
    double sin_series = 1.0;
    for (int m = 18; m >= 2; m -= 2) sin_series = 1.0 - b2 * kSeries.sin[m / 2] * sin_series;
    double cos_series = 1.0;
    for (int m = 19; m >= 1; m -= 2) cos_series = 1.0 - b2 * kSeries.cos[(m - 1) / 2] * cos_series;
    return {beta * sin_series, cos_series};
}

// sin and cos of 2π·turn for turn in [0, 1]: exact octant reduction on `turn`
// (multiplying by 8 is exact), then a series on at most π/4.
SinCos sincos_turn(double turn) {
    constexpr double kQuarterPi = 0.78539816339744830962;
    const double eighths = turn * 8.0;
    const int octant = std::min(static_cast<int>(eighths), 8);
    const double fraction = eighths - octant;  // exact
    const int quadrant = (octant / 2) % 4;
    SinCos alpha;  // angle within the quadrant, in [0, π/2)
    if (octant % 2 == 0) {
        alpha = sincos_small(fraction * kQuarterPi);
    } else {
        const SinCos beta = sincos_small((1.0 - fraction) * kQuarterPi);  // α = π/2 - β
        alpha = {beta.cos, beta.sin};
    }
    switch (quadrant) {
        case 0: return alpha;
        case 1: return {alpha.cos, -alpha.sin};
        case 2: return {-alpha.sin, -alpha.cos};
        default: return {-alpha.cos, alpha.sin};
    }
}

// atan(x) for x in [0, 1]: above tan(π/12), atan x = π/6 + atan((x√3 − 1)/(x + √3)),
// which brings the argument to |u| <= tan(π/12) = 0.268; then the odd series to u^33
// (the next term is below 1e-20).
double portable_atan_unit(double x) {
    constexpr double kTanPiOver12 = 0.26794919243112270647;
    constexpr double kSqrt3 = 1.73205080756887729353;
    constexpr double kPiOver6 = 0.52359877559829887308;
    double offset = 0.0;
    if (x > kTanPiOver12) {
        x = (x * kSqrt3 - 1.0) / (x + kSqrt3);
        offset = kPiOver6;
    }
    const double x2 = x * x;
    double series = 0.0;
    for (int j = 16; j >= 0; --j) series = (j % 2 ? -1.0 : 1.0) / static_cast<double>(2 * j + 1) + x2 * series;
    return offset + x * series;
}

// atan2(y, x) in (−π, π] from + − × ÷ only (bitwise the same everywhere).
double portable_atan2(double y, double x) {
    constexpr double kPi = 3.14159265358979323846, kHalfPi = 1.57079632679489661923;
    if (x == 0.0) return y > 0 ? kHalfPi : (y < 0 ? -kHalfPi : 0.0);
    const double ay = std::abs(y), ax = std::abs(x);
    double angle = ay <= ax ? portable_atan_unit(ay / ax) : kHalfPi - portable_atan_unit(ax / ay);  // in [0, π/2]
    if (x < 0) angle = kPi - angle;
    return y < 0 ? -angle : angle;
}

// sin and cos of an angle in degrees (any finite value): reduced to a turn in [0, 1).
SinCos sincos_degrees(double degrees) {
    double turn = std::fmod(degrees, 360.0) / 360.0;  // fmod is exact
    if (turn < 0) turn += 1.0;
    return sincos_turn(turn);
}

// Two independent standard normals (Box–Muller) from uniforms 2c and 2c+1 of a stream.
SinCos normal_pair(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
    const double u1 = random_uniform(seed, stream, 2 * counter);
    const double u2 = random_uniform(seed, stream, 2 * counter + 1);
    const double radius = std::sqrt(-2.0 * portable_log(1.0 - u1));  // 1 - u1 in (0, 1]
    const SinCos angle = sincos_turn(u2);
    return {radius * angle.sin, radius * angle.cos};
}

// d standard normals for point `index`, pairs (index·⌈d/2⌉ + p) of the stream.
void fill_normals(std::uint64_t seed, std::uint64_t stream, std::uint64_t index, std::size_t d, double* out) {
    const std::uint64_t pairs = (d + 1) / 2;
    for (std::uint64_t p = 0; p < pairs; ++p) {
        const SinCos z = normal_pair(seed, stream, index * pairs + p);
        out[2 * p] = z.cos;
        if (2 * p + 1 < d) out[2 * p + 1] = z.sin;
    }
}

// Streams: one per purpose, so changing one use never shifts another.
constexpr std::uint64_t kStreamCentres = 1;      // blob centres: counter c·d + j
constexpr std::uint64_t kStreamNoise = 2;        // per-point Gaussian noise: see fill_normals
constexpr std::uint64_t kStreamPermutation = 3;  // Feistel round keys
constexpr std::uint64_t kStreamUniform = 4;      // uniform generator: counter i·d + j
constexpr std::uint64_t kStreamBallRadius = 5;   // he4d radius: counter i
constexpr std::uint64_t kStreamGeoCentres = 6;   // geo-cities centres: counters 2c, 2c + 1

// ---------------------------------------------------------------------------
// A keyed bijection of [0, n): balanced Feistel network on 2·h bits (2^(2h) ≥ n,
// so fewer than 4 walks are expected), cycle-walking until the value is < n.
// Round r maps (L, R) to (R, L ^ (splitmix64(R ^ key_r) & mask)), with
// key_r = random_bits(seed, kStreamPermutation, r).
class IndexPermutation {
public:
    IndexPermutation(std::uint64_t n, std::uint64_t seed) : n_(n) {
        for (int round = 0; round < kRounds; ++round)
            round_keys_[round] = random_bits(seed, kStreamPermutation, static_cast<std::uint64_t>(round));
        int bits = 1;
        while (bits < 64 && (std::uint64_t{1} << bits) < n) ++bits;
        half_bits_ = (bits + 1) / 2;
        mask_ = (std::uint64_t{1} << half_bits_) - 1;
    }

    std::uint64_t operator()(std::uint64_t index) const {
        std::uint64_t value = index;
        do value = encrypt(value);
        while (value >= n_);
        return value;
    }

private:
    static constexpr int kRounds = 6;

    std::uint64_t encrypt(std::uint64_t value) const {
        std::uint64_t left = value >> half_bits_;
        std::uint64_t right = value & mask_;
        for (int round = 0; round < kRounds; ++round) {
            const std::uint64_t next = left ^ (splitmix64(right ^ round_keys_[round]) & mask_);
            left = right;
            right = next;
        }
        return (left << half_bits_) | right;
    }

    std::uint64_t n_;
    std::uint64_t round_keys_[kRounds];
    int half_bits_ = 1;
    std::uint64_t mask_ = 1;
};

// ---------------------------------------------------------------------------
// Spec parsing.

constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 34;  // n·d ≤ 2^34 doubles (128 GiB)

struct KeySpec {
    const char* name;
    bool integer;
    double default_value;
    double min_value;
    double max_value;
    const char* meaning;
};

struct GeneratorSpec {
    const char* name;
    const char* summary;
    std::vector<KeySpec> keys;
};

constexpr double kMaxN = 1e10;

const std::vector<GeneratorSpec>& generator_specs() {
    static const std::vector<GeneratorSpec> specs = {
        {"blobs", "isotropic Gaussian blobs, centres uniform in [-box, box]^d, equal sizes",
         {{"n", true, 1000, 1, kMaxN, "points"},
          {"k", true, 5, 1, 1e6, "clusters"},
          {"d", true, 2, 1, 10000, "dimensions"},
          {"spread", false, 0.1, 0, 1e6, "Gaussian std as a fraction of box"},
          {"box", false, 10, 1e-300, 1e300, "centres uniform in [-box, box]^d"}}},
        {"uniform", "points uniform in [low, high)^d, no ground truth",
         {{"n", true, 1000, 1, kMaxN, "points"},
          {"d", true, 2, 1, 10000, "dimensions"},
          {"low", false, 0, -1e300, 1e300, "lower bound"},
          {"high", false, 1, -1e300, 1e300, "upper bound"}}},
        {"anisotropic", "blobs (std 1, box 10, d = 2) sheared by x·[[0.6, -0.6], [-0.4, 0.8]]",
         {{"n", true, 1000, 1, kMaxN, "points"}, {"k", true, 3, 1, 1e6, "clusters"}}},
        {"varied", "blobs of std 1.0, 2.5, 0.5 (cycling), sizes in ratio 4:2:1 (cycling), box 10",
         {{"n", true, 1000, 1, kMaxN, "points"},
          {"k", true, 3, 1, 1e6, "clusters"},
          {"d", true, 2, 1, 10000, "dimensions"}}},
        {"circles", "two concentric circles (radius 1 and factor), Gaussian noise; truth k = 2",
         {{"n", true, 1000, 2, kMaxN, "points"},
          {"noise", false, 0.05, 0, 1e6, "Gaussian noise std"},
          {"factor", false, 0.5, 0, 0.999999, "inner radius / outer radius, in [0, 1)"}}},
        {"moons", "two interleaving half circles, Gaussian noise; truth k = 2",
         {{"n", true, 1000, 2, kMaxN, "points"}, {"noise", false, 0.05, 0, 1e6, "Gaussian noise std"}}},
        {"geo-cities", "latitude, longitude (degrees) of k city-like clusters: centres uniform on the sphere "
                       "within the latitude and longitude bounds, points Gaussian around them on the ground "
                       "(spread_km per direction), equal sizes",
         {{"n", true, 1000, 1, kMaxN, "points"},
          {"k", true, 8, 1, 1e6, "clusters"},
          {"spread_km", false, 25, 0, 1000, "Gaussian std of the east and north offsets, km"},
          {"lat_min", false, -60, -90, 90, "southern bound of the centres, degrees"},
          {"lat_max", false, 70, -90, 90, "northern bound of the centres, degrees"},
          {"lon_min", false, -180, -180, 180, "western bound of the centres, degrees"},
          {"lon_max", false, 180, -180, 540, "eastern bound (up to lon_min + 360; above 180 crosses the antimeridian)"}}},
        {"he4d", "He-Vialle-Baboulin 4-D set: uniform in 4 balls of radius 9 centred at "
                 "(40,40,60,60), (40,60,60,40), (60,40,40,60), (60,60,40,40); truth k = 4",
         {{"n", true, 10000, 4, kMaxN, "points"}}},
    };
    return specs;
}

std::string format_number(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t");
    return std::string(text.substr(begin, end - begin + 1));
}

using KeyValues = std::map<std::string, double>;

struct ParsedSpec {
    const GeneratorSpec* generator = nullptr;
    KeyValues values;  // every key of the generator, defaults filled in
};

ParsedSpec parse_spec(std::string_view spec) {
    const std::string source(spec);
    const auto colon = spec.find(':');
    const std::string name = trim(spec.substr(0, colon));
    ParsedSpec parsed;
    for (const auto& generator : generator_specs())
        if (name == generator.name) parsed.generator = &generator;
    if (!parsed.generator) {
        std::string known;
        for (const auto& generator : generator_specs()) known += std::string(known.empty() ? "" : ", ") + generator.name;
        throw InputError::whole(source, "unknown generator '" + name + "' (known: " + known + ")");
    }
    const GeneratorSpec& generator = *parsed.generator;
    for (const auto& key : generator.keys) parsed.values[key.name] = key.default_value;

    if (colon == std::string_view::npos || trim(spec.substr(colon + 1)).empty()) return parsed;  // all defaults
    std::vector<std::string> seen;
    std::string_view rest = spec.substr(colon + 1);
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        const auto equals = item.find('=');
        const std::string key = trim(item.substr(0, equals));
        if (trim(item).empty()) throw InputError::whole(source, "empty key=value item (stray comma?)");
        if (equals == std::string_view::npos)
            throw InputError::whole(source, "key '" + key + "' has no value (write " + key + "=VALUE)");
        const KeySpec* key_spec = nullptr;
        for (const auto& candidate : generator.keys)
            if (key == candidate.name) key_spec = &candidate;
        if (!key_spec) {
            std::string known;
            for (const auto& candidate : generator.keys)
                known += std::string(known.empty() ? "" : ", ") + candidate.name;
            throw InputError::whole(source, "unknown key '" + key + "' for generator " + generator.name +
                                                " (keys: " + known + ")");
        }
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            throw InputError::whole(source, "key '" + key + "' is given twice");
        seen.push_back(key);

        const std::string text = trim(item.substr(equals + 1));
        double value = 0.0;
        const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() ||
            !std::isfinite(value))
            throw InputError::whole(source, "key '" + key + "': '" + text + "' is not a finite number");
        if (key_spec->integer && value != std::floor(value))
            throw InputError::whole(source, "key '" + key + "': " + text + " is not a whole number");
        if (value < key_spec->min_value || value > key_spec->max_value)
            throw InputError::whole(source, "key '" + key + "' = " + text + " is out of range [" +
                                                format_number(key_spec->min_value) + ", " +
                                                format_number(key_spec->max_value) + "]");
        parsed.values[key] = value;
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return parsed;
}

// ---------------------------------------------------------------------------
// Generators. Each point is a pure function of (seed, index): the loops are
// OpenMP-parallel with no shared state but the output row.

struct Layout {
    std::vector<std::uint64_t> ends;  // cumulative cluster sizes: cluster c owns slots [ends[c-1], ends[c])

    std::int32_t cluster_of(std::uint64_t slot) const {
        return static_cast<std::int32_t>(std::upper_bound(ends.begin(), ends.end(), slot) - ends.begin());
    }
};

// scikit-learn's make_blobs split: n/k each, the first n%k clusters one more.
Layout equal_layout(std::uint64_t n, std::uint64_t k) {
    Layout layout;
    std::uint64_t end = 0;
    for (std::uint64_t c = 0; c < k; ++c) {
        end += n / k + (c < n % k ? 1 : 0);
        layout.ends.push_back(end);
    }
    return layout;
}

// One point per cluster first, the other n-k by weight (floor), the remainder
// one each to clusters 0, 1, ... in order.
Layout weighted_layout(std::uint64_t n, const std::vector<double>& weights) {
    const std::uint64_t k = weights.size();
    const double weight_total = std::accumulate(weights.begin(), weights.end(), 0.0);
    std::vector<std::uint64_t> sizes(k, 1);
    std::uint64_t assigned = k;
    for (std::uint64_t c = 0; c < k; ++c) {
        const auto extra = static_cast<std::uint64_t>(std::floor(static_cast<double>(n - k) * weights[c] / weight_total));
        sizes[c] += extra;
        assigned += extra;
    }
    for (std::uint64_t c = 0; assigned < n; c = (c + 1) % k, ++assigned) ++sizes[c];
    Layout layout;
    std::uint64_t end = 0;
    for (auto size : sizes) layout.ends.push_back(end += size);
    return layout;
}

void require_n_at_least_k(const std::string& source, std::uint64_t n, std::uint64_t k) {
    if (k > n)
        throw InputError::whole(source, "key 'k' = " + std::to_string(k) + " must not exceed n = " + std::to_string(n));
}

void require_size(const std::string& source, std::uint64_t n, std::uint64_t d) {
    if (static_cast<double>(n) * static_cast<double>(d) > static_cast<double>(kMaxValues))
        throw InputError::whole(source, "n × d = " + std::to_string(n) + " × " + std::to_string(d) +
                                            " is more than the generator limit of " + std::to_string(kMaxValues) +
                                            " values");
}

Matrix<double> uniform_centres(std::uint64_t seed, std::uint64_t k, std::uint64_t d, double box) {
    Matrix<double> centres(k, d);
    for (std::uint64_t c = 0; c < k; ++c)
        for (std::uint64_t j = 0; j < d; ++j)
            centres(c, j) = -box + 2.0 * box * random_uniform(seed, kStreamCentres, c * d + j);
    return centres;
}

// One generator call: the spec's values, the seed, and the stop token. Points are
// filled by for_each_point: OpenMP-parallel within chunks of 2^20 points, with the
// stop token checked between chunks (so a 10^8-point request stops within a
// fraction of a second). Each point is a pure function of (seed, index), so
// neither the chunks nor the thread count change a bit.
struct Job {
    std::string source;  // the spec, for messages
    KeyValues values;
    std::uint64_t seed;
    std::stop_token cancel;
    // The rows made: [first, first + block) of the data set's (generate_rows), the
    // others never computed; the output's row r is the data set's row first + r.
    std::uint64_t first = 0;
    std::uint64_t block = UINT64_MAX;

    std::uint64_t begin_of(std::uint64_t count) const { return std::min(count, first); }
    std::uint64_t end_of(std::uint64_t count) const {
        const std::uint64_t begin = begin_of(count);
        return block > count - begin ? count : begin + block;
    }
    std::uint64_t rows_of(std::uint64_t count) const { return end_of(count) - begin_of(count); }
    std::uint64_t local(std::uint64_t index) const { return index - first; }

    // body(index) for the data set's indexes in the block (all of them by default).
    template <typename Body>
    void for_each_point(std::uint64_t count, Body body) const {
        constexpr std::uint64_t kChunk = std::uint64_t{1} << 20;
        const std::uint64_t end = end_of(count);
        for (std::uint64_t begin = begin_of(count); begin < end; begin += kChunk) {
            throw_if_cancelled();
            const auto first = static_cast<std::int64_t>(begin);
            const auto last = static_cast<std::int64_t>(std::min(end, begin + kChunk));
#pragma omp parallel for schedule(static)
            for (std::int64_t i = first; i < last; ++i) body(static_cast<std::uint64_t>(i));
        }
    }
    std::uint64_t count(const char* key) const { return static_cast<std::uint64_t>(values.at(key)); }
    double number(const char* key) const { return values.at(key); }

    // The rows × cols zeros the generator fills, and their labels, zeroed answering the
    // stop token (kms/zeroed.hpp: 10^8 points' first touch of 800 MB took ~0.8 s).
    Matrix<double> zeros(std::uint64_t rows, std::uint64_t cols) const {
        return Matrix<double>(rows, cols, zeroed<double>(rows * cols));
    }
    template <typename T>
    std::vector<T> zeroed(std::uint64_t count) const {
        std::vector<T> values;
        assign_zeroed(values, count, cancel, cancelled_message());
        return values;
    }
    std::string cancelled_message() const {
        return "generate:" + source + " seed=" + std::to_string(seed) + ": generation cancelled";
    }
    void throw_if_cancelled() const {
        if (cancel.stop_requested()) throw Cancelled(cancelled_message());
    }
};

// Gaussian blobs with a per-cluster std and a given layout of sizes.
Dataset gaussian_blobs(const Job& job, std::uint64_t n, std::uint64_t d, const Matrix<double>& centres,
                       const std::vector<double>& stds, const Layout& layout) {
    Dataset dataset;
    dataset.points = job.zeros(job.rows_of(n), d);
    dataset.truth_labels = job.zeroed<std::int32_t>(job.rows_of(n));
    dataset.truth_centroids = centres;
    const IndexPermutation permute(n, job.seed);
    job.for_each_point(n, [&](std::uint64_t index) {
        const std::int32_t cluster = layout.cluster_of(permute(index));
        double* row = dataset.points.row(job.local(index));
        fill_normals(job.seed, kStreamNoise, index, d, row);
        const double* centre = centres.row(static_cast<std::size_t>(cluster));
        const double std_dev = stds[static_cast<std::size_t>(cluster)];
        for (std::uint64_t j = 0; j < d; ++j) row[j] = centre[j] + std_dev * row[j];
        dataset.truth_labels[job.local(index)] = cluster;
    });
    return dataset;
}

Dataset make_blobs(const Job& job) {
    const std::uint64_t n = job.count("n"), k = job.count("k"), d = job.count("d");
    require_n_at_least_k(job.source, n, k);
    require_size(job.source, n, d);
    const double box = job.number("box");
    return gaussian_blobs(job, n, d, uniform_centres(job.seed, k, d, box),
                          std::vector<double>(k, job.number("spread") * box), equal_layout(n, k));
}

Dataset make_uniform(const Job& job) {
    const std::uint64_t n = job.count("n"), d = job.count("d");
    const double low = job.number("low"), high = job.number("high");
    if (!(low < high))
        throw InputError::whole(job.source, "key 'low' = " + format_number(low) +
                                                " must be less than key 'high' = " + format_number(high));
    const double width = high - low;
    if (!std::isfinite(width))
        throw InputError::whole(job.source, "keys 'low' and 'high': the width high - low overflows");
    require_size(job.source, n, d);
    Dataset dataset;
    dataset.points = job.zeros(job.rows_of(n), d);
    const double below_high = std::nextafter(high, low);
    job.for_each_point(n, [&](std::uint64_t index) {
        double* row = dataset.points.row(job.local(index));
        for (std::uint64_t j = 0; j < d; ++j) {
            const double x = low + width * random_uniform(job.seed, kStreamUniform, index * d + j);
            row[j] = std::min(x, below_high);  // rounding must not reach `high`
        }
    });
    return dataset;
}

// scikit-learn's "anisotropically distributed blobs" example: make_blobs then X·T.
Dataset make_anisotropic(const Job& job) {
    const std::uint64_t n = job.count("n"), k = job.count("k");
    require_n_at_least_k(job.source, n, k);
    Dataset dataset = gaussian_blobs(job, n, 2, uniform_centres(job.seed, k, 2, 10.0), std::vector<double>(k, 1.0),
                                     equal_layout(n, k));
    const auto shear = [](double* row) {
        const double x = row[0], y = row[1];
        row[0] = 0.6 * x - 0.4 * y;
        row[1] = -0.6 * x + 0.8 * y;
    };
    job.for_each_point(n, [&](std::uint64_t index) { shear(dataset.points.row(job.local(index))); });
    for (std::size_t c = 0; c < k; ++c) shear(dataset.truth_centroids.row(c));  // the map is linear: means follow
    return dataset;
}

Dataset make_varied(const Job& job) {
    const std::uint64_t n = job.count("n"), k = job.count("k"), d = job.count("d");
    require_n_at_least_k(job.source, n, k);
    require_size(job.source, n, d);
    constexpr double kStds[] = {1.0, 2.5, 0.5};
    constexpr double kWeights[] = {4.0, 2.0, 1.0};
    std::vector<double> stds(k), weights(k);
    for (std::uint64_t c = 0; c < k; ++c) {
        stds[c] = kStds[c % 3];
        weights[c] = kWeights[c % 3];
    }
    return gaussian_blobs(job, n, d, uniform_centres(job.seed, k, d, 10.0), stds, weighted_layout(n, weights));
}

// Shapes on curves (circles, moons): slot s < n_outer is point s of the outer
// curve, the rest are the inner curve; both are laid out like scikit-learn's
// (linspace angles), then Gaussian noise is added to every coordinate.
template <typename CurvePoint>
Dataset make_curves(const Job& job, CurvePoint curve_point) {
    const std::uint64_t n = job.count("n");
    const double noise = job.number("noise");
    const std::uint64_t n_outer = n / 2;
    Dataset dataset;
    dataset.points = job.zeros(job.rows_of(n), 2);
    dataset.truth_labels = job.zeroed<std::int32_t>(job.rows_of(n));
    const IndexPermutation permute(n, job.seed);
    job.for_each_point(n, [&](std::uint64_t index) {
        const std::uint64_t slot = permute(index);
        const bool outer = slot < n_outer;
        double* row = dataset.points.row(job.local(index));
        curve_point(outer, outer ? slot : slot - n_outer, outer ? n_outer : n - n_outer, row);
        if (noise > 0.0) {
            double z[2];
            fill_normals(job.seed, kStreamNoise, index, 2, z);
            row[0] += noise * z[0];
            row[1] += noise * z[1];
        }
        dataset.truth_labels[job.local(index)] = outer ? 0 : 1;
    });
    return dataset;
}

Dataset make_circles(const Job& job) {
    const double factor = job.number("factor");
    return make_curves(job, [factor](bool outer, std::uint64_t i, std::uint64_t count, double* row) {
        // linspace(0, 2π, count, endpoint=False)
        const SinCos angle = sincos_turn(static_cast<double>(i) / static_cast<double>(count));
        const double radius = outer ? 1.0 : factor;
        row[0] = radius * angle.cos;
        row[1] = radius * angle.sin;
    });
}

Dataset make_moons(const Job& job) {
    return make_curves(job, [](bool outer, std::uint64_t i, std::uint64_t count, double* row) {
        // linspace(0, π, count): a half turn
        const double turn = count > 1 ? 0.5 * static_cast<double>(i) / static_cast<double>(count - 1) : 0.0;
        const SinCos angle = sincos_turn(turn);
        if (outer) {
            row[0] = angle.cos;
            row[1] = angle.sin;
        } else {
            row[0] = 1.0 - angle.cos;
            row[1] = 1.0 - angle.sin - 0.5;
        }
    });
}

// He, Vialle, Baboulin: uniform in each 4-ball (direction from 4 normals,
// radius 9·u^(1/4), whose distribution function is (r/9)^4 as uniform requires).
Dataset make_he4d(const Job& job) {
    const std::uint64_t n = job.count("n");
    require_size(job.source, n, 4);
    constexpr double kRadius = 9.0;
    const Matrix<double> centres(4, 4, std::vector<double>{40, 40, 60, 60, 40, 60, 60, 40, 60, 40, 40, 60, 60, 60, 40, 40});
    const Layout layout = equal_layout(n, 4);
    Dataset dataset;
    dataset.points = job.zeros(job.rows_of(n), 4);
    dataset.truth_labels = job.zeroed<std::int32_t>(job.rows_of(n));
    dataset.truth_centroids = centres;
    const IndexPermutation permute(n, job.seed);
    job.for_each_point(n, [&](std::uint64_t index) {
        const std::int32_t ball = layout.cluster_of(permute(index));
        double direction[4];
        fill_normals(job.seed, kStreamNoise, index, 4, direction);
        double norm_sq = 0.0;
        for (double z : direction) norm_sq += z * z;
        if (norm_sq == 0.0) {  // probability ~0, but stay well defined
            direction[0] = 1.0;
            norm_sq = 1.0;
        }
        const double radius = kRadius * std::sqrt(std::sqrt(random_uniform(job.seed, kStreamBallRadius, index)));
        const double scale = radius / std::sqrt(norm_sq);
        double* row = dataset.points.row(job.local(index));
        for (std::size_t j = 0; j < 4; ++j) row[j] = centres(static_cast<std::size_t>(ball), j) + scale * direction[j];
        dataset.truth_labels[job.local(index)] = ball;
    });
    return dataset;
}

// City-like clusters on the sphere, as latitude and longitude in degrees. A centre
// is a unit vector c with z = sin φ uniform (uniform on the sphere's area) and λ
// uniform within the bounds; a point moves from c along the great circle towards
// the bearing of the Gaussian offset (east g1, north g2) by |g|·spread/R radians.
Dataset make_geo_cities(const Job& job) {
    constexpr double kEarthRadiusKm = 6371.0088;  // kms/geo.hpp's
    constexpr double kDegrees = 57.295779513082320877;  // 180 / π
    constexpr double kTwoPi = 6.28318530717958647693;
    const std::uint64_t n = job.count("n"), k = job.count("k");
    require_n_at_least_k(job.source, n, k);
    require_size(job.source, n, 2);
    const double lat_min = job.number("lat_min"), lat_max = job.number("lat_max");
    const double lon_min = job.number("lon_min"), lon_max = job.number("lon_max");
    if (!(lat_min < lat_max))
        throw InputError::whole(job.source, "key 'lat_min' = " + format_number(lat_min) + " must be less than 'lat_max' = " +
                                                format_number(lat_max));
    if (!(lon_min < lon_max) || lon_max > lon_min + 360.0)
        throw InputError::whole(job.source, "keys 'lon_min' = " + format_number(lon_min) + ", 'lon_max' = " +
                                                format_number(lon_max) + ": need lon_min < lon_max <= lon_min + 360");
    const double z_low = sincos_degrees(lat_min).sin, z_high = sincos_degrees(lat_max).sin;
    struct Centre {
        double x, y, z, cos_lat, sin_lon, cos_lon;
    };
    std::vector<Centre> centres(k);
    Dataset dataset;
    dataset.truth_centroids = Matrix<double>(k, 2);
    for (std::uint64_t c = 0; c < k; ++c) {
        const double z = z_low + (z_high - z_low) * random_uniform(job.seed, kStreamGeoCentres, 2 * c);
        const double lon = lon_min + (lon_max - lon_min) * random_uniform(job.seed, kStreamGeoCentres, 2 * c + 1);
        const SinCos longitude = sincos_degrees(lon);
        const double cos_lat = std::sqrt(std::max(0.0, 1.0 - z * z));
        centres[c] = {cos_lat * longitude.cos, cos_lat * longitude.sin, z, cos_lat, longitude.sin, longitude.cos};
        dataset.truth_centroids(c, 0) = portable_atan2(z, cos_lat) * kDegrees;
        dataset.truth_centroids(c, 1) = portable_atan2(longitude.sin, longitude.cos) * kDegrees;
    }
    const double spread = job.number("spread_km") / kEarthRadiusKm;  // radians per unit of offset
    const Layout layout = equal_layout(n, k);
    dataset.points = job.zeros(job.rows_of(n), 2);
    dataset.truth_labels = job.zeroed<std::int32_t>(job.rows_of(n));
    const IndexPermutation permute(n, job.seed);
    job.for_each_point(n, [&](std::uint64_t index) {
        const std::int32_t cluster = layout.cluster_of(permute(index));
        const Centre& c = centres[static_cast<std::size_t>(cluster)];
        double g[2];
        fill_normals(job.seed, kStreamNoise, index, 2, g);
        // East (−sin λ, cos λ, 0) and north (−sin φ cos λ, −sin φ sin λ, cos φ) at the centre.
        const double tx = spread * (-g[0] * c.sin_lon - g[1] * c.z * c.cos_lon);
        const double ty = spread * (g[0] * c.cos_lon - g[1] * c.z * c.sin_lon);
        const double tz = spread * (g[1] * c.cos_lat);
        const double angle = std::sqrt(tx * tx + ty * ty + tz * tz);  // <= 8.6 · 1000 / 6371 < 2π
        double px = c.x, py = c.y, pz = c.z;
        if (angle > 0) {
            const SinCos turn = sincos_turn(angle / kTwoPi);
            px = turn.cos * c.x + turn.sin * tx / angle;
            py = turn.cos * c.y + turn.sin * ty / angle;
            pz = turn.cos * c.z + turn.sin * tz / angle;
        }
        double* row = dataset.points.row(job.local(index));
        row[0] = portable_atan2(pz, std::sqrt(px * px + py * py)) * kDegrees;
        row[1] = portable_atan2(py, px) * kDegrees;
        dataset.truth_labels[job.local(index)] = cluster;
    });
    return dataset;
}

}  // namespace

namespace {
Dataset generate_block(std::string_view spec, std::uint64_t seed, std::stop_token cancel, std::uint64_t first,
                       std::uint64_t block) {
    ParsedSpec parsed = parse_spec(spec);
    const Job job{std::string(spec), std::move(parsed.values), seed, std::move(cancel), first, block};
    const std::string name = parsed.generator->name;
    Dataset dataset;
    if (name == "blobs") dataset = make_blobs(job);
    else if (name == "uniform") dataset = make_uniform(job);
    else if (name == "anisotropic") dataset = make_anisotropic(job);
    else if (name == "varied") dataset = make_varied(job);
    else if (name == "circles") dataset = make_circles(job);
    else if (name == "moons") dataset = make_moons(job);
    else if (name == "geo-cities") dataset = make_geo_cities(job);
    else dataset = make_he4d(job);
    dataset.name = "generate:" + job.source + " seed=" + std::to_string(seed);
    return dataset;
}
}  // namespace

Dataset generate_dataset(std::string_view spec, std::uint64_t seed, std::stop_token cancel) {
    return generate_block(spec, seed, std::move(cancel), 0, UINT64_MAX);
}

GeneratedShape generated_shape(std::string_view spec) {
    const ParsedSpec parsed = parse_spec(spec);
    const std::string name = parsed.generator->name;
    const auto value = [&](const char* key) { return static_cast<std::uint64_t>(parsed.values.at(key)); };
    GeneratedShape shape;
    shape.rows = value("n");
    shape.cols = name == "he4d" ? 4 : parsed.values.count("d") ? value("d") : 2;
    return shape;
}

Dataset generate_rows(std::string_view spec, std::uint64_t seed, std::uint64_t first_row, std::uint64_t rows,
                      std::stop_token cancel) {
    const GeneratedShape shape = generated_shape(spec);
    if (first_row > shape.rows || rows > shape.rows - first_row)
        throw Error("generate:" + std::string(spec) + ": rows [" + std::to_string(first_row) + ", " +
                    std::to_string(first_row + rows) + ") outside its " + std::to_string(shape.rows) + " rows");
    return generate_block(spec, seed, std::move(cancel), first_row, rows);
}

Dataset generate_dataset(std::string_view spec, std::uint64_t seed) { return generate_dataset(spec, seed, {}); }

std::string generator_help() {
    std::string help;
    for (const auto& generator : generator_specs()) {
        help += generator.name;
        help += ": ";
        help += generator.summary;
        help += ". Keys:";
        bool first = true;
        for (const auto& key : generator.keys) {
            help += first ? " " : ", ";
            first = false;
            help += key.name;
            help += "=";
            help += format_number(key.default_value);
            help += " (";
            help += key.meaning;
            help += ")";
        }
        help += "\n";
    }
    return help;
}

}  // namespace kms
