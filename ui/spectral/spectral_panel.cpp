// The spectral pipeline's controls and results (spectral_panel.hpp).
#include "spectral/spectral_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "spectral/spectral_pipeline.hpp"

namespace kms::ui {

SpectralPanel::SpectralPanel(SpectralPipeline& pipeline, QWidget* parent) : QWidget(parent), pipeline_(pipeline) {
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("k-means reduces the points to representatives; spectral clustering of the "
                                "representatives finds non-convex clusters (moons, circles, drawn shapes) "
                                "where plain k-means cannot."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    clusters_ = new QSpinBox(this);
    clusters_->setRange(0, 1000);
    clusters_->setSpecialValueText(tr("auto (eigengap)"));
    clusters_->setValue(0);
    form->addRow(tr("Clusters k"), clusters_);
    representatives_ = new QSpinBox(this);
    representatives_->setRange(0, 20000);
    representatives_->setSpecialValueText(tr("min(n, 1000)"));
    representatives_->setValue(0);
    form->addRow(tr("Representatives"), representatives_);
    neighbours_ = new QSpinBox(this);
    neighbours_->setRange(0, 1000);
    neighbours_->setSpecialValueText(tr("full graph"));
    neighbours_->setValue(static_cast<int>(SpectralOptions::kDefaultNeighbours));
    form->addRow(tr("Neighbours M"), neighbours_);
    sigma_ = new QDoubleSpinBox(this);
    sigma_->setRange(0.0, 1e6);
    sigma_->setDecimals(4);
    sigma_->setSingleStep(0.01);
    sigma_->setSpecialValueText(tr("median heuristic"));
    sigma_->setValue(0.0);
    form->addRow(tr("Sigma"), sigma_);
    layout->addLayout(form);

    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run"), this);
    cancel_ = new QPushButton(tr("Cancel"), this);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    layout->addLayout(buttons);
    display_ = new QComboBox(this);
    display_->addItem(tr("Show the representatives"));
    display_->addItem(tr("Show the clusters"));
    layout->addWidget(display_);
    results_ = new QLabel(this);
    results_->setWordWrap(true);
    results_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    results_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(results_, 1);

    connect(run_, &QPushButton::clicked, this, &SpectralPanel::run);
    connect(cancel_, &QPushButton::clicked, this, [this] { pipeline_.cancel(); });
    connect(display_, &QComboBox::activated, this, [this](int index) {
        pipeline_.set_display(index == 0 ? SpectralPipeline::Display::Representatives
                                         : SpectralPipeline::Display::Clusters);
    });
    connect(&pipeline_, &SpectralPipeline::changed, this, &SpectralPanel::refresh);
    refresh();
}

void SpectralPanel::set_values(int clusters, int representatives, int neighbours, double sigma) {
    clusters_->setValue(clusters);
    representatives_->setValue(representatives);
    neighbours_->setValue(neighbours);
    sigma_->setValue(sigma);
}

void SpectralPanel::run() {
    pipeline_.start(pipeline_.options_for(static_cast<std::size_t>(clusters_->value()),
                                          static_cast<std::size_t>(representatives_->value()),
                                          static_cast<std::size_t>(neighbours_->value()), sigma_->value()));
}

QString SpectralPanel::results_text() const { return results_->text(); }

void SpectralPanel::refresh() {
    const SpectralPipeline::State state = pipeline_.state();
    const bool running = state == SpectralPipeline::State::Running;
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    display_->setEnabled(pipeline_.has_representatives());
    display_->setCurrentIndex(pipeline_.display() == SpectralPipeline::Display::Representatives ? 0 : 1);

    QString text;
    switch (state) {
        case SpectralPipeline::State::Idle: break;
        case SpectralPipeline::State::Running: text = tr("Running ...\n") + pipeline_.progress_text(); break;
        case SpectralPipeline::State::Cancelled: text = tr("Cancelled.\n") + pipeline_.progress_text(); break;
        case SpectralPipeline::State::Failed: text = tr("Failed: %1").arg(pipeline_.error()); break;
        case SpectralPipeline::State::Done: {
            const SpectralResult& r = *pipeline_.result();
            QString values;
            for (std::size_t i = 0; i < r.eigen.values.size() && i < 10; ++i)
                values += (i ? QStringLiteral(", ") : QString()) + QString::number(r.eigen.values[i], 'g', 3);
            text = tr("k = %1%2\neigengap λ%3 − λ%4 = %5 (ratio %6)\nsigma %7 (%8)\n%9 representatives by %10\n"
                      "first eigenvalues: %11\n")
                       .arg(r.clusters)
                       .arg(r.clusters_chosen ? tr(" (auto: largest eigenvalue ratio)") : QString())
                       .arg(r.clusters + 1)
                       .arg(r.clusters)
                       .arg(r.eigengap, 0, 'g', 3)
                       .arg(r.eigengap_ratio, 0, 'g', 3)
                       .arg(r.sigma, 0, 'g', 4)
                       .arg(QString::fromStdString(r.sigma_rule))
                       .arg(r.representatives)
                       .arg(QString::fromStdString(r.representative_fit.solver.describe()))
                       .arg(values);
            if (!r.eigensolver_note.empty()) text += QString::fromStdString(r.eigensolver_note) + "\n";
            const SpectralTimes& t = r.times;
            text += tr("time %1 ms: representatives %2, similarity %3, eigensolver %4, final k-means %5\n")
                        .arg(t.total_ms(), 0, 'f', 0)
                        .arg(t.representatives_ms, 0, 'f', 0)
                        .arg(t.similarity_ms, 0, 'f', 0)
                        .arg(t.eigensolver_ms, 0, 'f', 0)
                        .arg(t.final_kmeans_ms, 0, 'f', 0);
            if (!std::isnan(pipeline_.spectral_ari()))
                text += tr("ARI against the truth: spectral %1, plain k-means %2")
                            .arg(pipeline_.spectral_ari(), 0, 'f', 3)
                            .arg(pipeline_.plain_ari(), 0, 'f', 3);
            break;
        }
    }
    results_->setText(text);
}

}  // namespace kms::ui
