#include "scores/scores_panel.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

#include "charts/plot_widget.hpp"
#include "scores/silhouette_plot.hpp"

namespace kms::ui {
namespace {

QString score_text(double value, int decimals) {
    if (std::isnan(value)) return QStringLiteral("–");
    return QLocale(QLocale::English).toString(value, 'f', decimals);
}

// Large sums (inertia, Calinski–Harabasz) to 6 significant digits with separators.
QString large_text(double value) {
    if (std::isnan(value)) return QStringLiteral("–");
    if (std::abs(value) >= 1e15 || (value != 0.0 && std::abs(value) < 1e-3)) return QString::number(value, 'g', 6);
    const int digits = value == 0.0 ? 1 : static_cast<int>(std::floor(std::log10(std::abs(value)))) + 1;
    return QLocale(QLocale::English).toString(value, 'f', std::clamp(6 - digits, 0, 6));
}

}  // namespace

QString silhouette_text(const Scores& scores, std::size_t n) {
    if (std::isnan(scores.silhouette)) return QStringLiteral("–");
    const QLocale english(QLocale::English);
    const QString value = score_text(scores.silhouette, 4);
    const std::size_t scored = scores.silhouette_points;
    if (scores.silhouette_detail.sampled && scored < n) {
        return QObject::tr("%1 ± %2 (sampled: %3 of %4 points)")
            .arg(value, score_text(scores.silhouette_standard_error, 4),
                 english.toString(static_cast<qulonglong>(scored)), english.toString(static_cast<qulonglong>(n)));
    }
    return QObject::tr("%1 (exact, all %2 points)").arg(value, english.toString(static_cast<qulonglong>(n)));
}

namespace {
// A wrapped label that never sets the dock's width (Ignored) and keeps asking for
// the height its wrapped text needs at the width it gets: setSizePolicy() replaces
// the height-for-width flag that setWordWrap() set, and without it a two-line hint
// was given one line's height and drawn over the next row (seen at 1280x720).
QSizePolicy wrapping_policy() {
    QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    return policy;
}
}  // namespace

ScoresPanel::ScoresPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setSizePolicy(wrapping_policy());
    layout->addWidget(status_);

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(12);
    grid->setVerticalSpacing(3);
    const std::array<std::pair<QString, QString>, kRowCount> names{{
        {tr("Silhouette"), tr("−1 … 1, higher is better")},
        {tr("Calinski–Harabasz"), tr("higher is better")},
        {tr("Davies–Bouldin"), tr("≥ 0, lower is better")},
        {tr("Inertia"), tr("sum of squared distances")},
        {tr("Adjusted Rand index"), tr("vs ground truth, 1 = identical")},
        {tr("Normalised mutual info"), tr("vs ground truth, 1 = identical")},
        {tr("Centroid index"), tr("vs true centroids, 0 = all found")},
    }};
    QFont value_font = font();
    value_font.setPointSizeF(value_font.pointSizeF() * 1.15);
    value_font.setBold(true);
    for (int r = 0; r < kRowCount; ++r) {
        RowWidgets& row = rows_[static_cast<std::size_t>(r)];
        row.name = new QLabel(names[static_cast<std::size_t>(r)].first, this);
        row.value = new QLabel(this);
        row.value->setFont(value_font);
        row.value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // Values wrap (a sampled silhouette's note is long) and hints go under the
        // value, so the dock's width never follows its text.
        row.value->setWordWrap(true);
        row.value->setSizePolicy(wrapping_policy());
        row.name->setWordWrap(true);
        row.hint = new QLabel(names[static_cast<std::size_t>(r)].second, this);
        row.hint->setStyleSheet(QStringLiteral("color: #777;"));
        row.hint->setWordWrap(true);
        row.hint->setSizePolicy(wrapping_policy());
        // Name, value and hint each across the dock's width: a narrow dock wraps, never clips.
        grid->addWidget(row.name, 3 * r, 0);
        grid->addWidget(row.value, 3 * r + 1, 0);
        grid->addWidget(row.hint, 3 * r + 2, 0);
    }
    grid->setColumnStretch(0, 1);
    layout->addLayout(grid);
    notes_ = new QLabel(this);
    notes_->setWordWrap(true);
    notes_->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    layout->addWidget(notes_);
    silhouette_plot_ = new SilhouettePlot(this);
    layout->addWidget(silhouette_plot_, 1);
    clear();
}

