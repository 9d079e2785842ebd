#include "export/animation_export.hpp"

#include "export/gif_encoder.hpp"
#include "kms/error.hpp"
#include "run/run_view.hpp"
#include "run/studio_files.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

namespace {
constexpr int kFrameCentiseconds = 70;   // one (half-)step
constexpr int kHoldCentiseconds = 200;   // the first and the last frame
constexpr int kLabelWaitTicks = 1500;    // × 10 ms: a recomputation of labels may take a while on 1M points
}  // namespace

AnimationExport::AnimationExport(RunController& run, const PointCloudView& look, QSize size, bool half_steps,
                                 QString path, QObject* parent)
    : QObject(parent), run_(run), size_(size), path_(std::move(path)), view_(std::make_unique<PointCloudView>()) {
    view_->setAttribute(Qt::WA_DontShowOnScreen);
    view_->setFixedSize(size_);
    view_->set_colour_mode(look.colour_mode());
    view_->set_show_voronoi(look.show_voronoi());
    view_->set_show_trails(look.show_trails());
    view_->set_point_size(look.point_size());
    view_->set_presentation(look.presentation());
    positions_.emplace_back(0, Phase::Update);
    for (int i = 1; i <= run_.latest_iteration(); ++i) {
        if (half_steps) positions_.emplace_back(i, Phase::Assign);
        positions_.emplace_back(i, Phase::Update);
    }
    timer_.setInterval(10);
    connect(&timer_, &QTimer::timeout, this, &AnimationExport::next);
}

AnimationExport::~AnimationExport() = default;

void AnimationExport::start() {
    if (!run_.ready()) {
        finish(tr("no run to export: load data first"));
        return;
    }
    restore_iteration_ = run_.displayed_iteration();
    restore_phase_ = run_.displayed_phase();
    view_->show();
    view_->set_points(run_.dataset().projected);
    view_->fit();
    index_ = 0;
    waited_ = 0;
    run_.show_position(positions_[0].first, positions_[0].second);
    timer_.start();
}

void AnimationExport::next() {
    if (index_ >= positions_.size()) return;
    const auto [iteration, phase] = positions_[index_];
    // Wait for labels that were not kept (the worker recomputes them).
    if (iteration > 0 && !run_.displayed_labels()) {
        if (++waited_ > kLabelWaitTicks) finish(tr("the labels of iteration %1 did not arrive").arg(iteration));
        return;
    }
    waited_ = 0;
    show_run_in_view(run_, *view_);
    const QImage frame = view_->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    if (frame.isNull() || frame.size() != size_ * view_->devicePixelRatioF()) {
        finish(tr("the point view could not be rendered off screen (an OpenGL 3.3 context is needed: "
                  "run under an X server, e.g. xvfb-run)"));
        return;
    }
    frames_.push_back(frame);
    emit progress(int(index_) + 1, int(positions_.size()));
    if (++index_ < positions_.size()) {
        run_.show_position(positions_[index_].first, positions_[index_].second);
        return;
    }
    timer_.stop();
    try {
        GifEncoder gif(frames_.front().width(), frames_.front().height());
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const bool hold = i == 0 || i + 1 == frames_.size();
            gif.add_frame(reinterpret_cast<const std::uint32_t*>(frames_[i].constBits()),
                          int(frames_[i].bytesPerLine() / 4), hold ? kHoldCentiseconds : kFrameCentiseconds);
        }
        write_studio_file(path_.toStdString(), gif.finish());
    } catch (const std::exception& error) {
        finish(QString::fromStdString(error.what()));
        return;
    }
    finish(QString());
}

void AnimationExport::finish(const QString& error) {
    timer_.stop();
    index_ = positions_.size();
    frames_.clear();
    view_->hide();
    run_.show_position(restore_iteration_, restore_phase_);
    emit finished(error);
}

}  // namespace kms::ui
