#pragma once
// A light line/bar plot painted with QPainter (Qt Charts is GPL-3 and deprecated).
// Several series over an iteration axis, 1-2-5 tick labels, optional log scale,
// legend, hover read-out of every series at the iteration under the cursor, a
// "current iteration" marker. Long series (10k+ points) are drawn through a
// per-pixel-column min/max reduction, so painting costs O(width), not O(points).
#include <QColor>
#include <QPixmap>
#include <QString>
#include <QWidget>

#include <limits>
#include <optional>
#include <vector>

namespace kms::ui {

// Tick positions with a step from {1, 2, 5} × 10^e: at most about `max_ticks`
// ticks, every one inside [low, high]. Empty for a non-finite or empty range.
double nice_step(double span, int max_ticks);
std::vector<double> nice_ticks(double low, double high, int max_ticks);
// [low, high] widened outwards to multiples of the nice step.
std::pair<double, double> nice_range(double low, double high, int max_ticks);
// Log-axis ticks inside [low, high] (both > 0): powers of ten, thinned to at most
// `max_ticks`; with less than two decades also 2× and 5× multiples.
std::vector<double> log_ticks(double low, double high, int max_ticks);

// Tick label for `value` on a linear axis whose step is `step` and largest
// magnitude `max_abs`: just enough decimals for the step, k/M/G past 10 000.
QString format_tick(double value, double step, double max_abs);
// Tick label on a log axis: 1, 10, 100, 1k, 1M, 0.1, 0.01, 1e-05 ...
QString format_log_tick(double value);
// A value read out in the hover box: integers with thousands separators, others
// to four significant digits; "–" for NaN.
QString format_value(double value);

struct PlotSeries {
    enum class Style { Line, Bars };

    QString name;
    QColor color;
    Qt::PenStyle pen_style = Qt::SolidLine;
    Style style = Style::Line;
    double first_x = 1.0;        // x of values[0]; x advances by 1 per value (iterations)
    std::vector<double> values;  // NaN (and ≤ 0 on a log axis) leaves a gap
};

class PlotWidget : public QWidget {
    Q_OBJECT
public:
    explicit PlotWidget(QWidget* parent = nullptr);

    // The short title is used when the full one does not fit (narrow docks);
    // whatever is shown is elided rather than clipped.
    void setTitle(const QString& title, const QString& short_title = {});
    QString title() const { return title_; }
    void setXLabel(const QString& label);
    // Appended to hover read-outs (e.g. " ms", "%"); the tick suffix to y tick
    // labels (e.g. "%"; a unit already in the title needs none).
    void setValueSuffix(const QString& suffix);
    void setTickSuffix(const QString& suffix);
    void setLogScale(bool on);
    bool logScale() const { return log_scale_; }
    // Fixed y range (e.g. 0–100 for percentages); std::nullopt = autoscale.
    void setFixedYRange(std::optional<std::pair<double, double>> range);
    // Autoscaled linear axes start at 0 (counts, times) unless switched off (inertia).
    void setIncludeZero(bool on);
    // Iterations before `x` (the warm-up: first-touch page faults, thread start-up)
    // are left out of the autoscaled y range and marked "warm-up" where they are
    // off the scale; NaN: every value counts.
    void setAutoscaleFrom(double x);
    // How many values are drawn off the top of the scale now (for tests).
    int offScaleCount() const;
    // Shown in the middle when no series has a value.
    void setEmptyMessage(const QString& message);

    int addSeries(PlotSeries series);                 // returns its index
    void setSeriesValues(int series, std::vector<double> values);
    void appendValue(int series, double value);
    void clearSeries();
    const std::vector<PlotSeries>& series() const { return series_; }

    // Vertical marker at this iteration; < first iteration hides it.
    void setCurrentIteration(int iteration);
    int currentIteration() const { return current_iteration_; }

    // Geometry of the data area and data→pixel mapping at the current size,
    // the same as the last paint used (for tests and for overlays).
    QRectF plotArea() const;
    QPointF toPixel(double x, double y) const;
    // The y range the axis shows now (after autoscale and nice rounding).
    std::pair<double, double> yRange() const;
    std::pair<double, double> xRange() const;
    // The iteration the hover box describes; std::nullopt when none.
    std::optional<int> hoveredIteration() const { return hovered_; }

    QSize sizeHint() const override { return {420, 240}; }
    QSize minimumSizeHint() const override { return {160, 110}; }

signals:
    void iterationClicked(int iteration);
    void hoveredIterationChanged(int iteration);  // -1 when the cursor leaves
    void logScaleChanged(bool on);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Layout {
        QRectF plot;          // data area
        QRectF title;
        QRectF legend;
        std::vector<QRectF> legend_items;
        double y_low = 0.0, y_high = 1.0;   // axis range (log10 units on a log axis)
        double x_low = 0.0, x_high = 1.0;
        std::vector<double> y_ticks;        // data units
        std::vector<double> x_ticks;
        double y_step = 1.0, y_max_abs = 1.0;
    };

    Layout computeLayout() const;
    void invalidate();  // data or settings changed: repaint the cached plot too
    void paintContent(QPainter& painter);
    void updateDataRange(double value);
    void recomputeDataRange();
    bool hasData() const;
    double mapY(const Layout& layout, double value) const;
    double mapX(const Layout& layout, double x) const;
    QString yTickLabel(const Layout& layout, double value) const;
    void paintSeries(QPainter& painter, const Layout& layout, const PlotSeries& series, int bar_slot,
                     int bar_slots) const;
    void paintHoverBox(QPainter& painter, const Layout& layout) const;
    std::optional<int> iterationAt(const QPointF& position) const;

    QString title_;
    QString short_title_;
    QString x_label_;
    QString suffix_;
    QString tick_suffix_;
    QString empty_message_;
    bool log_scale_ = false;
    bool include_zero_ = true;
    double autoscale_from_ = std::numeric_limits<double>::quiet_NaN();
    std::optional<std::pair<double, double>> fixed_y_;
    std::vector<PlotSeries> series_;
    int current_iteration_ = -1;
    std::optional<int> hovered_;

    // Extremes over all finite values, and the smallest positive one (log axis).
    double data_min_ = 0.0, data_max_ = 0.0, positive_min_ = 0.0, positive_max_ = 0.0;
    bool have_values_ = false, have_positive_ = false;
    double x_min_ = 0.0, x_max_ = 0.0;
    bool have_x_ = false;

    QPixmap cache_;
    bool cache_valid_ = false;
};

}  // namespace kms::ui
