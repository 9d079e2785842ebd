#include "scores/silhouette_plot.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <functional>

#include "charts/distinct_colours.hpp"
#include "charts/plot_widget.hpp"
#include "kms/scores.hpp"

namespace kms::ui {
namespace {

constexpr double kMargin = 6.0;
const QColor kTextColour(0x22, 0x22, 0x22);
const QColor kAxisColour(0x55, 0x55, 0x55);
const QColor kMeanColour(0xd6, 0x27, 0x28);

}  // namespace

SilhouettePlot::SilhouettePlot(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void SilhouettePlot::setValues(std::span<const double> values, std::span<const std::int32_t> labels_of_values,
                               double mean) {
    clusters_.clear();
    total_ = 0;
    mean_ = mean;
    const std::size_t count = std::min(values.size(), labels_of_values.size());
    for (std::size_t i = 0; i < count; ++i) {
        const std::int32_t label = labels_of_values[i];
        if (label < 0 || !std::isfinite(values[i])) continue;
        if (static_cast<std::size_t>(label) >= clusters_.size()) clusters_.resize(static_cast<std::size_t>(label) + 1);
        clusters_[static_cast<std::size_t>(label)].push_back(values[i]);
        ++total_;
    }
    for (auto& cluster : clusters_) std::sort(cluster.begin(), cluster.end(), std::greater<>());
    update();
}

void SilhouettePlot::setScores(const Scores& scores, std::span<const std::int32_t> labels) {
    const SilhouetteResult& detail = scores.silhouette_detail;
    std::vector<std::int32_t> labels_of_values;
    labels_of_values.reserve(detail.values.size());
    if (detail.sampled || !detail.indices.empty()) {
        for (std::uint64_t index : detail.indices)
            labels_of_values.push_back(index < labels.size() ? labels[static_cast<std::size_t>(index)] : -1);
    } else {
        labels_of_values.assign(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(
                                                                     std::min(labels.size(), detail.values.size())));
    }
    setValues(detail.values, labels_of_values, scores.silhouette);
}

void SilhouettePlot::clear() {
    clusters_.clear();
    total_ = 0;
    mean_ = 0.0;
    update();
}

void SilhouettePlot::setClusterColours(std::vector<QColor> colours) {
    colours_ = std::move(colours);
    update();
}

QColor SilhouettePlot::clusterColour(std::size_t cluster) const {
    if (cluster < colours_.size()) return colours_[cluster];
    const Rgb colour = distinct_colour(cluster);
    return {colour.r, colour.g, colour.b};
}

double SilhouettePlot::axisLow() const {
    // scikit-learn's example starts at -0.1; go further only when values do.
    double lowest = -0.1;
    for (const auto& cluster : clusters_)
        if (!cluster.empty()) lowest = std::min(lowest, cluster.back());
    if (lowest >= -0.1) return -0.1;
    return std::max(-1.0, std::floor(lowest * 5.0) / 5.0);
}

QRectF SilhouettePlot::barArea() const {
    const QFontMetricsF metrics(font());
    const double line = metrics.height();
    // Title, then the mean's label above the bars; ticks and axis name below.
    const double top = kMargin + line * 2.2;
    const double bottom = height() - kMargin - line * 2 - 4;
    const double left = kMargin + metrics.horizontalAdvance(QStringLiteral("000")) + 6;
    const double right = width() - kMargin - metrics.horizontalAdvance(QStringLiteral("0.0")) / 2;
    return QRectF(left, top, std::max(0.0, right - left), std::max(0.0, bottom - top));
}

double SilhouettePlot::xForValue(double value) const {
    const QRectF area = barArea();
    const double low = axisLow();
    return area.left() + (value - low) / (1.0 - low) * area.width();
}

std::pair<double, double> SilhouettePlot::clusterRows(std::size_t cluster) const {
    const QRectF area = barArea();
    if (total_ == 0 || cluster >= clusters_.size()) return {area.top(), area.top()};
    // Blocks proportional to their point counts, separated by gaps of 3% of the
    // height (at most 8 px), all gaps together never more than a quarter of it
    // (256 clusters still get their bars).
    const std::size_t present = static_cast<std::size_t>(
        std::count_if(clusters_.begin(), clusters_.end(), [](const auto& c) { return !c.empty(); }));
    const double gap = present > 1 ? std::min({8.0, area.height() * 0.03,
                                               area.height() * 0.25 / static_cast<double>(present - 1)})
                                   : 0.0;
    const double usable = std::max(0.0, area.height() - gap * static_cast<double>(present > 0 ? present - 1 : 0));
    double y = area.top();
    for (std::size_t c = 0; c < cluster; ++c) {
        if (clusters_[c].empty()) continue;
        y += usable * static_cast<double>(clusters_[c].size()) / static_cast<double>(total_) + gap;
    }
    const double height = usable * static_cast<double>(clusters_[cluster].size()) / static_cast<double>(total_);
    return {y, y + height};
}

void SilhouettePlot::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    const QRectF area = barArea();
    if (width() < 60 || height() < 60 || area.width() < 10 || area.height() < 10) return;
    const QFontMetricsF metrics(font());
    const double line = metrics.height();

    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(kTextColour);
    painter.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, line), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Silhouette per cluster"));
    painter.setFont(font());

