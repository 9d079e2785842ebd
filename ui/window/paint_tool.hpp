#pragma once
// The paint tool: drags on the view add points of a class (a brush of dabs of
// `density` points); the drawing becomes the run's data 200 ms after the last
// dab, keeping camera and initial centroids. Saved as NAME.csv (x,y) with the
// classes in NAME-labels.txt, which the loaders read back as the ground truth.
#include <QObject>
#include <QPointF>
#include <QString>

#include <cstdint>
#include <vector>

class QTimer;

namespace kms::ui {

class PointCloudView;
class RunController;

class PaintTool : public QObject {
    Q_OBJECT
public:
    PaintTool(RunController& run, PointCloudView& view, QObject* parent = nullptr);

    // Drawing starts on the loaded canvas (2-d data): its points and classes.
    void start_on_canvas();
    void set_class(int cls) { class_ = cls; }
    void set_density(int points_per_dab) { density_ = points_per_dab; }
    int density() const { return density_; }
    void paint_at(QPointF world, double radius_world);
    // An empty canvas.
    void clear();
    // Throws kms::Error naming the path.
    void save(const QString& path) const;
    std::size_t drawn_points() const { return points_.size() / 2; }

private:
    void commit();

    RunController& run_;
    PointCloudView& view_;
    std::vector<double> points_;  // x, y pairs
    std::vector<std::int32_t> classes_;
    int class_ = 0;
    int density_ = 12;
    std::uint64_t dabs_ = 0;
    QTimer* commit_timer_ = nullptr;
};

}  // namespace kms::ui
