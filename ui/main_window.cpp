#include "main_window.hpp"

#include "kms/backends.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>

#include <numeric>
#include <sstream>

#include "charts/iteration_charts.hpp"
#include "compare/compare_table.hpp"
#include "compare/compare_view.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/gl_interop.hpp"
#include "kms/io.hpp"
#include "kms/report.hpp"
#include "kms/scores.hpp"
#include "run/run_view.hpp"
#include "run/single_run_mode.hpp"
#include "run/solver_panel.hpp"
#include "scores/scores_dock.hpp"

namespace kms::ui {

namespace {

struct Example {
    const char* title;
    const char* spec;
    std::uint64_t seed;
    int k;
};
// Made by our generators with fixed seeds, so every classroom sees the same pictures.
constexpr Example kExamples[] = {
    {"Blobs (5 clusters)", "blobs:n=3000,k=5,d=2", 7, 5},
    {"Varied density", "varied:n=3000", 11, 3},
    {"Anisotropic", "anisotropic:n=3000", 170, 3},
    {"Moons", "moons:n=2000", 3, 2},
    {"Circles", "circles:n=2000", 5, 2},
    {"He 4D set", "he4d", 1, 4},
    {"Blobs, 1M points", "blobs:n=1000000,k=20,d=2", 42, 20},
};

}  // namespace

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

    // Centre: the single run's point view, or the comparison's split view. The
    // transport, charts and status line act on the active mode: single run or comparison.
    stack_ = new QStackedWidget(this);
    view_ = new PointCloudView(stack_);
    charts_ = new IterationCharts(this);
    single_ = std::make_unique<SingleRunMode>(*controller_, *charts_, *view_);
    compare_ = std::make_unique<CompareMode>(*controller_, *charts_);
    stack_->addWidget(view_);
    stack_->addWidget(compare_->view());
    setCentralWidget(stack_);

