#pragma once
// The studio's "Spectral (k-means representatives)" pipeline: runs the spectral
// chain on the data shown (kms::spectral_cluster, in a SpectralWorker thread,
// cancellable), and shows it in a point view of its own: first the representatives
// (each point coloured by its representative, the representatives as markers),
// then the final clusters. The main window places view() and panel().
#include <QObject>
#include <QPointF>
#include <QString>
#include <QThread>
#include <QVector>

#include <cmath>
#include <memory>

#include "kms/spectral.hpp"
#include "spectral/spectral_worker.hpp"

namespace kms::ui {

class PointCloudView;
class RunController;
class SpectralPanel;

class SpectralPipeline : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Done, Failed, Cancelled };
    enum class Display { Representatives, Clusters };

    explicit SpectralPipeline(RunController& controller, QObject* parent = nullptr);
    ~SpectralPipeline() override;

    PointCloudView* view() const { return view_; }
    SpectralPanel* panel() const { return panel_; }

    // Runs the chain on the controller's data; the representatives' k-means takes the
    // controller's back end, threads, precision and seed unless `options` says otherwise.
    void start(SpectralOptions options);
    // The options start() would use for the panel's values (k 0 = auto ...).
    SpectralOptions options_for(std::size_t clusters, std::size_t representatives, std::size_t neighbours,
                                double sigma) const;
    void cancel();

    State state() const { return state_; }
    bool has_representatives() const { return representative_of_ != nullptr; }
    // Valid once state() is Done.
    const SpectralResult* result() const { return result_.get(); }
    double spectral_ari() const { return spectral_ari_; }  // NaN without ground truth
    double plain_ari() const { return plain_ari_; }
    QString progress_text() const { return progress_; }
    QString error() const { return error_; }

    void set_display(Display display);
    Display display() const { return display_; }

signals:
    void changed();

private:
    void clear();
    void show();

    RunController& controller_;
    QThread thread_;
    SpectralWorker* worker_ = nullptr;
    PointCloudView* view_ = nullptr;
    SpectralPanel* panel_ = nullptr;
    quint64 epoch_ = 0;
    State state_ = State::Idle;
    Display display_ = Display::Clusters;
    LabelsPtr representative_of_;
    QVector<QPointF> representatives_;
    LabelsPtr labels_;
    SpectralResultPtr result_;
    double spectral_ari_ = std::nan("");
    double plain_ari_ = std::nan("");
    QString progress_;
    QString error_;
};

}  // namespace kms::ui
