#include "charts/plot_widget.hpp"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kms::ui {
namespace {

constexpr double kMargin = 6.0;
constexpr double kTickLength = 4.0;
const QColor kAxisColour(0x55, 0x55, 0x55);
const QColor kGridColour(0xe4, 0xe4, 0xe4);
const QColor kTextColour(0x22, 0x22, 0x22);
const QColor kMarkerColour(0x20, 0x20, 0x20);

bool is_finite(double value) { return std::isfinite(value); }

// Ticks at multiples of `step` inside [low, high], computed from the multiple's
// index (not by repeated addition) so 0.1-steps do not drift to 0.30000000000000004.
std::vector<double> ticks_with_step(double low, double high, double step) {
    std::vector<double> ticks;
    if (!(step > 0.0) || !is_finite(low) || !is_finite(high)) return ticks;
    const double slack = step * 1e-9;
    const double first = std::ceil((low - slack) / step);
    const double last = std::floor((high + slack) / step);
    if (last - first > 10000.0) return ticks;  // defensive: never a runaway loop
    for (double index = first; index <= last; index += 1.0) {
        double value = index * step;
        if (std::abs(value) < slack) value = 0.0;
        ticks.push_back(value);
    }
    return ticks;
}

int decimals_for_step(double step) {
    if (!(step > 0.0) || step >= 1.0) return 0;
    return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
}

struct ScaleSuffix {
    double divisor;
    const char* suffix;
};

ScaleSuffix scale_for(double magnitude) {
    if (magnitude >= 1e12) return {1e12, "T"};
    if (magnitude >= 1e9) return {1e9, "G"};
    if (magnitude >= 1e6) return {1e6, "M"};
    return {1e3, "k"};
}

}  // namespace

