#include "sweep/elbow_chart.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/distinct_colours.hpp"
#include "charts/plot_widget.hpp"

namespace kms::ui {

namespace {

struct Panel {
    const char* title;
    double ElbowPoint::*value;
    std::optional<std::size_t> ElbowMarks::*best;
};
constexpr Panel kPanels[] = {
    {"inertia · elbow dashed", &ElbowPoint::inertia, nullptr},
    {"silhouette ↑", &ElbowPoint::silhouette, &ElbowMarks::best_silhouette},
    {"Calinski–Harabasz ↑", &ElbowPoint::calinski_harabasz, &ElbowMarks::best_calinski_harabasz},
    {"Davies–Bouldin ↓", &ElbowPoint::davies_bouldin, &ElbowMarks::best_davies_bouldin},
};

const QColor kText(0x33, 0x33, 0x33), kGrid(0xe6, 0xe6, 0xe6), kAxis(0x88, 0x88, 0x88);
constexpr double kLeft = 56, kRight = 10, kTop = 20, kBottom = 20;

QRectF plot_area(const QRectF& panel) { return panel.adjusted(kLeft, kTop, -kRight, -kBottom); }

}  // namespace

ElbowChart::ElbowChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(false);
    setAutoFillBackground(true);
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, Qt::white);
    setPalette(palette);
}

void ElbowChart::set_points(std::vector<ElbowPoint> points) {
    std::sort(points.begin(), points.end(), [](const ElbowPoint& a, const ElbowPoint& b) { return a.k < b.k; });
    points_ = std::move(points);
    update();
}

void ElbowChart::set_marks(const ElbowMarks& marks) {
    marks_ = marks;
    update();
}

void ElbowChart::set_selected_k(std::optional<std::size_t> k) {
    selected_ = k;
    update();
}

std::vector<QRectF> ElbowChart::panel_rects() const {
    const QRectF all = QRectF(rect()).adjusted(4, 4, -4, -4);
    std::vector<QRectF> panels;
    if (all.width() >= all.height()) {  // 2 × 2
        const double w = all.width() / 2, h = all.height() / 2;
        for (int i = 0; i < 4; ++i) panels.emplace_back(all.left() + (i % 2) * w, all.top() + (i / 2) * h, w, h);
    } else {  // a column
        const double h = all.height() / 4;
        for (int i = 0; i < 4; ++i) panels.emplace_back(all.left(), all.top() + i * h, all.width(), h);
    }
    return panels;
}

double ElbowChart::x_of(std::size_t k, const QRectF& panel) const {
    const QRectF plot = plot_area(panel);
    if (points_.empty()) return plot.center().x();
    const double low = double(points_.front().k), high = double(points_.back().k);
    if (high <= low) return plot.center().x();
    return plot.left() + 8 + (double(k) - low) / (high - low) * (plot.width() - 16);
}

void ElbowChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF metrics(font());
    const std::vector<QRectF> panels = panel_rects();
    for (std::size_t p = 0; p < 4; ++p) {
        const Panel& spec = kPanels[p];
        const QRectF plot = plot_area(panels[p]);
        painter.setPen(kText);
        painter.drawText(QRectF(plot.left(), panels[p].top(), plot.width(), kTop - 2), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(tr(spec.title), Qt::ElideRight, plot.width()));
        // The y range of this score over the finite values.
        double low = std::numeric_limits<double>::infinity(), high = -low;
        for (const ElbowPoint& point : points_) {
            const double value = point.*spec.value;
            if (std::isfinite(value)) {
                low = std::min(low, value);
                high = std::max(high, value);
            }
        }
        painter.setPen(QPen(kAxis, 1.0));
        painter.drawLine(plot.bottomLeft(), plot.bottomRight());
        painter.drawLine(plot.bottomLeft(), plot.topLeft());
        // k ticks: every k when they fit, else a nice subset.
        if (!points_.empty()) {
            const double k_low = double(points_.front().k), k_high = double(points_.back().k);
            std::vector<double> ticks = nice_ticks(k_low, k_high, std::max(2, int(plot.width() / 36)));
            if (ticks.empty()) ticks.push_back(k_low);
            painter.setPen(kText);
            for (const double tick : ticks) {
                if (std::abs(tick - std::round(tick)) > 1e-9) continue;
                const double x = x_of(std::size_t(std::llround(tick)), panels[p]);
                painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
                painter.drawText(QRectF(x - 20, plot.bottom() + 3, 40, kBottom - 3), Qt::AlignHCenter | Qt::AlignTop,
                                 QString::number(std::llround(tick)));
            }
        }
        if (!(low <= high)) {
            painter.setPen(kAxis);
            painter.drawText(plot, Qt::AlignCenter, points_.empty() ? tr("no sweep yet") : tr("not computed"));
            continue;
        }
        if (high == low) {
            const double pad = std::max(std::abs(low) * 0.05, 1e-12);
            low -= pad;
            high += pad;
        }
        const auto [axis_low, axis_high] = nice_range(low, high, 4);
        const auto y_of = [&](double value) {
            return plot.bottom() - 4 - (value - axis_low) / (axis_high - axis_low) * (plot.height() - 8);
        };
        const double step = nice_step(axis_high - axis_low, 4);
        for (const double tick : nice_ticks(axis_low, axis_high, 4)) {
            const double y = y_of(tick);
            painter.setPen(QPen(kGrid, 1.0));
            painter.drawLine(QPointF(plot.left() + 1, y), QPointF(plot.right(), y));
            painter.setPen(kText);
            painter.drawText(QRectF(panels[p].left(), y - metrics.height() / 2, kLeft - 5, metrics.height()),
                             Qt::AlignRight | Qt::AlignVCenter,
                             format_tick(tick, step, std::max(std::abs(axis_low), std::abs(axis_high))));
        }
        // The elbow on every panel (dashed), the k shown in the main view (solid).
        const auto vertical = [&](std::size_t k, const QPen& pen) {
            painter.setPen(pen);
            const double x = x_of(k, panels[p]);
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        };
        if (marks_.elbow) vertical(*marks_.elbow, QPen(QColor(0xc0, 0x39, 0x2b), 1.5, Qt::DashLine));
        if (selected_) vertical(*selected_, QPen(QColor(0x22, 0x22, 0x22), 1.5));

        const Rgb rgb = series_colour(p);
        const QColor colour(rgb.r, rgb.g, rgb.b);
        QPainterPath line;
        bool pen_down = false;
        for (const ElbowPoint& point : points_) {
            const double value = point.*spec.value;
            if (!std::isfinite(value)) {
                pen_down = false;
                continue;
            }
            const QPointF at(x_of(point.k, panels[p]), y_of(value));
            if (pen_down) line.lineTo(at);
            else line.moveTo(at);
            pen_down = true;
        }
        painter.setPen(QPen(colour, 2.0));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(line);
        painter.setBrush(colour);
        painter.setPen(Qt::NoPen);
        for (const ElbowPoint& point : points_)
            if (std::isfinite(point.*spec.value))
                painter.drawEllipse(QPointF(x_of(point.k, panels[p]), y_of(point.*spec.value)), 3, 3);
        const std::optional<std::size_t> best = spec.best ? marks_.*spec.best : marks_.elbow;
        if (best)
            for (const ElbowPoint& point : points_)
                if (point.k == *best && std::isfinite(point.*spec.value)) {
                    const QPointF at(x_of(point.k, panels[p]), y_of(point.*spec.value));
                    painter.setPen(QPen(colour, 2.0));
                    painter.setBrush(Qt::NoBrush);
                    painter.drawEllipse(at, 7, 7);
                    painter.setPen(kText);
                    painter.drawText(QRectF(at.x() + 9, at.y() - metrics.height(), 60, metrics.height()),
                                     Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("k=%1").arg(point.k));
                }
        painter.setBrush(Qt::NoBrush);
    }
}

void ElbowChart::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || points_.empty()) return;
    const QPointF at = event->position();
    for (const QRectF& panel : panel_rects()) {
        if (!panel.contains(at)) continue;
        std::size_t nearest = points_.front().k;
        double best = std::numeric_limits<double>::infinity();
        for (const ElbowPoint& point : points_) {
            const double distance = std::abs(x_of(point.k, panel) - at.x());
            if (distance < best) {
                best = distance;
                nearest = point.k;
            }
        }
        emit kClicked(nearest);
        return;
    }
}

}  // namespace kms::ui
