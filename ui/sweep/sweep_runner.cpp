#include "sweep/sweep_runner.hpp"

#include <algorithm>

#include "scores/scores_dock.hpp"

namespace kms::ui {

namespace {
// Reports each level to the GUI thread as it is done.
class ForwardingObserver : public SweepObserver {
public:
    ForwardingObserver(SweepWorker& worker, quint64 serial) : worker_(worker), serial_(serial) {}
    void level_done(std::size_t index, std::size_t count, const SweepLevel& level) override {
        emit worker_.levelDone(serial_, int(index) + 1, int(count), std::make_shared<const SweepLevel>(level));
    }

private:
    SweepWorker& worker_;
    quint64 serial_;
};
}  // namespace

void SweepWorker::run(quint64 serial, std::shared_ptr<const Dataset> dataset, SweepOptions options,
                      std::stop_token stop) {
    try {
        // The points inside the dataset, shared with it (no copy).
        std::shared_ptr<const Matrix<double>> points(dataset, &dataset->points);
        ForwardingObserver observer(*this, serial);
        auto result = std::make_shared<SweepResult>(sweep(points, options, &observer, stop, dataset->name));
        // The levels already went out one by one; the summary needs only the suggestions.
        result->levels.clear();
        emit finished(serial, std::move(result));
    } catch (const std::exception& error) {
        emit failed(serial, QString::fromStdString(error.what()));
    }
}

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<kms::ui::SweepLevelPtr>();
    qRegisterMetaType<kms::ui::SweepResultPtr>();
    worker_ = new SweepWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &SweepWorker::levelDone, this, [this](quint64 serial, int done, int count, SweepLevelPtr level) {
        if (serial != serial_) return;
        levels_.push_back(std::move(level));
        emit progress(done, count);
        emit changed();
    });
    connect(worker_, &SweepWorker::finished, this, [this](quint64 serial, SweepResultPtr result) {
        if (serial != serial_) return;
        running_ = false;
        std::sort(levels_.begin(), levels_.end(), [](const SweepLevelPtr& a, const SweepLevelPtr& b) { return a->k < b->k; });
        result_ = std::move(result);
        emit changed();
        emit finished(result_->cancelled);
    });
    connect(worker_, &SweepWorker::failed, this, [this](quint64 serial, const QString& message) {
        if (serial != serial_) return;
        running_ = false;
        emit changed();
        emit failed(message);
    });
    thread_.setObjectName(QStringLiteral("kms-sweep"));
    thread_.start(QThread::LowPriority);
}

SweepRunner::~SweepRunner() {
    stop_.request_stop();
    thread_.quit();
    thread_.wait();
}

void SweepRunner::start(std::shared_ptr<const Dataset> dataset, const RunSetup& setup, KRange range, bool hierarchy) {
    cancel();
    if (!dataset) {
        emit failed(tr("no data to sweep"));
        return;
    }
    stop_ = std::stop_source();
    levels_.clear();
    result_.reset();
    setup_ = setup;
    dataset_ = dataset;
    SweepOptions options;
    options.range = range;
    options.hierarchy = hierarchy;
    options.fit.solver = setup.config;
    options.fit.init = setup.init;
    options.fit.n_init = setup.n_init;
    options.score_settings = dock_score_settings(dataset->n(), setup.config);
    options.score_settings.options.threads = setup.config.threads;
    const quint64 serial = ++serial_;
    running_ = true;
    emit started(int(range.values().size()));
    emit changed();
    QMetaObject::invokeMethod(
        worker_, [w = worker_, serial, dataset, options, stop = stop_.get_token()] { w->run(serial, dataset, options, stop); },
        Qt::QueuedConnection);
}

void SweepRunner::cancel() { stop_.request_stop(); }

SweepLevelPtr SweepRunner::level_for(std::size_t k) const {
    for (const SweepLevelPtr& level : levels_)
        if (level->k == k) return level;
    return nullptr;
}

}  // namespace kms::ui
