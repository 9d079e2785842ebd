#include "view/point_cloud_view.hpp"

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <cmath>
#include <limits>

#include "kms/error.hpp"
#include "kms/gl_interop.hpp"

// Resources of a static library must be initialised by name, outside any namespace.
static void init_studio_resources() { Q_INIT_RESOURCE(studio); }

namespace kms::ui {

namespace {
constexpr double kMarkerPixels = 22.0;
constexpr double kGrabRadiusPixels = 12.0;
constexpr float kBackground = 0.985f;
}  // namespace

PointCloudView::PointCloudView(QWidget* parent) : QOpenGLWidget(parent), camera_(&own_camera_) {
    init_studio_resources();
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 160);
    connect(&own_camera_, &ViewCamera::changed, this, qOverload<>(&QWidget::update));
}

PointCloudView::~PointCloudView() {
    if (!gl_ready_) return;
    makeCurrent();
    interop_.reset();  // unregister while the context is current
    if (centroid_texture_) glDeleteTextures(1, &centroid_texture_);
    if (palette_texture_) glDeleteTextures(1, &palette_texture_);
    if (overlay_texture_) glDeleteTextures(1, &overlay_texture_);
    position_buffer_.destroy();
    colour_buffer_.destroy();
    overlay_position_buffer_.destroy();
    overlay_colour_buffer_.destroy();
    points_vao_.destroy();
    overlay_vao_.destroy();
    empty_vao_.destroy();
    doneCurrent();
}

// ---------------------------------------------------------------- state

void PointCloudView::set_points(std::shared_ptr<const std::vector<float>> positions) {
    if (positions == positions_) return;
    positions_ = std::move(positions);
    positions_dirty_ = true;
    colours_dirty_ = true;
    // New data is fitted, except while painting: the canvas must stay under the brush.
    fit_pending_ = !paint_mode_;
    fit_after_overlay_ = !paint_mode_;
    device_colours_iteration_ = -1;
    update();
}

void PointCloudView::set_labels(LabelsPtr labels, std::size_t k, int iteration) {
    if (labels == labels_ && k == k_ && iteration == labels_iteration_) return;
    labels_ = std::move(labels);
    k_ = k;
    labels_iteration_ = iteration;
    colours_dirty_ = true;
    update();
}

void PointCloudView::set_point_status(PointStatusPtr status) {
    if (status == point_status_) return;
    point_status_ = std::move(status);
    if (colour_mode_ == ColourMode::Bounds) colours_dirty_ = true;
    update();
}

void PointCloudView::set_reference_labels(LabelsPtr labels) {
    if (labels == reference_labels_) return;
    reference_labels_ = std::move(labels);
    if (colour_mode_ == ColourMode::Difference) colours_dirty_ = true;
    update();
}

void PointCloudView::set_colour_mode(ColourMode mode) {
    if (mode == colour_mode_) return;
    colour_mode_ = mode;
    colours_dirty_ = true;
    update();
}

void PointCloudView::set_centroids(std::vector<QPointF> centroids, std::vector<std::vector<QPointF>> trails) {
    centroids_ = std::move(centroids);
    trails_ = std::move(trails);
    update();
}

void PointCloudView::set_overlay(ViewOverlay overlay) {
    overlay_ = std::move(overlay);
    // Once per data set, not on every caption change: the scene must not jump while stepping.
    if (fit_after_overlay_ && !user_camera_ && camera_ == &own_camera_ && positions_ && width() > 0 &&
        (!overlay_.caption.isEmpty() || !overlay_.legend.empty()))
        fit();
    update();
}

void PointCloudView::set_presentation(bool on) {
    presentation_ = on;
    update();
}

void PointCloudView::set_paint_mode(bool on) {
    paint_mode_ = on;
    setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
}

double PointCloudView::ui_scale() const {
    // 1 up to about 1000×700 view pixels, then with the view (a 4K window doubles it).
    const double size_scale = std::clamp(std::min(width() / 1000.0, height() / 700.0), 1.0, 3.0);
    return size_scale * (presentation_ ? 1.5 : 1.0);
}

void PointCloudView::set_show_trails(bool show) {
    show_trails_ = show;
    update();
}

void PointCloudView::set_show_voronoi(bool show) {
    show_voronoi_ = show;
    update();
}

void PointCloudView::set_point_size(double pixels) {
    point_size_ = std::clamp(pixels, 1.0, 64.0);
    update();
}