double nice_step(double span, int max_ticks) {
    if (!is_finite(span) || !(span > 0.0)) return 0.0;
    const double raw = span / std::max(1, max_ticks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double normalised = raw / magnitude;
    double factor = 10.0;
    if (normalised <= 1.0 + 1e-9) factor = 1.0;
    else if (normalised <= 2.0 + 1e-9) factor = 2.0;
    else if (normalised <= 5.0 + 1e-9) factor = 5.0;
    return factor * magnitude;
}

std::vector<double> nice_ticks(double low, double high, int max_ticks) {
    if (!is_finite(low) || !is_finite(high)) return {};
    if (high < low) std::swap(low, high);
    if (low == high) return {low};
    return ticks_with_step(low, high, nice_step(high - low, max_ticks));
}

std::pair<double, double> nice_range(double low, double high, int max_ticks) {
    if (!is_finite(low) || !is_finite(high)) return {low, high};
    if (high < low) std::swap(low, high);
    const double step = nice_step(high - low, max_ticks);
    if (step == 0.0) return {low, high};
    return {std::floor(low / step + 1e-9) * step, std::ceil(high / step - 1e-9) * step};
}

std::vector<double> log_ticks(double low, double high, int max_ticks) {
    std::vector<double> ticks;
    if (!(low > 0.0) || !(high > 0.0) || !is_finite(low) || !is_finite(high)) return ticks;
    if (high < low) std::swap(low, high);
    const double slack = 1e-9;
    const int first_decade = static_cast<int>(std::ceil(std::log10(low) - slack));
    const int last_decade = static_cast<int>(std::floor(std::log10(high) + slack));
    const int decades = last_decade - first_decade + 1;
    const int stride = std::max(1, static_cast<int>(std::ceil(static_cast<double>(decades) /
                                                              std::max(1, max_ticks))));
    for (int exponent = first_decade; exponent <= last_decade; ++exponent)
        if (((exponent % stride) + stride) % stride == 0) ticks.push_back(std::pow(10.0, exponent));

    // Few decades: 2× and 5× in between, when they fit the budget.
    if (std::log10(high / low) < 2.0 + slack) {
        std::vector<double> dense;
        for (int exponent = first_decade - 1; exponent <= last_decade; ++exponent)
            for (double mantissa : {1.0, 2.0, 5.0}) {
                const double value = mantissa * std::pow(10.0, exponent);
                if (value >= low * (1 - slack) && value <= high * (1 + slack)) dense.push_back(value);
            }
        if (static_cast<int>(dense.size()) <= std::max(2, max_ticks) && dense.size() > ticks.size())
            ticks = std::move(dense);
    }
    if (ticks.empty()) ticks = nice_ticks(low, high, max_ticks);
    return ticks;
}

QString format_tick(double value, double step, double max_abs) {
    if (value == 0.0) return QStringLiteral("0");
    if (max_abs >= 1e4) {
        const ScaleSuffix scale = scale_for(max_abs);
        return QString::number(value / scale.divisor, 'f', decimals_for_step(step / scale.divisor)) +
               QLatin1String(scale.suffix);
    }
    if (max_abs < 1e-3) return QString::number(value, 'g', 3);
    return QString::number(value, 'f', decimals_for_step(step));
}

QString format_log_tick(double value) {
    if (value >= 1e4) {
        const ScaleSuffix scale = scale_for(value);
        return QString::number(value / scale.divisor, 'g', 3) + QLatin1String(scale.suffix);
    }
    return QString::number(value, 'g', 6);
}

QString format_value(double value) {
    if (std::isnan(value)) return QStringLiteral("–");
    if (!is_finite(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    const QLocale english(QLocale::English);
    if (value == std::trunc(value) && std::abs(value) < 1e15)
        return english.toString(static_cast<qlonglong>(value));
    if (std::abs(value) >= 1000.0) return english.toString(value, 'f', 1);
    return QString::number(value, 'g', 4);
}

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void PlotWidget::setTitle(const QString& title, const QString& short_title) {
    title_ = title;
    short_title_ = short_title;
    invalidate();
}
void PlotWidget::setXLabel(const QString& label) { x_label_ = label; invalidate(); }
void PlotWidget::setValueSuffix(const QString& suffix) { suffix_ = suffix; invalidate(); }
void PlotWidget::setTickSuffix(const QString& suffix) { tick_suffix_ = suffix; invalidate(); }
void PlotWidget::setIncludeZero(bool on) { include_zero_ = on; invalidate(); }
void PlotWidget::setEmptyMessage(const QString& message) { empty_message_ = message; invalidate(); }

void PlotWidget::setLogScale(bool on) {
    if (log_scale_ == on) return;
    log_scale_ = on;
    invalidate();
    emit logScaleChanged(on);
}

void PlotWidget::setFixedYRange(std::optional<std::pair<double, double>> range) {
    fixed_y_ = range;
    invalidate();
}

int PlotWidget::addSeries(PlotSeries series) {
    series_.push_back(std::move(series));
    recomputeDataRange();
    invalidate();
    return static_cast<int>(series_.size()) - 1;
}

void PlotWidget::setSeriesValues(int series, std::vector<double> values) {
    if (series < 0 || series >= static_cast<int>(series_.size())) return;
    series_[static_cast<std::size_t>(series)].values = std::move(values);
    recomputeDataRange();
    invalidate();
}

void PlotWidget::appendValue(int series, double value) {
    if (series < 0 || series >= static_cast<int>(series_.size())) return;
    PlotSeries& target = series_[static_cast<std::size_t>(series)];
    target.values.push_back(value);
    // Extremes grow incrementally: appending 10k iterations stays O(1) each.
    const double x = target.first_x + static_cast<double>(target.values.size() - 1);
    if (!have_x_) {
        x_min_ = x_max_ = x;
        have_x_ = true;
    } else {
        x_min_ = std::min(x_min_, x);
        x_max_ = std::max(x_max_, x);
    }
    // The first value after the warm-up rescales without it; warm-up values count only alone.
    if (!std::isnan(autoscale_from_) && x <= autoscale_from_) recomputeDataRange();
    else if (std::isnan(autoscale_from_) || x >= autoscale_from_) updateDataRange(value);
    invalidate();
}

void PlotWidget::clearSeries() {
    series_.clear();
    hovered_.reset();
    recomputeDataRange();
    invalidate();
}

void PlotWidget::setCurrentIteration(int iteration) {
    if (current_iteration_ == iteration) return;
    current_iteration_ = iteration;
    invalidate();
}

void PlotWidget::updateDataRange(double value) {
    if (!is_finite(value)) return;
    if (!have_values_) {
        data_min_ = data_max_ = value;
        have_values_ = true;
    } else {
        data_min_ = std::min(data_min_, value);
        data_max_ = std::max(data_max_, value);
    }
    if (value > 0.0) {
        if (!have_positive_) {
            positive_min_ = positive_max_ = value;
            have_positive_ = true;
        } else {
            positive_min_ = std::min(positive_min_, value);
            positive_max_ = std::max(positive_max_, value);
        }
    }
}

void PlotWidget::recomputeDataRange() {
    have_values_ = have_positive_ = have_x_ = false;
    for (const PlotSeries& series : series_) {
        if (series.values.empty()) continue;
        const double last_x = series.first_x + static_cast<double>(series.values.size() - 1);
        x_min_ = have_x_ ? std::min(x_min_, series.first_x) : series.first_x;
        x_max_ = have_x_ ? std::max(x_max_, last_x) : last_x;
        have_x_ = true;
        for (std::size_t i = 0; i < series.values.size(); ++i)
            if (!(series.first_x + static_cast<double>(i) < autoscale_from_)) updateDataRange(series.values[i]);
    }
    // Only warm-up values so far: they are all there is to scale to.
    if (!have_values_)
        for (const PlotSeries& series : series_)
            for (double value : series.values) updateDataRange(value);
}

void PlotWidget::setAutoscaleFrom(double x) {
    autoscale_from_ = x;
    recomputeDataRange();
    invalidate();
}

int PlotWidget::offScaleCount() const {
    if (std::isnan(autoscale_from_) || fixed_y_) return 0;
    const auto [low, high] = yRange();
    int count = 0;
    for (const PlotSeries& series : series_)
        for (std::size_t i = 0; i < series.values.size(); ++i)
            if (series.first_x + static_cast<double>(i) < autoscale_from_ && is_finite(series.values[i]) &&
                series.values[i] > high)
                ++count;
    (void)low;
    return count;
}

bool PlotWidget::hasData() const { return log_scale_ ? have_positive_ : have_values_; }

PlotWidget::Layout PlotWidget::computeLayout() const {
    Layout layout;
    const QFontMetricsF metrics(font());
    QFont title_font = font();
    title_font.setBold(true);
    const QFontMetricsF title_metrics(title_font);
    const double width = std::max(0, this->width());
    const double height = std::max(0, this->height());
    const double line = metrics.height();

    double top = kMargin;
    if (!title_.isEmpty()) {
        layout.title = QRectF(kMargin, top, std::max(0.0, width - 2 * kMargin), title_metrics.height());
        top += title_metrics.height() + 2.0;
    }

    // Legend: swatches and names flowing in rows under the title.
    const bool show_legend =
        series_.size() > 1 || (series_.size() == 1 && !series_.front().name.isEmpty());
    if (show_legend) {
        const double swatch = 16.0, gap = 4.0, spacing = 12.0;
        double x = kMargin, y = top;
        for (const PlotSeries& series : series_) {
            const double item_width = swatch + gap + metrics.horizontalAdvance(series.name);
            if (x > kMargin && x + item_width > width - kMargin) {
                x = kMargin;
                y += line;
            }
            layout.legend_items.emplace_back(x, y, item_width, line);
            x += item_width + spacing;
        }
        layout.legend = QRectF(kMargin, top, std::max(0.0, width - 2 * kMargin), y + line - top);
        top = y + line + 2.0;
    }

    double bottom = height - kMargin - line - kTickLength;
    if (!x_label_.isEmpty()) bottom -= line;
    const double plot_height = std::max(0.0, bottom - top - line / 2);
    top += line / 2;  // room for the top tick label's upper half

    // Y range: fixed, or autoscaled to the data and rounded to nice steps.
    const int max_y_ticks = std::clamp(static_cast<int>(plot_height / (line * 1.8)), 2, 10);
    if (log_scale_) {
        double low = 1.0, high = 10.0;
        if (fixed_y_ && fixed_y_->second > 0.0) {
            high = fixed_y_->second;
            low = fixed_y_->first > 0.0 ? fixed_y_->first : (have_positive_ ? positive_min_ : high / 1000.0);
        } else if (have_positive_) {
            low = std::pow(10.0, std::floor(std::log10(positive_min_) + 1e-9));
            high = std::pow(10.0, std::ceil(std::log10(positive_max_) - 1e-9));
            if (high <= low) high = low * 10.0;
        }
        layout.y_low = std::log10(low);
        layout.y_high = std::log10(high);
        layout.y_ticks = log_ticks(low, high, max_y_ticks);
    } else {
        double low = 0.0, high = 1.0;
        if (fixed_y_) {
            std::tie(low, high) = *fixed_y_;
        } else if (have_values_) {
            low = data_min_;
            high = data_max_;
            if (include_zero_) {
                low = std::min(low, 0.0);
                high = std::max(high, 0.0);
            }
            if (low == high) {
                const double pad = low == 0.0 ? 1.0 : std::abs(low) * 0.1;
                low -= pad;
                high += pad;
            }
            std::tie(low, high) = nice_range(low, high, max_y_ticks);
        }
        if (!(high > low)) high = low + 1.0;
        layout.y_low = low;
        layout.y_high = high;
        layout.y_step = nice_step(high - low, max_y_ticks);
        layout.y_ticks = ticks_with_step(low, high, layout.y_step);
        layout.y_max_abs = std::max(std::abs(low), std::abs(high));
    }

    // Left margin fits the widest y tick label.
    double label_width = metrics.horizontalAdvance(QStringLiteral("0"));
    for (double tick : layout.y_ticks)
        label_width = std::max(label_width, metrics.horizontalAdvance(yTickLabel(layout, tick)));
    const double left = kMargin + label_width + kTickLength + 3.0;
    const double right = width - kMargin - metrics.horizontalAdvance(QStringLiteral("000")) / 2;
    layout.plot = QRectF(left, top, std::max(0.0, right - left), plot_height);

    // X range: the iterations present, bars get half a slot either side.
    bool has_bars = std::any_of(series_.begin(), series_.end(),
                                [](const PlotSeries& s) { return s.style == PlotSeries::Style::Bars; });
    double x_low = have_x_ ? x_min_ : 1.0, x_high = have_x_ ? x_max_ : 10.0;
    if (has_bars || x_high - x_low < 1.0) {
        x_low -= 0.5;
        x_high += 0.5;
    }
    layout.x_low = x_low;
    layout.x_high = x_high;
    const double widest_x_label = metrics.horizontalAdvance(QString::number(std::ceil(x_high))) + 16.0;
    const int max_x_ticks = std::clamp(static_cast<int>(layout.plot.width() / widest_x_label), 1, 12);
    // Iterations are integers: never a fractional tick step.
    const double x_step = std::max(1.0, nice_step(x_high - x_low, max_x_ticks));
    layout.x_ticks = ticks_with_step(x_low, x_high, x_step);
    return layout;
}

QString PlotWidget::yTickLabel(const Layout& layout, double value) const {
    const QString text =
        log_scale_ ? format_log_tick(value) : format_tick(value, layout.y_step, layout.y_max_abs);
    return text + tick_suffix_;
}

double PlotWidget::mapX(const Layout& layout, double x) const {
    const double span = layout.x_high - layout.x_low;
    return layout.plot.left() + (x - layout.x_low) / span * layout.plot.width();
}

double PlotWidget::mapY(const Layout& layout, double value) const {
    double position = value;
    if (log_scale_) {
        if (!(value > 0.0)) return std::numeric_limits<double>::quiet_NaN();
        position = std::log10(value);
    }
    const double span = layout.y_high - layout.y_low;
    return layout.plot.bottom() - (position - layout.y_low) / span * layout.plot.height();
}

QRectF PlotWidget::plotArea() const { return computeLayout().plot; }

QPointF PlotWidget::toPixel(double x, double y) const {
    const Layout layout = computeLayout();
    return {mapX(layout, x), mapY(layout, y)};
}

std::pair<double, double> PlotWidget::yRange() const {
    const Layout layout = computeLayout();
    if (log_scale_) return {std::pow(10.0, layout.y_low), std::pow(10.0, layout.y_high)};
    return {layout.y_low, layout.y_high};
}

std::pair<double, double> PlotWidget::xRange() const {
    const Layout layout = computeLayout();
    return {layout.x_low, layout.x_high};
}

void PlotWidget::invalidate() {
    cache_valid_ = false;
    update();
}

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

std::optional<int> PlotWidget::iterationAt(const QPointF& position) const {
    if (!have_x_) return std::nullopt;
    const Layout layout = computeLayout();
    if (layout.plot.width() < 4.0 || !layout.plot.adjusted(-4, -4, 4, 4).contains(position)) return std::nullopt;
    const double x = layout.x_low + (position.x() - layout.plot.left()) / layout.plot.width() *
                                        (layout.x_high - layout.x_low);
    return static_cast<int>(std::lround(std::clamp(x, x_min_, x_max_)));
}

void PlotWidget::mouseMoveEvent(QMouseEvent* event) {
    const std::optional<int> iteration = iterationAt(event->position());
    if (iteration != hovered_) {
        hovered_ = iteration;
        update();
        emit hoveredIterationChanged(iteration.value_or(-1));
    }
    QWidget::mouseMoveEvent(event);
}

void PlotWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        if (const std::optional<int> iteration = iterationAt(event->position())) emit iterationClicked(*iteration);
    }
    QWidget::mousePressEvent(event);
}

void PlotWidget::leaveEvent(QEvent* event) {
    if (hovered_) {
        hovered_.reset();
        update();
        emit hoveredIterationChanged(-1);
    }
    QWidget::leaveEvent(event);
}

void PlotWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) invalidate();
    QWidget::changeEvent(event);
}

void PlotWidget::contextMenuEvent(QContextMenuEvent* event) {
    QMenu menu(this);
    QAction* log_action = menu.addAction(tr("Logarithmic scale"));
    log_action->setCheckable(true);
    log_action->setChecked(log_scale_);
    connect(log_action, &QAction::toggled, this, &PlotWidget::setLogScale);
    menu.exec(event->globalPos());
}

}  // namespace kms::ui