    auto* side = new QDockWidget(tr("Data and solver"), this);
    side->setObjectName(QStringLiteral("side"));
    side->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    auto* scroll = new QScrollArea(side);
    scroll->setWidget(build_side_panel());
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(scroll->widget()->sizeHint().width() + 24);
    side->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, side);

    auto* charts_dock = new QDockWidget(tr("Iterations"), this);
    charts_dock->setObjectName(QStringLiteral("charts"));
    charts_dock->setWidget(charts_);
    addDockWidget(Qt::BottomDockWidgetArea, charts_dock);
    charts_->setColumns(6);  // one row: the point view keeps most of the height
    connect(charts_, &IterationCharts::iterationClicked, this,
            [this](int iteration) { mode().show_iteration(iteration); });

    scores_ = new ScoresDock(this);
    scores_dock_ = new QDockWidget(tr("Scores"), this);
    auto* scores_dock = scores_dock_;
    scores_dock->setObjectName(QStringLiteral("scores"));
    scores_dock->setWidget(scores_);
    addDockWidget(Qt::RightDockWidgetArea, scores_dock);

    compare_dock_ = new QDockWidget(tr("Comparison"), this);
    compare_dock_->setObjectName(QStringLiteral("comparison"));
    compare_dock_->setWidget(compare_->table());
    addDockWidget(Qt::BottomDockWidgetArea, compare_dock_);
    tabifyDockWidget(charts_dock, compare_dock_);
    charts_dock->raise();

    build_actions();
    iteration_label_ = new QLabel(this);
    status_detail_ = new QLabel(this);
    statusBar()->addPermanentWidget(status_detail_);
    statusBar()->addPermanentWidget(iteration_label_);

    RunController* c = controller_.get();
    connect(c, &RunController::datasetChanged, this, [this] {
        view_->set_points(controller_->dataset().projected);
        view_->fit();
        refresh_status();
    });
    connect(c, &RunController::frameChanged, this, &MainWindow::refresh_view);
    connect(c, &RunController::historyChanged, this, &MainWindow::refresh_charts);
    connect(c, &RunController::setupChanged, this, [this] {
        // CUDA back end: colours are written on the GPU straight into the view's
        // buffer (CUDA–GL interop), unless that already failed for this view.
        const BackendEntry* entry = find_backend(controller_->setup().config.backend);
        const bool on_device = entry && entry->device_labels;
        controller_->set_offer_device_labels(on_device && !view_->interop_failed() &&
                                             gl_interop_availability().available);
        scores_->set_where(controller_->setup().config);
        if (controller_->ready()) {
            RunSetup shown = controller_->setup();
            solver_panel_->set_setup(shown);
        }
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
    connect(c, &RunController::deviceLabelsReady, this, [this](const void* labels, const void* status, quint64 n) {
        // Called while the worker waits: the device pointers are valid now.
        view_->write_device_colours(labels, status, n, controller_->latest_iteration() + 1);
    });
    connect(view_, &PointCloudView::centroidDragged, this, [this](int index, QPointF world) {
        controller_->move_initial_centroid(std::size_t(index), world.x(), world.y());
    });
    connect(view_, &PointCloudView::glInitialised, this, [this](const QString&) { refresh_status(); });

    CompareMode* compare = compare_.get();
    connect(compare, &CompareMode::entered, this, [this] {
        stack_->setCurrentWidget(compare_->view());
        compare_dock_->raise();
        // The dock follows the single run; compared runs get their final scores in the compare table.
        scores_->request(nullptr, nullptr, Matrix<double>(), 0);
        scores_dock_->hide();
        update_actions();
    });
    connect(compare, &CompareMode::left, this, [this] {
        scores_dock_->show();
        refresh_view();
        stack_->setCurrentWidget(view_);
        refresh_charts();
        update_actions();
    });
    connect(compare, &CompareMode::changed, this, [this] {
        update_actions();
        refresh_charts();
        refresh_status();
    });
    connect(compare, &CompareMode::errorOccurred, this, &MainWindow::show_error);

    controller_->set_projection_mode(ProjectionMode::Pca);
    resize(1400, 900);
    resizeDocks({charts_dock}, {220}, Qt::Vertical);
    resizeDocks({side, scores_dock}, {330, 330}, Qt::Horizontal);
    update_actions();
}

MainWindow::~MainWindow() = default;

QWidget* MainWindow::build_side_panel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);

    auto* data = new QGroupBox(tr("Data"), panel);
    auto* data_form = new QFormLayout(data);
    auto* open = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open file..."), data);
    connect(open, &QPushButton::clicked, this, &MainWindow::choose_file);
    data_form->addRow(open);
    examples_ = new QComboBox(data);
    examples_->addItem(tr("Examples..."));
    for (const Example& example : kExamples) examples_->addItem(tr(example.title));
    connect(examples_, &QComboBox::activated, this, [this](int index) {
        if (index <= 0) return;
        const Example& example = kExamples[index - 1];
        RunSetup setup = controller_->setup();
        setup.k = std::size_t(example.k);
        controller_->set_setup(setup);
        solver_panel_->set_setup(setup);
        generator_spec_->setText(QString::fromLatin1(example.spec));
        generator_seed_->setValue(int(example.seed));
        controller_->generate(QString::fromLatin1(example.spec), example.seed);
        examples_->setCurrentIndex(0);
    });
    data_form->addRow(tr("Gallery"), examples_);
    generator_spec_ = new QLineEdit(QString::fromLatin1(kFallbackSpec), data);
    generator_spec_->setToolTip(QString::fromStdString(generator_help()));
    data_form->addRow(tr("Generator"), generator_spec_);
    generator_seed_ = new QSpinBox(data);
    generator_seed_->setRange(0, std::numeric_limits<int>::max());
    generator_seed_->setValue(int(kFallbackSeed));
    auto* generate = new QPushButton(tr("Generate"), data);
    auto* seed_row = new QHBoxLayout;
    seed_row->addWidget(generator_seed_, 1);
    seed_row->addWidget(generate);
    data_form->addRow(tr("Seed"), seed_row);
    connect(generate, &QPushButton::clicked, this, [this] {
        controller_->generate(generator_spec_->text(), std::uint64_t(generator_seed_->value()));
    });
    connect(generator_spec_, &QLineEdit::returnPressed, generate, &QPushButton::click);
    projection_ = new QComboBox(data);
    projection_->addItem(tr("PCA (2 leading components)"), int(ProjectionMode::Pca));
    projection_->addItem(tr("First two dimensions"), int(ProjectionMode::FirstTwoDimensions));
    projection_->setToolTip(tr("Data with more than 2 dimensions is clustered in full and shown through this projection"));
    connect(projection_, &QComboBox::currentIndexChanged, this,
            [this] { set_projection_mode(ProjectionMode(projection_->currentData().toInt())); });
    data_form->addRow(tr("Projection"), projection_);
    layout->addWidget(data);

    auto* solver = new QGroupBox(tr("Solver"), panel);
    auto* solver_layout = new QVBoxLayout(solver);
    solver_panel_ = new SolverPanel(solver);
    solver_layout->addWidget(solver_panel_);
    connect(solver_panel_, &SolverPanel::setupEdited, this, &MainWindow::apply_setup);
    layout->addWidget(solver);

    auto* view = new QGroupBox(tr("View"), panel);
    auto* view_form = new QFormLayout(view);
    colour_mode_ = new QComboBox(view);
    colour_mode_->addItem(tr("Cluster labels"), int(ColourMode::Labels));
    colour_mode_->addItem(tr("Bounds: skipped / recomputed"), int(ColourMode::Bounds));
    colour_mode_->addItem(tr("Compare: labels that differ"), int(ColourMode::Difference));
    colour_mode_->setToolTip(tr("Bounds: green points were skipped by this iteration's bounds, red ones recomputed"));
    connect(colour_mode_, &QComboBox::currentIndexChanged, this,
            [this] { set_colour_mode(ColourMode(colour_mode_->currentData().toInt())); });
    view_form->addRow(tr("Colour"), colour_mode_);
    voronoi_ = new QCheckBox(tr("Voronoi cells"), view);
    voronoi_->setToolTip(tr("Nearest centroid per pixel; for d > 2, of the projected centroids (the true cells are in d dimensions)"));
    connect(voronoi_, &QCheckBox::toggled, this, &MainWindow::set_show_voronoi);
    trails_ = new QCheckBox(tr("Centroid trails"), view);
    trails_->setChecked(true);
    connect(trails_, &QCheckBox::toggled, this, &MainWindow::set_show_trails);
    view_form->addRow(voronoi_);
    view_form->addRow(trails_);
    point_size_ = new QDoubleSpinBox(view);
    point_size_->setRange(1.0, 32.0);
    point_size_->setSingleStep(0.5);
    point_size_->setValue(view_->point_size());
    connect(point_size_, &QDoubleSpinBox::valueChanged, this, &MainWindow::set_point_size);
    view_form->addRow(tr("Point size"), point_size_);
    auto* fit = new QPushButton(tr("Fit (F)"), view);
    connect(fit, &QPushButton::clicked, this, [this] { mode().fit_view(); });
    view_form->addRow(fit);
    layout->addWidget(view);

    layout->addWidget(compare_->controls());
    layout->addStretch(1);
    return panel;
}

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
    reseed_ = make(QStyle::SP_BrowserReload, tr("Re-seed"), QKeySequence(Qt::Key_S), [this] {
        RunSetup setup = controller_->setup();
        setup.init.seed += 1;
        solver_panel_->set_setup(setup);
        if (compare_->active()) compare_->leave();  // a new seed ends the comparison
        controller_->reseed(setup.init.seed);
    });
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
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    auto* run = menuBar()->addMenu(tr("&Run"));
    for (QAction* action : {step_back_, step_, run_, pause_, converge_, reset_, reseed_}) run->addAction(action);
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
                                                      tr("Data (*.csv *.tsv *.txt *.npy *.data);;All files (*)"));
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
    if (compare_->active()) compare_->leave();  // a new set-up ends the comparison
    controller_->set_setup(setup);
}

