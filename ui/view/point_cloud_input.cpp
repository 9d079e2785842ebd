// The point view's mouse and keys: dragging, adding and removing initial centroids,
// painting, lesson predictions, panning and zooming; and its colour slots.
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cmath>

#include "view/point_cloud_sizes.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

// ---------------------------------------------------------------- interaction

int PointCloudView::centroid_at(QPointF pixel) const {
    int best = -1;
    double best_distance = kGrabRadiusPixels * ui_scale();
    for (std::size_t c = 0; c < centroids_.size(); ++c) {
        const QPointF delta = world_to_pixel(centroids_[c]) - pixel;
        const double distance = std::hypot(delta.x(), delta.y());
        if (distance <= best_distance) {
            best_distance = distance;
            best = int(c);
        }
    }
    return best;
}

void PointCloudView::set_colour_slots(std::vector<std::size_t> chosen) {
    if (chosen == colour_slots_) return;
    colour_slots_ = std::move(chosen);
    colours_dirty_ = true;
    device_colours_iteration_ = -1;  // the kernel's colours used the old palette
    update();
}

PackedRgba PointCloudView::colour_of(std::size_t cluster) const {
    return cluster_colour(cluster < colour_slots_.size() ? colour_slots_[cluster] : cluster);
}

std::vector<PackedRgba> PointCloudView::palette(std::size_t k) const {
    std::vector<PackedRgba> colours(k);
    for (std::size_t c = 0; c < k; ++c) colours[c] = colour_of(c);
    return colours;
}

void PointCloudView::set_lesson_marks(LessonMarks marks) {
    lesson_marks_ = std::move(marks);
    update();
}

void PointCloudView::mousePressEvent(QMouseEvent* event) {
    const int hit = centroid_at(event->position());
    if (lesson_mode_ && event->button() == Qt::RightButton) {
        emit lessonUndo();
        return;
    }
    if (event->button() == Qt::RightButton) {
        if (hit >= 0 && centroids_editable_) emit centroidRemoveRequested(hit);
        else if (hit >= 0) emit centroidEditRefused();
        return;
    }
    if (event->button() != Qt::LeftButton) return;
    if (paint_mode_) {
        emit paintStroke(pixel_to_world(event->position()), brush_radius_ / camera_->pixels_per_unit());
        return;
    }
    if (hit >= 0 && !lesson_mode_) {
        if (centroids_editable_) dragged_centroid_ = hit;
        else emit centroidEditRefused();  // say how, rather than panning silently
        return;
    }
    press_position_ = event->position();
    pan_anchor_ = event->position();
    setCursor(Qt::ClosedHandCursor);
}

void PointCloudView::mouseMoveEvent(QMouseEvent* event) {
    if (paint_mode_ && (event->buttons() & Qt::LeftButton)) {
        emit paintStroke(pixel_to_world(event->position()), brush_radius_ / camera_->pixels_per_unit());
    } else if (dragged_centroid_ >= 0) {
        const QPointF world = pixel_to_world(event->position());
        centroids_[std::size_t(dragged_centroid_)] = world;
        emit centroidDragged(dragged_centroid_, world);
        update();
    } else if (pan_anchor_) {
        const QPointF delta = event->position() - *pan_anchor_;
        camera_->pan_pixels(QPointF(delta.x(), -delta.y()));
        user_camera_ = true;
        pan_anchor_ = event->position();
    }
}

void PointCloudView::mouseReleaseEvent(QMouseEvent* event) {
    if (dragged_centroid_ >= 0) {
        emit centroidDropped(dragged_centroid_, pixel_to_world(event->position()));
        dragged_centroid_ = -1;
    } else if (press_position_ && event->button() == Qt::LeftButton) {
        // A click (not a pan) on empty space adds a centroid there.
        const QPointF moved = event->position() - *press_position_;
        if (std::hypot(moved.x(), moved.y()) < 4.0) {
            if (lesson_mode_) emit lessonClicked(pixel_to_world(event->position()));
            else if (centroids_editable_) emit centroidAddRequested(pixel_to_world(event->position()));
        }
    }
    press_position_.reset();
    pan_anchor_.reset();
    if (!paint_mode_) unsetCursor();
}

void PointCloudView::mouseDoubleClickEvent(QMouseEvent*) { fit(); }

void PointCloudView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    const QPointF offset(event->position().x() - width() / 2.0, height() / 2.0 - event->position().y());
    camera_->zoom_about(offset, std::pow(1.2, steps));
    user_camera_ = true;
}

void PointCloudView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_F: fit(); break;
        case Qt::Key_Plus:
        case Qt::Key_Equal: camera_->zoom_about({}, 1.25); break;
        case Qt::Key_Minus: camera_->zoom_about({}, 0.8); break;
        default: QOpenGLWidget::keyPressEvent(event);
    }
}

}  // namespace kms::ui
