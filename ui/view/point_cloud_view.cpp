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
#include "view/point_cloud_sizes.hpp"

// Resources of a static library must be initialised by name, outside any namespace.
static void init_studio_resources() { Q_INIT_RESOURCE(studio); }

namespace kms::ui {

namespace {
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

}  // namespace kms::ui
