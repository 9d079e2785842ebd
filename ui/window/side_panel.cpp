#include "window/side_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

#include "kms/algorithms.hpp"
#include "kms/generate.hpp"
#include "run/run_controller.hpp"
#include "run/solver_panel.hpp"
#include "view/point_cloud_view.hpp"
#include "view/view_settings.hpp"
#include "window/paint_tool.hpp"

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

SidePanel::SidePanel(RunController& run, ViewSettings& settings, PaintTool& paint, PointCloudView& view, QWidget* parent)
    : QWidget(parent), run_(run), settings_(settings) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(build_data());
    auto* solver = new QGroupBox(tr("Solver"), this);
    auto* solver_layout = new QVBoxLayout(solver);
    solver_panel_ = new SolverPanel(solver);
    solver_layout->addWidget(solver_panel_);
    layout->addWidget(solver);
    layout->addWidget(build_view(paint, view));
    layout->addStretch(1);

    // Combo boxes elide their text rather than set the panel's width: at 1280×720 the
    // widest ones pushed Generate, Clear and the spin arrows out of sight (issue 36).
    for (QComboBox* combo : findChildren<QComboBox*>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(4);
        combo->setMinimumWidth(90);  // an explicit minimum: layouts then ignore the text's width
    }
    for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>()) box->setMinimumWidth(64);
    connect(&run_, &RunController::datasetChanged, this, &SidePanel::show_dataset);
}

QWidget* SidePanel::build_data() {
    auto* data = new QGroupBox(tr("Data"), this);
    auto* data_form = new QFormLayout(data);
    source_label_ = new QLabel(tr("none"), data);
    source_label_->setWordWrap(true);
    source_label_->setStyleSheet(QStringLiteral("font-weight: bold;"));
    data_form->addRow(tr("Showing"), source_label_);
    auto* open = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open file..."), data);
    connect(open, &QPushButton::clicked, this, &SidePanel::openRequested);
    data_form->addRow(open);
    examples_ = new QComboBox(data);
    examples_->addItem(tr("Examples..."));
    for (const Example& example : kExamples) examples_->addItem(tr(example.title));
    connect(examples_, &QComboBox::activated, this, [this](int index) {
        if (index <= 0) return;
        const Example& example = kExamples[index - 1];
        RunSetup setup = run_.setup();
        setup.k = std::size_t(example.k);
        run_.set_setup(setup);
        solver_panel_->set_setup(setup);
        generator_spec_->setText(QString::fromLatin1(example.spec));
        generator_seed_->setValue(int(example.seed));
        run_.generate(QString::fromLatin1(example.spec), example.seed);
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
        run_.generate(spec, std::uint64_t(generator_seed_->value()));
    });
    connect(generator_spec_, &QLineEdit::returnPressed, generate, &QPushButton::click);
    projection_ = new QComboBox(data);
    projection_->addItem(tr("PCA (2 leading components)"), int(ProjectionMode::Pca));
    projection_->addItem(tr("First two dimensions"), int(ProjectionMode::FirstTwoDimensions));
    projection_->setToolTip(tr("Data with more than 2 dimensions is clustered in full and shown through this projection"));
    connect(projection_, &QComboBox::currentIndexChanged, this,
            [this] { run_.set_projection_mode(ProjectionMode(projection_->currentData().toInt())); });
    data_form->addRow(tr("Projection"), projection_);
    return data;
}

