#include "view/view_marks.hpp"

#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "view/point_colours.hpp"

namespace kms::ui {

namespace {

QColor colour_of(const std::vector<PackedRgba>& palette, std::size_t cluster, int alpha = 255) {
    const PackedRgba c = cluster < palette.size() ? palette[cluster] : cluster_colour(cluster);
    return QColor(red_of(c), green_of(c), blue_of(c), alpha);
}

}  // namespace

void draw_lesson_marks(QPainter& painter, const LessonMarks& marks, const ToPixel& to_pixel, double scale,
                       const std::vector<PackedRgba>& palette) {
    const double ring = 9.0 * scale;
    painter.save();
    for (std::size_t c = 0; c < marks.from.size(); ++c) {
        const QPointF from = to_pixel(marks.from[c]);
        const QColor colour = colour_of(palette, c);
        if (int(c) == marks.next) {  // whose turn it is: a dashed ring around the centroid
            painter.setPen(QPen(QColor(20, 20, 20), 2.0 * scale, Qt::DashLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(from, ring * 1.9, ring * 1.9);
        }
        if (c >= marks.predicted.size() || !marks.predicted[c]) continue;
        const QPointF guess = to_pixel(*marks.predicted[c]);
        painter.setPen(QPen(colour.darker(140), 2.0 * scale, Qt::DashLine, Qt::RoundCap));
        painter.drawLine(from, guess);
        // The guess: a white ring with the cluster's colour inside, and a "?" until revealed.
        painter.setPen(QPen(Qt::white, 4.0 * scale));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(guess, ring, ring);
        painter.setPen(QPen(colour.darker(150), 2.5 * scale));
        painter.drawEllipse(guess, ring, ring);
        if (c < marks.actual.size()) {
            const QPointF went = to_pixel(marks.actual[c]);
            painter.setPen(QPen(QColor(20, 20, 20, 200), 1.5 * scale, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(guess, went);
        } else {
            QFont font = painter.font();
            font.setBold(true);
            font.setPointSizeF(std::max(6.0, font.pointSizeF()) * scale);
            painter.setFont(font);
            painter.setPen(QColor(20, 20, 20));
            painter.drawText(QRectF(guess.x() - ring, guess.y() - ring, 2 * ring, 2 * ring), Qt::AlignCenter,
                             QStringLiteral("?"));
        }
    }
    painter.restore();
}

void draw_membership_lines(QPainter& painter, const std::vector<float>& positions, const std::vector<std::int32_t>& labels,
                           const std::vector<QPointF>& centroids, const ToPixel& to_pixel, std::size_t max_lines,
                           const std::vector<PackedRgba>& palette) {
    const std::size_t n = std::min(positions.size() / 2, labels.size());
    if (n == 0 || centroids.empty() || max_lines == 0) return;
    const std::size_t stride = (n + max_lines - 1) / max_lines;
    std::vector<QPointF> ends(centroids.size());
    for (std::size_t c = 0; c < centroids.size(); ++c) ends[c] = to_pixel(centroids[c]);
    // One path per cluster: a few strokes, not n.
    std::vector<QPainterPath> paths(centroids.size());
    for (std::size_t i = 0; i < n; i += stride) {
        const std::int32_t label = labels[i];
        if (label < 0 || std::size_t(label) >= centroids.size()) continue;
        QPainterPath& path = paths[std::size_t(label)];
        path.moveTo(to_pixel(QPointF(positions[2 * i], positions[2 * i + 1])));
        path.lineTo(ends[std::size_t(label)]);
    }
    painter.save();
    painter.setBrush(Qt::NoBrush);
    for (std::size_t c = 0; c < paths.size(); ++c) {
        painter.setPen(QPen(colour_of(palette, c, 90).darker(120), 1.0));
        painter.drawPath(paths[c]);
    }
    painter.restore();
}

}  // namespace kms::ui
