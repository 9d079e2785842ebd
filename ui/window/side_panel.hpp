#pragma once
// The window's left-hand panel: the data (source, gallery, generator), the
// solver's set-up (run/SolverPanel) and the view (colour mode, Voronoi, trails,
// point size, half-steps, paint tool, fit). The view's fields show and set the
// shared ViewSettings; the rest talks to the run or asks the window by signal.
#include <QWidget>

#include <cstdint>

#include "view/projection.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kms::ui {

class PaintTool;
class PointCloudView;
class RunController;
class SolverPanel;
class ViewSettings;

// The generated data used when the bundled file is missing.
inline constexpr const char* kFallbackSpec = "blobs:n=3000,k=5,d=2";
inline constexpr std::uint64_t kFallbackSeed = 7;

class SidePanel : public QWidget {
    Q_OBJECT
public:
    SidePanel(RunController& run, ViewSettings& settings, PaintTool& paint, PointCloudView& view,
              QWidget* parent = nullptr);

    SolverPanel& solver_panel() const { return *solver_panel_; }
    // Shows `mode` in the projection box (which sets it on the run).
    void set_projection(ProjectionMode mode);
    // The colour modes as the box lists them (text, ColourMode as int data), and the view's check boxes.
    const QComboBox& colour_modes() const { return *colour_mode_; }
    const QCheckBox& voronoi() const { return *voronoi_; }
    const QCheckBox& trails() const { return *trails_; }

signals:
    void openRequested();
    void halfStepsToggled(bool on);
    void paintToggled(bool on);
    void clearRequested();
    void fitRequested();

private:
    QWidget* build_data();
    QWidget* build_view(PaintTool& paint, PointCloudView& view);
    void show_dataset();

    RunController& run_;
    ViewSettings& settings_;
    SolverPanel* solver_panel_ = nullptr;
    QLabel* source_label_ = nullptr;
    QComboBox* examples_ = nullptr;
    QLineEdit* generator_spec_ = nullptr;
    QSpinBox* generator_seed_ = nullptr;
    QComboBox* projection_ = nullptr;
    QComboBox* colour_mode_ = nullptr;
    QCheckBox* voronoi_ = nullptr;
    QCheckBox* trails_ = nullptr;
    QDoubleSpinBox* point_size_ = nullptr;
};

}  // namespace kms::ui
