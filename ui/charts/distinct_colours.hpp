#pragma once
// The studio's colour sequences: cluster colours (charts, silhouette plot, and
// the GL view through view/point_colours.hpp) and series colours (one per run in
// comparisons). Plain RGB triples, no Qt, so the GL view can upload them as they are.
//
// The first colours are a fixed qualitative set (the ones a class sees most:
// k ≤ 8); later ones are chosen greedily in CIELAB to be as far as possible
// from every colour before them, so any prefix of the sequence is well spread
// and 256+ clusters stay pairwise distinguishable. Very light colours are left
// out (white chart background), as are near-greys (they read as "unassigned").
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms::ui {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

struct Lab {
    double l = 0.0, a = 0.0, b = 0.0;
};

// Colour of cluster `index` (0-based); the same index always gives the same colour.
Rgb distinct_colour(std::size_t index);
// The first `count` cluster colours.
std::vector<Rgb> distinct_palette(std::size_t count);
// Colour of the `index`-th solver / run in comparisons (charts and compare table
// use the same one, so a run keeps its colour everywhere).
Rgb series_colour(std::size_t index);

// How many colours come from the precomputed maximally spread table; beyond it
// colours are generated along a golden-angle hue spiral (still valid, less spread).
std::size_t distinct_table_size();

// sRGB (D65) to CIELAB, and the CIE76 colour difference ΔE*ab.
Lab to_lab(Rgb colour);
double cie76_distance(Rgb first, Rgb second);

}  // namespace kms::ui
