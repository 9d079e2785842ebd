// The spectral chain in the studio's background thread (spectral_worker.hpp).
#include "spectral/spectral_worker.hpp"

#include <cmath>
#include <exception>

#include "kms/fit.hpp"
#include "kms/scores.hpp"

namespace kms::ui {

void SpectralWorker::request_stop() {
    std::lock_guard lock(mutex_);
    stop_.request_stop();
}

void SpectralWorker::run(const DatasetBundle& bundle, const SpectralOptions& options, quint64 epoch) {
    std::stop_token stop;
    {
        std::lock_guard lock(mutex_);
        stop_ = std::stop_source();
        stop = stop_.get_token();
    }
    if (!bundle.dataset) {
        emit failed(tr("no data loaded"), epoch);
        return;
    }
    const auto points = std::shared_ptr<const Matrix<double>>(bundle.dataset, &bundle.dataset->points);  // no copy
    const auto progress = [&](SpectralPhase phase, const SpectralResult& so_far) {
        const SpectralTimes& t = so_far.times;
        switch (phase) {
            case SpectralPhase::Representatives: {
                const Matrix<double>& centroids = so_far.representative_fit.centroids;
                QVector<QPointF> positions;
                positions.reserve(static_cast<qsizetype>(centroids.rows()));
                for (std::size_t i = 0; i < centroids.rows(); ++i) {
                    const auto xy = bundle.projection.project(centroids.row(i));
                    positions.push_back(QPointF(xy[0], xy[1]));
                }
                emit representativesReady(std::make_shared<const std::vector<std::int32_t>>(so_far.representative_fit.labels),
                                          positions, epoch);
                emit phaseDone(tr("%1 representatives: %2 ms").arg(so_far.representatives).arg(t.representatives_ms, 0, 'f', 1), epoch);
                break;
            }
            case SpectralPhase::Similarity:
                emit phaseDone(tr("similarity graph: %1 ms").arg(t.similarity_ms, 0, 'f', 1), epoch);
                break;
            case SpectralPhase::Eigensolver:
                emit phaseDone(tr("eigenvectors: %1 ms").arg(t.eigensolver_ms, 0, 'f', 1), epoch);
                break;
            case SpectralPhase::FinalKMeans:
            case SpectralPhase::Labelling: break;
        }
    };
    try {
        auto result = std::make_shared<SpectralResult>(
            spectral_cluster(points, options, progress, stop, bundle.dataset->name));
        if (result->cancelled) {
            emit cancelled(epoch);
            return;
        }
        double spectral_ari = std::nan(""), plain_ari = std::nan("");
        const auto& truth = bundle.dataset->truth_labels;
        if (truth.size() == result->labels.size()) {
            spectral_ari = adjusted_rand_index(truth, result->labels);
            // Plain k-means with the same k and seed: what the spectral chain is compared against.
            FitOptions plain;
            plain.k = result->clusters;
            plain.init.seed = options.kmeans.init.seed;
            plain.solver = options.kmeans.solver;
            plain.solver.algorithm = Algorithm::Lloyd;
            const FitResult fitted = fit(points, plain, nullptr, stop, bundle.dataset->name);
            if (fitted.stop_reason == StopReason::Cancelled) {
                emit cancelled(epoch);
                return;
            }
            plain_ari = adjusted_rand_index(truth, fitted.labels);
        }
        emit finished(std::move(result), spectral_ari, plain_ari, epoch);
    } catch (const std::exception& error) {
        emit failed(QString::fromStdString(error.what()), epoch);
    }
}

}  // namespace kms::ui
