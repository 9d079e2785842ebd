#include "charts/distinct_colours.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace kms::ui {
namespace {

// Hand-picked strong colours for the first clusters (Tableau-10 hues without its
// grey): what a class sees for k ≤ 9 should be instantly nameable.
constexpr std::array<Rgb, 9> kFixedColours{{
    {0x4e, 0x79, 0xa7},  // blue
    {0xf2, 0x8e, 0x2b},  // orange
    {0xe1, 0x57, 0x59},  // red
    {0x59, 0xa1, 0x4f},  // green
    {0xb0, 0x7a, 0xa1},  // purple
    {0x76, 0xb7, 0xb2},  // teal
    {0xed, 0xc9, 0x48},  // yellow
    {0x9c, 0x75, 0x5f},  // brown
    {0xff, 0x9d, 0xa7},  // pink
}};

constexpr std::size_t kSpreadSize = 1024;
constexpr int kGridLevels = 24;  // candidate sRGB grid per channel (24³ = 13824 colours)

double srgb_to_linear(double channel) {
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

double linear_to_srgb(double channel) {
    return channel <= 0.0031308 ? channel * 12.92 : 1.055 * std::pow(channel, 1.0 / 2.4) - 0.055;
}

// D65 reference white.
constexpr double kWhiteX = 0.95047, kWhiteY = 1.0, kWhiteZ = 1.08883;

double lab_f(double t) {
    constexpr double delta = 6.0 / 29.0;
    return t > delta * delta * delta ? std::cbrt(t) : t / (3.0 * delta * delta) + 4.0 / 29.0;
}

double lab_f_inverse(double t) {
    constexpr double delta = 6.0 / 29.0;
    return t > delta ? t * t * t : 3.0 * delta * delta * (t - 4.0 / 29.0);
}

std::uint8_t to_byte(double channel01) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(channel01, 0.0, 1.0) * 255.0));
}

Rgb from_lab(const Lab& lab) {
    const double fy = (lab.l + 16.0) / 116.0;
    const double fx = fy + lab.a / 500.0;
    const double fz = fy - lab.b / 200.0;
    const double x = kWhiteX * lab_f_inverse(fx);
    const double y = kWhiteY * lab_f_inverse(fy);
    const double z = kWhiteZ * lab_f_inverse(fz);
    const double r = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z;
    const double g = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z;
    const double b = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z;
    return {to_byte(linear_to_srgb(r)), to_byte(linear_to_srgb(g)), to_byte(linear_to_srgb(b))};
}

double lab_distance_squared(const Lab& p, const Lab& q) {
    const double dl = p.l - q.l, da = p.a - q.a, db = p.b - q.b;
    return dl * dl + da * da + db * db;
}

double lab_distance(const Lab& p, const Lab& q) { return std::sqrt(lab_distance_squared(p, q)); }

// Colours usable for clusters: not so light that they vanish on white, not so
// dark that they hide centroid markers, not grey.
bool usable(const Lab& lab) {
    return lab.l >= 30.0 && lab.l <= 90.0 && std::hypot(lab.a, lab.b) >= 15.0;
}

// Greedy farthest-point selection in CIELAB, seeded with the fixed colours.
std::vector<Rgb> build_spread_table() {
    std::vector<Rgb> candidates;
    std::vector<Lab> candidate_lab;
    for (int r = 0; r < kGridLevels; ++r)
        for (int g = 0; g < kGridLevels; ++g)
            for (int b = 0; b < kGridLevels; ++b) {
                const auto level = [](int i) {
                    return static_cast<std::uint8_t>(std::lround(i * 255.0 / (kGridLevels - 1)));
                };
                const Rgb colour{level(r), level(g), level(b)};
                const Lab lab = to_lab(colour);
                if (!usable(lab)) continue;
                candidates.push_back(colour);
                candidate_lab.push_back(lab);
            }

    std::vector<Rgb> palette(kFixedColours.begin(), kFixedColours.end());
    // Squared distance to the nearest chosen colour (same order as the distance, no sqrt).
    std::vector<double> nearest(candidates.size(), std::numeric_limits<double>::infinity());
    const auto account_for = [&](const Lab& chosen) {
        for (std::size_t i = 0; i < candidates.size(); ++i)
            nearest[i] = std::min(nearest[i], lab_distance_squared(candidate_lab[i], chosen));
    };
    for (const Rgb& fixed : kFixedColours) account_for(to_lab(fixed));
    while (palette.size() < kSpreadSize) {
        // First maximum wins ties, so the sequence is the same on every machine.
        const auto best = std::max_element(nearest.begin(), nearest.end());
        const std::size_t index = static_cast<std::size_t>(best - nearest.begin());
        palette.push_back(candidates[index]);
        account_for(candidate_lab[index]);
    }
    return palette;
}

const std::vector<Rgb>& spread_table() {
    // Computed once on first use (~20 ms), immutable afterwards.
    static const std::vector<Rgb> palette = build_spread_table();
    return palette;
}

// Beyond the spread table: golden-angle hues with cycling lightness and chroma.
Rgb spiral_color(std::size_t index) {
    constexpr double golden_angle = std::numbers::pi * (3.0 - 2.2360679774997896964);
    constexpr std::array<double, 4> lightness{55.0, 72.0, 42.0, 64.0};
    constexpr std::array<double, 3> chroma{45.0, 30.0, 38.0};
    const double hue = static_cast<double>(index) * golden_angle;
    const double c = chroma[(index / lightness.size()) % chroma.size()];
    return from_lab({lightness[index % lightness.size()], c * std::cos(hue), c * std::sin(hue)});
}

}  // namespace

Lab to_lab(Rgb colour) {
    const double r = srgb_to_linear(colour.r / 255.0);
    const double g = srgb_to_linear(colour.g / 255.0);
    const double b = srgb_to_linear(colour.b / 255.0);
    const double x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
    const double fx = lab_f(x / kWhiteX), fy = lab_f(y / kWhiteY), fz = lab_f(z / kWhiteZ);
    return {116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

double cie76_distance(Rgb first, Rgb second) { return lab_distance(to_lab(first), to_lab(second)); }

std::size_t distinct_table_size() { return kSpreadSize; }

Rgb distinct_colour(std::size_t index) {
    const auto& palette = spread_table();
    return index < palette.size() ? palette[index] : spiral_color(index);
}

std::vector<Rgb> distinct_palette(std::size_t count) {
    std::vector<Rgb> colours;
    colours.reserve(count);
    for (std::size_t i = 0; i < count; ++i) colours.push_back(distinct_colour(i));
    return colours;
}

Rgb series_colour(std::size_t index) { return distinct_colour(index); }

}  // namespace kms::ui
