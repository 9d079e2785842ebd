#include "window/run_exports.hpp"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QWidget>

#include <sstream>

#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/report.hpp"
#include "kms/run_file.hpp"
#include "kms/scores.hpp"
#include "geo/geo_view.hpp"
#include "run/run_controller.hpp"
#include "run/studio_files.hpp"

namespace kms::ui {

QString save_run_file(const RunController& run, const QString& path) {
    if (!run.ready()) throw Error("no run to save: load data first");
    const QString written = QFileInfo(path).suffix().isEmpty() ? path + QStringLiteral(".kmsrun") : path;
    write_studio_file(written.toStdString(), run_file_text(run.run_file()));
    return written;
}

void export_png(QWidget& widget, const QString& path) {
    const QImage image = widget.grab().toImage();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG")) throw Error(path.toStdString() + ": could not encode the PNG image");
    write_studio_file(path.toStdString(), std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

void export_labels(const RunController& run, const QString& path) {
    const LabelsPtr labels = run.displayed_labels();
    if (!labels) throw Error("no labels yet: step at least once before exporting labels");
    write_studio_file(path.toStdString(), labels_text(*labels));
}

void export_centroids(const RunController& run, const QString& path) {
    if (!run.ready()) throw Error("no centroids yet: load data first");
    // Geographic runs export degrees (latitude, longitude), as kmeans-cli --centroids-out and --init read them.
    const std::shared_ptr<const GeoView>& geo = run.dataset().geo;
    write_studio_file(path.toStdString(), centroids_csv_text(geo ? geo->projection.to_degrees(run.displayed_centroids())
                                                                 : run.displayed_centroids()));
}

void export_report(const RunController& run, const QString& path) {
    if (!run.ready()) throw Error("no run yet: load data first");
    std::ostringstream out;
    RunSummary summary;
    summary.solver = run.solver_description().toStdString();
    summary.data = run.dataset().dataset->name;
    summary.n = run.dataset().n();
    summary.d = run.dataset().d();
    summary.k = run.initial_centroids().rows();
    summary.iterations = run.latest_iteration();
    summary.stop_reason = run.stop_reason();
    summary.converged = run.stop_reason() == StopReason::NoLabelChange || run.stop_reason() == StopReason::Tolerance;
    for (const IterationStats& stats : run.stats_history()) {
        out << to_json(stats) << '\n';
        summary.total_time_ms += stats.time_total_ms;
    }
    // Of the final labels and centroids, as kmeans-cli reports it.
    const LabelsPtr labels = run.latest_labels();
    summary.inertia = labels && run.latest_iteration() > 0
                          ? inertia(run.dataset().dataset->points, *labels, run.history().back().centroids)
                          : 0.0;
    out << to_json(summary) << '\n';
    write_studio_file(path.toStdString(), out.str());
}

}  // namespace kms::ui
