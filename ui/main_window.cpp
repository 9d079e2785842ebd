#include "main_window.hpp"

#include "kms/backends.hpp"

#include <QAbstractSpinBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

#include "charts/iteration_charts.hpp"
#include "compare/compare_view.hpp"
#include "export/animation_export.hpp"
#include "geo/geo_view.hpp"
#include "kms/gl_interop.hpp"
#include "kms/run_file.hpp"
#include "lesson/lesson.hpp"
#include "run/run_view.hpp"
#include "run/single_run_mode.hpp"
#include "run/solver_panel.hpp"
#include "scores/scores_dock.hpp"
#include "spectral/spectral_pipeline.hpp"
#include "window/banner.hpp"
#include "window/paint_tool.hpp"
#include "window/run_exports.hpp"

namespace kms::ui {

QString find_default_dataset() {
    const QString app_dir = QCoreApplication::applicationDirPath();
    const QStringList candidates = {
        app_dir + QStringLiteral("/../share/kmeans-studio/data/default.csv"),
        app_dir + QStringLiteral("/resources/data/default.csv"),
        QStringLiteral(KMS_SOURCE_RESOURCES_DIR "/data/default.csv"),
    };
    for (const QString& candidate : candidates)
        if (QFileInfo(candidate).isFile()) return QDir::cleanPath(candidate);
    return {};
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), controller_(std::make_unique<RunController>()) {
    setWindowTitle(tr("k-means studio"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/kmeans-studio.png")));
    setAcceptDrops(true);

    // Centre: the active mode's view (the single run's point view, or the comparison's
    // split view). The transport, charts and status line act on the active mode.
    stack_ = new QStackedWidget(this);
    view_ = new PointCloudView(stack_);
    charts_ = new IterationCharts(this);
    single_ = std::make_unique<SingleRunMode>(*controller_, *charts_, *view_);
    compare_ = std::make_unique<CompareMode>(*controller_, *charts_);
    view_->follow(settings_);
    compare_->view()->follow(settings_);
    stack_->addWidget(view_);
    stack_->addWidget(compare_->view());
    auto* centre = new QWidget(this);
    auto* centre_layout = new QVBoxLayout(centre);
    centre_layout->setContentsMargins(0, 0, 0, 0);
    centre_layout->setSpacing(0);
    banner_ = new Banner(centre);  // over the view, not above it
    centre_layout->addWidget(stack_, 1);
    setCentralWidget(centre);
    paint_ = new PaintTool(*controller_, *view_, this);

    build_docks();
    build_actions();
    iteration_label_ = new QLabel(this);
    status_detail_ = new QLabel(this);
    status_detail_->setObjectName(QStringLiteral("statusDetail"));
    statusBar()->addPermanentWidget(status_detail_);
    statusBar()->addPermanentWidget(iteration_label_);
    // A temporary message ("Loaded ...", "Wrote ...") takes the line while it shows: the
    // run's details, a permanent widget as wide as its text, would otherwise be drawn
    // over it (seen at 1920x1080). They come back when the message times out.
    connect(statusBar(), &QStatusBar::messageChanged, this,
            [this](const QString& message) { status_detail_->setVisible(message.isEmpty()); });

    connect_run();
    lesson_ = new Lesson(*controller_, *view_, this);
    connect(view_, &PointCloudView::lessonClicked, lesson_, &Lesson::place);
    connect(view_, &PointCloudView::lessonUndo, lesson_, &Lesson::undo);
    connect(lesson_, &Lesson::messageChanged, this, [this](const QString& message) {
        if (message.isEmpty()) {
            if (!banner_->error()) dismiss_banner();
        } else {
            show_hint(message);
        }
    });
    connect(view_, &PointCloudView::glInitialised, this, [this](const QString&) { refresh_status(); });
    connect_modes();

    controller_->set_projection_mode(ProjectionMode::Pca);
    resize(preferred_size(screen()->availableGeometry().size()));
    resizeDocks({charts_dock_}, {220}, Qt::Vertical);
    resizeDocks({side_dock_, scores_dock_}, {300, 260}, Qt::Horizontal);
    keep_view_share();
    update_actions();
}

MainWindow::~MainWindow() {
    // Closing hides the docks, whose signals would reach a half-destroyed window.
    for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->disconnect(this);
}

void MainWindow::connect_run() {
    RunController* c = controller_.get();
    connect(c, &RunController::datasetChanged, this, [this] {
        view_->set_points(controller_->dataset().projected);
        const DatasetBundle& bundle = controller_->dataset();
        view_->set_map_overlay(bundle.geo ? map_overlay(*bundle.geo, bundle.projection) : MapOverlay{});
        if (!view_->paint_mode()) view_->fit();  // painting keeps the canvas where it is
        refresh_status();
    });
    connect(c, &RunController::frameChanged, this, &MainWindow::refresh_view);
    connect(c, &RunController::historyChanged, this, &MainWindow::refresh_charts);
    connect_device_colours(*controller_, *view_);
    connect(c, &RunController::setupChanged, this, [this] {
        scores_->set_where(controller_->setup().config);
        if (controller_->ready()) solver_panel().set_setup(controller_->setup());
        refresh_charts();
        update_actions();
    });
    connect(c, &RunController::runningChanged, this, &MainWindow::update_actions);
    connect(c, &RunController::errorOccurred, this, &MainWindow::show_error);
    connect(c, &RunController::statusMessage, this, [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    connect(c, &RunController::loadStarted, this, [this](const QString& what) {
        statusBar()->showMessage(tr("Loading %1 ...").arg(what));
    });
    connect(c, &RunController::loadProgress, this, [this](qint64 done, qint64 total) {
        if (total > 0) statusBar()->showMessage(tr("Loading ... %1%").arg(100 * done / total));
    });
    connect(view_, &PointCloudView::centroidDragged, this, [this](int index, QPointF world) {
        controller_->move_initial_centroid(std::size_t(index), world.x(), world.y());
    });
    connect(view_, &PointCloudView::centroidAddRequested, this, [this](QPointF world) {
        if (controller_->add_initial_centroid(world.x(), world.y()))
            show_hint(tr("Centroid added: k = %1").arg(controller_->setup().k));
    });
    connect(view_, &PointCloudView::centroidRemoveRequested, this, [this](int index) {
        if (controller_->remove_initial_centroid(std::size_t(index)))
            show_hint(tr("Centroid removed: k = %1").arg(controller_->setup().k));
        else
            show_hint(tr("The last centroid stays: k is at least 1"));
    });
    connect(view_, &PointCloudView::centroidEditRefused, this, [this] {
        show_hint(tr("Centroids can be placed at iteration 0 only: press Home (reset) to go back to the start, "
                     "then drag a centroid, click to add one or right-click to remove one."));
    });
    connect(view_, &PointCloudView::paintStroke, this, &MainWindow::paint_at);
}

void MainWindow::connect_modes() {
    CompareMode* compare = compare_.get();
    connect(compare, &CompareMode::entered, this, [this] {
        size_before_compare_ = size();
        show_mode();
        QDockWidget* dock = mode().dock();
        dock->raise();
        QTimer::singleShot(0, this, [this, dock] {  // once the tab is in place
            keep_view_share();  // the charts' tab limit follows the comparison's
            if (mode().dock() == dock) resizeDocks({dock}, {dock->maximumHeight()}, Qt::Vertical);
        });
        if (!mode().scores_follow()) {
            scores_->request(nullptr, nullptr, Matrix<double>(), 0);
            scores_dock_->hide();
        }
        update_actions();
        QTimer::singleShot(0, this, &MainWindow::keep_on_screen);
    });
    connect(compare, &CompareMode::left, this, [this] {
        compare_->dock()->hide();  // its empty table would stay in front of the charts
        charts_dock_->raise();
        if (!presentation()) scores_dock_->show();
        keep_view_share();
        // Showing the scores dock again must not grow the window (without a window manager, past the screen).
        if (size_before_compare_.isValid() && size() != size_before_compare_ && !isMaximized())
            resize(size_before_compare_);
        QTimer::singleShot(0, this, &MainWindow::keep_on_screen);
        refresh_view();
        show_mode();
        refresh_charts();
        update_actions();
    });
    connect(compare, &CompareMode::changed, this, [this] {
        update_actions();
        refresh_charts();
        refresh_status();
    });
    connect(compare, &CompareMode::errorOccurred, this, &MainWindow::show_error);
}

RunMode& MainWindow::mode() { return compare_->active() ? static_cast<RunMode&>(*compare_) : *single_; }

void MainWindow::show_mode() {
    stack_->setCurrentWidget(mode().centre());
    if (QDockWidget* dock = mode().dock()) dock->show();
}

QSize MainWindow::preferred_size(QSize available) {
    // 1400×900 where it fits, else the screen's free area (a 1280×720 projector):
    // a window that opened larger cut off the Scores dock and the charts (issue 36).
    return QSize(std::min(1400, available.width()), std::min(900, available.height()));
}

// ---------------------------------------------------------------- data and settings

void MainWindow::open_default() {
    const QString path = find_default_dataset();
    if (!path.isEmpty()) {
        controller_->load_file(path);
    } else {
        statusBar()->showMessage(tr("resources/data/default.csv not found: generating %1").arg(QString::fromLatin1(kFallbackSpec)));
        controller_->generate(QString::fromLatin1(kFallbackSpec), kFallbackSeed);
    }
}

void MainWindow::choose_file() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open data"), QString(),
                                                      tr("Data (*.csv *.tsv *.txt *.npy *.data *.fvecs *.bvecs *.ivecs *.fbin *.u8bin *.i8bin *.ibin);;All files (*)"));
    if (!path.isEmpty()) controller_->load_file(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) controller_->load_file(urls.first().toLocalFile());
}

void MainWindow::apply_setup(const RunSetup& setup) {
    // A new seed discards the stepped run: ask first, as S does (typing a seed threw
    // the run away at the first digit: issue 36). Other edits restart as before.
    const int steps = mode().iterations_at_stake();
    if (setup.init.seed != controller_->setup().init.seed && steps > 0) {
        pending_setup_ = setup;
        ask(tr("Seed %1 re-draws the initial centroids: the %2 iteration(s) of this run are discarded.")
                .arg(setup.init.seed)
                .arg(steps),
            tr("Re-seed"),
            [this] {
                mode().leave();
                controller_->set_setup(pending_setup_);
            },
            [this] { solver_panel().set_setup(controller_->setup()); });  // the panel shows the run's seed again
        return;
    }
    mode().leave();  // a new set-up ends the comparison
    controller_->set_setup(setup);
}

void MainWindow::start_compare(const std::vector<SolverConfig>& configs) { compare_->start(configs); }

void MainWindow::set_projection_mode(ProjectionMode mode) {
    side_panel_->set_projection(mode);
    controller_->set_projection_mode(mode);
}

void MainWindow::request_reseed() {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const int steps = mode().iterations_at_stake();
    // Throwing iterations away takes a second press: a stray S must not lose the run.
    if (steps > 0 && (reseed_armed_at_ms_ < 0 || now - reseed_armed_at_ms_ > 5000)) {
        reseed_armed_at_ms_ = now;
        ask(tr("Press S again (or Re-seed) to re-seed: the %1 iteration(s) of this run are discarded "
               "(Home goes back to iteration 0 and keeps the centroids).").arg(std::max(steps, 1)),
            tr("Re-seed"),
            [this] {
                reseed_armed_at_ms_ = QDateTime::currentMSecsSinceEpoch();  // the button is the second press
                request_reseed();
            },
            [this] { reseed_armed_at_ms_ = -1; });
        return;
    }
    reseed_armed_at_ms_ = -1;
    if (!banner_->error()) {
        banner_->forget_question();  // answered: yes
        dismiss_banner();
    }
    RunSetup setup = controller_->setup();
    setup.init.seed += 1;
    solver_panel().set_setup(setup);
    mode().leave();  // a new seed ends the comparison
    controller_->reseed(setup.init.seed);
}

void MainWindow::set_lesson(bool on) {
    if (on) mode().leave();  // the lesson is on the single run
    if (on && view_->paint_mode()) set_paint_mode(false);
    lesson_action_->setChecked(on);
    view_->set_lesson_mode(on);
    lesson_->set_active(on);
}

void MainWindow::set_half_steps(bool on) {
    controller_->set_half_steps(on);
    half_steps_->setChecked(on);
    refresh_view();
}

// ---------------------------------------------------------------- display

void MainWindow::refresh_view() {
    show_run_in_view(*controller_, *view_);
    // The scores dock follows the single run (and is put aside while comparing).
    if (mode().scores_follow())
        scores_->request(controller_->dataset().dataset, controller_->displayed_labels(),
                         controller_->displayed_centroids(), controller_->displayed_iteration());
    refresh_status();
    charts_->setCurrentIteration(controller_->displayed_iteration());
    update_actions();
}

void MainWindow::refresh_charts() { mode().refresh_charts(); }

void MainWindow::refresh_status() {
    const RunController& run = *controller_;
    QString detail;
    if (run.has_data()) {
        detail = tr("%1 points × %2 d").arg(run.dataset().n()).arg(run.dataset().d());
        if (run.dataset().d() > 2)
            detail += run.dataset().projection.mode() == ProjectionMode::Pca ? tr(" (PCA view)") : tr(" (dims 1-2 view)");
    }
    // The renderer in the tooltip (and Help → About): its long name took a third of a
    // 1280-pixel status bar and cut the iteration's numbers off.
    status_detail_->setToolTip(view_->renderer().isEmpty() ? QString() : tr("OpenGL: %1").arg(view_->renderer()));
    if (!view_->interop_message().isEmpty()) detail += QStringLiteral("   ") + view_->interop_message();
    status_detail_->setText(detail);
    iteration_label_->setText(mode().status_text());
    iteration_label_->setToolTip(iteration_label_->text());  // the whole line, where the window cuts it
}

QString MainWindow::status_line() const { return iteration_label_->text(); }

// ---------------------------------------------------------------- banner

void MainWindow::show_error(const QString& message) {
    last_error_ = message;
    statusBar()->showMessage(tr("Error: %1").arg(message), 15000);
    banner_->show_message(message, true);
    update_actions();
}

void MainWindow::show_hint(const QString& message) {
    if (banner_->error() && !banner_->isHidden()) {
        statusBar()->showMessage(message, 8000);  // an error stays in front until dismissed
        return;
    }
    banner_->show_message(message, false);
}

void MainWindow::ask(const QString& message, const QString& action, std::function<void()> confirmed,
                     std::function<void()> declined) {
    banner_->ask(message, action, std::move(confirmed), std::move(declined));
}

bool MainWindow::confirm_banner() { return banner_->confirm(); }
QString MainWindow::banner_text() const { return banner_->text(); }
void MainWindow::dismiss_banner() { banner_->dismiss(); }

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // ← and → belong to a text field only while the user is typing in it: after Tab (or
    // a click elsewhere) they step again. Typing marks the field, leaving it clears the mark.
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut) field_being_edited_ = nullptr;
    if (event->type() == QEvent::ShortcutOverride && watched != field_being_edited_) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Left || key->key() == Qt::Key_Right) && key->modifiers() == Qt::NoModifier &&
            (qobject_cast<QLineEdit*>(watched) || qobject_cast<QAbstractSpinBox*>(watched))) {
            event->ignore();  // not taken by the field: the transport's shortcut fires
            return true;
        }
    }
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (!key->text().isEmpty() || key->key() == Qt::Key_Backspace || key->key() == Qt::Key_Delete)
            field_being_edited_ = watched;
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter || key->key() == Qt::Key_Escape) {
            // After the field has taken its value, the view gets the focus back, so
            // the transport's keys (→, Space, End) act again without a click.
            QTimer::singleShot(0, this, [this] { mode().centre()->setFocus(Qt::ShortcutFocusReason); });
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

// ---------------------------------------------------------------- replay files, paint tool, export

QString MainWindow::save_run(const QString& path) { return save_run_file(*controller_, path); }

int MainWindow::open_run(const QString& path, bool step_to_recorded) {
    const RunFile run = read_run_file(path.toStdString());  // throws naming file and line
    mode().leave();
    controller_->set_k_from_data(false);
    controller_->open_run(run, step_to_recorded);
    solver_panel().set_setup(controller_->setup());
    return run.steps;
}

AnimationExport* MainWindow::export_animation(const QString& path, QSize size) {
    if (size.width() < 16 || size.height() < 16 || size.width() > 8192 || size.height() > 8192) {
        show_error(tr("animation frames of %1x%2 pixels: choose 16x16 to 8192x8192").arg(size.width()).arg(size.height()));
        return nullptr;
    }
    auto* job = new AnimationExport(*controller_, *view_, size, controller_->half_steps(), path, this);
    connect(job, &AnimationExport::finished, job, &QObject::deleteLater);
    QTimer::singleShot(0, job, &AnimationExport::start);
    return job;
}

void MainWindow::set_paint_mode(bool on) {
    if (on) paint_->start_on_canvas();
    if (on) set_projection_mode(ProjectionMode::FirstTwoDimensions);  // the canvas stays where it is
    view_->set_paint_mode(on);
}

void MainWindow::set_paint_class(int cls) { paint_->set_class(cls); }
void MainWindow::set_paint_density(int points_per_dab) { paint_->set_density(points_per_dab); }
void MainWindow::paint_at(QPointF world, double radius_world) { paint_->paint_at(world, radius_world); }
void MainWindow::save_drawing(const QString& path) { paint_->save(path); }
std::size_t MainWindow::drawn_points() const { return paint_->drawn_points(); }

void MainWindow::clear_drawing() {
    paint_->clear();
    show_hint(tr("Empty canvas: tick \"Draw points\" and drag on the view"));
}

bool MainWindow::scores_idle() const { return scores_->idle() && compare_->scores_idle(); }

void MainWindow::export_png(const QString& path) { ::kms::ui::export_png(*this, path); }
void MainWindow::export_labels(const QString& path) { ::kms::ui::export_labels(*controller_, path); }
void MainWindow::export_centroids(const QString& path) { ::kms::ui::export_centroids(*controller_, path); }
void MainWindow::export_report(const QString& path) { ::kms::ui::export_report(*controller_, path); }
void MainWindow::export_charts(const QString& path) { charts_->exportCsv(path.toStdString()); }

}  // namespace kms::ui
