#include "lesson/lesson.hpp"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

LessonScore score_prediction(const std::vector<std::optional<QPointF>>& predicted, const std::vector<QPointF>& actual,
                             double data_diagonal, int iteration) {
    LessonScore score;
    score.iteration = iteration;
    score.k = int(actual.size());
    const double tolerance = 0.1 * data_diagonal;  // D: a tenth of the data's diagonal
    double points = 0.0, distance = 0.0;
    for (std::size_t c = 0; c < actual.size() && c < predicted.size(); ++c) {
        if (!predicted[c]) continue;
        const QPointF delta = *predicted[c] - actual[c];
        const double d = std::hypot(delta.x(), delta.y());
        ++score.predicted;
        distance += d;
        points += tolerance > 0.0 ? 100.0 * std::max(0.0, 1.0 - d / tolerance) : (d == 0.0 ? 100.0 : 0.0);
    }
    if (score.predicted > 0) score.mean_distance = distance / score.predicted;
    score.relative = data_diagonal > 0.0 ? score.mean_distance / data_diagonal : 0.0;
    score.score = score.k > 0 ? points / score.k : 0.0;
    return score;
}

Lesson::Lesson(RunController& run, PointCloudView& view, QObject* parent) : QObject(parent), run_(run), view_(view) {
    connect(&run_, &RunController::frameChanged, this, &Lesson::on_frame);
    connect(&run_, &RunController::datasetChanged, this, [this] {
        if (active_) restart();
    });
}

void Lesson::set_active(bool on) {
    if (on == active_) return;
    active_ = on;
    if (on) restart();
    else {
        marks_ = {};
        message_.clear();
        publish();
    }
}

void Lesson::restart() {
    scores_.clear();
    begin_round();
}

double Lesson::average() const {
    if (scores_.empty()) return 0.0;
    double sum = 0.0;
    for (const LessonScore& s : scores_) sum += s.score;
    return sum / double(scores_.size());
}

namespace {

std::vector<QPointF> shown_centroids(const RunController& run) {
    std::vector<QPointF> centroids;
    const Matrix<double>& shown = run.displayed_centroids();
    const Projection2D& projection = run.dataset().projection;
    if (shown.rows() == 0 || shown.cols() != projection.input_dimensions()) return centroids;
    for (std::size_t c = 0; c < shown.rows(); ++c) {
        const auto p = projection.project(shown.row(c));
        centroids.emplace_back(p[0], p[1]);
    }
    return centroids;
}

}  // namespace

namespace {

// The shown states in order: iteration i's assignment 2i, its update 2i + 1
// (iteration 0 and whole steps show updates only).
int state_order(const RunController& run) {
    const int shown = run.displayed_iteration();
    const bool update = shown == 0 || !run.half_steps() || run.displayed_phase() == Phase::Update;
    return 2 * shown + (update ? 1 : 0);
}

}  // namespace

double Lesson::data_diagonal() const {
    const auto& positions = run_.dataset().projected;
    if (!positions || positions->size() < 2) return 0.0;
    float min_x = std::numeric_limits<float>::max(), min_y = min_x, max_x = -min_x, max_y = -min_x;
    for (std::size_t i = 0; i + 1 < positions->size(); i += 2) {
        min_x = std::min(min_x, (*positions)[i]);
        max_x = std::max(max_x, (*positions)[i]);
        min_y = std::min(min_y, (*positions)[i + 1]);
        max_y = std::max(max_y, (*positions)[i + 1]);
    }
    return std::hypot(double(max_x) - min_x, double(max_y) - min_y);
}

