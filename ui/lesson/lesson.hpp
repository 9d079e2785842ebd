#pragma once
// Lesson mode: before each step the class predicts where every centroid will move
// (a click each, in the centroids' order; right click takes the last one back),
// then the step reveals where they went and the prediction is scored. A running
// score per lesson. Works on the single run, stepped by whole or half steps, from
// data, a drawing or a replay file, in presentation mode too.
//
// Scoring, per centroid: 100 · max(0, 1 − d / D) where d is the distance from the
// prediction to where the centroid went and D is a tenth of the diagonal of the
// shown data (both in the view's 2-D coordinates); a centroid left unpredicted
// scores 0. A step's score is the mean over the k centroids; the lesson's, the mean
// over its scored steps.
#include <QObject>
#include <QPointF>
#include <QString>

#include <optional>
#include <vector>

#include "view/view_marks.hpp"

namespace kms::ui {

class PointCloudView;
class RunController;

struct LessonScore {
    int iteration = 0;         // the iteration whose update was predicted
    int predicted = 0;         // centroids predicted, of k
    int k = 0;
    double mean_distance = 0;  // over the predicted centroids, view units
    double relative = 0;       // mean_distance / the data's diagonal
    double score = 0;          // 0..100
};

// The arithmetic, apart from the widgets (tested on its own).
LessonScore score_prediction(const std::vector<std::optional<QPointF>>& predicted, const std::vector<QPointF>& actual,
                             double data_diagonal, int iteration);

class Lesson : public QObject {
    Q_OBJECT
public:
    Lesson(RunController& run, PointCloudView& view, QObject* parent = nullptr);

    void set_active(bool on);
    bool active() const { return active_; }
    // A click: the next centroid's prediction (false when all k are placed or the run is over).
    bool place(QPointF world);
    bool undo();
    // Back to no predictions and no scores.
    void restart();

    const std::vector<LessonScore>& scores() const { return scores_; }
    double average() const;
    const LessonMarks& marks() const { return marks_; }
    // What the banner says now: whose turn it is, or how the last prediction did.
    QString message() const { return message_; }

signals:
    void messageChanged(QString message);

private:
    void on_frame();       // the run showed another state: reveal, or start a new round
    void begin_round();    // predictions from the state shown now
    void publish();        // marks to the view, message to the banner
    double data_diagonal() const;

    RunController& run_;
    PointCloudView& view_;
    bool active_ = false;
    LessonMarks marks_;
    int round_order_ = -1;   // the shown state the predictions start from (state_order), -1: none
    int target_order_ = -1;  // the state that reveals them: the next update shown
    bool revealed_ = false;
    std::vector<LessonScore> scores_;
    QString message_;
};

}  // namespace kms::ui
