// The spectral pipeline's model and view (spectral_pipeline.hpp).
#include "spectral/spectral_pipeline.hpp"

#include <QCoreApplication>
#include <QDeadlineTimer>

#include "charts/distinct_colours.hpp"
#include "run/run_controller.hpp"
#include "spectral/spectral_panel.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

namespace {
constexpr qsizetype kMaxMarkers = 60;
}  // namespace

SpectralPipeline::SpectralPipeline(RunController& controller, QObject* parent)
    : QObject(parent), controller_(controller) {
    qRegisterMetaType<SpectralResultPtr>();
    qRegisterMetaType<LabelsPtr>();
    view_ = new PointCloudView();
    view_->set_show_trails(false);
    panel_ = new SpectralPanel(*this);
    worker_ = new SpectralWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);

    connect(worker_, &SpectralWorker::representativesReady, this,
            [this](LabelsPtr representative_of, QVector<QPointF> positions, quint64 epoch) {
                if (epoch != epoch_) return;
                representative_of_ = std::move(representative_of);
                representatives_ = std::move(positions);
                display_ = Display::Representatives;  // shown while the rest runs
                show();
                emit changed();
            });
    connect(worker_, &SpectralWorker::phaseDone, this, [this](const QString& line, quint64 epoch) {
        if (epoch != epoch_) return;
        progress_ += (progress_.isEmpty() ? QString() : QStringLiteral("\n")) + line;
        emit changed();
    });
    connect(worker_, &SpectralWorker::finished, this,
            [this](SpectralResultPtr result, double spectral_ari, double plain_ari, quint64 epoch) {
                if (epoch != epoch_) return;
                result_ = std::move(result);
                labels_ = std::shared_ptr<const std::vector<std::int32_t>>(result_, &result_->labels);
                spectral_ari_ = spectral_ari;
                plain_ari_ = plain_ari;
                state_ = State::Done;
                display_ = Display::Clusters;
                show();
                emit changed();
            });
    connect(worker_, &SpectralWorker::cancelled, this, [this](quint64 epoch) {
        if (epoch != epoch_) return;
        state_ = State::Cancelled;
        show();
        emit changed();
    });
    connect(worker_, &SpectralWorker::failed, this, [this](const QString& message, quint64 epoch) {
        if (epoch != epoch_) return;
        state_ = State::Failed;
        error_ = message;
        show();
        emit changed();
    });
    // New data: what was computed belongs to the old data.
    connect(&controller_, &RunController::datasetChanged, this, [this] {
        cancel();
        clear();
        view_->set_points(controller_.dataset().projected);
        view_->fit();
        show();
        emit changed();
    });
    if (controller_.has_data()) view_->set_points(controller_.dataset().projected);
    thread_.start();
}

SpectralPipeline::~SpectralPipeline() {
    worker_->request_stop();
    thread_.quit();
    while (!thread_.wait(QDeadlineTimer(20))) QCoreApplication::sendPostedEvents(this);
    delete view_;   // unparented unless the window placed them (then the window deletes them first)
    delete panel_;
}

SpectralOptions SpectralPipeline::options_for(std::size_t clusters, std::size_t representatives,
                                              std::size_t neighbours, double sigma) const {
    SpectralOptions options;
    options.clusters = clusters;
    options.representatives = representatives;
    options.neighbours = neighbours;
    options.sigma = sigma;
    const RunSetup& setup = controller_.setup();
    options.kmeans.solver = setup.config;
    options.kmeans.solver.algorithm = Algorithm::Auto;  // R clusters: the measured rule picks a bounded solver
    options.kmeans.solver.compute_inertia = false;
    options.kmeans.solver.record_point_status = false;
    options.kmeans.init.seed = setup.init.seed;
    return options;
}

void SpectralPipeline::start(SpectralOptions options) {
    cancel();
    clear();
    if (!controller_.has_data()) {
        state_ = State::Failed;
        error_ = tr("no data loaded");
        emit changed();
        return;
    }
    if (!options.representatives)
        options.representatives = std::min<std::size_t>(controller_.dataset().n(), SpectralOptions::kDefaultRepresentatives);
    state_ = State::Running;
    const quint64 epoch = epoch_;
    const DatasetBundle bundle = controller_.dataset();
    SpectralWorker* worker = worker_;
    QMetaObject::invokeMethod(worker_, [worker, bundle, options, epoch] { worker->run(bundle, options, epoch); },
                              Qt::QueuedConnection);
    show();
    emit changed();
}

void SpectralPipeline::cancel() {
    worker_->request_stop();
    if (state_ == State::Running) {
        ++epoch_;  // whatever the worker still sends belongs to the cancelled run
        state_ = State::Cancelled;
        emit changed();
    }
}

void SpectralPipeline::clear() {
    ++epoch_;
    state_ = State::Idle;
    representative_of_.reset();
    representatives_.clear();
    labels_.reset();
    result_.reset();
    spectral_ari_ = plain_ari_ = std::nan("");
    progress_.clear();
    error_.clear();
}

void SpectralPipeline::set_display(Display display) {
    display_ = display;
    show();
    emit changed();
}

void SpectralPipeline::show() {
    ViewOverlay overlay;
    const bool clusters = display_ == Display::Clusters && labels_;
    if (clusters) {
        view_->set_labels(labels_, result_->clusters, 1);
        view_->set_centroids({}, {});
        overlay.caption = tr("Spectral clustering: %1 clusters%2").arg(result_->clusters).arg(result_->clusters_chosen ? tr(" (auto)") : QString());
        overlay.detail = tr("%1 representatives · sigma %2 · eigengap %3")
                             .arg(result_->representatives)
                             .arg(result_->sigma, 0, 'g', 3)
                             .arg(result_->eigengap, 0, 'g', 3);
        if (!std::isnan(spectral_ari_))
            overlay.detail += tr(" · ARI %1 (plain k-means %2)").arg(spectral_ari_, 0, 'f', 3).arg(plain_ari_, 0, 'f', 3);
        const std::vector<Rgb> colours = distinct_palette(result_->clusters);
        for (std::size_t c = 0; c < colours.size() && c < 12; ++c)
            overlay.legend.emplace_back(QColor(colours[c].r, colours[c].g, colours[c].b), tr("cluster %1").arg(c));
    } else if (representative_of_) {
        view_->set_labels(representative_of_, static_cast<std::size_t>(representatives_.size()), 1);
        // Markers for a few representatives; beyond that they would hide the points they stand for.
        view_->set_centroids(representatives_.size() <= kMaxMarkers
                                 ? std::vector<QPointF>(representatives_.begin(), representatives_.end())
                                 : std::vector<QPointF>(),
                             {});
        overlay.caption = tr("Spectral clustering: %1 k-means representatives").arg(representatives_.size());
        overlay.detail = state_ == State::Running ? tr("similarity graph and eigenvectors next ...")
                                                  : tr("each point coloured by its representative (its k-means cell)");
    } else {
        view_->set_labels(nullptr, 0, 0);
        view_->set_centroids({}, {});
        overlay.caption = tr("Spectral clustering");
        overlay.detail = state_ == State::Running ? tr("k-means of the representatives ...")
                                                  : tr("Run in the Spectral panel");
    }
    if (state_ == State::Cancelled) overlay.note = tr("cancelled");
    if (state_ == State::Failed) overlay.note = error_;
    view_->set_overlay(overlay);
}

}  // namespace kms::ui
