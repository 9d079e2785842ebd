// MainWindow's docks: the side panel, the iteration charts, Scores, the active
// mode's own dock (compare's table), the elbow chart and the spectral pipeline;
// how they share the window (the point view keeps most of it, the window stays
// on the screen) and presentation mode, which hides them.
#include "main_window.hpp"

#include <QDockWidget>
#include <QMenuBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QStatusBar>

#include <algorithm>

#include "charts/iteration_charts.hpp"
#include "run/single_run_mode.hpp"
#include "run/solver_panel.hpp"
#include "scores/scores_dock.hpp"
#include "spectral/spectral_panel.hpp"
#include "spectral/spectral_pipeline.hpp"
#include "sweep/sweep_panel.hpp"
#include "window/paint_tool.hpp"

namespace kms::ui {

namespace {

// `widget` in a scroll area of at least 160 px: long values wrap or scroll, they never widen the dock.
QScrollArea* scrolled(QWidget* widget, QWidget* parent) {
    auto* scroll = new QScrollArea(parent);
    scroll->setWidget(widget);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(160);
    return scroll;
}

}  // namespace

void MainWindow::build_docks() {
    side_dock_ = new QDockWidget(tr("Data and solver"), this);
    side_dock_->setObjectName(QStringLiteral("side"));
    side_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    side_panel_ = new SidePanel(*controller_, settings_, *paint_, *view_);
    // Narrow windows scroll the panel rather than squeeze the view.
    QScrollArea* side_scroll = scrolled(side_panel_, side_dock_);
    side_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    side_dock_->setWidget(side_scroll);
    addDockWidget(Qt::LeftDockWidgetArea, side_dock_);
    connect(side_panel_, &SidePanel::openRequested, this, &MainWindow::choose_file);
    connect(&side_panel_->solver_panel(), &SolverPanel::setupEdited, this, &MainWindow::apply_setup);
    connect(side_panel_, &SidePanel::halfStepsToggled, this, &MainWindow::set_half_steps);
    connect(side_panel_, &SidePanel::paintToggled, this, &MainWindow::set_paint_mode);
    connect(side_panel_, &SidePanel::clearRequested, this, &MainWindow::clear_drawing);
    connect(side_panel_, &SidePanel::fitRequested, this, [this] { mode().fit_view(); });
    // Enter in a field hands the keys back to the transport (→, Space, End ...).
    for (QWidget* child : side_panel_->findChildren<QWidget*>()) child->installEventFilter(this);

    charts_dock_ = new QDockWidget(tr("Iterations"), this);
    charts_dock_->setObjectName(QStringLiteral("charts"));
    charts_dock_->setWidget(charts_);
    addDockWidget(Qt::BottomDockWidgetArea, charts_dock_);
    charts_->setColumns(6);  // one row: the point view keeps most of the height
    connect(charts_, &IterationCharts::iterationClicked, this,
            [this](int iteration) { mode().show_iteration(iteration); });

    scores_ = new ScoresDock(this);
    scores_dock_ = new QDockWidget(tr("Scores"), this);
    scores_dock_->setObjectName(QStringLiteral("scores"));
    scores_dock_->setWidget(scrolled(scores_, scores_dock_));
    addDockWidget(Qt::RightDockWidgetArea, scores_dock_);

    // Compare's table, a tab beside the charts, shown only while comparing: an empty tab would hide the charts.
    QDockWidget* compare_dock = compare_->dock();
    addDockWidget(Qt::BottomDockWidgetArea, compare_dock);
    tabifyDockWidget(charts_dock_, compare_dock);
    compare_dock->hide();
    charts_dock_->raise();
    sweep_ = new SweepPanel(*controller_, this);
    sweep_dock_ = new QDockWidget(tr("Elbow (k sweep)"), this);
    sweep_dock_->setObjectName(QStringLiteral("sweep"));
    sweep_dock_->setWidget(sweep_);
    addDockWidget(Qt::RightDockWidgetArea, sweep_dock_);
    // Below the scores, never beside or over them: beside, they took the view to 475 of 1280 px.
    splitDockWidget(scores_dock_, sweep_dock_, Qt::Vertical);
    sweep_dock_->hide();  // Run ▸ Sweep k (elbow chart)
    connect(sweep_, &SweepPanel::message, this, &MainWindow::show_error);
    // The spectral pipeline (ui/spectral): its panel in a dock, its view in the centre while the dock is open.
    spectral_ = std::make_unique<SpectralPipeline>(*controller_);
    stack_->addWidget(spectral_->view());
    spectral_dock_ = new QDockWidget(tr("Spectral (k-means representatives)"), this);
    spectral_dock_->setObjectName(QStringLiteral("spectral"));
    spectral_dock_->setWidget(scrolled(spectral_->panel(), spectral_dock_));
    addDockWidget(Qt::RightDockWidgetArea, spectral_dock_);
    splitDockWidget(scores_dock_, spectral_dock_, Qt::Vertical);
    spectral_dock_->hide();
    for (QDockWidget* dock : {side_dock_, scores_dock_, charts_dock_, compare_dock, spectral_dock_, sweep_dock_}) {
        connect(dock, &QDockWidget::topLevelChanged, this, [this] { keep_view_share(); });
        connect(dock, &QDockWidget::dockLocationChanged, this, [this] { keep_view_share(); });
        connect(dock, &QDockWidget::visibilityChanged, this, [this] { keep_view_share(); });
    }
}

void MainWindow::start_sweep(const KRange& range, bool hierarchy) {
    sweep_dock_->show();
    sweep_dock_->raise();
    sweep_->start_sweep(range, hierarchy);
}

void MainWindow::show_spectral(bool on) {
    if (on) mode().leave();
    spectral_dock_->setVisible(on);
    // Under the Scores dock, which stays (it hid them, and its own controls started out of sight).
    keep_view_share();
    if (on) {
        resizeDocks({spectral_dock_}, {spectral_dock_->maximumWidth()}, Qt::Horizontal);
        resizeDocks({scores_dock_, spectral_dock_}, {height() / 3, 2 * height() / 3}, Qt::Vertical);
    }
    stack_->setCurrentWidget(on ? static_cast<QWidget*>(spectral_->view()) : mode().centre());
}

void MainWindow::set_presentation(bool on) {
    if (on == presentation()) return;
    presentation_action_->setChecked(on);
    if (on) {
        state_before_presentation_ = saveState();
        for (QDockWidget* dock : {side_dock_, charts_dock_, scores_dock_, compare_->dock()}) dock->hide();
        menuBar()->hide();
        statusBar()->hide();
    } else {
        restoreState(state_before_presentation_);
        // A mode's own dock shows only while that mode is active (the state saved may be another mode's).
        for (const RunMode* each : {static_cast<RunMode*>(single_.get()), static_cast<RunMode*>(compare_.get())})
            if (each != &mode() && each->dock()) each->dock()->hide();
        menuBar()->show();
        statusBar()->show();
    }
    settings_.set_presentation(on);  // the views follow
    refresh_view();
    keep_view_share();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    keep_view_share();
}

void MainWindow::keep_view_share() {
    // The point view keeps at least 60 % of the width: the two side docks share
    // the rest; their contents scroll or wrap. The Scores dock gets the width its
    // numbers need (at 1280×720 it was clipped behind a scroll bar), the data panel
    // what is left of the docks' 40 %, at most 22 % of the window.
    const int width = std::max(this->width(), 640);
    const auto* scores_scroll = static_cast<const QScrollArea*>(scores_dock_->widget());
    const int scores_need = scores_scroll->widget()->minimumSizeHint().width() + 2 * scores_scroll->frameWidth() +
                            scores_scroll->verticalScrollBar()->sizeHint().width() + 4;
    const int scores_width = std::max({160, scores_need, int(width * 0.16)});
    const bool scores_docked = !scores_dock_->isFloating() && scores_dock_->isVisible();
    scores_dock_->setMaximumWidth(scores_dock_->isFloating() ? QWIDGETSIZE_MAX : scores_width);
    scores_dock_->setMinimumWidth(scores_dock_->isFloating() ? 0 : std::min(scores_need, int(width * 0.2)));
    side_dock_->setMaximumWidth(side_dock_->isFloating() ? QWIDGETSIZE_MAX
                                                         : std::max(180, std::min(int(width * 0.22), int(width * 0.4) -
                                                                                  (scores_docked ? scores_width : 0))));
    // Where the share allows, the data panel grows to the width its fields need
    // (at 1920x1080 it stayed at its first 300 px and clipped its fields).
    if (!side_dock_->isFloating()) {
        const auto* scroll = static_cast<const QScrollArea*>(side_dock_->widget());
        const int wanted = std::min(side_dock_->maximumWidth(), side_panel_->sizeHint().width() + 2 * scroll->frameWidth() +
                                                                    scroll->verticalScrollBar()->sizeHint().width());
        if (side_dock_->width() < wanted) resizeDocks({side_dock_}, {wanted}, Qt::Horizontal);
    }
    // The right-hand docks share one column (spectral and elbow sit under Scores).
    const int right = std::max(240, int(width * 0.2));
    for (QDockWidget* dock : {spectral_dock_, sweep_dock_}) dock->setMaximumWidth(dock->isFloating() ? QWIDGETSIZE_MAX : right);
    if (!scores_dock_->isFloating() && (spectral_dock_->isVisible() || sweep_dock_->isVisible()))
        scores_dock_->setMaximumWidth(right);
    // The charts take at most a quarter of the height; while comparing they share a tab
    // with the table, and a tab group is no taller than its shortest limit: the table's
    // per-iteration rows were cut to two at 1280×720.
    const bool comparing = compare_->dock()->isVisible() && !compare_->dock()->isFloating();
    charts_dock_->setMaximumHeight(std::max(140, int(height() * (comparing ? 0.42 : 0.28))));
    // Room for the summary and a few per-iteration rows (it showed two at 1280×720): the
    // compared panels sit side by side above it, square, so they lose width, not data.
    compare_->dock()->setMaximumHeight(std::max(160, int(height() * 0.42)));
}

void MainWindow::keep_on_screen() {
    // Showing a dock (compare's table, Scores again after it) asks for room; a window
    // that grew for it went past the bottom of a 1280×720 screen and, with a window
    // manager, lost its maximised state. Give the room back from the docks instead.
    if (isMaximized() || isFullScreen() || !isVisible()) return;
    const QRect available = screen()->availableGeometry();
    const QSize frame = frameGeometry().size() - size();
    const QSize limit = available.size() - frame;
    if (width() > limit.width() || height() > limit.height())
        resize(std::min(width(), limit.width()), std::min(height(), limit.height()));
}

}  // namespace kms::ui
