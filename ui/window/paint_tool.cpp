#include "window/paint_tool.hpp"

#include <QFileInfo>
#include <QTimer>

#include <cmath>
#include <sstream>

#include "kms/error.hpp"
#include "kms/random.hpp"
#include "run/run_controller.hpp"
#include "run/studio_files.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

PaintTool::PaintTool(RunController& run, PointCloudView& view, QObject* parent)
    : QObject(parent), run_(run), view_(view) {
    commit_timer_ = new QTimer(this);
    commit_timer_->setSingleShot(true);
    commit_timer_->setInterval(200);
    connect(commit_timer_, &QTimer::timeout, this, &PaintTool::commit);
}

void PaintTool::start_on_canvas() {
    if (!points_.empty() || !run_.has_data() || run_.dataset().d() != 2) return;
    const Dataset& data = *run_.dataset().dataset;
    points_.assign(data.points.data(), data.points.data() + data.n() * 2);
    classes_ = data.truth_labels.size() == data.n() ? data.truth_labels : std::vector<std::int32_t>(data.n(), 0);
}

void PaintTool::paint_at(QPointF world, double radius_world) {
    // A dab: `density` points uniform in the brush's disc (counter-based, reproducible).
    const Projection2D& projection = run_.dataset().projection;
    for (int i = 0; i < density_; ++i) {
        const double angle = 6.283185307179586 * random_uniform(20240611, 1, 2 * dabs_ * 256 + std::uint64_t(i));
        const double radius = radius_world * std::sqrt(random_uniform(20240611, 2, dabs_ * 256 + std::uint64_t(i)));
        double x = world.x() + radius * std::cos(angle), y = world.y() + radius * std::sin(angle);
        if (run_.has_data() && projection.input_dimensions() == 2) {
            const std::vector<double> data = projection.unproject(x, y);
            x = data[0];
            y = data[1];
        }
        points_.push_back(x);
        points_.push_back(y);
        classes_.push_back(class_);
    }
    ++dabs_;
    commit_timer_->start();
}

void PaintTool::clear() {
    points_.clear();
    classes_.clear();
    view_.set_points(nullptr);
    view_.set_centroids({}, {});
}

void PaintTool::commit() {
    if (points_.empty()) return;
    Dataset data;
    data.name = "drawn";
    data.points = Matrix<double>(points_.size() / 2, 2);
    std::copy(points_.begin(), points_.end(), data.points.data());
    data.truth_labels = classes_;
    run_.set_k_from_data(false);  // the user's k stays while drawing
    run_.set_drawn_data(std::move(data));
}

void PaintTool::save(const QString& path) const {
    if (points_.empty()) throw Error("nothing drawn yet: tick \"Draw points\" and drag on the view");
    // NAME.csv holds x,y; NAME-labels.txt the classes, one per line: the loaders pick
    // that file up as the ground truth (a class column would load as a third coordinate).
    const std::string file = path.toStdString();
    const std::string extension = QFileInfo(path).suffix().toLower().toStdString();
    if (extension != "csv" && extension != "txt")
        throw Error("cannot write " + file + ": drawn data is saved as NAME.csv (or .txt) with its classes in "
                    "NAME-labels.txt; give a name ending in .csv");
    std::ostringstream points, classes;
    points << "x,y\n";
    points.precision(17);
    for (std::size_t i = 0; i < classes_.size(); ++i) {
        points << points_[2 * i] << ',' << points_[2 * i + 1] << '\n';
        classes << classes_[i] << '\n';
    }
    const std::string stem = file.substr(0, file.size() - extension.size() - 1);
    write_studio_files({{file, points.str()}, {stem + "-labels.txt", classes.str()}});
}

}  // namespace kms::ui
