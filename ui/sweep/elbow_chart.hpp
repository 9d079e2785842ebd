#pragma once
// The elbow chart: inertia, silhouette, Calinski–Harabasz and Davies–Bouldin
// against k, each on its own small axes (their scales have nothing in common),
// sharing the k axis: a 2 × 2 grid when the widget is wide, a column when tall.
// Marks the elbow (dashed, every panel), each score's best k (a ring) and the
// k shown in the main view (a solid line). A click picks the nearest k.
#include <QWidget>

#include <optional>
#include <vector>

namespace kms::ui {

struct ElbowPoint {
    std::size_t k = 0;
    double inertia = 0, silhouette = 0, calinski_harabasz = 0, davies_bouldin = 0;  // NaN: not computed
};

struct ElbowMarks {
    std::optional<std::size_t> elbow, best_silhouette, best_calinski_harabasz, best_davies_bouldin;
};

class ElbowChart : public QWidget {
    Q_OBJECT
public:
    explicit ElbowChart(QWidget* parent = nullptr);

    void set_points(std::vector<ElbowPoint> points);  // any order; drawn by increasing k
    void set_marks(const ElbowMarks& marks);
    void set_selected_k(std::optional<std::size_t> k);
    const std::vector<ElbowPoint>& points() const { return points_; }
    std::optional<std::size_t> selected_k() const { return selected_; }

    // The panel rectangles (inertia, silhouette, CH, DB) at the current size and
    // the pixel x of a k, as the last paint used them (tests click through these).
    std::vector<QRectF> panel_rects() const;
    double x_of(std::size_t k, const QRectF& panel) const;

    QSize sizeHint() const override { return {460, 420}; }
    QSize minimumSizeHint() const override { return {220, 220}; }

signals:
    void kClicked(std::size_t k);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    std::vector<ElbowPoint> points_;
    ElbowMarks marks_;
    std::optional<std::size_t> selected_;
};

}  // namespace kms::ui
