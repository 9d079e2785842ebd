#include "compare/compare_view.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

#include "run/run_view.hpp"

namespace kms::ui {

CompareView::CompareView(CompareSession* session, QWidget* parent) : QWidget(parent), session_(session) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(2);
    connect(session_, &CompareSession::changed, this, &CompareView::refresh);
    connect(session_, &CompareSession::allReady, this, [this] {
        fitted_ = false;
        refresh();
    });
}

void CompareView::rebuild() {
    for (QWidget* cell : cells_) {
        grid_->removeWidget(cell);
        delete cell;
    }
    cells_.clear();
    views_.clear();
    captions_.clear();
    const std::size_t count = session_->size();
    for (std::size_t i = 0; i < count; ++i) {
        auto* cell = new QWidget(this);
        auto* layout = new QVBoxLayout(cell);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(0);
        auto* caption = new QLabel(cell);
        caption->setContentsMargins(6, 2, 6, 2);
        // Wraps in narrow panels instead of widening the window past the screen.
        caption->setWordWrap(true);
        caption->setMinimumWidth(60);
        layout->addWidget(caption);
        auto* view = new PointCloudView(cell);
        layout->addWidget(view, 1);
        view->set_camera(&camera_);
        view->set_colour_mode(i == 0 && mode_ == ColourMode::Difference ? ColourMode::Labels : mode_);
        view->set_show_voronoi(voronoi_);
        view->set_show_trails(trails_);
        view->set_point_size(point_size_);
        view->set_presentation(presentation_);
        // CUDA runs colour their panel on the GPU, as the single view does (they took the host path).
        connect_device_colours(session_->run(i), *view);
        views_.push_back(view);
        cells_.push_back(cell);
        captions_.push_back(caption);
    }
    columns_ = 0;
    arrange();
    fitted_ = false;
}

int CompareView::best_columns(std::size_t panels, QSize area) {
    // The grid whose panels are the largest squares: three solvers at 1280×720 side
    // by side (~330 px each), not 2 + 1 in panels ~160 px tall.
    int best = 1;
    double best_side = -1.0;
    for (int columns = 1; columns <= int(std::max<std::size_t>(panels, 1)); ++columns) {
        const int rows = (int(panels) + columns - 1) / columns;
        const double side = std::min(double(area.width()) / columns, double(area.height()) / std::max(rows, 1));
        if (side > best_side + 0.5) {
            best_side = side;
            best = columns;
        }
    }
    return best;
}

void CompareView::arrange() {
    const int columns = best_columns(cells_.size(), size());
    if (columns == columns_) return;
    columns_ = columns;
    for (QWidget* cell : cells_) grid_->removeWidget(cell);
    for (std::size_t i = 0; i < cells_.size(); ++i) grid_->addWidget(cells_[i], int(i) / columns, int(i) % columns);
}

void CompareView::refresh() {
    if (views_.size() != session_->size()) rebuild();
    for (std::size_t i = 0; i < views_.size(); ++i) {
        const RunController& run = session_->run(i);
        PointCloudView& view = *views_[i];
        if (run.has_data()) view.set_points(run.dataset().projected == nullptr ? nullptr : run.dataset().projected);
        show_run_in_view(run, view);
        // The caption above the panel says what the single view's in-view caption says:
        // in a panel ~160 px tall that box hid the initial centroids (issue 36).
        ViewOverlay overlay = view.overlay();
        overlay.caption.clear();
        overlay.detail.clear();
        view.set_overlay(std::move(overlay));
        if (i > 0) view.set_reference_labels(session_->run(0).displayed_labels());
        QString caption = QStringLiteral("%1   iteration %2").arg(run.solver_description()).arg(run.displayed_iteration());
        if (run.half_steps() && run.displayed_iteration() > 0)
            caption += run.displayed_phase() == Phase::Assign ? tr(" · assign") : tr(" · update");
        if (run.displayed_iteration() > 0) {
            const IterationStats& stats = run.history()[std::size_t(run.displayed_iteration())].stats;
            caption += QStringLiteral("   %1 ms").arg(stats.time_total_ms, 0, 'f', 2);
            caption += bounds_work_text(stats, run.dataset().n(), solver_prunes(run.solver_description()));
        }
        if (run.converged() && run.displayed_iteration() == run.latest_iteration()) caption += tr("   converged");
        if (i > 0 && mode_ == ColourMode::Difference)
            caption += tr("   %1 labels differ").arg(differing_points(i));
        captions_[i]->setText(caption);
    }
    if (!fitted_ && session_->all_ready() && !views_.empty() && views_[0]->width() > 0) {
        views_[0]->fit();
        fitted_ = true;
    }
}

QString CompareView::caption(std::size_t i) const { return i < captions_.size() ? captions_[i]->text() : QString(); }

std::size_t CompareView::differing_points(std::size_t i) const {
    if (i >= session_->size()) return 0;
    const LabelsPtr reference = session_->run(0).displayed_labels();
    const LabelsPtr labels = session_->run(i).displayed_labels();
    if (!reference || !labels || reference->size() != labels->size()) return 0;
    std::size_t differ = 0;
    for (std::size_t p = 0; p < labels->size(); ++p) differ += (*labels)[p] != (*reference)[p];
    return differ;
}

void CompareView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrange();
    // Refit once the grid has its new size (the panels resize after this widget).
    QTimer::singleShot(0, this, [this] {
        if (session_->all_ready()) fit();
    });
}

void CompareView::set_colour_mode(ColourMode mode) {
    mode_ = mode;
    for (std::size_t i = 0; i < views_.size(); ++i)
        views_[i]->set_colour_mode(i == 0 && mode == ColourMode::Difference ? ColourMode::Labels : mode);
    refresh();
}

void CompareView::set_show_voronoi(bool show) {
    voronoi_ = show;
    for (PointCloudView* view : views_) view->set_show_voronoi(show);
}

void CompareView::set_show_trails(bool show) {
    trails_ = show;
    for (PointCloudView* view : views_) view->set_show_trails(show);
}

void CompareView::set_point_size(double pixels) {
    point_size_ = pixels;
    for (PointCloudView* view : views_) view->set_point_size(pixels);
}

void CompareView::set_presentation(bool on) {
    presentation_ = on;
    for (PointCloudView* view : views_) view->set_presentation(on);
}

void CompareView::follow(const ViewSettings& settings) {
    show_settings_in(settings, this, [this](ColourMode mode) { set_colour_mode(mode); });
}

void CompareView::fit() {
    if (!views_.empty()) views_[0]->fit();
}

}  // namespace kms::ui
