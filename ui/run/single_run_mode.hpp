#pragma once
// The single run as the main window's RunMode: the transport drives its
// RunController, the iteration charts follow it (appending while it runs) and
// a click on a chart steps to that iteration.
#include <QObject>

#include "run/run_mode.hpp"

namespace kms::ui {

class IterationCharts;
class PointCloudView;
class RunController;

class SingleRunMode : public QObject, public RunMode {
    Q_OBJECT
public:
    SingleRunMode(RunController& run, IterationCharts& charts, PointCloudView& view, QObject* parent = nullptr);

    TransportState transport_state() const override;
    void step() override;
    void step_back() override;
    void run() override;
    void pause() override;
    void run_to_convergence() override;
    void reset() override;
    void show_iteration(int iteration) override;
    void refresh_charts() override;
    QString status_text() const override;
    void fit_view() override;
    QWidget* centre() const override;
    bool scores_follow() const override { return true; }
    int iterations_at_stake() const override;

private:
    RunController& run_;
    IterationCharts& charts_;
    PointCloudView& view_;
    int charted_iterations_ = -1;
    quint64 charted_setup_ = 0;
    quint64 setup_serial_ = 0;  // counts setupChanged: the charts start over after a new set-up
};

}  // namespace kms::ui
