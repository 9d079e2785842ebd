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
#include "run/solver_panel.hpp"
#include "run/studio_options.hpp"
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

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), controller_(std::make_unique<RunController>()), compare_(std::make_unique<CompareSession>()),
      compare_scores_(std::make_unique<CompareScores>()) {
    setWindowTitle(tr("k-means studio"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/kmeans-studio.png")));
    setAcceptDrops(true);

    stack_ = new QStackedWidget(this);
    view_ = new PointCloudView(stack_);
    compare_view_ = new CompareView(compare_.get(), stack_);
    stack_->addWidget(view_);
    stack_->addWidget(compare_view_);
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

    charts_ = new IterationCharts(this);
    auto* charts_dock = new QDockWidget(tr("Iterations"), this);
    charts_dock->setObjectName(QStringLiteral("charts"));
    charts_dock->setWidget(charts_);
    addDockWidget(Qt::BottomDockWidgetArea, charts_dock);
    charts_->setColumns(6);  // one row: the point view keeps most of the height
    connect(charts_, &IterationCharts::iterationClicked, this, [this](int iteration) {
        if (compare_mode_) return;
        while (controller_->displayed_iteration() > iteration && controller_->displayed_iteration() > 0)
            controller_->step_back();
        while (controller_->displayed_iteration() < iteration &&
               controller_->displayed_iteration() < controller_->latest_iteration())
            controller_->step();
    });

    scores_ = new ScoresDock(this);
    scores_dock_ = new QDockWidget(tr("Scores"), this);
    auto* scores_dock = scores_dock_;
    scores_dock->setObjectName(QStringLiteral("scores"));
    scores_dock->setWidget(scores_);
    addDockWidget(Qt::RightDockWidgetArea, scores_dock);

    compare_table_ = new CompareTable(this);
    compare_dock_ = new QDockWidget(tr("Comparison"), this);
    compare_dock_->setObjectName(QStringLiteral("comparison"));
    compare_dock_->setWidget(compare_table_);
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
        ++setup_serial_;
        // CUDA back end: colours are written on the GPU straight into the view's
        // buffer (CUDA–GL interop), unless that already failed for this view.
        const BackendEntry* entry = find_backend(controller_->setup().config.backend);
        const bool on_device = entry && entry->device_labels;
        controller_->set_offer_device_labels(on_device && !view_->interop_failed() &&
                                             gl_interop_availability().available);
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

    connect(compare_.get(), &CompareSession::changed, this, [this] {
        if (compare_mode_) {
            compare_scores_->update(*compare_);  // before the table is rebuilt: a reset run loses its scores
            update_actions();
            refresh_charts();
            refresh_status();
        }
    });
    connect(compare_.get(), &CompareSession::errorOccurred, this, &MainWindow::show_error);
    connect(compare_scores_.get(), &CompareScores::scoresReady, this, [this](int row, const Scores& scores) {
        if (compare_mode_ && row < compare_table_->model()->rowCount()) compare_table_->setScores(row, scores);
    });
    connect(compare_scores_.get(), &CompareScores::scoresCleared, this, [this](int) {
        charted_iterations_ = -1;  // rebuild the table without the stale scores
        if (compare_mode_) refresh_charts();
    });
    connect(compare_scores_.get(), &CompareScores::scoresFailed, this, [this](int row, const QString& message) {
        if (compare_mode_ && std::size_t(row) < compare_->size())
            show_error(tr("Scores of %1: %2").arg(compare_->run(std::size_t(row)).solver_description(), message));
    });

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
    connect(fit, &QPushButton::clicked, this, [this] { compare_mode_ ? compare_view_->fit() : view_->fit(); });
    view_form->addRow(fit);
    layout->addWidget(view);

    auto* compare = new QGroupBox(tr("Compare"), panel);
    auto* compare_form = new QFormLayout(compare);
    compare_specs_ = new QLineEdit(QStringLiteral("lloyd/seq,elkan/omp,hamerly/omp"), compare);
    compare_specs_->setToolTip(tr("2 to 4 of SOLVER/BACKEND[/PRECISION], comma-separated; same data and initial centroids"));
    compare_form->addRow(tr("Solvers"), compare_specs_);
    auto* compare_start = new QPushButton(tr("Compare"), compare);
    auto* compare_stop = new QPushButton(tr("Single view"), compare);
    auto* compare_row = new QHBoxLayout;
    compare_row->addWidget(compare_start);
    compare_row->addWidget(compare_stop);
    compare_form->addRow(compare_row);
    connect(compare_start, &QPushButton::clicked, this, [this] {
        try {
            std::vector<SolverConfig> configs;
            for (const QString& item : compare_specs_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
                configs.push_back(parse_solver_spec(item.trimmed().toStdString(), controller_->setup().config));
            if (configs.size() < 2 || configs.size() > 4) throw Error("compare needs 2 to 4 solvers");
            start_compare(configs);
        } catch (const std::exception& error) {
            show_error(QString::fromStdString(error.what()));
        }
    });
    connect(compare_stop, &QPushButton::clicked, this, [this] { start_compare({}); });
    layout->addWidget(compare);
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
    step_back_ = make(QStyle::SP_MediaSeekBackward, tr("Step back"), QKeySequence(Qt::Key_Left), [this] {
        compare_mode_ ? compare_->step_back_all() : controller_->step_back();
    });
    step_ = make(QStyle::SP_MediaSeekForward, tr("Step"), QKeySequence(Qt::Key_Right), [this] {
        compare_mode_ ? compare_->step_all() : controller_->step();
    });
    run_ = make(QStyle::SP_MediaPlay, tr("Run"), QKeySequence(Qt::Key_Space), [this] {
        if (compare_mode_ ? compare_->any_running() : controller_->running()) {
            compare_mode_ ? compare_->pause_all() : controller_->pause();
        } else {
            compare_mode_ ? compare_->run_all() : controller_->run();
        }
    });
    pause_ = make(QStyle::SP_MediaPause, tr("Pause"), QKeySequence(Qt::Key_P), [this] {
        compare_mode_ ? compare_->pause_all() : controller_->pause();
    });
    converge_ = make(QStyle::SP_MediaSkipForward, tr("Run to convergence"), QKeySequence(Qt::Key_End), [this] {
        compare_mode_ ? compare_->run_all_to_convergence() : controller_->run_to_convergence();
    });
    reset_ = make(QStyle::SP_MediaSkipBackward, tr("Reset"), QKeySequence(Qt::Key_Home), [this] {
        compare_mode_ ? compare_->reset_all() : controller_->reset();
    });
    reseed_ = make(QStyle::SP_BrowserReload, tr("Re-seed"), QKeySequence(Qt::Key_S), [this] {
        RunSetup setup = controller_->setup();
        setup.init.seed += 1;
        solver_panel_->set_setup(setup);
        if (compare_mode_) start_compare({});
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
    if (compare_mode_) start_compare({});
    controller_->set_setup(setup);
}

void MainWindow::start_compare(const std::vector<SolverConfig>& configs) {
    if (configs.empty()) {
        compare_scores_->clear();
        compare_->clear();
        compare_mode_ = false;
        compare_table_->clear();
        scores_dock_->show();
        refresh_view();
        stack_->setCurrentWidget(view_);
        refresh_charts();
        update_actions();
        return;
    }
    if (!controller_->ready()) {
        show_error(tr("Compare needs data and initial centroids first"));
        return;
    }
    controller_->pause();
    compare_mode_ = true;
    stack_->setCurrentWidget(compare_view_);
    compare_dock_->raise();
    // The dock follows the single run; compared runs get their final scores in the compare table.
    scores_->request(nullptr, nullptr, Matrix<double>(), 0);
    scores_dock_->hide();
    compare_view_->set_colour_mode(ColourMode(colour_mode_->currentData().toInt()));
    compare_view_->set_show_voronoi(voronoi_->isChecked());
    compare_view_->set_show_trails(trails_->isChecked());
    compare_view_->set_point_size(point_size_->value());
    charted_iterations_ = -1;
    compare_scores_->clear();
    compare_->start(controller_->dataset(), controller_->setup(), configs, controller_->initial_centroids());
    update_actions();
}

void MainWindow::set_colour_mode(ColourMode mode) {
    const int index = colour_mode_->findData(int(mode));
    if (index != colour_mode_->currentIndex()) {
        colour_mode_->setCurrentIndex(index);  // calls back here
        return;
    }
    view_->set_colour_mode(mode == ColourMode::Difference ? ColourMode::Labels : mode);
    compare_view_->set_colour_mode(mode);
}

void MainWindow::set_show_voronoi(bool show) {
    if (voronoi_->isChecked() != show) voronoi_->setChecked(show);
    view_->set_show_voronoi(show);
    compare_view_->set_show_voronoi(show);
}

void MainWindow::set_show_trails(bool show) {
    if (trails_->isChecked() != show) trails_->setChecked(show);
    view_->set_show_trails(show);
    compare_view_->set_show_trails(show);
}

void MainWindow::set_point_size(double pixels) {
    if (point_size_->value() != pixels) point_size_->setValue(pixels);
    view_->set_point_size(pixels);
    compare_view_->set_point_size(pixels);
}

void MainWindow::set_projection_mode(ProjectionMode mode) {
    const int index = projection_->findData(int(mode));
    if (index != projection_->currentIndex()) projection_->setCurrentIndex(index);
    controller_->set_projection_mode(mode);
}

// ---------------------------------------------------------------- display

void MainWindow::refresh_view() {
    show_run_in_view(*controller_, *view_);
    if (!compare_mode_)
        scores_->request(controller_->dataset().dataset, controller_->displayed_labels(),
                         controller_->displayed_centroids(), controller_->displayed_iteration());
    refresh_status();
    if (charts_) charts_->setCurrentIteration(controller_->displayed_iteration());
    update_actions();
}

void MainWindow::refresh_charts() {
    if (!charts_) return;
    if (compare_mode_) {
        // One overlaid series per run.
        std::size_t total = 0;
        for (std::size_t i = 0; i < compare_->size(); ++i) total += compare_->run(i).history().size();
        if (int(total) == charted_iterations_) return;
        charted_iterations_ = int(total);
        charts_->clear();
        std::vector<CompareEntry> entries;
        for (std::size_t i = 0; i < compare_->size(); ++i) {
            const RunController& run = compare_->run(i);
            charts_->addRun(run.solver_description(), run.dataset().n(), run.initial_centroids().rows(), run.stats_history());
            CompareEntry entry;
            entry.name = run.solver_description();
            entry.n = run.dataset().n();
            entry.k = run.initial_centroids().rows();
            entry.stats = run.stats_history();
            entry.scores = compare_scores_->scores(i);
            entries.push_back(std::move(entry));
        }
        const int selected = compare_table_->selectedSolver();
        compare_table_->setEntries(std::move(entries));
        if (selected >= 0 && selected < int(compare_->size())) compare_table_->selectSolver(selected);
        return;
    }
    const auto& run = *controller_;
    const int iterations = run.latest_iteration();
    if (charted_setup_ == setup_serial_ && iterations == charted_iterations_ + 1 && iterations >= 1 &&
        charts_->runCount() == 1) {
        charts_->appendIteration(run.history().back().stats);
    } else {
        charts_->setRun(run.dataset().n(), run.initial_centroids().rows(), run.stats_history(), run.solver_description());
    }
    charted_iterations_ = iterations;
    charted_setup_ = setup_serial_;
    charts_->setCurrentIteration(run.displayed_iteration());
}

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
    if (compare_mode_) {
        QStringList runs;
        for (std::size_t i = 0; i < compare_->size(); ++i)
            runs << QStringLiteral("%1 @ %2").arg(compare_->run(i).solver_description()).arg(compare_->run(i).displayed_iteration());
        iteration_label_->setText(tr("Comparing: %1").arg(runs.join(QStringLiteral(", "))));
        return;
    }
    QString iteration = tr("%1   iteration %2 / %3").arg(run.solver_description()).arg(run.displayed_iteration()).arg(
        std::max(0, run.latest_iteration()));
    if (run.displayed_iteration() > 0) {
        const IterationStats& stats = run.history()[std::size_t(run.displayed_iteration())].stats;
        iteration += tr("   %1 ms   %2 changed").arg(stats.time_total_ms, 0, 'f', 2).arg(stats.labels_changed);
    }
    if (run.converged()) iteration += tr("   converged (%1)").arg(QString::fromUtf8(to_string(run.stop_reason()).data()));
    iteration_label_->setText(iteration);
}

void MainWindow::update_actions() {
    const bool ready = compare_mode_ ? compare_->all_ready() : controller_->ready();
    const bool running = compare_mode_ ? compare_->any_running() : controller_->running();
    const bool converged = compare_mode_ ? compare_->all_converged() : controller_->converged();
    const int shown = compare_mode_ ? 1 : controller_->displayed_iteration();
    const bool replay = !compare_mode_ && controller_->displayed_iteration() < controller_->latest_iteration();
    step_->setEnabled(ready && !running && (!converged || replay));
    step_back_->setEnabled(ready && shown > 0);
    run_->setEnabled(ready && (!converged || running));
    run_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    run_->setText(running ? tr("Pause") : tr("Run"));
    pause_->setEnabled(running);
    converge_->setEnabled(ready && !running && !converged);
    reset_->setEnabled(ready && !running);
    reseed_->setEnabled(controller_->has_data() && !running);
}

void MainWindow::show_error(const QString& message) {
    last_error_ = message;
    statusBar()->showMessage(tr("Error: %1").arg(message), 15000);
    update_actions();
}

bool MainWindow::scores_idle() const { return scores_->idle() && compare_scores_->idle(); }

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
