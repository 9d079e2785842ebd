#pragma once
// The studio's k-sweep: kms::sweep on a worker thread of its own, with progress
// (a level at a time) and cancel through a stop token; results are kept here for
// the elbow chart. Like the scores dock, a newer start cancels an older sweep and
// results are tagged with a serial, so a late level of an old sweep is dropped.
#include <QObject>
#include <QThread>

#include <memory>
#include <stop_token>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/sweep.hpp"
#include "run/run_types.hpp"

namespace kms::ui {

using SweepLevelPtr = std::shared_ptr<const SweepLevel>;
using SweepResultPtr = std::shared_ptr<const SweepResult>;

class SweepWorker : public QObject {
    Q_OBJECT
public:
    void run(quint64 serial, std::shared_ptr<const Dataset> dataset, SweepOptions options, std::stop_token stop);
signals:
    void levelDone(quint64 serial, int done, int count, kms::ui::SweepLevelPtr level);
    void finished(quint64 serial, kms::ui::SweepResultPtr result);
    void failed(quint64 serial, QString message);
};

class SweepRunner : public QObject {
    Q_OBJECT
public:
    explicit SweepRunner(QObject* parent = nullptr);
    ~SweepRunner() override;

    // Sweeps `range` over the dataset with the run's solver, initialisation, seed
    // and restarts (`setup`; its k is ignored); scores as the scores dock computes
    // them (exact silhouette up to its limit, else sampled).
    void start(std::shared_ptr<const Dataset> dataset, const RunSetup& setup, KRange range, bool hierarchy);
    void cancel();
    bool running() const { return running_; }

    // Levels received so far (increasing k once finished; in fitting order while running).
    const std::vector<SweepLevelPtr>& levels() const { return levels_; }
    SweepLevelPtr level_for(std::size_t k) const;
    // The finished sweep's suggestions; null while running or after a failure.
    const SweepResultPtr& result() const { return result_; }
    // The setup the levels were fitted with (to load one into the main view).
    const RunSetup& setup() const { return setup_; }
    const std::shared_ptr<const Dataset>& dataset() const { return dataset_; }

signals:
    void started(int count);
    void progress(int done, int count);
    void changed();                  // a level arrived or the sweep finished
    void finished(bool cancelled);
    void failed(QString message);

private:
    QThread thread_;
    SweepWorker* worker_ = nullptr;
    std::stop_source stop_;
    quint64 serial_ = 0;
    bool running_ = false;
    std::vector<SweepLevelPtr> levels_;
    SweepResultPtr result_;
    RunSetup setup_;
    std::shared_ptr<const Dataset> dataset_;
};

}  // namespace kms::ui

Q_DECLARE_METATYPE(kms::ui::SweepLevelPtr)
Q_DECLARE_METATYPE(kms::ui::SweepResultPtr)
