#pragma once
// The 2D camera of the point views: which world position is at the centre and
// how many pixels one world unit spans. Compare views share one instance so
// zoom and pan act on every panel at once.
#include <QObject>
#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <algorithm>

namespace kms::ui {

class ViewCamera : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    QPointF centre() const { return centre_; }
    double pixels_per_unit() const { return pixels_per_unit_; }

    void set(QPointF centre, double pixels_per_unit) {
        if (centre == centre_ && pixels_per_unit == pixels_per_unit_) return;
        centre_ = centre;
        pixels_per_unit_ = pixels_per_unit;
        emit changed();
    }
    // Show `world` in a viewport of `size` pixels with a margin.
    void fit(const QRectF& world, QSizeF size) {
        const double width = std::max(world.width(), 1e-12), height = std::max(world.height(), 1e-12);
        const double ppu = 0.92 * std::min(size.width() / width, size.height() / height);
        set(world.center(), ppu > 0 ? ppu : 1.0);
    }
    // Zoom by `factor` keeping the world point under `anchor_offset` (pixels from the centre, y up) fixed.
    void zoom_about(QPointF anchor_offset, double factor) {
        const QPointF anchor_world = centre_ + anchor_offset / pixels_per_unit_;
        const double ppu = pixels_per_unit_ * factor;
        set(anchor_world - anchor_offset / ppu, ppu);
    }
    void pan_pixels(QPointF delta_pixels_y_up) { set(centre_ - delta_pixels_y_up / pixels_per_unit_, pixels_per_unit_); }

signals:
    void changed();

private:
    QPointF centre_{0.0, 0.0};
    double pixels_per_unit_ = 100.0;
};

}  // namespace kms::ui
