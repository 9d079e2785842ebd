#pragma once
// The classic silhouette diagram: for every cluster a block of horizontal bars,
// one per scored point, sorted from the best value down and filled in the
// cluster's colour, plus a dashed line at the mean silhouette. Long clusters are
// drawn as one polygon sampled per pixel row, so 100k values cost no more than 1k.
#include <QColor>
#include <QWidget>

#include <cstdint>
#include <span>
#include <vector>

namespace kms {
struct Scores;
}

namespace kms::ui {

class SilhouettePlot : public QWidget {
    Q_OBJECT
public:
    explicit SilhouettePlot(QWidget* parent = nullptr);

    // values[i] is the silhouette of a point whose label is labels_of_values[i]
    // (the cluster index, 0-based; negative labels are left out). mean = the score.
    void setValues(std::span<const double> values, std::span<const std::int32_t> labels_of_values, double mean);
    // From compute_scores' result: its per-point values and, for a sampled
    // silhouette, their point indices into `labels` (the run's labels, one per point).
    void setScores(const Scores& scores, std::span<const std::int32_t> labels);
    void clear();
    // Cluster c is painted in colours[c] (default: distinct_colour(c), the studio palette).
    void setClusterColours(std::vector<QColor> colours);
    QColor clusterColour(std::size_t cluster) const;

    std::size_t clusterCount() const { return clusters_.size(); }
    // Cluster c's values, sorted from largest to smallest.
    const std::vector<double>& clusterValues(std::size_t cluster) const { return clusters_.at(cluster); }
    double mean() const { return mean_; }

    // Geometry at the current size, as painted: the bar area, the pixel column of a
    // silhouette value, and the pixel rows of cluster c's block.
    QRectF barArea() const;
    double xForValue(double value) const;
    std::pair<double, double> clusterRows(std::size_t cluster) const;

    // Clusters whose number the last paint wrote beside their block.
    const std::vector<int>& labelledClusters() const { return labelled_; }

    QSize sizeHint() const override { return {360, 300}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    double axisLow() const;

    std::vector<std::vector<double>> clusters_;  // per cluster, sorted descending
    std::size_t total_ = 0;
    double mean_ = 0.0;
    std::vector<QColor> colours_;
    std::vector<int> labelled_;
};

}  // namespace kms::ui
