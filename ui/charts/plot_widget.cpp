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

#include "charts/plot_style.hpp"

namespace kms::ui {

using namespace plot_style;

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