void PointCloudView::follow(const ViewSettings& settings) {
    show_settings_in(settings, this, [this](ColourMode mode) {
        set_colour_mode(mode == ColourMode::Difference ? ColourMode::Labels : mode);
    });
}

void PointCloudView::set_camera(ViewCamera* camera) {
    if (camera_) disconnect(camera_, &ViewCamera::changed, this, nullptr);
    camera_ = camera ? camera : &own_camera_;
    connect(camera_, &ViewCamera::changed, this, qOverload<>(&QWidget::update));
    fit_pending_ = false;  // a shared camera is fitted by its owner
    update();
}

QRectF PointCloudView::data_bounds() const {
    if (!positions_ || positions_->empty()) return QRectF(-1, -1, 2, 2);
    float min_x = std::numeric_limits<float>::max(), min_y = min_x;
    float max_x = std::numeric_limits<float>::lowest(), max_y = max_x;
    const auto& p = *positions_;
    for (std::size_t i = 0; i + 1 < p.size(); i += 2) {
        if (!std::isfinite(p[i]) || !std::isfinite(p[i + 1])) continue;
        min_x = std::min(min_x, p[i]);
        max_x = std::max(max_x, p[i]);
        min_y = std::min(min_y, p[i + 1]);
        max_y = std::max(max_y, p[i + 1]);
    }
    if (min_x > max_x) return QRectF(-1, -1, 2, 2);
    return QRectF(QPointF(min_x, min_y), QPointF(max_x, max_y));
}

QRectF PointCloudView::data_area() const {
    // The part of the view that the caption, legend and note leave free (at 1280x720
    // they covered points and initial centroids: issue 36). Two ways to keep clear of
    // the top-right legend: below it, or beside it; the one that shows the data larger wins.
    const OverlayLayout layout = overlay_layout();
    double caption_bottom = 0.0, note_top = height();
    for (const OverlayBox& text : layout.texts) {
        if (text.box.top() > height() / 2.0) note_top = std::min(note_top, text.box.top() - 4.0);
        else caption_bottom = std::max(caption_bottom, text.box.bottom() + 4.0);
    }
    const QRectF full(0, 0, width(), height());
    QRectF below(0, caption_bottom, width(), std::max(1.0, note_top - caption_bottom));
    QRectF beside = below;
    if (!layout.legend.isEmpty()) {
        below.setTop(std::max(below.top(), layout.legend.bottom() + 4.0));
        beside.setRight(std::max(1.0, layout.legend.left() - 4.0));
    }
    const QRectF world = data_bounds();
    const auto scale = [&](const QRectF& area) {
        return std::min(area.width() / std::max(world.width(), 1e-12), area.height() / std::max(world.height(), 1e-12));
    };
    const QRectF area = scale(below) >= scale(beside) ? below : beside;
    return area.height() < 0.4 * full.height() ? full : area;  // a tiny view: better covered than unreadable
}

void PointCloudView::fit() {
    const QRectF full(0, 0, width(), height());
    const QRectF area = data_area();
    const QRectF world = data_bounds();
    camera_->fit(world, area.size());
    // Centre the data in `area`, not in the whole view.
    const double ppu = camera_->pixels_per_unit();
    const QPointF offset = area.center() - full.center();
    camera_->set(world.center() - QPointF(offset.x(), -offset.y()) / ppu, ppu);
    fit_pending_ = false;
    user_camera_ = false;
    fit_after_overlay_ = overlay_.caption.isEmpty() && overlay_.legend.empty();
}

QPointF PointCloudView::world_to_pixel(QPointF world) const {
    const double ppu = camera_->pixels_per_unit();
    const QPointF offset = (world - camera_->centre()) * ppu;
    return QPointF(width() / 2.0 + offset.x(), height() / 2.0 - offset.y());
}

QPointF PointCloudView::pixel_to_world(QPointF pixel) const {
    const double ppu = camera_->pixels_per_unit();
    return camera_->centre() + QPointF(pixel.x() - width() / 2.0, height() / 2.0 - pixel.y()) / ppu;
}

// ---------------------------------------------------------------- GL

// A vertex array of 2-D float positions (attribute 0) and RGBA8 colours (attribute 1).
void PointCloudView::setup_vertex_array(QOpenGLVertexArrayObject& vao, QOpenGLBuffer& positions,
                                        QOpenGLBuffer::UsagePattern position_usage, QOpenGLBuffer& colours,
                                        QOpenGLBuffer::UsagePattern colour_usage) {
    vao.create();
    vao.bind();
    positions.create();
    colours.create();
    positions.setUsagePattern(position_usage);
    colours.setUsagePattern(colour_usage);
    positions.bind();
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    colours.bind();
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, nullptr);
    vao.release();
}

