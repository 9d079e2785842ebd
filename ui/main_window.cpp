#include "main_window.hpp"

#include "kms/backends.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDateTime>
#include <QDragEnterEvent>
#include <QFrame>
#include <QInputDialog>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QTimer>
#include <QToolButton>
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
#include <QScreen>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>

#include <numeric>
#include <utility>
#include <sstream>

#include "charts/iteration_charts.hpp"
#include "compare/compare_table.hpp"
#include "compare/compare_view.hpp"
#include "export/animation_export.hpp"
#include "export/mp4_encoder.hpp"
#include "kms/random.hpp"
#include "kms/run_file.hpp"
#include "run/openmp_policy.hpp"
#include "run/studio_files.hpp"
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
#include "sweep/sweep_panel.hpp"
#include "geo/geo_view.hpp"
#include "lesson/lesson.hpp"
#include "spectral/spectral_panel.hpp"
#include "spectral/spectral_pipeline.hpp"

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
    {"Cities (latitude/longitude)", "geo-cities:n=4000,k=8,spread_km=30,lat_min=42,lat_max=50,lon_min=-2,lon_max=9", 5, 8},
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
    // A banner over the view for errors (stays until dismissed) and hints.
    auto* centre = new QWidget(this);
    auto* centre_layout = new QVBoxLayout(centre);
    centre_layout->setContentsMargins(0, 0, 0, 0);
    centre_layout->setSpacing(0);
    banner_ = new QFrame(centre);
    auto* banner_layout = new QHBoxLayout(banner_);
    banner_layout->setContentsMargins(8, 4, 4, 4);
    banner_label_ = new QLabel(banner_);
    banner_label_->setWordWrap(true);
    banner_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* dismiss = new QToolButton(banner_);
    dismiss->setText(QStringLiteral("✕"));
    dismiss->setToolTip(tr("Dismiss"));
    dismiss->setAutoRaise(true);
    connect(dismiss, &QToolButton::clicked, this, &MainWindow::dismiss_banner);
    banner_action_ = new QPushButton(banner_);
    banner_action_->setObjectName(QStringLiteral("bannerAction"));
    banner_action_->hide();
    connect(banner_action_, &QPushButton::clicked, this, [this] {
        const std::function<void()> confirmed = std::exchange(banner_confirmed_, {});
        banner_declined_ = {};
        dismiss_banner();
        if (confirmed) confirmed();
    });
    banner_layout->addWidget(banner_label_, 1);
    banner_layout->addWidget(banner_action_);
    banner_layout->addWidget(dismiss);
    banner_->hide();
    // Over the view, not above it: a banner that pushed the view down ~30 px made the
    // next click miss the marker it aimed at (issue 36).
    banner_->setAutoFillBackground(true);
    centre_layout->addWidget(stack_, 1);
    centre->installEventFilter(this);  // keeps the banner across the top on resize
    setCentralWidget(centre);

    auto* side = new QDockWidget(tr("Data and solver"), this);
    side_dock_ = side;
    side->setObjectName(QStringLiteral("side"));
    side->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    auto* scroll = new QScrollArea(side);
    side_panel_ = build_side_panel();
    scroll->setWidget(side_panel_);
    scroll->setWidgetResizable(true);
    // Narrow windows scroll the panel rather than squeeze the view.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    scroll->setMinimumWidth(160);
    side->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, side);
    // Enter in a field hands the keys back to the transport (→, Space, End ...).
    for (QWidget* child : side_panel_->findChildren<QWidget*>()) child->installEventFilter(this);
    // Combo boxes elide their text rather than set the panel's width: at 1280×720 the
    // widest ones pushed Generate, Clear and the spin arrows out of sight (issue 36).
    for (QComboBox* combo : side_panel_->findChildren<QComboBox*>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(4);
        combo->setMinimumWidth(90);  // an explicit minimum: layouts then ignore the text's width
    }
    for (QAbstractSpinBox* box : side_panel_->findChildren<QAbstractSpinBox*>()) box->setMinimumWidth(64);

    auto* charts_dock = new QDockWidget(tr("Iterations"), this);
    charts_dock_ = charts_dock;
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
    // In a scroll area: long values wrap or scroll, they never widen the dock.
    auto* scores_scroll = new QScrollArea(scores_dock);
    scores_scroll->setWidget(scores_);
    scores_scroll->setWidgetResizable(true);
    scores_scroll->setMinimumWidth(160);
    scores_dock->setWidget(scores_scroll);
    addDockWidget(Qt::RightDockWidgetArea, scores_dock);

    compare_dock_ = new QDockWidget(tr("Comparison"), this);
    compare_dock_->setObjectName(QStringLiteral("comparison"));
    compare_dock_->setWidget(compare_->table());
    addDockWidget(Qt::BottomDockWidgetArea, compare_dock_);
    tabifyDockWidget(charts_dock, compare_dock_);
    compare_dock_->hide();  // only while comparing: an empty tab would hide the charts
    charts_dock->raise();
    sweep_ = new SweepPanel(*controller_, this);
    sweep_dock_ = new QDockWidget(tr("Elbow (k sweep)"), this);
    sweep_dock_->setObjectName(QStringLiteral("sweep"));
    sweep_dock_->setWidget(sweep_);
    addDockWidget(Qt::RightDockWidgetArea, sweep_dock_);
    // Below the scores, never beside or over them: beside, they took the view to 475 of 1280 px.
    splitDockWidget(scores_dock, sweep_dock_, Qt::Vertical);
    sweep_dock_->hide();  // Run ▸ Sweep k (elbow chart)
    connect(sweep_, &SweepPanel::message, this, &MainWindow::show_error);
    // The spectral pipeline (ui/spectral): its panel in a dock, its view in the centre while the dock is open.
    spectral_ = std::make_unique<SpectralPipeline>(*controller_);
    stack_->addWidget(spectral_->view());
    spectral_dock_ = new QDockWidget(tr("Spectral (k-means representatives)"), this);
    spectral_dock_->setObjectName(QStringLiteral("spectral"));
    auto* spectral_scroll = new QScrollArea(spectral_dock_);
    spectral_scroll->setWidget(spectral_->panel());
    spectral_scroll->setWidgetResizable(true);
    spectral_scroll->setMinimumWidth(160);
    spectral_dock_->setWidget(spectral_scroll);
    addDockWidget(Qt::RightDockWidgetArea, spectral_dock_);
    splitDockWidget(scores_dock, spectral_dock_, Qt::Vertical);
    spectral_dock_->hide();
    for (QDockWidget* dock : {side, scores_dock, charts_dock, compare_dock_, spectral_dock_, sweep_dock_}) {
        connect(dock, &QDockWidget::topLevelChanged, this, [this] { keep_view_share(); });
        connect(dock, &QDockWidget::dockLocationChanged, this, [this] { keep_view_share(); });
        connect(dock, &QDockWidget::visibilityChanged, this, [this] { keep_view_share(); });
    }

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

    RunController* c = controller_.get();
    connect(c, &RunController::datasetChanged, this, [this] {
        view_->set_points(controller_->dataset().projected);
        const DatasetBundle& bundle = controller_->dataset();
        view_->set_map_overlay(bundle.geo ? map_overlay(*bundle.geo, bundle.projection) : MapOverlay{});
        if (!view_->paint_mode()) view_->fit();  // painting keeps the canvas where it is
        // Break opportunities after / and , : a long path or spec wraps instead of widening the panel.
        QString source = controller_->data_source();
        source.replace(QLatin1Char('/'), QStringLiteral("/\u200b")).replace(QLatin1Char(','), QStringLiteral(",\u200b"));
        source_label_->setText(source);
        source_label_->setToolTip(controller_->data_source());
        if (controller_->generator_spec().empty()) {
            // The generator fields describe the next generation, not the data shown.
            generator_spec_->clear();
        } else {
            // Generated data (also from the command line or a replay): the fields say how.
            generator_spec_->setText(QString::fromStdString(controller_->generator_spec()));
            generator_seed_->setValue(int(std::min<std::uint64_t>(controller_->generator_seed(),
                                                                  std::uint64_t(std::numeric_limits<int>::max()))));
        }
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
    lesson_ = new Lesson(*controller_, *view_, this);
    connect(view_, &PointCloudView::lessonClicked, lesson_, &Lesson::place);
    connect(view_, &PointCloudView::lessonUndo, lesson_, &Lesson::undo);
    connect(lesson_, &Lesson::messageChanged, this, [this](const QString& message) {
        if (message.isEmpty()) {
            if (!banner_is_error_) dismiss_banner();
        } else {
            show_hint(message);
        }
    });
    drawing_commit_ = new QTimer(this);
    drawing_commit_->setSingleShot(true);
    drawing_commit_->setInterval(200);
    connect(drawing_commit_, &QTimer::timeout, this, &MainWindow::commit_drawing);
    connect(view_, &PointCloudView::glInitialised, this, [this](const QString&) { refresh_status(); });

    CompareMode* compare = compare_.get();
    connect(compare, &CompareMode::entered, this, [this] {
        size_before_compare_ = size();
        stack_->setCurrentWidget(compare_->view());
        compare_dock_->show();
        compare_dock_->raise();
        QTimer::singleShot(0, this, [this] {  // once the tab is in place
            if (compare_->active()) resizeDocks({compare_dock_}, {compare_dock_->maximumHeight()}, Qt::Vertical);
        });
        // The dock follows the single run; compared runs get their final scores in the compare table.
        scores_->request(nullptr, nullptr, Matrix<double>(), 0);
        scores_dock_->hide();
        update_actions();
        QTimer::singleShot(0, this, &MainWindow::keep_on_screen);
    });
    connect(compare, &CompareMode::left, this, [this] {
        compare_dock_->hide();  // its empty table would stay in front of the charts
        charts_dock_->raise();
        if (!presentation_) scores_dock_->show();
        keep_view_share();
        // Showing the scores dock again must not grow the window (without a window manager, past the screen).
        if (size_before_compare_.isValid() && size() != size_before_compare_ && !isMaximized())
            resize(size_before_compare_);
        QTimer::singleShot(0, this, &MainWindow::keep_on_screen);
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
    resize(preferred_size(screen()->availableGeometry().size()));
    resizeDocks({charts_dock}, {220}, Qt::Vertical);
    resizeDocks({side, scores_dock}, {300, 260}, Qt::Horizontal);
    keep_view_share();
    update_actions();
}

MainWindow::~MainWindow() {
    // Closing hides the docks, whose signals would reach a half-destroyed window.
    for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->disconnect(this);
}

QSize MainWindow::preferred_size(QSize available) {
    // 1400×900 where it fits, else the screen's free area (a 1280×720 projector):
    // a window that opened larger cut off the Scores dock and the charts (issue 36).
    return QSize(std::min(1400, available.width()), std::min(900, available.height()));
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

QWidget* MainWindow::build_side_panel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);

    auto* data = new QGroupBox(tr("Data"), panel);
    auto* data_form = new QFormLayout(data);
    source_label_ = new QLabel(tr("none"), data);
    source_label_->setWordWrap(true);
    source_label_->setStyleSheet(QStringLiteral("font-weight: bold;"));
    data_form->addRow(tr("Showing"), source_label_);
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
    generator_spec_->setObjectName(QStringLiteral("generatorSpec"));
    generator_spec_->setToolTip(QString::fromStdString(generator_help()));
    data_form->addRow(tr("Generator"), generator_spec_);
    generator_seed_ = new QSpinBox(data);
    generator_seed_->setObjectName(QStringLiteral("dataSeed"));
    generator_seed_->setRange(0, std::numeric_limits<int>::max());
    generator_seed_->setValue(int(kFallbackSeed));
    auto* generate = new QPushButton(tr("Generate"), data);
    auto* seed_row = new QHBoxLayout;
    seed_row->addWidget(generator_seed_, 1);
    seed_row->addWidget(generate);
    data_form->addRow(tr("Data seed"), seed_row);
    generator_seed_->setToolTip(tr("Seed of the data generator (the solver's initialisation has its own seed)"));
    generator_spec_->setPlaceholderText(QString::fromLatin1(kFallbackSpec));
    connect(generate, &QPushButton::clicked, this, [this] {
        const QString spec = generator_spec_->text().isEmpty() ? generator_spec_->placeholderText() : generator_spec_->text();
        generator_spec_->setText(spec);
        controller_->generate(spec, std::uint64_t(generator_seed_->value()));
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
    colour_mode_->addItem(tr("Membership lines"), int(ColourMode::Membership));
    colour_mode_->setToolTip(tr("Bounds: green points needed fewer than k distances this iteration (the bounds ruled "
                                "centroids out: Elkan's, Hamerly's and Exponion's bounds, Yinyang's global, group and "
                                "local filters), red ones computed all k (every point in Lloyd and in iteration 1)"));
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
    auto* half = new QCheckBox(tr("Half-steps (H)"), view);
    half->setToolTip(tr("→ shows the assignment (points take their nearest centroid), then the update "
                        "(centroids move to their means); ← steps back through both"));
    connect(half, &QCheckBox::toggled, this, &MainWindow::set_half_steps);
    connect(controller_.get(), &RunController::frameChanged, half,
            [this, half] { half->setChecked(controller_->half_steps()); });
    view_form->addRow(half);
    auto* paint_row = new QHBoxLayout;
    auto* paint = new QCheckBox(tr("Draw points"), view);
    paint->setToolTip(tr("Drag on the view to add points (a brush of the chosen size and density) of the chosen "
                         "class; File → Save drawn data writes NAME.csv (x,y) and NAME-labels.txt (the classes, read back as the "
                         "ground truth)"));
    auto* paint_class = new QSpinBox(view);
    paint_class->setRange(0, 31);
    paint_class->setPrefix(tr("class "));
    auto* brush = new QSpinBox(view);
    brush->setRange(4, 200);
    brush->setValue(24);
    brush->setSuffix(tr(" px"));
    brush->setToolTip(tr("Brush radius"));
    auto* density = new QSpinBox(view);
    density->setRange(1, 200);
    density->setValue(paint_density_);
    density->setSuffix(tr(" pts"));
    density->setToolTip(tr("Points per dab"));
    auto* clear = new QPushButton(tr("Clear"), view);
    clear->setToolTip(tr("Start an empty canvas"));
    paint_row->addWidget(paint);
    paint_row->addWidget(paint_class);
    auto* brush_row = new QHBoxLayout;
    brush_row->addWidget(brush);
    brush_row->addWidget(density);
    brush_row->addWidget(clear);
    connect(paint, &QCheckBox::toggled, this, &MainWindow::set_paint_mode);
    connect(paint_class, &QSpinBox::valueChanged, this, [this](int value) { paint_class_ = value; });
    connect(brush, &QSpinBox::valueChanged, this, [this](int value) { view_->set_brush_radius(value); });
    connect(density, &QSpinBox::valueChanged, this, [this](int value) { paint_density_ = value; });
    connect(clear, &QPushButton::clicked, this, &MainWindow::clear_drawing);
    view_form->addRow(paint_row);
    view_form->addRow(brush_row);
    auto* fit = new QPushButton(tr("Fit (F)"), view);
    connect(fit, &QPushButton::clicked, this, [this] { mode().fit_view(); });
    view_form->addRow(fit);
    layout->addWidget(view);

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
    reseed_ = make(QStyle::SP_BrowserReload, tr("Re-seed"), QKeySequence(Qt::Key_S), [this] { request_reseed(); });
    half_steps_ = make(QStyle::SP_ArrowRight, tr("Half-steps"), QKeySequence(Qt::Key_H),
                       [this] { set_half_steps(!controller_->half_steps()); });
    half_steps_->setCheckable(true);
    presentation_action_ = make(QStyle::SP_TitleBarMaxButton, tr("Presentation"), QKeySequence(Qt::Key_F11),
                                [this] { set_presentation(!presentation_); });
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
    for (int i = 0; i < colour_mode_->count(); ++i) {
        QAction* action = colours->addAction(colour_mode_->itemText(i));
        action->setCheckable(true);
        action->setChecked(i == colour_mode_->currentIndex());
        colour_group->addAction(action);
        const ColourMode mode = ColourMode(colour_mode_->itemData(i).toInt());
        connect(action, &QAction::triggered, this, [this, mode] { set_colour_mode(mode); });
        connect(colour_mode_, &QComboBox::currentIndexChanged, action, [action, i](int index) { action->setChecked(index == i); });
    }
    for (QCheckBox* box : {voronoi_, trails_}) {
        QAction* action = view_menu->addAction(box->text());
        action->setCheckable(true);
        action->setChecked(box->isChecked());
        connect(action, &QAction::toggled, box, &QCheckBox::setChecked);
        connect(box, &QCheckBox::toggled, action, &QAction::setChecked);
    }
    view_menu->addAction(tr("&Fit the data (F)"), this, [this] { mode().fit_view(); });
    view_menu->addSeparator();
    for (QDockWidget* dock : {side_dock_, charts_dock_, scores_dock_, compare_dock_, sweep_dock_, spectral_dock_}) {
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

void MainWindow::start_sweep(const KRange& range, bool hierarchy) {
    sweep_dock_->show();
    sweep_dock_->raise();
    sweep_->start_sweep(range, hierarchy);
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
    // A new seed discards the stepped run: ask first, as S does (typing a seed threw
    // the run away at the first digit: issue 36). Other edits restart as before.
    const int steps = compare_->active() ? 1 : controller_->latest_iteration();
    if (setup.init.seed != controller_->setup().init.seed && steps > 0) {
        pending_setup_ = setup;
        ask(tr("Seed %1 re-draws the initial centroids: the %2 iteration(s) of this run are discarded.")
                .arg(setup.init.seed)
                .arg(steps),
            tr("Re-seed"),
            [this] {
                if (compare_->active()) compare_->leave();
                controller_->set_setup(pending_setup_);
            },
            [this] { solver_panel_->set_setup(controller_->setup()); });  // the panel shows the run's seed again
        return;
    }
    if (compare_->active()) compare_->leave();  // a new set-up ends the comparison
    controller_->set_setup(setup);
}

void MainWindow::show_spectral(bool on) {
    if (on && compare_->active()) compare_->leave();
    spectral_dock_->setVisible(on);
    // Under the Scores dock, which stays (it hid them, and its own controls started out of sight).
    keep_view_share();
    if (on) {
        resizeDocks({spectral_dock_}, {spectral_dock_->maximumWidth()}, Qt::Horizontal);
        resizeDocks({scores_dock_, spectral_dock_}, {height() / 3, 2 * height() / 3}, Qt::Vertical);
    }
    stack_->setCurrentWidget(on ? static_cast<QWidget*>(spectral_->view()) : view_);
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
    // The renderer in the tooltip (and Help → About): its long name took a third of a
    // 1280-pixel status bar and cut the iteration's numbers off.
    status_detail_->setToolTip(view_->renderer().isEmpty() ? QString() : tr("OpenGL: %1").arg(view_->renderer()));
    if (!view_->interop_message().isEmpty()) detail += QStringLiteral("   ") + view_->interop_message();
    status_detail_->setText(detail);
    iteration_label_->setText(mode().status_text());
    iteration_label_->setToolTip(iteration_label_->text());  // the whole line, where the window cuts it
}

QString MainWindow::status_line() const { return iteration_label_->text(); }

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
    show_banner(message, true);
    update_actions();
}

void MainWindow::show_hint(const QString& message) {
    if (banner_is_error_ && !banner_->isHidden()) {
        statusBar()->showMessage(message, 8000);  // an error stays in front until dismissed
        return;
    }
    show_banner(message, false);
}

void MainWindow::ask(const QString& message, const QString& action, std::function<void()> confirmed,
                     std::function<void()> declined) {
    if (banner_declined_) std::exchange(banner_declined_, {})();  // an older question is answered "no"
    show_banner(message, false);
    banner_action_->setText(action);
    banner_action_->show();
    banner_confirmed_ = std::move(confirmed);
    banner_declined_ = std::move(declined);
    place_banner();
}

bool MainWindow::confirm_banner() {
    if (banner_action_->isHidden()) return false;
    banner_action_->click();
    return true;
}

void MainWindow::show_banner(const QString& message, bool error) {
    if (banner_declined_) std::exchange(banner_declined_, {})();  // a question replaced: "no"
    banner_confirmed_ = {};
    banner_action_->hide();
    banner_is_error_ = error;
    banner_label_->setText(error ? tr("Error: %1").arg(message) : message);
    banner_->setStyleSheet(error ? QStringLiteral("QFrame { background: #fde2e1; color: #7a1111; }")
                                 : QStringLiteral("QFrame { background: #fff4cc; color: #4a3b00; }"));
    banner_->show();
    place_banner();
}

void MainWindow::place_banner() {
    const QWidget* centre = banner_->parentWidget();
    const int height = banner_->layout()->hasHeightForWidth() ? banner_->layout()->totalHeightForWidth(centre->width())
                                                              : banner_->sizeHint().height();
    banner_->setGeometry(0, 0, centre->width(), std::max(height, banner_->sizeHint().height()));
    banner_->raise();
}

QString MainWindow::banner_text() const { return banner_->isHidden() ? QString() : banner_label_->text(); }

void MainWindow::dismiss_banner() {
    banner_->hide();
    banner_is_error_ = false;
    banner_action_->hide();
    banner_confirmed_ = {};
    if (banner_declined_) std::exchange(banner_declined_, {})();
}

void MainWindow::request_reseed() {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const int steps = compare_->active() ? 1 : controller_->latest_iteration();
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
    if (!banner_is_error_) {
        banner_declined_ = {};  // answered: yes
        dismiss_banner();
    }
    RunSetup setup = controller_->setup();
    setup.init.seed += 1;
    solver_panel_->set_setup(setup);
    if (compare_->active()) compare_->leave();  // a new seed ends the comparison
    controller_->reseed(setup.init.seed);
}

void MainWindow::set_lesson(bool on) {
    if (on && compare_->active()) compare_->leave();  // the lesson is on the single run
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

void MainWindow::set_presentation(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    presentation_action_->setChecked(on);
    if (on) {
        state_before_presentation_ = saveState();
        for (QDockWidget* dock : {side_dock_, charts_dock_, scores_dock_, compare_dock_}) dock->hide();
        menuBar()->hide();
        statusBar()->hide();
    } else {
        restoreState(state_before_presentation_);
        if (!compare_->active()) compare_dock_->hide();
        menuBar()->show();
        statusBar()->show();
    }
    view_->set_presentation(on);
    compare_->view()->set_presentation(on);
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
    // The charts take at most a quarter of the height.
    charts_dock_->setMaximumHeight(std::max(140, int(height() * 0.28)));
    // Room for the summary and a few per-iteration rows (it showed two at 1280×720): the
    // compared panels sit side by side above it, square, so they lose width, not data.
    compare_dock_->setMaximumHeight(std::max(160, int(height() * 0.42)));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize && watched == centralWidget() && !banner_->isHidden()) place_banner();
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
            QTimer::singleShot(0, this, [this] {
                QWidget* centre = compare_->active() ? static_cast<QWidget*>(compare_->view()) : view_;
                centre->setFocus(Qt::ShortcutFocusReason);
            });
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

// ---------------------------------------------------------------- replay files and animation

QString MainWindow::save_run(const QString& path) {
    if (!controller_->ready()) throw Error("no run to save: load data first");
    // "lesson" becomes lesson.kmsrun: File → Open run lists *.kmsrun only (issue 36).
    const QString written = QFileInfo(path).suffix().isEmpty() ? path + QStringLiteral(".kmsrun") : path;
    write_studio_file(written.toStdString(), run_file_text(controller_->run_file()));
    return written;
}

int MainWindow::open_run(const QString& path, bool step_to_recorded) {
    const RunFile run = read_run_file(path.toStdString());  // throws naming file and line
    if (compare_->active()) compare_->leave();
    controller_->set_k_from_data(false);
    controller_->open_run(run, step_to_recorded);
    RunSetup setup = controller_->setup();
    solver_panel_->set_setup(setup);
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

// ---------------------------------------------------------------- paint tool

void MainWindow::set_paint_mode(bool on) {
    if (on && drawing_.empty() && controller_->has_data() && controller_->dataset().d() == 2) {
        // Draw on the loaded canvas: its points (and classes) are the start.
        const Dataset& data = *controller_->dataset().dataset;
        drawing_.assign(data.points.data(), data.points.data() + data.n() * 2);
        drawing_classes_ = data.truth_labels.size() == data.n() ? data.truth_labels
                                                                 : std::vector<std::int32_t>(data.n(), 0);
    }
    if (on) set_projection_mode(ProjectionMode::FirstTwoDimensions);  // the canvas stays where it is
    view_->set_paint_mode(on);
}

void MainWindow::paint_at(QPointF world, double radius_world) {
    // A dab: `density` points uniform in the brush's disc (counter-based, reproducible).
    const Projection2D& projection = controller_->dataset().projection;
    for (int i = 0; i < paint_density_; ++i) {
        const double angle = 6.283185307179586 * random_uniform(20240611, 1, 2 * paint_dabs_ * 256 + std::uint64_t(i));
        const double radius = radius_world * std::sqrt(random_uniform(20240611, 2, paint_dabs_ * 256 + std::uint64_t(i)));
        double x = world.x() + radius * std::cos(angle), y = world.y() + radius * std::sin(angle);
        if (controller_->has_data() && projection.input_dimensions() == 2) {
            const std::vector<double> data = projection.unproject(x, y);
            x = data[0];
            y = data[1];
        }
        drawing_.push_back(x);
        drawing_.push_back(y);
        drawing_classes_.push_back(paint_class_);
    }
    ++paint_dabs_;
    drawing_commit_->start();
}

void MainWindow::clear_drawing() {
    drawing_.clear();
    drawing_classes_.clear();
    view_->set_points(nullptr);
    view_->set_centroids({}, {});
    show_hint(tr("Empty canvas: tick \"Draw points\" and drag on the view"));
}

void MainWindow::commit_drawing() {
    if (drawing_.empty()) return;
    Dataset data;
    data.name = "drawn";
    data.points = Matrix<double>(drawing_.size() / 2, 2);
    std::copy(drawing_.begin(), drawing_.end(), data.points.data());
    data.truth_labels = drawing_classes_;
    controller_->set_k_from_data(false);  // the user's k stays while drawing
    controller_->set_drawn_data(std::move(data));
}

void MainWindow::save_drawing(const QString& path) {
    if (drawing_.empty()) throw Error("nothing drawn yet: tick \"Draw points\" and drag on the view");
    // NAME.csv holds x,y; NAME-labels.txt the classes, one per line: the loaders pick
    // that file up as the ground truth (a class column would load as a third coordinate).
    const std::string file = path.toStdString();
    const std::string extension = QFileInfo(path).suffix().toLower().toStdString();
    if (extension != "csv" && extension != "txt")
        throw Error("cannot write " + file + ": drawn data is saved as NAME.csv (or .txt) with its classes in "
                    "NAME-labels.txt; give a name ending in .csv");
    std::ostringstream points, classes;
    points << "x,y\n";
    points.precision(17);
    for (std::size_t i = 0; i < drawing_classes_.size(); ++i) {
        points << drawing_[2 * i] << ',' << drawing_[2 * i + 1] << '\n';
        classes << drawing_classes_[i] << '\n';
    }
    const std::string stem = file.substr(0, file.size() - extension.size() - 1);
    write_studio_files({{file, points.str()}, {stem + "-labels.txt", classes.str()}});
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
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG")) throw Error(path.toStdString() + ": could not encode the PNG image");
    write_studio_file(path.toStdString(), std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

void MainWindow::export_labels(const QString& path) {
    const LabelsPtr labels = controller_->displayed_labels();
    if (!labels) throw Error("no labels yet: step at least once before exporting labels");
    write_studio_file(path.toStdString(), labels_text(*labels));
}

void MainWindow::export_centroids(const QString& path) {
    if (!controller_->ready()) throw Error("no centroids yet: load data first");
    write_studio_file(path.toStdString(), centroids_csv_text(controller_->displayed_centroids()));
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
    write_studio_file(path.toStdString(), out.str());
}

void MainWindow::export_charts(const QString& path) { charts_->exportCsv(path.toStdString()); }

}  // namespace kms::ui