void MainWindow::start_compare(const std::vector<SolverConfig>& configs) { compare_->start(configs); }

RunMode& MainWindow::mode() { return compare_->active() ? static_cast<RunMode&>(*compare_) : *single_; }

void MainWindow::set_colour_mode(ColourMode mode) {
    const int index = colour_mode_->findData(int(mode));
    if (index != colour_mode_->currentIndex()) {
        colour_mode_->setCurrentIndex(index);  // calls back here
        return;
    }
    view_->set_colour_mode(mode == ColourMode::Difference ? ColourMode::Labels : mode);
    compare_->view()->set_colour_mode(mode);
}

void MainWindow::set_show_voronoi(bool show) {
    if (voronoi_->isChecked() != show) voronoi_->setChecked(show);
    view_->set_show_voronoi(show);
    compare_->view()->set_show_voronoi(show);
}

void MainWindow::set_show_trails(bool show) {
    if (trails_->isChecked() != show) trails_->setChecked(show);
    view_->set_show_trails(show);
    compare_->view()->set_show_trails(show);
}

void MainWindow::set_point_size(double pixels) {
    if (point_size_->value() != pixels) point_size_->setValue(pixels);
    view_->set_point_size(pixels);
    compare_->view()->set_point_size(pixels);
}

void MainWindow::set_projection_mode(ProjectionMode mode) {
    const int index = projection_->findData(int(mode));
    if (index != projection_->currentIndex()) projection_->setCurrentIndex(index);
    controller_->set_projection_mode(mode);
}