QWidget* SidePanel::build_view(PaintTool& paint, PointCloudView& view) {
    auto* group = new QGroupBox(tr("View"), this);
    auto* view_form = new QFormLayout(group);
    colour_mode_ = new QComboBox(group);
    colour_mode_->addItem(tr("Cluster labels"), int(ColourMode::Labels));
    colour_mode_->addItem(tr("Bounds: skipped / recomputed"), int(ColourMode::Bounds));
    colour_mode_->addItem(tr("Compare: labels that differ"), int(ColourMode::Difference));
    colour_mode_->addItem(tr("Membership lines"), int(ColourMode::Membership));
    // What each registered solver prunes with (AlgorithmInfo::pruning), and which search in full.
    QStringList pruning, full_search;
    for (const AlgorithmInfo& info : registered_algorithms()) {
        if (info.prunes()) pruning << QString::fromStdString(info.pruning);
        else full_search << QString::fromUtf8(info.algorithm.name().data(), qsizetype(info.algorithm.name().size()));
    }
    colour_mode_->setToolTip(tr("Bounds: green points needed fewer than k distances this iteration (the bounds ruled "
                                "centroids out: %1), red ones computed all k (every point in %2 and in iteration 1)")
                                 .arg(pruning.join(QStringLiteral("; ")), full_search.join(QStringLiteral(", "))));
    view_form->addRow(tr("Colour"), colour_mode_);
    voronoi_ = new QCheckBox(tr("Voronoi cells"), group);
    voronoi_->setToolTip(tr("Nearest centroid per pixel; for d > 2, of the projected centroids (the true cells are in d dimensions)"));
    trails_ = new QCheckBox(tr("Centroid trails"), group);
    view_form->addRow(voronoi_);
    view_form->addRow(trails_);
    point_size_ = new QDoubleSpinBox(group);
    point_size_->setRange(1.0, 32.0);
    point_size_->setSingleStep(0.5);
    view_form->addRow(tr("Point size"), point_size_);
    // The fields show the settings (without echoing them back) and set them when edited.
    const auto show_settings = [this] {
        const QSignalBlocker colour(colour_mode_), voronoi(voronoi_), trails(trails_), size(point_size_);
        colour_mode_->setCurrentIndex(colour_mode_->findData(int(settings_.colour_mode())));
        voronoi_->setChecked(settings_.show_voronoi());
        trails_->setChecked(settings_.show_trails());
        point_size_->setValue(settings_.point_size());
    };
    show_settings();
    connect(&settings_, &ViewSettings::colourModeChanged, this, show_settings);
    connect(&settings_, &ViewSettings::voronoiChanged, this, show_settings);
    connect(&settings_, &ViewSettings::trailsChanged, this, show_settings);
    connect(&settings_, &ViewSettings::pointSizeChanged, this, show_settings);
    connect(colour_mode_, &QComboBox::currentIndexChanged, this,
            [this] { settings_.set_colour_mode(ColourMode(colour_mode_->currentData().toInt())); });
    connect(voronoi_, &QCheckBox::toggled, &settings_, &ViewSettings::set_show_voronoi);
    connect(trails_, &QCheckBox::toggled, &settings_, &ViewSettings::set_show_trails);
    connect(point_size_, &QDoubleSpinBox::valueChanged, &settings_, &ViewSettings::set_point_size);

    auto* half = new QCheckBox(tr("Half-steps (H)"), group);
    half->setToolTip(tr("→ shows the assignment (points take their nearest centroid), then the update "
                        "(centroids move to their means); ← steps back through both"));
    connect(half, &QCheckBox::toggled, this, &SidePanel::halfStepsToggled);
    connect(&run_, &RunController::frameChanged, half, [this, half] { half->setChecked(run_.half_steps()); });
    view_form->addRow(half);
    auto* paint_row = new QHBoxLayout;
    auto* paint_box = new QCheckBox(tr("Draw points"), group);
    paint_box->setToolTip(tr("Drag on the view to add points (a brush of the chosen size and density) of the chosen "
                             "class; File → Save drawn data writes NAME.csv (x,y) and NAME-labels.txt (the classes, read back as the "
                             "ground truth)"));
    auto* paint_class = new QSpinBox(group);
    paint_class->setRange(0, 31);
    paint_class->setPrefix(tr("class "));
    auto* brush = new QSpinBox(group);
    brush->setRange(4, 200);
    brush->setValue(24);
    brush->setSuffix(tr(" px"));
    brush->setToolTip(tr("Brush radius"));
    auto* density = new QSpinBox(group);
    density->setRange(1, 200);
    density->setValue(paint.density());
    density->setSuffix(tr(" pts"));
    density->setToolTip(tr("Points per dab"));
    auto* clear = new QPushButton(tr("Clear"), group);
    clear->setToolTip(tr("Start an empty canvas"));
    paint_row->addWidget(paint_box);
    paint_row->addWidget(paint_class);
    auto* brush_row = new QHBoxLayout;
    brush_row->addWidget(brush);
    brush_row->addWidget(density);
    brush_row->addWidget(clear);
    connect(paint_box, &QCheckBox::toggled, this, &SidePanel::paintToggled);
    connect(paint_class, &QSpinBox::valueChanged, &paint, &PaintTool::set_class);
    connect(brush, &QSpinBox::valueChanged, &view, [&view](int value) { view.set_brush_radius(value); });
    connect(density, &QSpinBox::valueChanged, &paint, &PaintTool::set_density);
    connect(clear, &QPushButton::clicked, this, &SidePanel::clearRequested);
    view_form->addRow(paint_row);
    view_form->addRow(brush_row);
    auto* fit = new QPushButton(tr("Fit (F)"), group);
    connect(fit, &QPushButton::clicked, this, &SidePanel::fitRequested);
    view_form->addRow(fit);
    return group;
}

void SidePanel::set_projection(ProjectionMode mode) {
    const int index = projection_->findData(int(mode));
    if (index != projection_->currentIndex()) projection_->setCurrentIndex(index);
}

void SidePanel::show_dataset() {
    // Break opportunities after / and , : a long path or spec wraps instead of widening the panel.
    QString source = run_.data_source();
    source.replace(QLatin1Char('/'), QStringLiteral("/\u200b")).replace(QLatin1Char(','), QStringLiteral(",\u200b"));
    source_label_->setText(source);
    source_label_->setToolTip(run_.data_source());
    if (run_.generator_spec().empty()) {
        // The generator fields describe the next generation, not the data shown.
        generator_spec_->clear();
    } else {
        // Generated data (also from the command line or a replay): the fields say how.
        generator_spec_->setText(QString::fromStdString(run_.generator_spec()));
        generator_seed_->setValue(int(std::min<std::uint64_t>(run_.generator_seed(),
                                                              std::uint64_t(std::numeric_limits<int>::max()))));
    }
}

}  // namespace kms::ui