void PointCloudView::initializeGL() {
    initializeOpenGLFunctions();
    renderer_ = QString::fromLatin1(reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
    auto build = [this](QOpenGLShaderProgram& program, const char* vertex, const char* fragment) {
        if (!program.addShaderFromSourceFile(QOpenGLShader::Vertex, QString::fromLatin1(vertex)) ||
            !program.addShaderFromSourceFile(QOpenGLShader::Fragment, QString::fromLatin1(fragment)) ||
            !program.link()) {
            qWarning("PointCloudView: shader %s/%s failed: %s", vertex, fragment, qPrintable(program.log()));
            return false;
        }
        return true;
    };
    bool ok = build(points_program_, ":/shaders/points.vert", ":/shaders/points.frag");
    ok = build(marker_program_, ":/shaders/points.vert", ":/shaders/marker.frag") && ok;
    ok = build(voronoi_program_, ":/shaders/voronoi.vert", ":/shaders/voronoi.frag") && ok;
    ok = build(overlay_program_, ":/shaders/overlay.vert", ":/shaders/overlay.frag") && ok;

    // Points: positions once per dataset, colours every iteration.
    setup_vertex_array(points_vao_, position_buffer_, QOpenGLBuffer::StaticDraw, colour_buffer_,
                       QOpenGLBuffer::DynamicDraw);
    // Trails and markers: rewritten every frame.
    setup_vertex_array(overlay_vao_, overlay_position_buffer_, QOpenGLBuffer::StreamDraw, overlay_colour_buffer_,
                       QOpenGLBuffer::StreamDraw);
    empty_vao_.create();

    glGenTextures(1, &centroid_texture_);
    glGenTextures(1, &palette_texture_);
    glGenTextures(1, &overlay_texture_);
    for (unsigned int texture : {centroid_texture_, palette_texture_, overlay_texture_}) {
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindTexture(GL_TEXTURE_2D, 0);

    gl_ready_ = ok;
    positions_dirty_ = true;
    colours_dirty_ = true;
    emit glInitialised(renderer_);
}

void PointCloudView::resizeGL(int, int) {
    if ((fit_pending_ || !user_camera_) && camera_ == &own_camera_ && positions_) fit();
}

void PointCloudView::upload_positions() {
    const std::size_t n = positions_ ? positions_->size() / 2 : 0;
    if (n != buffer_points_) interop_.reset();  // registered for the old size
    position_buffer_.bind();
    position_buffer_.allocate(positions_ ? positions_->data() : nullptr, static_cast<int>(n * 2 * sizeof(float)));
    colour_buffer_.bind();
    colour_buffer_.allocate(static_cast<int>(n * sizeof(PackedRgba)));
    buffer_points_ = n;
    positions_dirty_ = false;
    colours_dirty_ = true;
}

void PointCloudView::upload_colours() {
    colours_dirty_ = false;
    const std::size_t n = buffer_points_;
    if (n == 0) return;
    // The kernel already wrote these colours on the GPU: nothing to upload.
    if (device_colours_iteration_ >= 0 && device_colours_iteration_ == labels_iteration_ &&
        device_colours_mode_ == colour_mode_)
        return;
    // The host colours replace whatever the kernel wrote: never skip on its behalf again.
    device_colours_iteration_ = -1;
    std::vector<PackedRgba> colours(n, kUnassignedColour);
    const std::vector<PackedRgba> palette = this->palette(k_);
    const bool have_labels = labels_ && labels_->size() == n;
    switch (colour_mode_) {
        case ColourMode::Labels:
        case ColourMode::Membership:
            if (have_labels)
                for (std::size_t i = 0; i < n; ++i) {
                    const std::int32_t label = (*labels_)[i];
                    if (label >= 0 && static_cast<std::size_t>(label) < palette.size())
                        colours[i] = palette[static_cast<std::size_t>(label)];
                }
            break;
        case ColourMode::Bounds:
            if (point_status_ && point_status_->size() == n)
                for (std::size_t i = 0; i < n; ++i)
                    colours[i] = (*point_status_)[i] == PointStatus::Skipped ? kSkippedColour : kRecomputedColour;
            break;
        case ColourMode::Difference:
            if (have_labels && reference_labels_ && reference_labels_->size() == n)
                for (std::size_t i = 0; i < n; ++i)
                    colours[i] = (*labels_)[i] == (*reference_labels_)[i] ? kAgreeColour : kDifferColour;
            break;
    }
    colour_buffer_.bind();
    // glBufferSubData: the buffer keeps its storage, only the colours change.
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(n * sizeof(PackedRgba)), colours.data());
}

bool PointCloudView::write_device_colours(const void* device_labels, const void* device_point_status, std::size_t n,
                                          int iteration) {
    if (!gl_ready_ || interop_failed_ || colour_mode_ == ColourMode::Difference) return false;
    if (colour_mode_ == ColourMode::Bounds && !device_point_status) return false;
    QElapsedTimer timer;
    timer.start();
    makeCurrent();
    if (positions_dirty_) upload_positions();
    bool ok = false;
    try {
        if (n != buffer_points_) throw Error("the view holds " + std::to_string(buffer_points_) + " points, the solver " +
                                             std::to_string(n));
        if (!interop_) interop_ = GlColourBuffer::register_buffer(colour_buffer_.bufferId(), buffer_points_);
        if (colour_mode_ == ColourMode::Labels || colour_mode_ == ColourMode::Membership) {
            interop_->set_palette(palette(k_), kUnassignedColour);
            interop_->write_label_colours(static_cast<const std::int32_t*>(device_labels), n);
        } else {
            interop_->write_status_colours(static_cast<const PointStatus*>(device_point_status), n, kSkippedColour,
                                           kRecomputedColour);
        }
        device_colours_iteration_ = iteration;
        device_colours_mode_ = colour_mode_;
        interop_message_ = tr("CUDA–OpenGL interop: colours written on the GPU");
        ok = true;
        glFinish();  // the write's whole cost in the sample, as the host path's upload is in paintGL's
        device_write_ms_.record(double(timer.nsecsElapsed()) / 1e6);
    } catch (const std::exception& error) {
        // Fall back to host labels for good (e.g. GL on a software renderer).
        interop_failed_ = true;
        interop_.reset();
        interop_message_ = QString::fromStdString(error.what());
        device_colours_iteration_ = -1;
    }
    doneCurrent();
    // No repaint here: the labels of this iteration arrive right after and
    // repaint; painting now, with the previous iteration's host data, would
    // overwrite the colours just written.
    return ok;
}

void PointCloudView::set_camera_uniforms(QOpenGLShaderProgram& program) {
    const double ppu = camera_->pixels_per_unit();
    program.setUniformValue("u_centre", QVector2D(float(camera_->centre().x()), float(camera_->centre().y())));
    program.setUniformValue("u_scale", QVector2D(float(2.0 * ppu / std::max(1, width())),
                                                 float(2.0 * ppu / std::max(1, height()))));
}

void PointCloudView::paintGL() {
    QElapsedTimer timer;
    timer.start();
    glClearColor(kBackground, kBackground, kBackground, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!gl_ready_) return;
    if (fit_pending_ && camera_ == &own_camera_ && positions_) fit();
    if (positions_dirty_) upload_positions();
    if (colours_dirty_) upload_colours();
    glEnable(GL_PROGRAM_POINT_SIZE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

    if (show_voronoi_) draw_voronoi();
    if (buffer_points_ > 0) {
        points_program_.bind();
        set_camera_uniforms(points_program_);
        const float size = float(point_size_ * devicePixelRatioF() * (presentation_ ? 1.8 : 1.0));
        points_program_.setUniformValue("u_point_size", size);
        points_program_.setUniformValue("u_round", size >= 3.0f);
        points_vao_.bind();
        glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(buffer_points_));
        points_vao_.release();
        points_program_.release();
    }
    draw_centroids();
    draw_overlay_image();
    last_paint_ms_ = double(timer.nsecsElapsed()) / 1e6;
    paint_ms_.record(last_paint_ms_);
}

double PointCloudView::TimeSamples::median() const {
    if (values.empty()) return 0.0;
    std::vector<double> sorted = values;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
    return sorted[sorted.size() / 2];
}

void PointCloudView::TimeSamples::record(double ms) {
    if (values.size() < 256) values.push_back(ms);
    else values[count % 256] = ms;
    ++count;
}

void PointCloudView::draw_overlay_image() {
    // Antialiased lines and text come from QPainter on an image, drawn over the
    // GL frame as one texture (QPainter straight on a core-profile GL widget lost
    // its drawing here: Mesa llvmpipe, Qt 6.4).
    const double dpr = devicePixelRatioF();
    QImage image(QSize(int(width() * dpr), int(height() * dpr)), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setFont(font());
        draw_map(painter);
        const ToPixel to_pixel = [this](QPointF world) { return world_to_pixel(world); };
        if (colour_mode_ == ColourMode::Membership && labels_ && positions_)
            draw_membership_lines(painter, *positions_, *labels_, centroids_, to_pixel, 20000, palette(centroids_.size()));
        if (show_trails_) draw_trails(painter);
        if (!lesson_marks_.empty())
            draw_lesson_marks(painter, lesson_marks_, to_pixel, ui_scale(), palette(lesson_marks_.from.size()));
        draw_overlay(painter);
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, overlay_texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image.width(), image.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 image.constBits());
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied
    overlay_program_.bind();
    overlay_program_.setUniformValue("u_overlay", 0);
    empty_vao_.bind();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    empty_vao_.release();
    overlay_program_.release();
    glBindTexture(GL_TEXTURE_2D, 0);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
}

void PointCloudView::draw_voronoi() {
    const std::size_t k = centroids_.size();
    if (k == 0) return;
    std::vector<float> centres(k * 2);
    for (std::size_t i = 0; i < k; ++i) {
        centres[2 * i] = float(centroids_[i].x());
        centres[2 * i + 1] = float(centroids_[i].y());
    }
    const std::vector<PackedRgba> palette = this->palette(k);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, centroid_texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32F, GLsizei(k), 1, 0, GL_RG, GL_FLOAT, centres.data());
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, palette_texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GLsizei(k), 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, palette.data());
    voronoi_program_.bind();
    set_camera_uniforms(voronoi_program_);
    voronoi_program_.setUniformValue("u_centroids", 0);
    voronoi_program_.setUniformValue("u_palette", 1);
    voronoi_program_.setUniformValue("u_count", int(k));
    voronoi_program_.setUniformValue("u_world_per_pixel", float(1.0 / camera_->pixels_per_unit()));
    voronoi_program_.setUniformValue("u_alpha", 0.22f);
    voronoi_program_.setUniformValue("u_background", QVector3D(kBackground, kBackground, kBackground));
    empty_vao_.bind();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    empty_vao_.release();
    voronoi_program_.release();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void PointCloudView::draw_trails(QPainter& painter) {
    // Each centroid's path as lines with an arrow head at every move, the oldest
    // moves faint and the newest solid, in a darker shade of its cluster colour.
    const double scale = ui_scale();
    const double width = 3.0 * scale;
    for (std::size_t c = 0; c < trails_.size(); ++c) {
        const std::vector<QPointF>& trail = trails_[c];
        if (trail.size() < 2) continue;
        const PackedRgba colour = colour_of(c);
        const QColor dark(red_of(colour) * 3 / 5, green_of(colour) * 3 / 5, blue_of(colour) * 3 / 5);
        const std::size_t moves = trail.size() - 1;
        for (std::size_t i = 0; i < moves; ++i) {
            const QPointF from = world_to_pixel(trail[i]);
            const QPointF to = world_to_pixel(trail[i + 1]);
            QColor shade = dark;
            // Age fades: the latest move opaque, the first at 30 %.
            shade.setAlphaF(float(0.3 + 0.7 * double(i + 1) / double(moves)));
            painter.setBrush(Qt::NoBrush);
            const QPointF delta = to - from;
            const double length = std::hypot(delta.x(), delta.y());
            // The newest move ends at the marker's rim, not under it.
            const double rim = i + 1 == moves ? std::min(length, kMarkerPixels * 0.5 * scale) : 0.0;
            const QPointF end = length > 0 ? to - delta / length * rim : to;
            // A pale halo under the line: inside a dense cluster of its own colour a
            // faded trail vanished (issue 36).
            painter.setPen(QPen(QColor(255, 255, 255, int(170 * shade.alphaF())), width + 3.0 * scale, Qt::SolidLine,
                                Qt::RoundCap));
            painter.drawLine(from, end);
            painter.setPen(QPen(shade, width, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(from, end);
            painter.setPen(Qt::NoPen);
            painter.setBrush(shade);
            painter.drawEllipse(from, width * 1.2, width * 1.2);  // where it was
            const double head = 7.0 * scale;
            if (length < head * 1.5) continue;  // too short for a readable arrow
            // The head stops short of the next position, so the marker does not hide it.
            const QPointF unit = delta / length;
            const QPointF normal(-unit.y(), unit.x());
            const double stop = i + 1 == moves ? 11.0 * scale : 0.0;
            const QPointF tip = to - unit * stop;
            QPainterPath arrow;
            arrow.moveTo(tip);
            arrow.lineTo(tip - unit * head + normal * head * 0.55);
            arrow.lineTo(tip - unit * head - normal * head * 0.55);
            arrow.closeSubpath();
            painter.drawPath(arrow);
        }
    }
}

void PointCloudView::set_map_overlay(MapOverlay map) {
    map_ = std::move(map);
    update();
}

void PointCloudView::draw_map(QPainter& painter) {
    if (map_.lines.empty() && !map_.scale_bar) return;
    painter.save();
    QFont small = painter.font();
    small.setPointSizeF(std::max(7.0, 0.85 * (small.pointSizeF() > 0 ? small.pointSizeF() : 10.0)));
    painter.setFont(small);
    const QFontMetricsF metrics(small);
    // Labels go where a line is first seen from the left (parallels) or last seen at
    // the bottom (meridians), inside a band that keeps them clear of the edges.
    const QRectF band = QRectF(rect()).adjusted(2, metrics.height() + 2, -metrics.horizontalAdvance("000.0°W") - 4,
                                               -metrics.height() - 4);
    for (const MapLine& line : map_.lines) {
        QPolygonF pixels;
        pixels.reserve(qsizetype(line.points.size()));
        for (const QPointF& world : line.points) pixels << world_to_pixel(world);
        painter.setPen(QPen(QColor(90, 90, 90, 110), 1.0));
        painter.drawPolyline(pixels);
        if (line.label.isEmpty()) continue;
        std::optional<QPointF> anchor;
        for (const QPointF& pixel : pixels) {
            if (!band.contains(pixel)) continue;
            if (!anchor || (line.label_left ? pixel.x() < anchor->x() : pixel.y() > anchor->y())) anchor = pixel;
        }
        // Only near its edge: a line that crosses a corner is left unlabelled rather than labelled mid-view.
        if (!anchor || (line.label_left ? anchor->x() > band.left() + 0.15 * band.width()
                                        : anchor->y() < band.bottom() - 0.15 * band.height()))
            continue;
        painter.setPen(QColor(60, 60, 60, 220));
        painter.drawText(*anchor + (line.label_left ? QPointF(3, -3) : QPointF(3, metrics.ascent())), line.label);
    }
    if (map_.scale_bar) {
        // A 1-2-5 length of about a fifth of the view's width (world units are km).
        const double ppu = camera_ ? camera_->pixels_per_unit() : 1.0;
        const double target_km = 0.2 * width() / std::max(ppu, 1e-12);
        const double decade = std::pow(10.0, std::floor(std::log10(target_km)));
        double km = decade;
        for (const double m : {2.0, 5.0, 10.0})
            if (m * decade <= target_km) km = m * decade;
        const double length = km * ppu;
        const QString text = km >= 1 ? QStringLiteral("%1 km").arg(km, 0, 'g', 6) : QStringLiteral("%1 m").arg(km * 1000, 0, 'g', 6);
        // Bottom right, on a light box, clear of the meridians' labels along the bottom edge.
        const QPointF left(width() - length - metrics.horizontalAdvance(text) - 22.0 * ui_scale(),
                           height() - 2.5 * metrics.height() - 8.0 * ui_scale());
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 200));
        painter.drawRoundedRect(QRectF(left.x() - 6, left.y() - metrics.height(), length + metrics.horizontalAdvance(text) + 18,
                                       2 * metrics.height()),
                                3, 3);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(QColor(30, 30, 30), 2.0));
        painter.drawLine(left, left + QPointF(length, 0));
        painter.drawLine(left + QPointF(0, -5), left + QPointF(0, 5));
        painter.drawLine(left + QPointF(length, -5), left + QPointF(length, 5));
        painter.drawText(left + QPointF(length + 6, 4), text);
    }
    painter.restore();
}

