#include "view/point_colours.hpp"

#include "charts/distinct_colours.hpp"

namespace kms::ui {

// One palette for the whole studio: the charts' maximally spread CIELAB
// sequence, so a cluster has the same colour in the view, the silhouette plot
// and the charts.
PackedRgba cluster_colour(std::size_t index) {
    const Rgb colour = distinct_colour(index);
    return pack_rgba(colour.r, colour.g, colour.b);
}

std::vector<PackedRgba> cluster_palette(std::size_t k) {
    const std::vector<Rgb> colours = distinct_palette(k);
    std::vector<PackedRgba> palette(k);
    for (std::size_t i = 0; i < k; ++i) palette[i] = pack_rgba(colours[i].r, colours[i].g, colours[i].b);
    return palette;
}

}  // namespace kms::ui
