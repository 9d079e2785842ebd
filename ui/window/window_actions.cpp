// MainWindow's actions: the transport toolbar (acting on the active RunMode), the
// compare toolbar, and the File, Run, View and Help menus.
#include "main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include "export/animation_export.hpp"
#include "export/mp4_encoder.hpp"
#include "lesson/lesson.hpp"
#include "run/openmp_policy.hpp"

namespace kms::ui {

void MainWindow::build_actions() {
    auto* transport = addToolBar(tr("Transport"));
    transport->setObjectName(QStringLiteral("transport"));
    auto make = [this, transport](QStyle::StandardPixmap icon, const QString& text, QKeySequence key, auto slot) {
        auto* action = new QAction(style()->standardIcon(icon), text, this);
        action->setShortcut(key);
        action->setToolTip(QStringLiteral("%1 (%2)").arg(text, key.toString(QKeySequence::NativeText)));
        connect(action, &QAction::triggered, this, slot);
        transport->addAction(action);
        return action;
    };
    step_back_ = make(QStyle::SP_MediaSeekBackward, tr("Step back"), QKeySequence(Qt::Key_Left),
                      [this] { mode().step_back(); });
    step_ = make(QStyle::SP_MediaSeekForward, tr("Step"), QKeySequence(Qt::Key_Right), [this] { mode().step(); });
    run_ = make(QStyle::SP_MediaPlay, tr("Run"), QKeySequence(Qt::Key_Space), [this] {
        if (mode().transport_state().running) mode().pause();
        else mode().run();
    });
    pause_ = make(QStyle::SP_MediaPause, tr("Pause"), QKeySequence(Qt::Key_P), [this] { mode().pause(); });
    converge_ = make(QStyle::SP_MediaSkipForward, tr("Run to convergence"), QKeySequence(Qt::Key_End),
                     [this] { mode().run_to_convergence(); });
    reset_ = make(QStyle::SP_MediaSkipBackward, tr("Reset"), QKeySequence(Qt::Key_Home), [this] { mode().reset(); });
    reseed_ = make(QStyle::SP_BrowserReload, tr("Re-seed"), QKeySequence(Qt::Key_S), [this] { request_reseed(); });
    half_steps_ = make(QStyle::SP_ArrowRight, tr("Half-steps"), QKeySequence(Qt::Key_H),
                       [this] { set_half_steps(!controller_->half_steps()); });
    half_steps_->setCheckable(true);
    presentation_action_ = make(QStyle::SP_TitleBarMaxButton, tr("Presentation"), QKeySequence(Qt::Key_F11),
                                [this] { set_presentation(!presentation()); });
    presentation_action_->setCheckable(true);
    lesson_action_ = make(QStyle::SP_MessageBoxQuestion, tr("Lesson: predict, then reveal"), QKeySequence(Qt::Key_L),
                          [this] { set_lesson(!lesson_->active()); });
    lesson_action_->setCheckable(true);
    lesson_action_->setToolTip(tr("Lesson (L): before each step the class clicks where every centroid will move; "
                                  "→ reveals the step and scores the prediction"));
    transport->addSeparator();
    delay_label_ = new QLabel(tr("Delay 0 ms"), this);
    delay_ = new QSlider(Qt::Horizontal, this);
    delay_->setRange(0, 2000);
    delay_->setSingleStep(50);
    delay_->setPageStep(250);
    delay_->setMaximumWidth(200);
    delay_->setToolTip(tr("Pause between iterations while running (for teaching)"));
    connect(delay_, &QSlider::valueChanged, this, [this](int ms) {
        controller_->set_delay_ms(ms);
        compare_->set_delay_ms(ms);
        delay_label_->setText(tr("Delay %1 ms").arg(ms));
    });
    delay_->setValue(300);
    transport->addWidget(delay_label_);
    transport->addWidget(delay_);
    auto* compare_bar = addToolBar(tr("Compare"));
    compare_bar->setObjectName(QStringLiteral("compareBar"));
    compare_bar->addWidget(compare_->controls());
    build_menus();
}

void MainWindow::build_menus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open..."), QKeySequence::Open, this,
                    &MainWindow::choose_file);
    auto* exports = file->addMenu(tr("&Export"));
    exports->addAction(tr("Screenshot (PNG)..."), this,
                       [this] { run_export(tr("Screenshot"), tr("PNG images (*.png)"), &MainWindow::export_png); });
    exports->addAction(tr("Labels (CSV)..."), this,
                       [this] { run_export(tr("Labels"), tr("CSV (*.csv *.txt)"), &MainWindow::export_labels); });
    exports->addAction(tr("Centroids (CSV)..."), this,
                       [this] { run_export(tr("Centroids"), tr("CSV (*.csv)"), &MainWindow::export_centroids); });
    exports->addAction(tr("Run report (JSON)..."), this,
                       [this] { run_export(tr("Report"), tr("JSON (*.json)"), &MainWindow::export_report); });
    exports->addAction(tr("Charts data (CSV)..."), this,
                       [this] { run_export(tr("Charts"), tr("CSV (*.csv)"), &MainWindow::export_charts); });
    file->addAction(tr("Open &run (.kmsrun)..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open run"), QString(), tr("Runs (*.kmsrun);;All files (*)"));
        if (path.isEmpty()) return;
        try {
            open_run(path, true);
        } catch (const std::exception& error) {
            show_error(QString::fromStdString(error.what()));
        }
    });
    file->addAction(tr("&Save run (.kmsrun)..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save run"), QString(), tr("Runs (*.kmsrun)"));
        if (path.isEmpty()) return;
        try {
            statusBar()->showMessage(tr("Wrote %1").arg(save_run(path)), 8000);
        } catch (const std::exception& error) {
            show_error(QString::fromStdString(error.what()));
        }
    });
    exports->addAction(tr("Animation (GIF or MP4)..."), this, [this] {  // the dialog offers MP4 where this build has it
        QString filter;
        const QString path = AnimationExport::with_suffix(
            QFileDialog::getSaveFileName(this, tr("Export animation"), QString(), AnimationExport::file_filters(), &filter), filter);
        if (path.isEmpty()) return;
        bool ok = false;
        const QString size = QInputDialog::getText(this, tr("Frame size"), tr("Width x height in pixels:"),
                                                   QLineEdit::Normal, QStringLiteral("%1x%2").arg(view_->width()).arg(view_->height()), &ok);
        const QStringList parts = size.split(QLatin1Char('x'));
        if (!ok || parts.size() != 2) return;
        AnimationExport* job = export_animation(path, QSize(parts[0].toInt(), parts[1].toInt()));
        if (job)
            connect(job, &AnimationExport::finished, this, [this, path](const QString& error) {
                if (error.isEmpty()) statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
                else show_error(error);
            });
    });
    exports->addAction(tr("Drawn data (CSV)..."), this,
                       [this] { run_export(tr("Drawn data"), tr("CSV (*.csv)"), &MainWindow::save_drawing); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    auto* run = menuBar()->addMenu(tr("&Run"));
    for (QAction* action : {step_back_, step_, run_, pause_, converge_, reset_, reseed_, half_steps_}) run->addAction(action);
    run->addSeparator();
    QAction* sweep = sweep_dock_->toggleViewAction();
    sweep->setText(tr("Sweep k (elbow chart)"));
    run->addAction(sweep);
    auto* spectral = run->addAction(tr("&Spectral (k-means representatives)"));
    spectral->setCheckable(true);
    connect(spectral, &QAction::toggled, this, &MainWindow::show_spectral);
    connect(spectral_dock_, &QDockWidget::visibilityChanged, spectral, [this, spectral](bool) {
        if (!spectral_dock_->isVisible() && spectral->isChecked()) spectral->setChecked(false);  // closed by its ✕
    });
    // Every view setting and every dock from the menu: a dock closed by its ✕ came
    // back only by right-clicking a dock's title (issue 36).
    auto* view_menu = menuBar()->addMenu(tr("&View"));
    view_menu->setObjectName(QStringLiteral("viewMenu"));
    view_menu->addAction(presentation_action_);
    view_menu->addAction(lesson_action_);
    view_menu->addAction(half_steps_);
    auto* colours = view_menu->addMenu(tr("&Colour points by"));
    auto* colour_group = new QActionGroup(colours);
    const QComboBox& colour_modes = side_panel_->colour_modes();
    for (int i = 0; i < colour_modes.count(); ++i) {
        QAction* action = colours->addAction(colour_modes.itemText(i));
        action->setCheckable(true);
        colour_group->addAction(action);
        const ColourMode mode = ColourMode(colour_modes.itemData(i).toInt());
        action->setChecked(mode == settings_.colour_mode());
        connect(action, &QAction::triggered, this, [this, mode] { set_colour_mode(mode); });
        connect(&settings_, &ViewSettings::colourModeChanged, action, [action, mode](ColourMode now) { action->setChecked(now == mode); });
    }
    const auto add_toggle = [this, view_menu](const QCheckBox& box, bool on, void (ViewSettings::*set)(bool),
                                              void (ViewSettings::*changed)(bool)) {
        QAction* action = view_menu->addAction(box.text());
        action->setCheckable(true);
        action->setChecked(on);
        connect(action, &QAction::toggled, &settings_, set);
        connect(&settings_, changed, action, &QAction::setChecked);
    };
    add_toggle(side_panel_->voronoi(), settings_.show_voronoi(), &ViewSettings::set_show_voronoi, &ViewSettings::voronoiChanged);
    add_toggle(side_panel_->trails(), settings_.show_trails(), &ViewSettings::set_show_trails, &ViewSettings::trailsChanged);
    view_menu->addAction(tr("&Fit the data (F)"), this, [this] { mode().fit_view(); });
    view_menu->addSeparator();
    for (QDockWidget* dock : {side_dock_, charts_dock_, scores_dock_, compare_->dock(), sweep_dock_, spectral_dock_}) {
        QAction* toggle = dock->toggleViewAction();
        if (dock == spectral_dock_) {
            // The spectral dock brings its view into the centre: through show_spectral.
            toggle = view_menu->addAction(dock->windowTitle());
            toggle->setCheckable(true);
            connect(toggle, &QAction::triggered, this, &MainWindow::show_spectral);
            connect(dock, &QDockWidget::visibilityChanged, toggle, [toggle, dock](bool) { toggle->setChecked(dock->isVisible()); });
            continue;
        }
        view_menu->addAction(toggle);
    }
    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About kmeans-studio"), this, [this] {
        std::string mp4_reason;
        const bool mp4 = mp4_export_available(&mp4_reason);
        QMessageBox::about(this, tr("About kmeans-studio"),
                           tr("<p><b>kmeans-studio</b>: k-means you can watch, check and time.</p><p>Qt %1; OpenGL: %2</p>"
                              "<p>%3</p><p>MP4 export: %4</p>")
                               .arg(QString::fromLatin1(qVersion()), view_->renderer(), openmp_wait_policy_text().toHtmlEscaped(),
                                    mp4 ? tr("yes (H.264)") : QString::fromStdString(mp4_reason).toHtmlEscaped()));
    });
}

void MainWindow::update_actions() {
    const RunMode::TransportState state = mode().transport_state();
    step_->setEnabled(state.ready && !state.running && (!state.converged || state.replay));
    step_back_->setEnabled(state.ready && state.shown > 0);
    run_->setEnabled(state.ready && (!state.converged || state.running));
    run_->setIcon(style()->standardIcon(state.running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    run_->setText(state.running ? tr("Pause") : tr("Run"));
    pause_->setEnabled(state.running);
    converge_->setEnabled(state.ready && !state.running && !state.converged);
    reset_->setEnabled(state.ready && !state.running);
    reseed_->setEnabled(controller_->has_data() && !state.running);
}

void MainWindow::run_export(const QString& title, const QString& filter, void (MainWindow::*writer)(const QString&)) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(title), QString(), filter);
    if (path.isEmpty()) return;
    try {
        (this->*writer)(path);
        statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
    } catch (const std::exception& error) {
        show_error(QString::fromStdString(error.what()));
        QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(error.what()));
    }
}

}  // namespace kms::ui
