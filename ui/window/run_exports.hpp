#pragma once
// What File → Export and File → Save run write from the single run; each throws
// kms::Error naming the path (or saying what is missing).
#include <QString>

class QWidget;

namespace kms::ui {

class RunController;

// Adds .kmsrun to a name without an extension (File → Open run lists *.kmsrun
// only: issue 36) and returns the path written.
QString save_run_file(const RunController& run, const QString& path);
// The widget as shown, as a PNG image.
void export_png(QWidget& widget, const QString& path);
void export_labels(const RunController& run, const QString& path);
void export_centroids(const RunController& run, const QString& path);
// One JSON line per iteration, then the summary, as kmeans-cli reports it.
void export_report(const RunController& run, const QString& path);

}  // namespace kms::ui