    // Grid and value axis.
    const double low = axisLow();
    const std::vector<double> ticks = nice_ticks(low, 1.0, std::clamp(static_cast<int>(area.width() / 55), 2, 11));
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0.5;
    for (double tick : ticks) {
        const double x = xForValue(tick);
        painter.setPen(QPen(tick == 0.0 ? kAxisColour : QColor(0xe4, 0xe4, 0xe4), 1.0));
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        painter.setPen(kTextColour);
        painter.drawText(QRectF(x - 30, area.bottom() + 4, 60, line), Qt::AlignHCenter | Qt::AlignTop,
                         format_tick(tick, step, 1.0));
    }
    painter.setPen(QPen(kAxisColour, 1.0));
    painter.drawLine(area.bottomLeft(), area.bottomRight());
    painter.setPen(kTextColour);
    painter.drawText(QRectF(area.left(), area.bottom() + 4 + line, area.width(), line), Qt::AlignHCenter | Qt::AlignTop,
                     tr("silhouette value"));

    if (total_ == 0) {
        painter.setPen(QColor(0x88, 0x88, 0x88));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, tr("No silhouette yet"));
        return;
    }

    painter.setRenderHint(QPainter::Antialiasing, false);  // crisp blocks edge to edge
    if (!isEnabled()) painter.setOpacity(0.35);            // stale or being recomputed
    const double zero = xForValue(0.0);
    std::vector<std::pair<std::size_t, double>> labels;  // cluster, middle of its block
    for (std::size_t c = 0; c < clusters_.size(); ++c) {
        const std::vector<double>& values = clusters_[c];
        if (values.empty()) continue;
        const auto [top, bottom] = clusterRows(c);
        const double rows = std::max(1.0, bottom - top);
        // Outline of the sorted bars: one vertex pair per pixel row (or per point when fewer).
        const std::size_t samples = std::min<std::size_t>(values.size(), static_cast<std::size_t>(std::ceil(rows)) + 1);
        QPolygonF outline;
        outline.reserve(static_cast<qsizetype>(samples * 2 + 2));
        outline.append(QPointF(zero, top));
        for (std::size_t s = 0; s < samples; ++s) {
            const double from = top + rows * static_cast<double>(s) / static_cast<double>(samples);
            const double to = top + rows * static_cast<double>(s + 1) / static_cast<double>(samples);
            const std::size_t index = s * values.size() / samples;
            const double x = xForValue(values[index]);
            outline.append(QPointF(x, from));
            outline.append(QPointF(x, to));
        }
        outline.append(QPointF(zero, bottom));
        const QColor colour = clusterColour(c);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colour);
        painter.drawPolygon(outline);
        painter.setBrush(Qt::NoBrush);
        labels.push_back({c, (top + bottom) / 2});
    }
    // Cluster numbers beside their blocks: in a smaller font when blocks are thin,
    // and where even that does not fit, every label that does not overlap the previous.
    labelled_.clear();
    if (!labels.empty()) {
        const double spacing = (area.height()) / double(labels.size());
        QFont small = font();
        const double size = std::clamp(spacing * 0.85 / line * font().pointSizeF(), 6.0, font().pointSizeF());
        small.setPointSizeF(size);
        painter.setFont(small);
        const double small_line = QFontMetricsF(small).height();
        double last_bottom = -1e9;
        painter.setPen(kTextColour);
        for (const auto& [cluster, middle] : labels) {
            if (middle - small_line / 2 < last_bottom - 0.5) continue;
            painter.drawText(QRectF(kMargin, middle - small_line / 2, area.left() - kMargin - 4, small_line),
                             Qt::AlignRight | Qt::AlignVCenter, QString::number(cluster));
            last_bottom = middle + small_line / 2;
            labelled_.push_back(int(cluster));
        }
        painter.setFont(font());
    }

    // Mean silhouette: the score itself.
    if (std::isfinite(mean_)) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        const double x = std::round(xForValue(mean_));
        painter.setPen(QPen(kMeanColour, 2.0, Qt::DashLine, Qt::FlatCap));
        painter.drawLine(QPointF(x, area.top() - 2), QPointF(x, area.bottom()));
        painter.setPen(kMeanColour);
        const QString text = tr("mean %1").arg(QString::number(mean_, 'f', 3));
        const double text_width = metrics.horizontalAdvance(text) + 4;
        const double left = std::clamp(x - text_width / 2, area.left(), std::max(area.left(), area.right() - text_width));
        painter.drawText(QRectF(left, area.top() - line - 2, text_width, line), Qt::AlignCenter, text);
    }
}

}  // namespace kms::ui
