#pragma once
// The studio's main window assembles the features: the side panel (window/
// SidePanel: data, solver, view settings, paint tool), the transport and menus
// (window/window_actions.cpp), the docks (window/window_docks.cpp), the banner
// (window/Banner), the paint tool (window/PaintTool) and the exports
// (window/run_exports). The views follow one ViewSettings model; the transport,
// charts and status line act on the active RunMode (the single run or the
// comparison), which also says what the centre shows and which dock is its own.
#include <QMainWindow>

#include <functional>
#include <memory>

#include "compare/compare_mode.hpp"
#include "kms/sweep.hpp"
#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"
#include "view/view_settings.hpp"
#include "window/side_panel.hpp"

class QAction;
class QDockWidget;
class QLabel;
class QSlider;
class QStackedWidget;

namespace kms::ui {

class AnimationExport;
class Banner;
class Lesson;
class CompareTable;
class CompareView;
class IterationCharts;
class PaintTool;
class SingleRunMode;
class SolverPanel;
class ScoresDock;
class SweepPanel;
class SpectralPipeline;

// The bundled default data set (resources/data/default.csv), or empty if not found.
QString find_default_dataset();

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    // The window's first size on a screen whose free area is `available`.
    static QSize preferred_size(QSize available);

    RunController& controller() { return *controller_; }
    CompareSession& compare_session() { return compare_->session(); }
    SolverPanel& solver_panel() { return side_panel_->solver_panel(); }
    PointCloudView& view() { return *view_; }
    CompareView& compare_view() { return *compare_->view(); }
    CompareTable& compare_table() { return *compare_->table(); }
    const CompareScores& compare_scores() const { return compare_->scores(); }
    bool compare_mode() const { return compare_->active(); }
    // How every view draws the runs (the View fields and menu set it too).
    ViewSettings& view_settings() { return settings_; }
    // The elbow chart's dock (ui/sweep/): shown, sweeping the current data.
    SweepPanel& sweep_panel() { return *sweep_; }
    void start_sweep(const KRange& range, bool hierarchy);
    SpectralPipeline& spectral() { return *spectral_; }
    // The spectral pipeline's panel (a dock) and view (the centre), or back to the run's view.
    void show_spectral(bool on);

    // Loads the bundled default (or the fallback generator).
    void open_default();
    void apply_setup(const RunSetup& setup);
    // Compare these solvers on the current data and initial centroids; empty: leave compare mode.
    void start_compare(const std::vector<SolverConfig>& configs);
    // Forwards to view_settings().
    void set_colour_mode(ColourMode mode) { settings_.set_colour_mode(mode); }
    void set_show_voronoi(bool show) { settings_.set_show_voronoi(show); }
    void set_show_trails(bool show) { settings_.set_show_trails(show); }
    void set_point_size(double pixels) { settings_.set_point_size(pixels); }
    void set_projection_mode(ProjectionMode mode);
    // Last error shown to the user (banner over the view), for tests and scripts.
    QString last_error() const { return last_error_; }
    // The status bar's line about the shown iteration (solver, times, skips), for tests and scripts.
    QString status_line() const;
    // The banner over the view: errors stay until dismissed, hints until replaced or dismissed.
    QString banner_text() const;
    void dismiss_banner();
    // A question on the banner: `action` runs `confirmed`; dismissing it (✕, another
    // banner) runs `declined`. confirm_banner() presses the action, for tests and keys.
    void ask(const QString& message, const QString& action, std::function<void()> confirmed,
             std::function<void()> declined);
    bool confirm_banner();
    void show_hint(const QString& message);
    // Presentation mode (F11): docks hidden, big points, markers, text and legend.
    void set_presentation(bool on);
    bool presentation() const { return settings_.presentation(); }
    // Step by half-steps (assignment, update).
    void set_half_steps(bool on);
    // Lesson mode (L): predictions before each step, scored when the step is shown.
    void set_lesson(bool on);
    Lesson& lesson() { return *lesson_; }
    // S: the first press asks (on the banner) when iterations would be lost; a second within 5 s re-seeds.
    void request_reseed();
    // Replay files (throw kms::Error naming the path).
    // save_run adds .kmsrun to a name without an extension and returns the path written;
    // open_run returns how far the saved run was stepped, and steps there with step_to_recorded.
    QString save_run(const QString& path);
    int open_run(const QString& path, bool step_to_recorded = false);
    // The run as an animated GIF of `size` frames; the returned export reports finished(error).
    AnimationExport* export_animation(const QString& path, QSize size);
    // Paint tool: drag on the view to add points of `cls` (drawn data; saved as CSV with the class).
    void set_paint_mode(bool on);
    void set_paint_class(int cls);
    void set_paint_density(int points_per_dab);
    void paint_at(QPointF world, double radius_world);
    void clear_drawing();
    void save_drawing(const QString& path);
    std::size_t drawn_points() const;
    // No scores computation pending or running (the single run's, or the compared runs').
    bool scores_idle() const;

    // Export (throw kms::Error naming the path on failure).
    void export_png(const QString& path);
    void export_labels(const QString& path);
    void export_centroids(const QString& path);
    void export_report(const QString& path);
    void export_charts(const QString& path);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // window/window_docks.cpp: the side panel, charts, scores, comparison, elbow and spectral docks.
    void build_docks();
    // window/window_actions.cpp: the transport and compare toolbars, the File, Run, View and Help menus.
    void build_actions();
    void build_menus();
    void update_actions();
    void run_export(const QString& title, const QString& filter, void (MainWindow::*writer)(const QString&));
    void connect_run();
    void connect_modes();
    // What the transport, charts, status line and centre act on now.
    RunMode& mode();
    // The centre and docks for the active mode.
    void show_mode();
    void refresh_view();
    void refresh_charts();
    void refresh_status();
    void show_error(const QString& message);
    // Docks never take the point view below 60 % of the window's width.
    void keep_view_share();
    // The window stays inside the screen's free area when docks come and go.
    void keep_on_screen();
    void choose_file();

    std::unique_ptr<RunController> controller_;
    ViewSettings settings_;
    std::unique_ptr<SingleRunMode> single_;
    std::unique_ptr<CompareMode> compare_;
    std::unique_ptr<SpectralPipeline> spectral_;

    QStackedWidget* stack_ = nullptr;
    PointCloudView* view_ = nullptr;
    IterationCharts* charts_ = nullptr;
    ScoresDock* scores_ = nullptr;
    SweepPanel* sweep_ = nullptr;
    QDockWidget* sweep_dock_ = nullptr;
    QDockWidget* spectral_dock_ = nullptr;
    QDockWidget* scores_dock_ = nullptr;
    QDockWidget* side_dock_ = nullptr;
    QDockWidget* charts_dock_ = nullptr;
    Banner* banner_ = nullptr;
    SidePanel* side_panel_ = nullptr;
    PaintTool* paint_ = nullptr;
    Lesson* lesson_ = nullptr;
    RunSetup pending_setup_;  // a seed typed while the run had iterations, until confirmed
    QByteArray state_before_presentation_;
    qint64 reseed_armed_at_ms_ = -1;
    QObject* field_being_edited_ = nullptr;  // a text field typed in since it took the focus
    QSize size_before_compare_;

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
    QAction* half_steps_ = nullptr;
    QAction* presentation_action_ = nullptr;
    QAction* lesson_action_ = nullptr;

    QString last_error_;
};

}  // namespace kms::ui
