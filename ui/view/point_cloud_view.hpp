#pragma once
// OpenGL view of the (projected) points, coloured by label, by bounds status
// (skipped / recomputed) or by agreement with a reference run; centroids as
// markers with their trails; optional Voronoi cells; zoom (wheel), pan (drag),
// fit (double click / F); initial centroids can be dragged when editable.
// Core profile 3.3; shaders come from resources/shaders via the studio.qrc.
// Point colours live in a vertex buffer written with glBufferSubData, or, with
// a CUDA back end, by a CUDA kernel through CUDA–GL interop.
#include <QOpenGLBuffer>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLVertexArrayObject>
#include <QOpenGLWidget>
#include <QPointer>

#include <memory>
#include <optional>
#include <vector>

#include "view/labels.hpp"
#include "view/view_marks.hpp"
#include "view/point_colours.hpp"
#include "view/view_camera.hpp"
#include "view/view_settings.hpp"

namespace kms {
class GlColourBuffer;
}
class QPainter;

namespace kms::ui {

// Text and legend drawn over the points (QPainter on top of the GL frame).
struct ViewOverlay {
    QString caption;      // e.g. "Iteration 3 · assign"
    QString detail;       // one line under it, e.g. what the phase did
    QString note;         // a caveat shown at the bottom (e.g. projected Voronoi cells)
    std::vector<std::pair<QColor, QString>> legend;
};

// A map drawn over geographic data (ui/geo/): lines in world coordinates (km),
// each labelled where it enters the view on the left (parallels) or leaves it at
// the bottom (meridians), and a scale bar in km (world units are km).
struct MapLine {
    std::vector<QPointF> points;
    QString label;              // empty: none
    bool label_left = true;     // left edge (parallels) or bottom edge (meridians)
};
struct MapOverlay {
    std::vector<MapLine> lines;
    bool scale_bar = false;
};

class PointCloudView : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT
public:
    explicit PointCloudView(QWidget* parent = nullptr);
    ~PointCloudView() override;

    // n × 2 projected positions (null or empty: nothing to draw).
    void set_points(std::shared_ptr<const std::vector<float>> positions);
    // Labels of the shown iteration (null: unassigned, drawn grey) and the number of clusters.
    void set_labels(LabelsPtr labels, std::size_t k, int iteration);
    void set_point_status(PointStatusPtr status);
    // Labels of the run this view is compared against (Difference mode).
    void set_reference_labels(LabelsPtr labels);
    void set_colour_mode(ColourMode mode);
    // Centroid c's palette colour is chosen[c] (empty: c), as RunController::colour_slots().
    void set_colour_slots(std::vector<std::size_t> chosen);
    PackedRgba colour_of(std::size_t cluster) const;
    std::vector<PackedRgba> palette(std::size_t k) const;
    std::size_t label_count() const { return k_; }  // the k of set_labels(): the palette painting takes
    ColourMode colour_mode() const { return colour_mode_; }
    // Projected centroids of the shown iteration and each centroid's path up to it.
    void set_centroids(std::vector<QPointF> centroids, std::vector<std::vector<QPointF>> trails);
    void set_show_trails(bool show);
    void set_show_voronoi(bool show);
    bool show_voronoi() const { return show_voronoi_; }
    bool show_trails() const { return show_trails_; }
    void set_point_size(double pixels);
    double point_size() const { return point_size_; }
    // Follow these settings from now on (a view on its own has no run to differ
    // from: Difference shows its labels; CompareView gives its panels their modes).
    void follow(const ViewSettings& settings);
    // Initial centroids may be dragged, added (click) and removed (right click) before the first step.
    void set_centroids_editable(bool editable) { centroids_editable_ = editable; }
    bool centroids_editable() const { return centroids_editable_; }
    void set_overlay(ViewOverlay overlay);
    void set_map_overlay(MapOverlay map);
    const MapOverlay& map_overlay() const { return map_; }
    const ViewOverlay& overlay() const { return overlay_; }
    // Presentation mode: bigger points, markers, trails and text.
    void set_presentation(bool on);
    bool presentation() const { return presentation_; }
    // Sizes of markers, trails and text grow with big views (3840×2160) and in presentation mode.
    double ui_scale() const;
    // Paint tool: left drags add points around the cursor (paintStroke) instead of panning.
    void set_paint_mode(bool on);
    bool paint_mode() const { return paint_mode_; }
    void set_brush_radius(double pixels) { brush_radius_ = pixels; }
    // Lesson mode: a click is a prediction (lessonClicked), a right click takes the last back.
    void set_lesson_mode(bool on) { lesson_mode_ = on; }
    bool lesson_mode() const { return lesson_mode_; }
    void set_lesson_marks(LessonMarks marks);
    const LessonMarks& lesson_marks() const { return lesson_marks_; }
    double brush_radius() const { return brush_radius_; }

    // Share a camera with other views (the view does not own it).
    void set_camera(ViewCamera* camera);
    ViewCamera* camera() const { return camera_; }
    // Fits the data into data_area(): the view less its caption, legend and note boxes.
    void fit();
    QRectF data_area() const;
    // Projected centroids as last set (the markers drawn).
    const std::vector<QPointF>& centroid_positions() const { return centroids_; }

    QPointF world_to_pixel(QPointF world) const;  // widget pixels, y down
    QPointF pixel_to_world(QPointF pixel) const;

