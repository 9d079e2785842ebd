#pragma once
// Marks drawn over the points with QPainter, apart from the view's own code:
// the lesson's predictions (where the class thinks each centroid will move, then
// where it went) and the membership lines (each point joined to its centroid,
// Orange's way of showing an assignment).
#include <QPainter>
#include <QPointF>

#include <functional>
#include <optional>
#include <vector>

#include "view/labels.hpp"
#include "view/point_colours.hpp"

namespace kms::ui {

struct LessonMarks {
    std::vector<QPointF> from;                       // the centroids when the prediction was made
    std::vector<std::optional<QPointF>> predicted;   // one per centroid, placed in order
    std::vector<QPointF> actual;                     // where they went, once revealed (else empty)
    int next = -1;                                   // the centroid the next click places (-1: none)
    bool empty() const { return from.empty(); }
};

using ToPixel = std::function<QPointF(QPointF)>;

// Predictions as rings joined to their centroid by dashes, the next centroid to
// place ringed; once revealed, a line from each prediction to where it went.
void draw_lesson_marks(QPainter& painter, const LessonMarks& marks, const ToPixel& to_pixel, double scale,
                       const std::vector<PackedRgba>& palette);

// Thin lines from points to their centroid in the cluster's colour: every point up
// to `max_lines`, else an even sample (every ⌈n / max_lines⌉-th point).
void draw_membership_lines(QPainter& painter, const std::vector<float>& positions, const std::vector<std::int32_t>& labels,
                           const std::vector<QPointF>& centroids, const ToPixel& to_pixel, std::size_t max_lines,
                           const std::vector<PackedRgba>& palette);

}  // namespace kms::ui
