#include "run/run_view.hpp"

#include "kms/backends.hpp"
#include "kms/gl_interop.hpp"

#include <QLocale>

#include <algorithm>
#include <cstdint>

#include "charts/iteration_charts.hpp"
#include "run/run_controller.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

namespace {

QColor qcolour(PackedRgba colour) { return QColor(red_of(colour), green_of(colour), blue_of(colour)); }

// The legend of the current colouring: always in presentation mode, and for the
// colourings whose colours need explaining (bounds, differences) otherwise.
// `stats`: the shown iteration's record (null at iteration 0), for the bounds legend's counts.
std::vector<std::pair<QColor, QString>> legend_for(const PointCloudView& view, std::size_t k, bool assigned,
                                                   const IterationStats* stats, std::size_t n) {
    std::vector<std::pair<QColor, QString>> legend;
    switch (view.colour_mode()) {
        case ColourMode::Bounds: {
            // Every solver's PointStatus means the same: Skipped when the point needed fewer
            // than k distances (bound_skips counts exactly these; for Yinyang the global
            // filter or its group and local filters), Recomputed when it computed all k.
            QString skipped = QObject::tr("skipped by the bounds (< k distances)");
            QString recomputed = QObject::tr("all k distances recomputed");
            if (stats && n >= stats->bound_skips) {
                const QLocale english(QLocale::English);
                skipped += QStringLiteral(": ") + english.toString(static_cast<qulonglong>(stats->bound_skips));
                recomputed += QStringLiteral(": ") + english.toString(static_cast<qulonglong>(n - stats->bound_skips));
            }
            legend.emplace_back(qcolour(kSkippedColour), skipped);
            legend.emplace_back(qcolour(kRecomputedColour), recomputed);
            break;
        }
        case ColourMode::Difference:
            legend.emplace_back(qcolour(kAgreeColour), QObject::tr("same label as the first run"));
            legend.emplace_back(qcolour(kDifferColour), QObject::tr("label differs"));
            break;
        case ColourMode::Labels:
        case ColourMode::Membership:
            if (!view.presentation()) break;
            if (!assigned) {
                legend.emplace_back(qcolour(kUnassignedColour), QObject::tr("not assigned yet"));
                break;
            }
            constexpr std::size_t kShown = 10;
            for (std::size_t c = 0; c < std::min(k, kShown); ++c)
                legend.emplace_back(qcolour(view.colour_of(c)), QObject::tr("cluster %1").arg(c));
            if (k > kShown) legend.emplace_back(QColor(255, 255, 255), QObject::tr("… %1 clusters in all").arg(k));
            break;
    }
    return legend;
}

}  // namespace

QString bounds_work_text(const IterationStats& stats, std::size_t n, bool bounded) {
    const QLocale english(QLocale::English);
    QString text;
    if (bounded) {
        text += QObject::tr("   skips %1").arg(english.toString(static_cast<qulonglong>(stats.bound_skips)));
        if (n > 0) text += QObject::tr(" (%1%)").arg(english.toString(bound_skip_percent(stats, n), 'f', 1));
    }
    if (stats.gemm_certified + stats.verified_points > 0) {
        text += QObject::tr("   GEMM certified %1").arg(english.toString(static_cast<qulonglong>(stats.gemm_certified)));
        if (n > 0) text += QObject::tr(" (%1%)").arg(english.toString(gemm_certified_percent(stats, n), 'f', 1));
        if (stats.gemm_listed > 0) {
            text += QObject::tr("   listed %1").arg(english.toString(static_cast<qulonglong>(stats.gemm_listed)));
            if (n > 0) text += QObject::tr(" (%1%)").arg(english.toString(gemm_listed_percent(stats, n), 'f', 1));
        }
    }
    if (stats.stable_points + stats.neighbour_clusters > 0) {  // Ball k-means
        text += QObject::tr("   stable %1").arg(english.toString(static_cast<qulonglong>(stats.stable_points)));
        if (n > 0)
            text += QObject::tr(" (%1%)").arg(english.toString(
                100.0 * static_cast<double>(stats.stable_points) / static_cast<double>(n), 'f', 1));
        text += QObject::tr("   neighbour distances %1")
                    .arg(english.toString(static_cast<qulonglong>(stats.neighbour_clusters)));
    }
    if (stats.second_centred > 0)  // Shallot
        text += QObject::tr("   balls around the second %1")
                    .arg(english.toString(static_cast<qulonglong>(stats.second_centred)));
    if (stats.groups > 0) {
        text += QObject::tr("   group skips %1").arg(english.toString(static_cast<qulonglong>(stats.group_skips)));
        if (n > 0)
            text += QObject::tr(" (%1% of n·t, t = %2)")
                        .arg(english.toString(group_skip_percent(stats, n), 'f', 1))
                        .arg(stats.groups);
        else
            text += QObject::tr(" (t = %1)").arg(stats.groups);
    }
    return text;
}

bool solver_prunes(const QString& solver_description) {
    const std::string name = solver_description.section(QLatin1Char('/'), 0, 0).toStdString();
    const std::optional<Algorithm> algorithm = parse_algorithm(name);
    if (!algorithm) return false;
    const std::optional<AlgorithmInfo> info = algorithm_info(*algorithm);
    return info && info->prunes();
}