void Lesson::begin_round() {
    marks_ = {};
    revealed_ = false;
    round_order_ = -1;
    if (!active_ || !run_.ready()) {
        message_ = active_ ? tr("Lesson: load data to start") : QString();
        publish();
        return;
    }
    const int shown = run_.displayed_iteration();
    if (run_.converged() && shown == run_.latest_iteration() &&
        !(run_.half_steps() && run_.displayed_phase() == Phase::Assign)) {
        message_ = tr("Lesson: the run has converged (%1 steps scored, %2 / 100 on average). Home starts it again.")
                       .arg(scores_.size())
                       .arg(QLocale(QLocale::English).toString(average(), 'f', 0));
        publish();
        return;
    }
    round_order_ = state_order(run_);
    target_order_ = round_order_ % 2 == 1 ? round_order_ + 2 : round_order_ + 1;  // the next update shown
    marks_.from = shown_centroids(run_);
    marks_.predicted.assign(marks_.from.size(), std::nullopt);
    marks_.next = marks_.from.empty() ? -1 : 0;
    message_ = tr("Lesson: where will the centroids move? Click where centroid 1 of %1 (ringed) will go; → reveals "
                  "the step, right click takes a click back.")
                   .arg(marks_.from.size());
    publish();
}

bool Lesson::place(QPointF world) {
    if (!active_) return false;
    if (revealed_ || round_order_ < 0) begin_round();
    if (marks_.next < 0 || std::size_t(marks_.next) >= marks_.predicted.size()) return false;
    marks_.predicted[std::size_t(marks_.next)] = world;
    ++marks_.next;
    const int k = int(marks_.predicted.size());
    if (marks_.next >= k) {
        marks_.next = -1;
        message_ = tr("All %1 predictions placed: press → to reveal the step.").arg(k);
    } else {
        message_ = tr("Lesson: now centroid %1 of %2 (ringed); → reveals the step.").arg(marks_.next + 1).arg(k);
    }
    publish();
    return true;
}

bool Lesson::undo() {
    if (!active_ || revealed_) return false;
    for (std::size_t c = marks_.predicted.size(); c-- > 0;)
        if (marks_.predicted[c]) {
            marks_.predicted[c].reset();
            marks_.next = int(c);
            message_ = tr("Lesson: centroid %1 of %2 (ringed) again.").arg(c + 1).arg(marks_.predicted.size());
            publish();
            return true;
        }
    return false;
}

void Lesson::on_frame() {
    if (!active_) return;
    const int now = state_order(run_);
    if (round_order_ < 0) {
        begin_round();
        return;
    }
    if (revealed_) {  // the reveal stays up until the shown state changes
        if (now != target_order_) begin_round();
        return;
    }
    if (now == round_order_ || (now > round_order_ && now < target_order_)) return;  // the assignment half in between
    if (now != target_order_) {  // stepped back, reset, or jumped past the step predicted
        begin_round();
        return;
    }
    const int shown = run_.displayed_iteration();
    const std::vector<QPointF> actual = shown_centroids(run_);
    revealed_ = true;
    marks_.actual = actual;
    marks_.next = -1;
    const bool any = std::any_of(marks_.predicted.begin(), marks_.predicted.end(), [](const auto& p) { return p.has_value(); });
    if (!any) {
        message_ = tr("Iteration %1 revealed without predictions: click where each centroid will move before the next →.")
                       .arg(shown);
        marks_ = {};
        publish();
        return;
    }
    const LessonScore score = score_prediction(marks_.predicted, actual, data_diagonal(), shown);
    scores_.push_back(score);
    const QLocale english(QLocale::English);
    message_ = tr("Iteration %1: your %2 predictions were %3 from where the centroids went on average (%4 % of the "
                  "data's size): %5 / 100. Lesson so far: %6 step(s), %7 / 100 on average. Click to predict the next step.")
                   .arg(shown)
                   .arg(score.predicted)
                   .arg(english.toString(score.mean_distance, 'g', 3))
                   .arg(english.toString(100.0 * score.relative, 'f', 1))
                   .arg(english.toString(score.score, 'f', 0))
                   .arg(scores_.size())
                   .arg(english.toString(average(), 'f', 0));
    publish();
}

void Lesson::publish() {
    view_.set_lesson_marks(active_ ? marks_ : LessonMarks{});
    emit messageChanged(message_);
}

}  // namespace kms::ui
