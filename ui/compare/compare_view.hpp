#pragma once
// The split view of a comparison: one PointCloudView per run in a grid, all
// sharing one camera, each captioned with its solver, iteration and time.
// In Difference mode every panel after the first marks the points whose label
// differs from the first run's (same initial centroids: same cluster numbers).
#include <QWidget>

#include <vector>

#include "compare/compare_session.hpp"
#include "view/point_cloud_view.hpp"
#include "view/view_camera.hpp"

class QGridLayout;
class QLabel;

namespace kms::ui {

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(CompareSession* session, QWidget* parent = nullptr);

    void set_colour_mode(ColourMode mode);
    void set_show_voronoi(bool show);
    void set_show_trails(bool show);
    void set_point_size(double pixels);
    void set_presentation(bool on);
    // Follow these settings from now on (Difference: the panels after the first mark
    // the labels that differ from the first run's).
    void follow(const ViewSettings& settings);
    void fit();
    PointCloudView* panel(std::size_t i) const { return views_.at(i); }
    std::size_t panel_count() const { return views_.size(); }
    // Columns of the grid that shows `panels` panels in `area` as large as they can be.
    static int best_columns(std::size_t panels, QSize area);
    // Panel i's caption: solver, iteration, step time, skips (and Yinyang's group skips).
    QString caption(std::size_t i) const;
    // Points whose label differs from run 0's in panel i (shown iteration).
    std::size_t differing_points(std::size_t i) const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void arrange();  // the grid's columns for the current size
    void refresh();

    CompareSession* session_;
    ViewCamera camera_;
    QGridLayout* grid_ = nullptr;
    std::vector<PointCloudView*> views_;
    std::vector<QWidget*> cells_;     // caption + view
    std::vector<QLabel*> captions_;
    ColourMode mode_ = ColourMode::Labels;
    bool voronoi_ = false;
    bool trails_ = true;
    double point_size_ = 3.0;
    bool fitted_ = false;
    int columns_ = 0;  // of the grid as arranged
    bool presentation_ = false;
};

}  // namespace kms::ui
