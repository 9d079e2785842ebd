#pragma once
// The object that does the studio's heavy work in its own QThread: loading and
// generating data, choosing initial centroids, and stepping the solver. The GUI
// talks to it only through queued slots and signals, plus two thread-safe calls
// (request_stop, set_delay_ms) that must work while a run loop is busy.
#include <QObject>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>

#include "kms/run_file.hpp"
#include "run/run_types.hpp"

namespace kms::ui {

class SolverWorker : public QObject {
    Q_OBJECT
public:
    explicit SolverWorker(QObject* parent = nullptr);
    ~SolverWorker() override;

    // Thread-safe: ends a run loop after the step in progress, or cancels a load.
    void request_stop();
    // Thread-safe: pause between iterations of a run loop.
    void set_delay_ms(int delay_ms) { delay_ms_.store(delay_ms); }
    // Thread-safe: while set, every step's device labels are offered to the GUI
    // (deviceLabelsReady, blocking) before the next step may overwrite them.
    void set_offer_device_labels(bool offer) { offer_device_labels_.store(offer); }

public slots:
    // With `geo` enabled the file is a latitude/longitude table (kms::load_geo_data);
    // a geo-* generator's data are always geographic.
    void load_file(QString path, quint64 epoch, int projection_mode, kms::GeoOptions geo = {});
    void generate(QString spec, quint64 seed, quint64 epoch, int projection_mode, kms::GeoOptions geo = {});
    void reproject(kms::ui::DatasetBundle bundle, int projection_mode, quint64 epoch);
    // The data of a replay file (generated now, or its stored points).
    void open_data(const kms::RunFile& run, quint64 epoch, int projection_mode);
    // Make a solver for the data; initial centroids from `given` when it has
    // k rows, else from setup.init.
    void setup(kms::ui::DatasetBundle bundle, kms::ui::RunSetup setup, kms::Matrix<double> given, quint64 epoch);
    void reset_run(quint64 epoch);
    void step(quint64 epoch);
    // Steps until converged, max iterations, `max_steps` more steps (< 0: no
    // limit) or request_stop(); without the delay when `no_delay`.
    void run(quint64 epoch, int max_steps, bool no_delay);
    // Labels of an earlier iteration: the engine's full assignment, in the run's
    // precision, to `centroids` (the centroids that iteration's assignment used).
    void relabel(kms::Matrix<double> centroids, int iteration, bool assign_phase, quint64 epoch);

signals:
    void loadProgress(qint64 done_bytes, qint64 total_bytes);
    void datasetReady(kms::ui::DatasetBundle bundle, quint64 epoch);
    void loadFailed(QString message, quint64 epoch);
    void setupDone(kms::ui::SetupResult result);
    void setupFailed(QString message, quint64 epoch);
    void stepped(kms::ui::StepResult result);
    void stepFailed(QString message, quint64 epoch);
    void runningChanged(bool running, quint64 epoch);
    void relabelled(kms::ui::LabelsPtr labels, int iteration, bool assign_phase, quint64 epoch);
    // Labels of the newest iteration when its step went out without them.
    void latestLabels(kms::ui::LabelsPtr labels, kms::ui::PointStatusPtr point_status, int iteration, quint64 epoch);
    // Blocking (the worker waits until the receiver returns): device pointers valid until then.
    void deviceLabelsReady(const void* device_labels, const void* device_point_status, quint64 n, quint64 epoch);

private:
    void emit_step(const IterationStats& stats, quint64 epoch, bool with_labels);
    DatasetBundle make_bundle(std::shared_ptr<const Dataset> dataset, int projection_mode,
                              std::shared_ptr<const GeoView> geo = nullptr) const;
    DatasetBundle make_geo_bundle(GeoData data) const;
    std::stop_token fresh_stop_token();
    std::shared_ptr<const Matrix<double>> points() const {
        return std::shared_ptr<const Matrix<double>>(dataset_, &dataset_->points);  // aliasing: no copy
    }

    std::shared_ptr<const Dataset> dataset_;
    std::unique_ptr<KMeansRun> run_;   // the fit layer's loop over this setup's solver
    quint64 solver_epoch_ = 0;
    int last_labels_iteration_ = -1;

    std::atomic<int> delay_ms_{0};
    std::atomic<bool> offer_device_labels_{false};
    std::mutex stop_mutex_;
    std::stop_source load_stop_;     // the current load's or run's: request_stop() ends either
};

}  // namespace kms::ui
