#pragma once
// The studio's main window assembles the features: data (open, drop, examples,
// generators), the solver panel, the transport, the OpenGL view, the charts and
// scores docks, export, and compare mode (compare/CompareMode: its split view,
// table and controls are placed here). The transport, charts and status line act
// on the active RunMode: the single run or the comparison.
#include <QMainWindow>

#include <functional>
#include <memory>

#include "compare/compare_mode.hpp"
#include "kms/sweep.hpp"
#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"

class QAction;
class QFrame;
class QCheckBox;
class QDockWidget;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QStackedWidget;
class QTimer;

namespace kms::ui {

class AnimationExport;
class Lesson;
class CompareTable;
class CompareView;
class IterationCharts;
class SingleRunMode;
class SolverPanel;
class ScoresDock;
class SweepPanel;
class SpectralPipeline;

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
    // The window's first size on a screen whose free area is `available`.
    static QSize preferred_size(QSize available);

    RunController& controller() { return *controller_; }
    CompareSession& compare_session() { return compare_->session(); }
    SolverPanel& solver_panel() { return *solver_panel_; }
    PointCloudView& view() { return *view_; }
    CompareView& compare_view() { return *compare_->view(); }
    CompareTable& compare_table() { return *compare_->table(); }
    const CompareScores& compare_scores() const { return compare_->scores(); }
    bool compare_mode() const { return compare_->active(); }
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
    void set_colour_mode(ColourMode mode);
    void set_show_voronoi(bool show);
    void set_show_trails(bool show);
    void set_point_size(double pixels);
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
    bool presentation() const { return presentation_; }
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
    void set_paint_class(int cls) { paint_class_ = cls; }
    void set_paint_density(int points_per_dab) { paint_density_ = points_per_dab; }
    void paint_at(QPointF world, double radius_world);
    void clear_drawing();
    void save_drawing(const QString& path);
    std::size_t drawn_points() const { return drawing_.size() / 2; }
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
    void build_actions();
    QWidget* build_side_panel();
    // What the transport, charts and status line act on now.
    RunMode& mode();
    void refresh_view();
    void refresh_charts();
    void refresh_status();
    void update_actions();
    void show_error(const QString& message);
    void show_banner(const QString& message, bool error);
    void place_banner();
    // Docks never take the point view below 60 % of the window's width.
    void keep_view_share();
    // The window stays inside the screen's free area when docks come and go.
    void keep_on_screen();
    void commit_drawing();
    void choose_file();
    void run_export(const QString& title, const QString& filter, void (MainWindow::*writer)(const QString&));

    std::unique_ptr<RunController> controller_;
    std::unique_ptr<SingleRunMode> single_;
    std::unique_ptr<CompareMode> compare_;
    std::unique_ptr<SpectralPipeline> spectral_;

    QStackedWidget* stack_ = nullptr;
    PointCloudView* view_ = nullptr;
    SolverPanel* solver_panel_ = nullptr;
    IterationCharts* charts_ = nullptr;
    ScoresDock* scores_ = nullptr;
    QDockWidget* compare_dock_ = nullptr;
    SweepPanel* sweep_ = nullptr;
    QDockWidget* sweep_dock_ = nullptr;
    QDockWidget* spectral_dock_ = nullptr;
    QDockWidget* scores_dock_ = nullptr;
    QDockWidget* side_dock_ = nullptr;
    QDockWidget* charts_dock_ = nullptr;
    QFrame* banner_ = nullptr;
    QLabel* banner_label_ = nullptr;
    QPushButton* banner_action_ = nullptr;
    std::function<void()> banner_confirmed_, banner_declined_;
    RunSetup pending_setup_;  // a seed typed while the run had iterations, until confirmed
    QLabel* source_label_ = nullptr;
    QWidget* side_panel_ = nullptr;
    bool banner_is_error_ = false;
    bool presentation_ = false;
    QByteArray state_before_presentation_;
    double point_size_before_presentation_ = 0;
    qint64 reseed_armed_at_ms_ = -1;
    QObject* field_being_edited_ = nullptr;  // a text field typed in since it took the focus
    QSize size_before_compare_;
    // Paint tool state: x, y pairs and classes of the points drawn so far.
    std::vector<double> drawing_;
    std::vector<std::int32_t> drawing_classes_;
    int paint_class_ = 0;
    int paint_density_ = 12;
    std::uint64_t paint_dabs_ = 0;
    QTimer* drawing_commit_ = nullptr;

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
    QAction* half_steps_ = nullptr;
    QAction* presentation_action_ = nullptr;
    QAction* paint_action_ = nullptr;
    QAction* lesson_action_ = nullptr;
    Lesson* lesson_ = nullptr;

    QString last_error_;
};

}  // namespace kms::ui
