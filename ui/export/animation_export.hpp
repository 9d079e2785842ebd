#pragma once
// The run as an animated GIF or an MP4 video (by the file's extension) for slides:
// one frame per kept iteration (or per half-step: assignment, then update),
// rendered by an off-screen point view of the chosen size with the main view's
// look (colouring, cells, trails, point size, presentation mode), 0.7 s each, the
// first and last 2 s, in both formats. Labels that were not kept are recomputed first, so
// the export is asynchronous: finished(error) reports the end ("" = written).
#include <QImage>
#include <QObject>
#include <QSize>
#include <QTimer>

#include <memory>
#include <vector>

#include "run/run_controller.hpp"

namespace kms::ui {

class PointCloudView;

class AnimationExport : public QObject {
    Q_OBJECT
public:
    // `look` is copied (colour mode, Voronoi, trails, point size, presentation).
    AnimationExport(RunController& run, const PointCloudView& look, QSize size, bool half_steps, QString path,
                    QObject* parent = nullptr);
    ~AnimationExport() override;
    void start();
    // Why `path` cannot be written as an animation (not .gif / .mp4, or MP4 without
    // its library: what to install); empty when it can.
    static QString format_error(const QString& path);
    // The save dialog's filters: GIF, and MP4 where this build has it.
    static QString file_filters();
    // `path` with the selected filter's extension when it has neither .gif nor .mp4.
    static QString with_suffix(const QString& path, const QString& selected_filter);
    int frame_count() const { return int(positions_.size()); }

signals:
    void progress(int done, int total);
    void finished(QString error);

private:
    void next();
    void finish(const QString& error);

    RunController& run_;
    QSize size_;
    QString path_;
    std::unique_ptr<PointCloudView> view_;
    std::vector<std::pair<int, Phase>> positions_;
    std::size_t index_ = 0;
    int waited_ = 0;
    std::vector<QImage> frames_;
    int restore_iteration_ = 0;
    Phase restore_phase_ = Phase::Update;
    QTimer timer_;
};

}  // namespace kms::ui
