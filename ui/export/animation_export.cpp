#include "export/animation_export.hpp"

#include "export/gif_encoder.hpp"
#include "export/mp4_encoder.hpp"
#include "kms/error.hpp"
#include "run/run_view.hpp"
#include "run/studio_files.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

namespace {
constexpr int kFrameCentiseconds = 70;   // one (half-)step
constexpr int kHoldCentiseconds = 200;   // the first and the last frame
constexpr int kLabelWaitTicks = 1500;    // × 10 ms: a recomputation of labels may take a while on 1M points

bool is_mp4(const QString& path) { return path.endsWith(QStringLiteral(".mp4"), Qt::CaseInsensitive); }

// GIF and MP4 get the same frames for the same time each.
template <typename Encoder>
std::string encode(const std::vector<QImage>& frames) {
    Encoder encoder(frames.front().width(), frames.front().height());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const bool hold = i == 0 || i + 1 == frames.size();
        encoder.add_frame(reinterpret_cast<const std::uint32_t*>(frames[i].constBits()),
                          int(frames[i].bytesPerLine() / 4), hold ? kHoldCentiseconds : kFrameCentiseconds);
    }
    return encoder.finish();
}
}  // namespace

QString AnimationExport::format_error(const QString& path) {
    if (path.endsWith(QStringLiteral(".gif"), Qt::CaseInsensitive)) return {};
    if (!is_mp4(path)) return tr("cannot write %1: an animation is a .gif or an .mp4 file").arg(path);
    std::string reason;
    if (mp4_export_available(&reason)) return {};
    return tr("cannot write %1: %2").arg(path, QString::fromStdString(reason));
}

QString AnimationExport::file_filters() {
    QString filters = tr("GIF (*.gif)");
    if (mp4_export_available()) filters += tr(";;MP4 video, H.264 (*.mp4)");
    return filters;
}

QString AnimationExport::with_suffix(const QString& path, const QString& selected_filter) {
    if (path.isEmpty() || path.endsWith(QStringLiteral(".gif"), Qt::CaseInsensitive) || is_mp4(path)) return path;
    return path + (selected_filter.contains(QStringLiteral("*.mp4")) ? QStringLiteral(".mp4") : QStringLiteral(".gif"));
}

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
    if (const QString error = format_error(path_); !error.isEmpty()) {
        finish(error);
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
        write_studio_file(path_.toStdString(), is_mp4(path_) ? encode<Mp4Encoder>(frames_) : encode<GifEncoder>(frames_));
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
