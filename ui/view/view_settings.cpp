#include "view/view_settings.hpp"

namespace kms::ui {

namespace {

// Sets `field` and emits `changed` when the value differs.
template <typename T>
void update(ViewSettings& settings, T& field, T value, void (ViewSettings::*changed)(T)) {
    if (field == value) return;
    field = value;
    emit (settings.*changed)(value);
}

}  // namespace

void ViewSettings::set_colour_mode(ColourMode mode) { update(*this, colour_mode_, mode, &ViewSettings::colourModeChanged); }
void ViewSettings::set_show_voronoi(bool show) { update(*this, voronoi_, show, &ViewSettings::voronoiChanged); }
void ViewSettings::set_show_trails(bool show) { update(*this, trails_, show, &ViewSettings::trailsChanged); }
void ViewSettings::set_point_size(double pixels) { update(*this, point_size_, pixels, &ViewSettings::pointSizeChanged); }
void ViewSettings::set_presentation(bool on) { update(*this, presentation_, on, &ViewSettings::presentationChanged); }

}  // namespace kms::ui
