#include "compare/compare_mode.hpp"

#include <QCheckBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include <algorithm>

#include "charts/iteration_charts.hpp"
#include "kms/algorithms.hpp"
#include "compare/compare_table.hpp"
#include "compare/compare_view.hpp"
#include "kms/error.hpp"
#include "run/run_controller.hpp"

namespace kms::ui {

CompareMode::CompareMode(RunController& single, IterationCharts& charts, QObject* parent)
    : QObject(parent), single_(single), charts_(charts), session_(std::make_unique<CompareSession>()),
      scores_(std::make_unique<CompareScores>()) {
    view_ = new CompareView(session_.get());
    table_ = new CompareTable;
    dock_ = new QDockWidget(tr("Comparison"));
    dock_->setObjectName(QStringLiteral("comparison"));
    dock_->setWidget(table_);
    controls_ = build_controls();

    connect(session_.get(), &CompareSession::changed, this, [this] {
        if (!active_) return;
        scores_->update(*session_);  // before the table is rebuilt: a reset run loses its scores
        emit changed();
    });
    connect(session_.get(), &CompareSession::errorOccurred, this, &CompareMode::errorOccurred);
    connect(scores_.get(), &CompareScores::scoresReady, this, [this](int row, const Scores& scores) {
        if (active_ && row < table_->model()->rowCount()) table_->setScores(row, scores);
    });
    connect(scores_.get(), &CompareScores::scoresCleared, this, [this](int) {
        charted_iterations_ = -1;  // rebuild the table without the stale scores
        if (active_) refresh_charts();
    });
    connect(scores_.get(), &CompareScores::scoresFailed, this, [this](int row, const QString& message) {
        if (!active_ || std::size_t(row) >= session_->size()) return;
        emit errorOccurred(tr("Scores of %1: %2").arg(session_->run(std::size_t(row)).solver_description(), message));
    });
}

CompareMode::~CompareMode() {
    // Widgets the window did not place have no parent to delete them.
    const QWidget* placed[] = {view_, dock_, controls_};
    for (const QWidget* widget : placed)
        if (!widget->parent()) delete widget;
}

QWidget* CompareMode::build_controls() {
    // A toolbar row: a box per solver (typed lists were a classroom's first stumble),
    // all on the run's back end, so the speed-ups compare algorithms, not devices.
    auto* bar = new QWidget;
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(4, 0, 4, 0);
    row->setSpacing(6);
    row->addWidget(new QLabel(tr("Compare:"), bar));
    for (const AlgorithmInfo& info : registered_algorithms()) {  // every registered solver (kms/algorithms.hpp)
        const Algorithm algorithm = info.algorithm;
        const QString id = QString::fromUtf8(algorithm.name().data(), qsizetype(algorithm.name().size()));
        QString name = id;
        name[0] = name[0].toUpper();
        auto* box = new QCheckBox(name, bar);
        box->setObjectName(QStringLiteral("compare_") + id);
        box->setChecked(algorithm == Algorithm::Lloyd || algorithm == Algorithm::Elkan || algorithm == Algorithm::Hamerly);
        box->setToolTip(tr("Tick 2 to %1 solvers: they run side by side on the same data from the same initial centroids")
                            .arg(most_runs()));
        row->addWidget(box);
        solver_boxes_.emplace_back(algorithm, box);
    }
    auto* start_button = new QPushButton(tr("Compare"), bar);
    start_button->setObjectName(QStringLiteral("compareStart"));
    auto* stop_button = new QPushButton(tr("Single view"), bar);
    row->addWidget(start_button);
    row->addWidget(stop_button);
    connect(start_button, &QPushButton::clicked, this, &CompareMode::start_from_controls);
    connect(stop_button, &QPushButton::clicked, this, [this] { start({}); });
    return bar;
}

std::size_t CompareMode::most_runs() { return std::max<std::size_t>(4, registered_algorithms().size()); }

void CompareMode::start_from_controls() {
    std::vector<SolverConfig> configs;
    for (const auto& [algorithm, box] : solver_boxes_) {
        if (!box->isChecked()) continue;
        SolverConfig config = single_.setup().config;
        config.algorithm = algorithm;
        configs.push_back(config);
    }
    if (configs.size() < 2 || configs.size() > most_runs()) {
        emit errorOccurred(tr("Compare: tick 2 to %1 solvers (%2 ticked)").arg(most_runs()).arg(configs.size()));
        return;
    }
    start(configs);
}

void CompareMode::set_ticked(const std::vector<Algorithm>& algorithms) {
    for (const auto& [algorithm, box] : solver_boxes_)
        box->setChecked(std::find(algorithms.begin(), algorithms.end(), algorithm) != algorithms.end());
}

void CompareMode::start(const std::vector<SolverConfig>& configs) {
    if (configs.empty()) {
        leave();
        return;
    }
    if (!single_.ready()) {
        emit errorOccurred(tr("Compare needs data and initial centroids first"));
        return;
    }
    // The toolbar's boxes show what runs, however the comparison was started (boxes,
    // --compare, a script): they had kept their defaults, Elkan ticked beside a Yinyang run.
    std::vector<Algorithm> compared;
    for (const SolverConfig& config : configs) compared.push_back(config.algorithm);
    set_ticked(compared);
    single_.pause();
    active_ = true;
    charted_iterations_ = -1;
    scores_->clear();
    session_->start(single_.dataset(), single_.setup(), configs, single_.initial_centroids());
    emit entered();
}

void CompareMode::leave() {
    scores_->clear();
    session_->clear();
    active_ = false;
    table_->clear();
    emit left();
}

RunMode::TransportState CompareMode::transport_state() const {
    TransportState state;
    state.ready = session_->all_ready();
    state.running = session_->any_running();
    state.converged = session_->all_converged();
    state.shown = 1;  // step back stays available: each run steps back on its own
    return state;
}

void CompareMode::fit_view() { view_->fit(); }
QWidget* CompareMode::centre() const { return view_; }

void CompareMode::refresh_charts() {
    // One overlaid series per run.
    std::size_t total = 0;
    for (std::size_t i = 0; i < session_->size(); ++i) total += session_->run(i).history().size();
    if (int(total) == charted_iterations_) return;
    charted_iterations_ = int(total);
    charts_.clear();
    std::vector<CompareEntry> entries;
    for (std::size_t i = 0; i < session_->size(); ++i) {
        const RunController& run = session_->run(i);
        charts_.addRun(run.solver_description(), run.dataset().n(), run.initial_centroids().rows(), run.stats_history());
        CompareEntry entry;
        entry.name = run.solver_description();
        entry.n = run.dataset().n();
        entry.k = run.initial_centroids().rows();
        entry.stats = run.stats_history();
        entry.scores = scores_->scores(i);
        entry.converged = run.converged();
        entry.backend = QString::fromStdString(run.setup().config.backend_name());
        entries.push_back(std::move(entry));
    }
    const int selected = table_->selectedSolver();
    table_->setEntries(std::move(entries));
    if (selected >= 0 && selected < int(session_->size())) table_->selectSolver(selected);
}

QString CompareMode::status_text() const {
    QStringList runs;
    for (std::size_t i = 0; i < session_->size(); ++i)
        runs << QStringLiteral("%1 @ %2").arg(session_->run(i).solver_description()).arg(session_->run(i).displayed_iteration());
    return tr("Comparing: %1").arg(runs.join(QStringLiteral(", ")));
}

}  // namespace kms::ui
