#pragma once
// The studio's main window assembles the features: data (open, drop, examples,
// generators), the solver panel, the transport, the OpenGL view, the charts and
// scores docks, export, and compare mode (compare/CompareMode: its split view,
// table and controls are placed here). The transport, charts and status line act
// on the active RunMode: the single run or the comparison.
#include <QMainWindow>

#include <memory>

#include "compare/compare_mode.hpp"
#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"

class QAction;
class QCheckBox;
class QDockWidget;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QStackedWidget;

namespace kms::ui {

class CompareTable;
class CompareView;
class IterationCharts;
class SingleRunMode;
class SolverPanel;
class ScoresDock;

// The bundled default data set (resources/data/default.csv), or empty if not found.
QString find_default_dataset();
// The generated data used when the bundled file is missing.
inline constexpr const char* kFallbackSpec = "blobs:n=3000,k=5,d=2";
inline constexpr std::uint64_t kFallbackSeed = 7;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    RunController& controller() { return *controller_; }
    CompareSession& compare_session() { return compare_->session(); }
    SolverPanel& solver_panel() { return *solver_panel_; }
    PointCloudView& view() { return *view_; }
    CompareView& compare_view() { return *compare_->view(); }
    CompareTable& compare_table() { return *compare_->table(); }
    const CompareScores& compare_scores() const { return compare_->scores(); }
    bool compare_mode() const { return compare_->active(); }

    // Loads the bundled default (or the fallback generator).
    void open_default();
    void apply_setup(const RunSetup& setup);
    // Compare these solvers on the current data and initial centroids; empty: leave compare mode.
    void start_compare(const std::vector<SolverConfig>& configs);
    void set_colour_mode(ColourMode mode);
    void set_show_voronoi(bool show);
    void set_show_trails(bool show);
    void set_point_size(double pixels);
    void set_projection_mode(ProjectionMode mode);
    // Last error shown to the user (status bar / message), for tests and scripts.
    QString last_error() const { return last_error_; }
    // No scores computation pending or running (the single run's, or the compared runs').
    bool scores_idle() const;

    // Export (throw kms::Error naming the path on failure).
    void export_png(const QString& path);
    void export_labels(const QString& path);
    void export_centroids(const QString& path);
    void export_report(const QString& path);
    void export_charts(const QString& path);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void build_actions();
    QWidget* build_side_panel();
    // What the transport, charts and status line act on now.
    RunMode& mode();
    void refresh_view();
    void refresh_charts();
    void refresh_status();
    void update_actions();
    void show_error(const QString& message);
    void choose_file();
    void run_export(const QString& title, const QString& filter, void (MainWindow::*writer)(const QString&));

    std::unique_ptr<RunController> controller_;
    std::unique_ptr<SingleRunMode> single_;
    std::unique_ptr<CompareMode> compare_;

    QStackedWidget* stack_ = nullptr;
    PointCloudView* view_ = nullptr;
    SolverPanel* solver_panel_ = nullptr;
    IterationCharts* charts_ = nullptr;
    ScoresDock* scores_ = nullptr;
    QDockWidget* compare_dock_ = nullptr;
    QDockWidget* scores_dock_ = nullptr;

    QComboBox* examples_ = nullptr;
    QLineEdit* generator_spec_ = nullptr;
    QSpinBox* generator_seed_ = nullptr;
    QComboBox* projection_ = nullptr;
    QComboBox* colour_mode_ = nullptr;
    QCheckBox* voronoi_ = nullptr;
    QCheckBox* trails_ = nullptr;
    QDoubleSpinBox* point_size_ = nullptr;
    QSlider* delay_ = nullptr;
    QLabel* delay_label_ = nullptr;
    QLabel* iteration_label_ = nullptr;
    QLabel* status_detail_ = nullptr;

    QAction* step_ = nullptr;
    QAction* step_back_ = nullptr;
    QAction* run_ = nullptr;
    QAction* pause_ = nullptr;
    QAction* converge_ = nullptr;
    QAction* reset_ = nullptr;
    QAction* reseed_ = nullptr;

    QString last_error_;
};

}  // namespace kms::ui