// ---------------------------------------------------------------- display

void MainWindow::refresh_view() {
    show_run_in_view(*controller_, *view_);
    // The scores dock follows the single run (and is put aside while comparing).
    if (!compare_->active())
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
    if (!view_->renderer().isEmpty()) detail += tr("   GL: %1").arg(view_->renderer());
    if (!view_->interop_message().isEmpty()) detail += QStringLiteral("   ") + view_->interop_message();
    status_detail_->setText(detail);
    iteration_label_->setText(mode().status_text());
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

void MainWindow::show_error(const QString& message) {
    last_error_ = message;
    statusBar()->showMessage(tr("Error: %1").arg(message), 15000);
    update_actions();
}

bool MainWindow::scores_idle() const { return scores_->idle() && compare_->scores_idle(); }

// ---------------------------------------------------------------- export

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

void MainWindow::export_png(const QString& path) {
    const QImage image = grab().toImage();
    if (image.isNull() || !image.save(path, "PNG")) throw Error(path.toStdString() + ": could not write the PNG image");
}

void MainWindow::export_labels(const QString& path) {
    const LabelsPtr labels = controller_->displayed_labels();
    if (!labels) throw Error("no labels yet: step at least once before exporting labels");
    write_labels(path.toStdString(), *labels);
}

void MainWindow::export_centroids(const QString& path) {
    if (!controller_->ready()) throw Error("no centroids yet: load data first");
    write_centroids_csv(path.toStdString(), controller_->displayed_centroids());
}

void MainWindow::export_report(const QString& path) {
    const RunController& run = *controller_;
    if (!run.ready()) throw Error("no run yet: load data first");
    std::ostringstream out;
    RunSummary summary;
    summary.solver = run.solver_description().toStdString();
    summary.data = run.dataset().dataset->name;
    summary.n = run.dataset().n();
    summary.d = run.dataset().d();
    summary.k = run.initial_centroids().rows();
    summary.iterations = run.latest_iteration();
    summary.stop_reason = run.stop_reason();
    summary.converged = run.stop_reason() == StopReason::NoLabelChange || run.stop_reason() == StopReason::Tolerance;
    for (const IterationStats& stats : run.stats_history()) {
        out << to_json(stats) << '\n';
        summary.total_time_ms += stats.time_total_ms;
    }
    // Of the final labels and centroids, as kmeans-cli reports it.
    const LabelsPtr labels = run.latest_labels();
    summary.inertia = labels && run.latest_iteration() > 0
                          ? inertia(run.dataset().dataset->points, *labels, run.history().back().centroids)
                          : 0.0;
    out << to_json(summary) << '\n';
    write_text_file(path.toStdString(), out.str());
}

void MainWindow::export_charts(const QString& path) { charts_->exportCsv(path.toStdString()); }

}  // namespace kms::ui