    // CUDA back end: write colours from device labels / status (device
    // pointers, valid during the call) straight into the colour buffer.
    // Returns false (and the view keeps using host labels) when interop is not possible.
    bool write_device_colours(const void* device_labels, const void* device_point_status, std::size_t n,
                              int iteration);
    bool interop_failed() const { return interop_failed_; }
    QString interop_message() const { return interop_message_; }
    // GL_RENDERER of the context, once initialised.
    QString renderer() const { return renderer_; }
    // Milliseconds the last paintGL took on the CPU side (for the status bar).
    double last_paint_ms() const { return last_paint_ms_; }
    // The last 256 frames' paintGL times (host colours built and uploaded there) and
    // the CUDA–GL colour writes' times (interop: outside paintGL), for the frame-time
    // figures a scripted run prints.
    struct TimeSamples {
        std::vector<double> values;
        std::size_t count = 0;
        void record(double ms);
        double median() const;
    };
    const TimeSamples& paint_times() const { return paint_ms_; }
    const TimeSamples& device_write_times() const { return device_write_ms_; }

signals:
    void centroidDragged(int index, QPointF world);
    void centroidDropped(int index, QPointF world);
    void centroidAddRequested(QPointF world);   // click on empty space while editable
    void centroidRemoveRequested(int index);    // right click on a centroid while editable
    void centroidEditRefused();                 // tried to move / add / remove after iteration 0
    void paintStroke(QPointF world, double radius_world);
    void lessonClicked(QPointF world);
    void lessonUndo();
    void glInitialised(QString renderer);

protected:
    void initializeGL() override;
    void resizeGL(int width, int height) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void setup_vertex_array(QOpenGLVertexArrayObject& vao, QOpenGLBuffer& positions,
                            QOpenGLBuffer::UsagePattern position_usage, QOpenGLBuffer& colours,
                            QOpenGLBuffer::UsagePattern colour_usage);
    void upload_positions();
    void upload_colours();
    void draw_voronoi();
    void draw_trails(QPainter& painter);
    void draw_centroids();
    // Where the caption, detail, note and legend boxes go (draw_overlay draws them;
    // fit() keeps the data out of them).
    struct OverlayBox {
        QRectF box;
        QFont font;
        QString text;
        Qt::Alignment align;
    };
    struct OverlayLayout {
        std::vector<OverlayBox> texts;
        QRectF legend;
        QFont legend_font;
        double legend_line = 0.0;
    };
    OverlayLayout overlay_layout() const;
    void draw_overlay(QPainter& painter);
    void draw_map(QPainter& painter);
    void draw_overlay_image();
    void set_camera_uniforms(QOpenGLShaderProgram& program);
    int centroid_at(QPointF pixel) const;
    QRectF data_bounds() const;

    ViewCamera own_camera_;
    QPointer<ViewCamera> camera_;

    std::shared_ptr<const std::vector<float>> positions_;
    LabelsPtr labels_;
    LabelsPtr reference_labels_;
    PointStatusPtr point_status_;
    std::size_t k_ = 0;
    std::vector<std::size_t> colour_slots_;
    int labels_iteration_ = -1;
    ColourMode colour_mode_ = ColourMode::Labels;
    std::vector<QPointF> centroids_;
    std::vector<std::vector<QPointF>> trails_;
    bool show_trails_ = true;
    bool show_voronoi_ = false;
    double point_size_ = 3.0;
    bool centroids_editable_ = false;
    ViewOverlay overlay_;
    MapOverlay map_;
    bool presentation_ = false;
    bool paint_mode_ = false;
    bool lesson_mode_ = false;
    LessonMarks lesson_marks_;
    double brush_radius_ = 24.0;
    std::optional<QPointF> press_position_;  // a press that may become a click (add a centroid)

    bool positions_dirty_ = false;
    bool colours_dirty_ = false;
    bool fit_pending_ = true;
    bool fit_after_overlay_ = true;  // the first overlay after new data refits, so it covers no point
    bool user_camera_ = false;  // the user zoomed or panned: resizing keeps their view
    std::size_t buffer_points_ = 0;  // capacity of the GL buffers

    bool gl_ready_ = false;
    QString renderer_;
    QOpenGLShaderProgram points_program_;
    QOpenGLShaderProgram marker_program_;
    QOpenGLShaderProgram voronoi_program_;
    QOpenGLShaderProgram overlay_program_;
    unsigned int overlay_texture_ = 0;
    QOpenGLVertexArrayObject points_vao_;
    QOpenGLBuffer position_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer colour_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLVertexArrayObject overlay_vao_;  // trails and markers
    QOpenGLBuffer overlay_position_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer overlay_colour_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLVertexArrayObject empty_vao_;    // the Voronoi triangle needs a bound VAO
    unsigned int centroid_texture_ = 0;
    unsigned int palette_texture_ = 0;

    std::unique_ptr<GlColourBuffer> interop_;
    int device_colours_iteration_ = -1;  // iteration whose colours the kernel wrote
    ColourMode device_colours_mode_ = ColourMode::Labels;
    bool interop_failed_ = false;
    QString interop_message_;

    int dragged_centroid_ = -1;
    std::optional<QPointF> pan_anchor_;
    double last_paint_ms_ = 0.0;
    TimeSamples paint_ms_, device_write_ms_;
};

}  // namespace kms::ui
