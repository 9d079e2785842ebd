// The point view's drawing over the GL frame (QPainter on one image: trails, the map of
// geographic data, caption, legend and note, and the centroid markers' GL pass).
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "view/point_cloud_sizes.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

void PointCloudView::draw_trails(QPainter& painter) {
    // Each centroid's path as lines with an arrow head at every move, the oldest
    // moves faint and the newest solid, in a darker shade of its cluster colour.
    const double scale = ui_scale();
    const double width = 3.0 * scale;
    for (std::size_t c = 0; c < trails_.size(); ++c) {
        const std::vector<QPointF>& trail = trails_[c];
        if (trail.size() < 2) continue;
        const PackedRgba colour = colour_of(c);
        const QColor dark(red_of(colour) * 3 / 5, green_of(colour) * 3 / 5, blue_of(colour) * 3 / 5);
        const std::size_t moves = trail.size() - 1;
        for (std::size_t i = 0; i < moves; ++i) {
            const QPointF from = world_to_pixel(trail[i]);
            const QPointF to = world_to_pixel(trail[i + 1]);
            QColor shade = dark;
            // Age fades: the latest move opaque, the first at 30 %.
            shade.setAlphaF(float(0.3 + 0.7 * double(i + 1) / double(moves)));
            painter.setBrush(Qt::NoBrush);
            const QPointF delta = to - from;
            const double length = std::hypot(delta.x(), delta.y());
            // The newest move ends at the marker's rim, not under it.
            const double rim = i + 1 == moves ? std::min(length, kMarkerPixels * 0.5 * scale) : 0.0;
            const QPointF end = length > 0 ? to - delta / length * rim : to;
            // A pale halo under the line: inside a dense cluster of its own colour a
            // faded trail vanished (issue 36).
            painter.setPen(QPen(QColor(255, 255, 255, int(170 * shade.alphaF())), width + 3.0 * scale, Qt::SolidLine,
                                Qt::RoundCap));
            painter.drawLine(from, end);
            painter.setPen(QPen(shade, width, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(from, end);
            painter.setPen(Qt::NoPen);
            painter.setBrush(shade);
            painter.drawEllipse(from, width * 1.2, width * 1.2);  // where it was
            const double head = 7.0 * scale;
            if (length < head * 1.5) continue;  // too short for a readable arrow
            // The head stops short of the next position, so the marker does not hide it.
            const QPointF unit = delta / length;
            const QPointF normal(-unit.y(), unit.x());
            const double stop = i + 1 == moves ? 11.0 * scale : 0.0;
            const QPointF tip = to - unit * stop;
            QPainterPath arrow;
            arrow.moveTo(tip);
            arrow.lineTo(tip - unit * head + normal * head * 0.55);
            arrow.lineTo(tip - unit * head - normal * head * 0.55);
            arrow.closeSubpath();
            painter.drawPath(arrow);
        }
    }
}

void PointCloudView::set_map_overlay(MapOverlay map) {
    map_ = std::move(map);
    update();
}

void PointCloudView::draw_map(QPainter& painter) {
    if (map_.lines.empty() && !map_.scale_bar) return;
    painter.save();
    QFont small = painter.font();
    small.setPointSizeF(std::max(7.0, 0.85 * (small.pointSizeF() > 0 ? small.pointSizeF() : 10.0)));
    painter.setFont(small);
    const QFontMetricsF metrics(small);
    // Labels go where a line is first seen from the left (parallels) or last seen at
    // the bottom (meridians), inside a band that keeps them clear of the edges.
    const QRectF band = QRectF(rect()).adjusted(2, metrics.height() + 2, -metrics.horizontalAdvance("000.0°W") - 4,
                                               -metrics.height() - 4);
    for (const MapLine& line : map_.lines) {
        QPolygonF pixels;
        pixels.reserve(qsizetype(line.points.size()));
        for (const QPointF& world : line.points) pixels << world_to_pixel(world);
        painter.setPen(QPen(QColor(90, 90, 90, 110), 1.0));
        painter.drawPolyline(pixels);
        if (line.label.isEmpty()) continue;
        std::optional<QPointF> anchor;
        for (const QPointF& pixel : pixels) {
            if (!band.contains(pixel)) continue;
            if (!anchor || (line.label_left ? pixel.x() < anchor->x() : pixel.y() > anchor->y())) anchor = pixel;
        }
        // Only near its edge: a line that crosses a corner is left unlabelled rather than labelled mid-view.
        if (!anchor || (line.label_left ? anchor->x() > band.left() + 0.15 * band.width()
                                        : anchor->y() < band.bottom() - 0.15 * band.height()))
            continue;
        painter.setPen(QColor(60, 60, 60, 220));
        painter.drawText(*anchor + (line.label_left ? QPointF(3, -3) : QPointF(3, metrics.ascent())), line.label);
    }
    if (map_.scale_bar) {
        // A 1-2-5 length of about a fifth of the view's width (world units are km).
        const double ppu = camera_ ? camera_->pixels_per_unit() : 1.0;
        const double target_km = 0.2 * width() / std::max(ppu, 1e-12);
        const double decade = std::pow(10.0, std::floor(std::log10(target_km)));
        double km = decade;
        for (const double m : {2.0, 5.0, 10.0})
            if (m * decade <= target_km) km = m * decade;
        const double length = km * ppu;
        const QString text = km >= 1 ? QStringLiteral("%1 km").arg(km, 0, 'g', 6) : QStringLiteral("%1 m").arg(km * 1000, 0, 'g', 6);
        // Bottom right, on a light box, clear of the meridians' labels along the bottom edge.
        const QPointF left(width() - length - metrics.horizontalAdvance(text) - 22.0 * ui_scale(),
                           height() - 2.5 * metrics.height() - 8.0 * ui_scale());
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 200));
        painter.drawRoundedRect(QRectF(left.x() - 6, left.y() - metrics.height(), length + metrics.horizontalAdvance(text) + 18,
                                       2 * metrics.height()),
                                3, 3);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(QColor(30, 30, 30), 2.0));
        painter.drawLine(left, left + QPointF(length, 0));
        painter.drawLine(left + QPointF(0, -5), left + QPointF(0, 5));
        painter.drawLine(left + QPointF(length, -5), left + QPointF(length, 5));
        painter.drawText(left + QPointF(length + 6, 4), text);
    }
    painter.restore();
}