void ScoresPanel::setScores(const Scores& scores, std::size_t n, int iteration,
                            std::span<const std::int32_t> labels) {
    const auto set = [this](Row row, const QString& text, bool visible = true) {
        RowWidgets& widgets = rows_[static_cast<std::size_t>(row)];
        widgets.value->setText(text);
        for (QLabel* label : {widgets.name, widgets.value, widgets.hint}) label->setVisible(visible);
    };
    set(Row::Silhouette, silhouette_text(scores, n));
    set(Row::CalinskiHarabasz, large_text(scores.calinski_harabasz));
    set(Row::DaviesBouldin, score_text(scores.davies_bouldin, 4));
    set(Row::Inertia, large_text(scores.inertia));
    // Ground-truth rows only when the data has ground truth.
    set(Row::Ari, score_text(scores.ari, 4), !std::isnan(scores.ari));
    set(Row::Nmi, score_text(scores.nmi, 4), !std::isnan(scores.nmi));
    set(Row::CentroidIndex, scores.centroid_index ? QString::number(*scores.centroid_index) : QString(),
        scores.centroid_index.has_value());
    QStringList notes;
    for (const std::string& note : scores.notes) notes << QString::fromStdString(note);
    notes_->setText(notes.join(QLatin1Char('\n')));
    notes_->setVisible(!notes.isEmpty());
    silhouette_plot_->setScores(scores, labels);
    scores_iteration_ = iteration;
    pending_iteration_ = iteration;
    state_ = State::Ready;
    showState();
}

void ScoresPanel::setComputing(int iteration) {
    pending_iteration_ = iteration;
    state_ = State::Computing;
    showState();
}

void ScoresPanel::markStale(int iteration) {
    if (state_ == State::Empty) return;  // nothing shown, nothing to call stale
    pending_iteration_ = iteration;
    if (iteration == scores_iteration_ && state_ == State::Ready) return;
    if (state_ != State::Computing) state_ = State::Stale;
    showState();
}

void ScoresPanel::setFailed(const QString& message) {
    failure_ = message;
    state_ = State::Failed;
    showState();
}

void ScoresPanel::clear() {
    for (int r = 0; r < kRowCount; ++r) {
        RowWidgets& row = rows_[static_cast<std::size_t>(r)];
        row.value->setText(QStringLiteral("–"));
        const bool truth_row = r >= static_cast<int>(Row::Ari);  // shown once scores bring them
        for (QLabel* label : {row.name, row.value, row.hint}) label->setVisible(!truth_row);
    }
    notes_->clear();
    notes_->hide();
    silhouette_plot_->clear();
    scores_iteration_ = pending_iteration_ = -1;
    failure_.clear();
    state_ = State::Empty;
    showState();
}

void ScoresPanel::showState() {
    QString status;
    bool current = false;
    switch (state_) {
        case State::Empty: status = tr("No scores yet: step the run."); break;
        case State::Computing:
            status = scores_iteration_ >= 0
                         ? tr("Computing… scores for iteration %1 (showing iteration %2)")
                               .arg(pending_iteration_)
                               .arg(scores_iteration_)
                         : tr("Computing… scores for iteration %1").arg(pending_iteration_);
            break;
        case State::Ready:
            status = tr("Scores of iteration %1").arg(scores_iteration_);
            current = true;
            break;
        case State::Stale:
            status = tr("Stale: scores of iteration %1, the run is at iteration %2")
                         .arg(scores_iteration_)
                         .arg(pending_iteration_);
            break;
        case State::Failed: status = tr("Scores failed: %1").arg(failure_); break;
    }
    status_->setText(status);
    status_->setStyleSheet(current ? QStringLiteral("color: #1a6b1a;") : QStringLiteral("color: #8a5a00;"));
    // Values that no longer describe the current labels are greyed, not hidden.
    const QString value_style = current ? QStringLiteral("color: #111;") : QStringLiteral("color: #999;");
    for (RowWidgets& row : rows_) row.value->setStyleSheet(value_style);
    silhouette_plot_->setEnabled(current);
}

QString ScoresPanel::valueText(Row row) const {
    const RowWidgets& widgets = rows_[static_cast<std::size_t>(row)];
    return rowVisible(row) ? widgets.value->text() : QString();
}

bool ScoresPanel::rowVisible(Row row) const { return !rows_[static_cast<std::size_t>(row)].value->isHidden(); }
QString ScoresPanel::statusText() const { return status_->text(); }
QString ScoresPanel::notesText() const { return notes_->text(); }

}  // namespace kms::ui
