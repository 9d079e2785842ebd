#pragma once
// How the runs are drawn, one model for every view: colour mode, Voronoi cells,
// centroid trails, point size and presentation mode. The single run's view and
// the comparison's split view follow it; the side panel, the View menu and the
// scripted runs set it. Each setter emits its signal only when the value changes.
#include <QObject>

namespace kms::ui {

// Membership: the labels' colours, and each point joined to its centroid by a line.
enum class ColourMode { Labels, Bounds, Difference, Membership };

class ViewSettings : public QObject {
    Q_OBJECT
public:
    explicit ViewSettings(QObject* parent = nullptr) : QObject(parent) {}

    ColourMode colour_mode() const { return colour_mode_; }
    bool show_voronoi() const { return voronoi_; }
    bool show_trails() const { return trails_; }
    double point_size() const { return point_size_; }
    bool presentation() const { return presentation_; }

    void set_colour_mode(ColourMode mode);
    void set_show_voronoi(bool show);
    void set_show_trails(bool show);
    void set_point_size(double pixels);
    void set_presentation(bool on);

signals:
    void colourModeChanged(kms::ui::ColourMode mode);
    void voronoiChanged(bool show);
    void trailsChanged(bool show);
    void pointSizeChanged(double pixels);
    void presentationChanged(bool on);

private:
    ColourMode colour_mode_ = ColourMode::Labels;
    bool voronoi_ = false;
    bool trails_ = true;
    double point_size_ = 3.0;
    bool presentation_ = false;
};

// `view` shows the settings now and whenever they change, through its set_show_voronoi,
// set_show_trails, set_point_size and set_presentation, and `colour_mode` (a callable).
template <typename View, typename ColourSetter>
void show_settings_in(const ViewSettings& settings, View* view, ColourSetter colour_mode) {
    colour_mode(settings.colour_mode());
    view->set_show_voronoi(settings.show_voronoi());
    view->set_show_trails(settings.show_trails());
    view->set_point_size(settings.point_size());
    view->set_presentation(settings.presentation());
    QObject::connect(&settings, &ViewSettings::colourModeChanged, view, colour_mode);
    QObject::connect(&settings, &ViewSettings::voronoiChanged, view, [view](bool on) { view->set_show_voronoi(on); });
    QObject::connect(&settings, &ViewSettings::trailsChanged, view, [view](bool on) { view->set_show_trails(on); });
    QObject::connect(&settings, &ViewSettings::pointSizeChanged, view, [view](double px) { view->set_point_size(px); });
    QObject::connect(&settings, &ViewSettings::presentationChanged, view, [view](bool on) { view->set_presentation(on); });
}

}  // namespace kms::ui