void show_run_in_view(const RunController& run, PointCloudView& view) {
    view.set_colour_slots(run.colour_slots());
    const Projection2D& projection = run.dataset().projection;
    const int shown = run.displayed_iteration();
    const bool assign_phase = run.displayed_phase() == Phase::Assign && shown > 0;
    // In the assignment half-step the centroids have not moved yet: their path ends one step earlier.
    const int path_end = assign_phase ? shown - 1 : shown;
    const auto& history = run.history();
    std::vector<QPointF> centroids;
    std::vector<std::vector<QPointF>> trails;
    if (!history.empty() && projection.input_dimensions() > 0) {
        const Matrix<double>& current = run.displayed_centroids();
        const std::size_t k = current.rows();
        if (current.cols() == projection.input_dimensions()) {
            trails.resize(k);
            for (std::size_t c = 0; c < k; ++c) {
                const auto p = projection.project(current.row(c));
                centroids.emplace_back(p[0], p[1]);
                for (int i = 0; i <= path_end; ++i) {
                    const Matrix<double>& at = history[static_cast<std::size_t>(i)].centroids;
                    if (c >= at.rows()) continue;
                    const auto q = projection.project(at.row(c));
                    trails[c].emplace_back(q[0], q[1]);
                }
            }
        }
    }
    view.set_centroids(std::move(centroids), std::move(trails));
    const auto& data = run.dataset().dataset;
    bool drawn_classes = shown == 0 && !run.displayed_labels() && data && data->name == "drawn" &&
                         !data->truth_labels.empty() && data->truth_labels.size() == data->n();
    // Classes 0 .. max, at most one a point: a replay file's labels (negative, or 2^31 - 1
    // on three points) sized the palette past memory and aborted the studio (issue 39).
    std::int64_t classes = 0;
    if (drawn_classes) {
        const auto [low, high] = std::minmax_element(data->truth_labels.begin(), data->truth_labels.end());
        classes = std::int64_t{*high} + 1;
        drawn_classes = *low >= 0 && classes <= std::int64_t(data->n());
    }
    if (drawn_classes) {
        // Drawn data before the first step: the points in the colours of the classes they were drawn with.
        view.set_labels(LabelsPtr(data, &data->truth_labels), std::size_t(classes), 0);
    } else {
        view.set_labels(run.displayed_labels(), run.initial_centroids().rows(), shown);
    }
    view.set_point_status(run.displayed_point_status());
    view.set_centroids_editable(run.centroids_editable());

    ViewOverlay overlay;
    if (run.ready()) {
        if (shown == 0) {
            overlay.caption = QObject::tr("Iteration 0 · initial centroids");
            if (run.centroids_editable())
                overlay.detail = QObject::tr("drag a centroid, click to add one, right-click to remove");
            if (drawn_classes) overlay.detail += QObject::tr(" · colours: the drawn classes");
        } else if (assign_phase) {
            overlay.caption = QObject::tr("Iteration %1 · assign").arg(shown);
            overlay.detail = QObject::tr("each point joins its nearest centroid");
        } else {
            overlay.caption = run.half_steps() ? QObject::tr("Iteration %1 · update").arg(shown)
                                               : QObject::tr("Iteration %1").arg(shown);
            if (run.half_steps()) overlay.detail = QObject::tr("each centroid moves to the mean of its points");
        }
        if (run.converged() && shown == run.latest_iteration() && !assign_phase)
            overlay.caption += QObject::tr(" · converged");
    }
    if (run.dataset().d() > 2 && view.show_voronoi())
        overlay.note = QObject::tr("Cells of the projected centroids: clustering is in %1 dimensions, so a point's "
                                   "colour can differ from the cell it appears in.")
                           .arg(run.dataset().d());
    const IterationStats* stats =
        shown > 0 && std::size_t(shown) < history.size() ? &history[std::size_t(shown)].stats : nullptr;
    overlay.legend =
        legend_for(view, run.initial_centroids().rows(), run.displayed_labels() != nullptr, stats, run.dataset().n());
    if (view.colour_mode() == ColourMode::Bounds && stats && stats->groups > 0) {
        // Yinyang: a green point may still have searched some groups; what the group filter spared.
        const QLocale english(QLocale::English);
        QString groups = QObject::tr("group filter: %1 point–group pairs (%2% of n·t, t = %3)")
                             .arg(english.toString(static_cast<qulonglong>(stats->group_skips)))
                             .arg(english.toString(group_skip_percent(*stats, run.dataset().n()), 'f', 1))
                             .arg(stats->groups);
        overlay.detail = overlay.detail.isEmpty() ? groups : overlay.detail + QStringLiteral(" · ") + groups;
    }
    view.set_overlay(std::move(overlay));
}

void connect_device_colours(RunController& run, PointCloudView& view) {
    const auto offer = [&run, &view] {
        const BackendEntry* entry = find_backend(run.setup().config.backend);
        const bool on_device = entry && entry->device_labels;
        run.set_offer_device_labels(on_device && !view.interop_failed() && gl_interop_availability().available &&
                                    qEnvironmentVariable("KMS_STUDIO_INTEROP") != QLatin1String("off"));
    };
    offer();
    QObject::connect(&run, &RunController::setupChanged, &view, offer);
    QObject::connect(&run, &RunController::deviceLabelsReady, &view,
                     [&run, &view](const void* labels, const void* status, quint64 n) {
                         // Called while the worker waits: the device pointers are valid now.
                         view.write_device_colours(labels, status, n, run.latest_iteration() + 1);
                     });
}

}  // namespace kms::ui