PointCloudView::OverlayLayout PointCloudView::overlay_layout() const {
    OverlayLayout layout;
    const double scale = ui_scale();
    const double margin = 10.0 * scale;
    const QFont font = this->font();
    const double base = font.pointSizeF() > 0 ? font.pointSizeF() : 10.0;
    // The legend first: the captions wrap left of it rather than run under it.
    if (!overlay_.legend.empty()) {
        layout.legend_font = font;
        layout.legend_font.setPointSizeF(base * scale);
        const QFontMetricsF metrics(layout.legend_font);
        layout.legend_line = metrics.height() * 1.15;
        double text_width = 0;
        for (const auto& entry : overlay_.legend) text_width = std::max(text_width, metrics.horizontalAdvance(entry.second));
        const double swatch = layout.legend_line * 0.7;
        layout.legend = QRectF(width() - margin - text_width - swatch - 18, margin, text_width + swatch + 18,
                               layout.legend_line * double(overlay_.legend.size()) + 8);
    }
    const double text_right = layout.legend.isEmpty() ? width() - margin : layout.legend.left() - margin;
    double y = margin;
    const auto add = [&](const QString& text, double point_size, bool bold, double top) {
        QFont f = font;
        f.setPointSizeF(point_size);
        f.setBold(bold);
        const QFontMetricsF metrics(f);
        const double room = std::max(80.0, text_right - margin - 8);
        const QRectF bounds = metrics.boundingRect(QRectF(0, 0, room, 1e4), Qt::TextWordWrap | Qt::AlignLeft, text);
        const QRectF box(margin, top, bounds.width() + 8, bounds.height() + 4);
        layout.texts.push_back({box, f, text, Qt::AlignLeft});
        return box.height();
    };
    if (!overlay_.caption.isEmpty()) y += add(overlay_.caption, base * 1.25 * scale, true, y) + 4;
    if (!overlay_.detail.isEmpty()) y += add(overlay_.detail, base * scale, false, y) + 4;
    if (!overlay_.note.isEmpty()) {
        QFont f = font;
        f.setPointSizeF(base * 0.95 * scale);
        const double line = QFontMetricsF(f).height();
        add(overlay_.note, base * 0.95 * scale, false, height() - margin - line * 2.4);
    }
    return layout;
}

