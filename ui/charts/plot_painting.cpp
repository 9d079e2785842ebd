// Drawing of the plot widget: the cached axes, grid and series, the current-iteration
// marker and the hover box.
#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "charts/plot_style.hpp"
#include "charts/plot_widget.hpp"

namespace kms::ui {

using namespace plot_style;

void PlotWidget::paintEvent(QPaintEvent*) {
    // Everything but the hover box is cached: moving the mouse over a plot
    // with thousands of points only blits the cache and draws the box.
    const qreal ratio = devicePixelRatioF();
    const QSize pixels = size() * ratio;
    if (!cache_valid_ || cache_.size() != pixels) {
        cache_ = QPixmap(pixels.expandedTo(QSize(1, 1)));
        cache_.setDevicePixelRatio(ratio);
        QPainter cache_painter(&cache_);
        paintContent(cache_painter);
        cache_valid_ = true;
    }
    QPainter painter(this);
    painter.drawPixmap(0, 0, cache_);
    if (hovered_ && width() >= 40 && height() >= 40) {
        const Layout layout = computeLayout();
        if (layout.plot.width() >= 4.0 && layout.plot.height() >= 4.0) {
            painter.setRenderHint(QPainter::Antialiasing, true);
            paintHoverBox(painter, layout);
        }
    }
}

void PlotWidget::paintContent(QPainter& painter) {
    painter.fillRect(rect(), Qt::white);
    if (width() < 40 || height() < 40) return;  // nothing legible fits
    const Layout layout = computeLayout();
    if (layout.plot.width() < 4.0 || layout.plot.height() < 4.0) return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(font());

    if (!title_.isEmpty()) {
        QFont title_font = font();
        title_font.setBold(true);
        painter.setFont(title_font);
        painter.setPen(kTextColour);
        const QFontMetricsF title_metrics(title_font);
        const bool fits = title_metrics.horizontalAdvance(title_) <= layout.title.width();
        const QString& shown = fits || short_title_.isEmpty() ? title_ : short_title_;
        painter.drawText(layout.title, Qt::AlignLeft | Qt::AlignVCenter,
                         title_metrics.elidedText(shown, Qt::ElideRight, layout.title.width()));
        painter.setFont(font());
    }

    for (std::size_t i = 0; i < layout.legend_items.size(); ++i) {
        const QRectF& item = layout.legend_items[i];
        const PlotSeries& series = series_[i];
        const double middle = item.center().y();
        if (series.style == PlotSeries::Style::Bars) {
            painter.fillRect(QRectF(item.left() + 3, middle - 5, 10, 10), series.color);
        } else {
            painter.setPen(QPen(series.color, 2.5, series.pen_style, Qt::FlatCap));
            painter.drawLine(QPointF(item.left(), middle), QPointF(item.left() + 16, middle));
        }
        painter.setPen(kTextColour);
        painter.drawText(QRectF(item.left() + 20, item.top(), item.width() - 20, item.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, series.name);
    }

    // Grid, ticks and labels.
    const QRectF& plot = layout.plot;
    painter.setPen(QPen(kGridColour, 1.0));
    for (double tick : layout.y_ticks) {
        const double y = mapY(layout, tick);
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }
    painter.setPen(kTextColour);
    for (double tick : layout.y_ticks) {
        const double y = mapY(layout, tick);
        const QRectF label(0, y - metrics.height() / 2, plot.left() - kTickLength - 3.0, metrics.height());
        painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter, yTickLabel(layout, tick));
    }
    for (double tick : layout.x_ticks) {
        const double x = mapX(layout, tick);
        painter.setPen(kAxisColour);
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + kTickLength));
        painter.setPen(kTextColour);
        const QRectF label(x - 40, plot.bottom() + kTickLength, 80, metrics.height());
        painter.drawText(label, Qt::AlignHCenter | Qt::AlignTop, QString::number(tick, 'f', 0));
    }
    if (!x_label_.isEmpty()) {
        const QRectF label(plot.left(), plot.bottom() + kTickLength + metrics.height(), plot.width(),
                           metrics.height());
        painter.drawText(label, Qt::AlignHCenter | Qt::AlignTop, x_label_);
    }
    painter.setPen(QPen(kAxisColour, 1.0));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());

    if (!hasData()) {
        painter.setPen(QColor(0x88, 0x88, 0x88));
        painter.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap,
                         empty_message_.isEmpty() ? tr("No data yet") : empty_message_);
        return;
    }

    painter.save();
    painter.setClipRect(plot.adjusted(-2, -2, 2, 2));
    const int bar_slots = static_cast<int>(std::count_if(
        series_.begin(), series_.end(), [](const PlotSeries& s) { return s.style == PlotSeries::Style::Bars; }));
    int bar_slot = 0;
    for (const PlotSeries& series : series_) {
        const bool bars = series.style == PlotSeries::Style::Bars;
        paintSeries(painter, layout, series, bars ? bar_slot : 0, bar_slots);
        if (bars) ++bar_slot;
    }

    if (!std::isnan(autoscale_from_) && !fixed_y_) {
        // Warm-up values above the scale: an arrow at the top and the word, instead of a flattened chart.
        bool labelled = false;
        for (const PlotSeries& series : series_)
            for (std::size_t i = 0; i < series.values.size(); ++i) {
                const double x_value = series.first_x + static_cast<double>(i);
                const double value = series.values[i];
                if (!(x_value < autoscale_from_) || !is_finite(value) || mapY(layout, value) >= plot.top()) continue;
                const double x = mapX(layout, x_value);
                QPainterPath arrow;
                arrow.moveTo(x, plot.top());
                arrow.lineTo(x - 5, plot.top() + 8);
                arrow.lineTo(x + 5, plot.top() + 8);
                arrow.closeSubpath();
                painter.fillPath(arrow, series.color);
                if (!labelled) {
                    painter.setPen(kTextColour);
                    painter.drawText(QRectF(x + 6, plot.top(), 120, metrics.height()), Qt::AlignLeft | Qt::AlignTop,
                                     tr("warm-up %1").arg(format_value(value)));
                    labelled = true;
                }
            }
    }

    if (current_iteration_ >= 0 && current_iteration_ >= layout.x_low && current_iteration_ <= layout.x_high) {
        // On a pixel boundary, 2 px wide: two fully covered columns, crisp on a projector.
        const double x = std::round(mapX(layout, current_iteration_));
        painter.setPen(QPen(kMarkerColour, 2.0, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        QPainterPath flag;  // a small triangle on top, visible even where series overlap the line
        flag.moveTo(x - 5, plot.top());
        flag.lineTo(x + 5, plot.top());
        flag.lineTo(x, plot.top() + 7);
        flag.closeSubpath();
        painter.fillPath(flag, kMarkerColour);
    }
    painter.restore();
}

void PlotWidget::paintSeries(QPainter& painter, const Layout& layout, const PlotSeries& series, int bar_slot,
                             int bar_slots) const {
    const std::size_t count = series.values.size();
    if (count == 0) return;
    const QRectF& plot = layout.plot;
    const double unit = plot.width() / (layout.x_high - layout.x_low);  // pixels per iteration
    const auto valid = [this](double value) { return is_finite(value) && (!log_scale_ || value > 0.0); };

    if (series.style == PlotSeries::Style::Bars) {
        const double baseline =
            log_scale_ ? plot.bottom() : mapY(layout, std::clamp(0.0, layout.y_low, layout.y_high));
        const double slot_width = unit * 0.8 / std::max(1, bar_slots);
        if (slot_width >= 1.5) {
            for (std::size_t i = 0; i < count; ++i) {
                const double value = series.values[i];
                if (!valid(value)) continue;
                const double centre = mapX(layout, series.first_x + static_cast<double>(i));
                const double left = centre - unit * 0.4 + slot_width * bar_slot;
                const double top = mapY(layout, value);
                painter.fillRect(QRectF(left, std::min(top, baseline), slot_width, std::abs(baseline - top)),
                                 series.color);
            }
            return;
        }
        // Narrower than a pixel: one line per pixel column up to the column's maximum.
        std::vector<double> column_max(static_cast<std::size_t>(plot.width()) + 2,
                                       std::numeric_limits<double>::quiet_NaN());
        for (std::size_t i = 0; i < count; ++i) {
            const double value = series.values[i];
            if (!valid(value)) continue;
            const auto column = static_cast<std::size_t>(std::clamp(
                mapX(layout, series.first_x + static_cast<double>(i)) - plot.left(), 0.0, plot.width()));
            double& slot = column_max[column];
            slot = std::isnan(slot) ? value : std::max(slot, value);
        }
        painter.setPen(QPen(series.color, 1.0));
        for (std::size_t column = 0; column < column_max.size(); ++column) {
            if (std::isnan(column_max[column])) continue;
            const double x = plot.left() + static_cast<double>(column) + 0.5;
            painter.drawLine(QPointF(x, baseline), QPointF(x, mapY(layout, column_max[column])));
        }
        return;
    }

    if (unit >= 2.0) {
        // Separate segments, not one polyline: Qt strokes a zig-zag polyline as
        // one self-overlapping outline (20+ ms for 100 saw-tooth points) while
        // independent square-capped segments cost well under a millisecond.
        QVector<QLineF> segments;
        QVector<QPointF> points;
        segments.reserve(static_cast<qsizetype>(count));
        points.reserve(static_cast<qsizetype>(count));
        std::optional<QPointF> previous;
        int run_length = 0;  // valid points in a row
        const auto end_run = [&] {
            if (run_length == 1 && unit < 6.0) points.append(*previous);  // isolated: a dot, or it is invisible
            previous.reset();
            run_length = 0;
        };
        for (std::size_t i = 0; i < count; ++i) {
            const double value = series.values[i];
            if (!valid(value)) {
                end_run();
                continue;
            }
            const QPointF point(mapX(layout, series.first_x + static_cast<double>(i)), mapY(layout, value));
            if (previous) segments.append(QLineF(*previous, point));
            if (unit >= 6.0) points.append(point);  // few points (6+ px apart): a dot on each
            previous = point;
            ++run_length;
        }
        end_run();
        if (series.pen_style == Qt::SolidLine) {
            painter.setPen(QPen(series.color, 2.0, Qt::SolidLine, Qt::SquareCap));
            painter.drawLines(segments);
        } else {
            // Dashes continue across segments: each starts where the last one's pattern ended.
            QPen pen(series.color, 2.0, series.pen_style, Qt::FlatCap);
            double travelled = 0.0;
            for (const QLineF& segment : segments) {
                pen.setDashOffset(travelled / pen.widthF());
                painter.setPen(pen);
                painter.drawLine(segment);
                travelled += segment.length();
            }
        }
        painter.setPen(Qt::NoPen);
        painter.setBrush(series.color);
        for (const QPointF& point : points) painter.drawEllipse(point, 2.5, 2.5);
        painter.setBrush(Qt::NoBrush);
        return;
    }

    // Denser than 2 px per iteration: one filled 2-px column per pixel from the
    // column's minimum to its maximum, stretched to reach the previous column's
    // last value so the trace stays connected. Axis-aligned rectangles are the
    // raster engine's fastest primitive (a stroked, antialiased polyline with
    // thousands of zig-zags costs hundreds of milliseconds).
    struct Column {
        double low = 0.0, high = 0.0, last = 0.0;
        bool used = false;
    };
    std::vector<Column> columns(static_cast<std::size_t>(plot.width()) + 2);
    for (std::size_t i = 0; i < count; ++i) {
        const double value = series.values[i];
        if (!valid(value)) continue;
        const auto index = static_cast<std::size_t>(std::clamp(
            mapX(layout, series.first_x + static_cast<double>(i)) - plot.left(), 0.0, plot.width()));
        Column& column = columns[index];
        if (!column.used) {
            column = {value, value, value, true};
        } else {
            column.low = std::min(column.low, value);
            column.high = std::max(column.high, value);
            column.last = value;
        }
    }
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    const bool dashed = series.pen_style != Qt::SolidLine;
    const Column* previous = nullptr;
    for (std::size_t index = 0; index < columns.size(); ++index) {
        const Column& column = columns[index];
        if (!column.used) {
            previous = nullptr;
            continue;
        }
        double low = column.low, high = column.high;
        if (previous) {
            low = std::min(low, previous->last);
            high = std::max(high, previous->last);
        }
        previous = &column;
        if (dashed && (index / 4) % 2 == 1) continue;  // a dashed series stays recognisable
        const double top = std::floor(mapY(layout, high) - 1.0);
        const double bottom = std::ceil(mapY(layout, low) + 1.0);
        painter.fillRect(QRectF(plot.left() + static_cast<double>(index) - 0.5, top, 2.0, bottom - top), series.color);
    }
    painter.restore();
}

void PlotWidget::paintHoverBox(QPainter& painter, const Layout& layout) const {
    const int iteration = *hovered_;
    const QRectF& plot = layout.plot;
    const double x = mapX(layout, iteration);
    painter.setPen(QPen(QColor(0x99, 0x99, 0x99), 1.0, Qt::DashLine));
    painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));

    QStringList lines;
    std::vector<QColor> colours;
    for (const PlotSeries& series : series_) {
        const double index = iteration - series.first_x;
        if (index < 0 || index >= static_cast<double>(series.values.size())) continue;
        const double value = series.values[static_cast<std::size_t>(index)];
        lines << (series.name.isEmpty() ? QString() : series.name + QStringLiteral(": ")) + format_value(value) +
                     (std::isnan(value) ? QString() : suffix_);
        colours.push_back(series.color);
    }
    const QFontMetricsF metrics(font());
    QFont bold = font();
    bold.setBold(true);
    const QString heading = tr("Iteration %1").arg(iteration);
    double box_width = QFontMetricsF(bold).horizontalAdvance(heading);
    for (const QString& text : lines) box_width = std::max(box_width, metrics.horizontalAdvance(text) + 14.0);
    box_width += 12.0;
    const double line = metrics.height();
    const double box_height = line * static_cast<double>(lines.size() + 1) + 8.0;
    // Beside the cursor line, flipped to the left near the right edge.
    double left = x + 10.0;
    if (left + box_width > width() - 2.0) left = x - 10.0 - box_width;
    left = std::max(2.0, left);
    const QRectF box(left, plot.top() + 4.0, box_width, box_height);
    painter.setPen(QColor(0xbb, 0xbb, 0xbb));
    painter.setBrush(QColor(255, 255, 255, 235));
    painter.drawRoundedRect(box, 4, 4);
    painter.setBrush(Qt::NoBrush);
    painter.setFont(bold);
    painter.setPen(kTextColour);
    painter.drawText(QRectF(box.left() + 6, box.top() + 4, box_width, line), Qt::AlignLeft | Qt::AlignVCenter,
                     heading);
    painter.setFont(font());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const double y = box.top() + 4 + line * static_cast<double>(i + 1);
        painter.fillRect(QRectF(box.left() + 6, y + line / 2 - 4, 8, 8), colours[static_cast<std::size_t>(i)]);
        painter.setPen(kTextColour);
        painter.drawText(QRectF(box.left() + 20, y, box_width, line), Qt::AlignLeft | Qt::AlignVCenter, lines[i]);
    }
}

}  // namespace kms::ui