PointCloudView::OverlayLayout PointCloudView::overlay_layout() const {
    OverlayLayout layout;
    const double scale = ui_scale();
    const double margin = 10.0 * scale;
    const QFont font = this->font();
    const double base = font.pointSizeF() > 0 ? font.pointSizeF() : 10.0;
    // The legend first: the captions wrap left of it rather than run under it.
    if (!overlay_.legend.empty()) {
        layout.legend_font = font;
        layout.legend_font.setPointSizeF(base * scale);
        const QFontMetricsF metrics(layout.legend_font);
        layout.legend_line = metrics.height() * 1.15;
        double text_width = 0;
        for (const auto& entry : overlay_.legend) text_width = std::max(text_width, metrics.horizontalAdvance(entry.second));
        const double swatch = layout.legend_line * 0.7;
        layout.legend = QRectF(width() - margin - text_width - swatch - 18, margin, text_width + swatch + 18,
                               layout.legend_line * double(overlay_.legend.size()) + 8);
    }
    const double text_right = layout.legend.isEmpty() ? width() - margin : layout.legend.left() - margin;
    double y = margin;
    const auto add = [&](const QString& text, double point_size, bool bold, double top) {
        QFont f = font;
        f.setPointSizeF(point_size);
        f.setBold(bold);
        const QFontMetricsF metrics(f);
        const double room = std::max(80.0, text_right - margin - 8);
        const QRectF bounds = metrics.boundingRect(QRectF(0, 0, room, 1e4), Qt::TextWordWrap | Qt::AlignLeft, text);
        const QRectF box(margin, top, bounds.width() + 8, bounds.height() + 4);
        layout.texts.push_back({box, f, text, Qt::AlignLeft});
        return box.height();
    };
    if (!overlay_.caption.isEmpty()) y += add(overlay_.caption, base * 1.25 * scale, true, y) + 4;
    if (!overlay_.detail.isEmpty()) y += add(overlay_.detail, base * scale, false, y) + 4;
    if (!overlay_.note.isEmpty()) {
        QFont f = font;
        f.setPointSizeF(base * 0.95 * scale);
        const double line = QFontMetricsF(f).height();
        add(overlay_.note, base * 0.95 * scale, false, height() - margin - line * 2.4);
    }
    return layout;
}

void PointCloudView::draw_overlay(QPainter& painter) {
    const OverlayLayout layout = overlay_layout();
    for (const OverlayBox& text : layout.texts) {
        painter.setFont(text.font);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 210));
        painter.drawRoundedRect(text.box, 4, 4);
        painter.setPen(QColor(30, 30, 30));
        painter.drawText(text.box.adjusted(4, 2, -4, -2), Qt::TextWordWrap | text.align, text.text);
    }
    if (!overlay_.legend.empty()) {
        painter.setFont(layout.legend_font);
        const QRectF& box = layout.legend;
        const double line = layout.legend_line, swatch = line * 0.7;
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 220));
        painter.drawRoundedRect(box, 4, 4);
        double row = box.top() + 4;
        for (const auto& [colour, text] : overlay_.legend) {
            painter.setPen(QPen(QColor(40, 40, 40), 1));
            painter.setBrush(colour);
            painter.drawEllipse(QRectF(box.left() + 6, row + (line - swatch) / 2, swatch, swatch));
            painter.setPen(QColor(30, 30, 30));
            painter.drawText(QRectF(box.left() + 12 + swatch, row, box.width() - 18 - swatch, line), Qt::AlignVCenter, text);
            row += line;
        }
    }
}

void PointCloudView::draw_centroids() {
    if (centroids_.empty()) return;
    std::vector<float> positions;
    std::vector<PackedRgba> colours;
    for (std::size_t c = 0; c < centroids_.size(); ++c) {
        positions.push_back(float(centroids_[c].x()));
        positions.push_back(float(centroids_[c].y()));
        colours.push_back(colour_of(c));
    }
    overlay_vao_.bind();
    overlay_position_buffer_.bind();
    overlay_position_buffer_.allocate(positions.data(), int(positions.size() * sizeof(float)));
    overlay_colour_buffer_.bind();
    overlay_colour_buffer_.allocate(colours.data(), int(colours.size() * sizeof(PackedRgba)));
    marker_program_.bind();
    set_camera_uniforms(marker_program_);
    marker_program_.setUniformValue("u_point_size", float(kMarkerPixels * ui_scale() * devicePixelRatioF()));
    glDrawArrays(GL_POINTS, 0, GLsizei(centroids_.size()));
    marker_program_.release();
    overlay_vao_.release();
}

}  // namespace kms::ui