void PointCloudView::draw_overlay(QPainter& painter) {
    const OverlayLayout layout = overlay_layout();
    for (const OverlayBox& text : layout.texts) {
        painter.setFont(text.font);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 210));
        painter.drawRoundedRect(text.box, 4, 4);
        painter.setPen(QColor(30, 30, 30));
        painter.drawText(text.box.adjusted(4, 2, -4, -2), Qt::TextWordWrap | text.align, text.text);
    }
    if (!overlay_.legend.empty()) {
        painter.setFont(layout.legend_font);
        const QRectF& box = layout.legend;
        const double line = layout.legend_line, swatch = line * 0.7;
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 220));
        painter.drawRoundedRect(box, 4, 4);
        double row = box.top() + 4;
        for (const auto& [colour, text] : overlay_.legend) {
            painter.setPen(QPen(QColor(40, 40, 40), 1));
            painter.setBrush(colour);
            painter.drawEllipse(QRectF(box.left() + 6, row + (line - swatch) / 2, swatch, swatch));
            painter.setPen(QColor(30, 30, 30));
            painter.drawText(QRectF(box.left() + 12 + swatch, row, box.width() - 18 - swatch, line), Qt::AlignVCenter, text);
            row += line;
        }
    }
}

void PointCloudView::draw_centroids() {
    if (centroids_.empty()) return;
    std::vector<float> positions;
    std::vector<PackedRgba> colours;
    for (std::size_t c = 0; c < centroids_.size(); ++c) {
        positions.push_back(float(centroids_[c].x()));
        positions.push_back(float(centroids_[c].y()));
        colours.push_back(colour_of(c));
    }
    overlay_vao_.bind();
    overlay_position_buffer_.bind();
    overlay_position_buffer_.allocate(positions.data(), int(positions.size() * sizeof(float)));
    overlay_colour_buffer_.bind();
    overlay_colour_buffer_.allocate(colours.data(), int(colours.size() * sizeof(PackedRgba)));
    marker_program_.bind();
    set_camera_uniforms(marker_program_);
    marker_program_.setUniformValue("u_point_size", float(kMarkerPixels * ui_scale() * devicePixelRatioF()));
    glDrawArrays(GL_POINTS, 0, GLsizei(centroids_.size()));
    marker_program_.release();
    overlay_vao_.release();
}

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
