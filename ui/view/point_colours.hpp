#pragma once
// The point view's colours, packed for the GL colour buffer (and the CUDA–GL
// interop kernel's palette): clusters, and the colours of the bounds and
// difference views. Cluster colours are the charts' distinct_colour() sequence
// (charts/distinct_colours.hpp: fixed first colours, then greedily spread in
// CIELAB, 256+ distinguishable), so every widget agrees. Qt-free.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms::ui {

// Packed 0xAABBGGRR, i.e. bytes R, G, B, A in memory: the layout of the
// GL_UNSIGNED_BYTE RGBA colour attribute.
using PackedRgba = std::uint32_t;

constexpr PackedRgba pack_rgba(std::uint8_t r, std::uint8_t g, std::uint8_t b, std::uint8_t a = 255) {
    return PackedRgba(r) | (PackedRgba(g) << 8) | (PackedRgba(b) << 16) | (PackedRgba(a) << 24);
}
constexpr std::uint8_t red_of(PackedRgba c) { return std::uint8_t(c & 0xFF); }
constexpr std::uint8_t green_of(PackedRgba c) { return std::uint8_t((c >> 8) & 0xFF); }
constexpr std::uint8_t blue_of(PackedRgba c) { return std::uint8_t((c >> 16) & 0xFF); }

// Colour of cluster `index` (any index ≥ 0).
PackedRgba cluster_colour(std::size_t index);
// Colours of clusters 0..k-1.
std::vector<PackedRgba> cluster_palette(std::size_t k);

// Colours outside the cluster palette.
inline constexpr PackedRgba kUnassignedColour = pack_rgba(150, 150, 150);   // before the first step
inline constexpr PackedRgba kSkippedColour = pack_rgba(46, 160, 67);        // bounds view: skipped
inline constexpr PackedRgba kRecomputedColour = pack_rgba(215, 48, 39);     // bounds view: recomputed
inline constexpr PackedRgba kAgreeColour = pack_rgba(200, 200, 200);        // compare: same label
inline constexpr PackedRgba kDifferColour = pack_rgba(230, 0, 126);         // compare: label differs

}  // namespace kms::ui
