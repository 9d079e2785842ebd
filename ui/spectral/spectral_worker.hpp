#pragma once
// Runs the spectral chain (kms::spectral_cluster) in its own QThread for the
// studio. The GUI calls run() through a queued invocation and request_stop()
// from any thread; results come back as queued signals tagged with the run's epoch.
#include <QObject>
#include <QPointF>
#include <QVector>

#include <memory>
#include <mutex>
#include <stop_token>

#include "kms/spectral.hpp"
#include "run/run_types.hpp"
#include "view/labels.hpp"

namespace kms::ui {

using SpectralResultPtr = std::shared_ptr<const SpectralResult>;

class SpectralWorker : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // Thread-safe: ends the run after the phase (or k-means step) in progress.
    void request_stop();
    // In the worker's thread: the whole chain on `bundle`'s points.
    void run(const DatasetBundle& bundle, const SpectralOptions& options, quint64 epoch);

signals:
    // Each point's representative (n labels, R of them) and the representatives projected.
    void representativesReady(kms::ui::LabelsPtr representative_of, QVector<QPointF> positions, quint64 epoch);
    // A phase ended: a line for the status ("similarity: 12 ms").
    void phaseDone(QString line, quint64 epoch);
    // The chain's result; `plain_ari` is plain k-means' ARI against the ground truth
    // (k_c clusters, same seed), NaN without one.
    void finished(kms::ui::SpectralResultPtr result, double spectral_ari, double plain_ari, quint64 epoch);
    void cancelled(quint64 epoch);
    void failed(QString message, quint64 epoch);

private:
    std::mutex mutex_;
    std::stop_source stop_;
};

}  // namespace kms::ui

Q_DECLARE_METATYPE(kms::ui::SpectralResultPtr)
