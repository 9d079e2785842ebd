#include "sweep/sweep_panel.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "run/run_controller.hpp"
#include "sweep/elbow_chart.hpp"
#include "sweep/sweep_runner.hpp"

namespace kms::ui {

SweepPanel::SweepPanel(RunController& controller, QWidget* parent) : QWidget(parent), controller_(controller) {
    runner_ = new SweepRunner(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    const auto spin = [this](int value, int minimum, const QString& tip) {
        auto* box = new QSpinBox(this);
        box->setRange(minimum, 100000);
        box->setValue(value);
        box->setToolTip(tip);
        return box;
    };
    first_ = spin(2, 1, tr("smallest k"));
    last_ = spin(10, 1, tr("largest k"));
    step_ = spin(1, 1, tr("step between values of k"));
    row->addWidget(new QLabel(tr("k from"), this));
    row->addWidget(first_);
    row->addWidget(new QLabel(tr("to"), this));
    row->addWidget(last_);
    row->addWidget(new QLabel(tr("step"), this));
    row->addWidget(step_);
    hierarchy_ = new QCheckBox(tr("hierarchy"), this);
    hierarchy_->setToolTip(tr("fit the largest k, then start each smaller k from the level above with its two "
                              "closest centroids merged (Rombaut)"));
    row->addWidget(hierarchy_);
    start_ = new QPushButton(tr("Sweep"), this);
    row->addWidget(start_);
    row->addStretch(1);
    layout->addLayout(row);
    progress_ = new QProgressBar(this);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("%v of %m values of k"));
    progress_->hide();
    layout->addWidget(progress_);
    chart_ = new ElbowChart(this);
    layout->addWidget(chart_, 1);
    summary_ = new QLabel(tr("Sweep k to see inertia and scores against k; click a k to load that run."), this);
    summary_->setWordWrap(true);
    layout->addWidget(summary_);

    connect(start_, &QPushButton::clicked, this, [this] {
        if (runner_->running()) {
            cancel();
            return;
        }
        if (last_->value() < first_->value()) {
            emit message(tr("Sweep: the largest k (%1) is smaller than the smallest (%2)").arg(last_->value()).arg(first_->value()));
            return;
        }
        start_sweep(KRange{std::size_t(first_->value()), std::size_t(last_->value()), std::size_t(step_->value())},
                    hierarchy_->isChecked());
    });
    connect(runner_, &SweepRunner::started, this, [this](int count) {
        progress_->setRange(0, count);
        progress_->setValue(0);
        progress_->show();
        start_->setText(tr("Cancel"));
    });
    connect(runner_, &SweepRunner::progress, this, [this](int done, int) { progress_->setValue(done); });
    connect(runner_, &SweepRunner::changed, this, &SweepPanel::refresh);
    connect(runner_, &SweepRunner::finished, this, [this](bool) {
        progress_->hide();
        start_->setText(tr("Sweep"));
    });
    connect(runner_, &SweepRunner::failed, this, [this](const QString& text) {
        progress_->hide();
        start_->setText(tr("Sweep"));
        emit message(tr("Sweep failed: %1").arg(text));
    });
    connect(chart_, &ElbowChart::kClicked, this, [this](std::size_t k) { load_k(k); });
    // A loaded level runs to convergence as soon as its set-up is ready.
    connect(&controller_, &RunController::setupChanged, this, [this] {
        if (!converge_when_ready_ || !controller_.ready()) return;
        converge_when_ready_ = false;
        controller_.run_to_convergence();
    });
}

SweepPanel::~SweepPanel() = default;

void SweepPanel::start_sweep(const KRange& range, bool hierarchy) {
    first_->setValue(int(range.first));
    last_->setValue(int(range.last));
    step_->setValue(int(range.step));
    hierarchy_->setChecked(hierarchy);
    if (!controller_.has_data()) {
        emit message(tr("Sweep: no data loaded"));
        return;
    }
    if (range.last > controller_.dataset().n()) {
        emit message(tr("Sweep: k = %1 is more than the %2 points").arg(range.last).arg(controller_.dataset().n()));
        return;
    }
    chart_->set_selected_k(std::nullopt);
    runner_->start(controller_.dataset().dataset, controller_.setup(), range, hierarchy);
}

void SweepPanel::cancel() { runner_->cancel(); }

bool SweepPanel::load_k(std::size_t k) {
    const SweepLevelPtr level = runner_->level_for(k);
    if (!level) {
        emit message(tr("Sweep: k = %1 has not been fitted").arg(k));
        return false;
    }
    if (controller_.dataset().dataset != runner_->dataset()) {
        emit message(tr("Sweep: the data changed since this sweep; sweep again to load a k"));
        return false;
    }
    RunSetup setup = runner_->setup();
    setup.k = k;
    setup.n_init = 1;  // the level's own start: the kept restart's, or the merged centroids
    converge_when_ready_ = true;
    controller_.start(controller_.dataset(), setup, level->fit.initial_centroids);
    chart_->set_selected_k(k);
    return true;
}

QString SweepPanel::summary_text() const { return summary_->text(); }

void SweepPanel::refresh() {
    std::vector<ElbowPoint> points;
    for (const SweepLevelPtr& level : runner_->levels())
        points.push_back({level->k, level->fit.inertia, level->scores.silhouette, level->scores.calinski_harabasz,
                          level->scores.davies_bouldin});
    chart_->set_points(std::move(points));
    const SweepResultPtr& result = runner_->result();
    ElbowMarks marks;
    if (result) {
        marks = {result->elbow.k, result->best_silhouette.k, result->best_calinski_harabasz.k,
                 result->best_davies_bouldin.k};
        const auto k_text = [](const KChoice& choice) {
            return choice.k ? QString::number(*choice.k) : QStringLiteral("–");
        };
        QString text = tr("Elbow (kneedle): %1 · best silhouette: %2 · best Calinski–Harabasz: %3 · best "
                          "Davies–Bouldin: %4")
                           .arg(k_text(result->elbow), k_text(result->best_silhouette),
                                k_text(result->best_calinski_harabasz), k_text(result->best_davies_bouldin));
        if (!result->elbow.k) text += tr(" (%1)").arg(QString::fromStdString(result->elbow.reason));
        if (result->cancelled) text += tr(" — cancelled: %1 values of k").arg(runner_->levels().size());
        summary_->setText(text + tr(". Click a k to load that run."));
    } else if (runner_->running()) {
        summary_->setText(tr("Sweeping… %1 values of k done").arg(runner_->levels().size()));
    }
    chart_->set_marks(marks);
}

}  // namespace kms::ui
