#pragma once
// The "Elbow" dock's contents: the k range, hierarchy switch, Sweep / Cancel,
// progress, the elbow chart and the suggested k. Sweeps the main view's data with
// its solver settings (a SweepRunner in the background); clicking a k loads that
// level into the main view: its initial centroids (the sweep's kept restart, or the
// merged centroids of a hierarchy level) run to convergence with the same solver,
// which is the sweep's fit of that k.
#include <QWidget>

#include <optional>

#include "kms/sweep.hpp"

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace kms::ui {

class ElbowChart;
class RunController;
class SweepRunner;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(RunController& controller, QWidget* parent = nullptr);
    ~SweepPanel() override;

    // Sweeps the controller's data over `range`.
    void start_sweep(const KRange& range, bool hierarchy);
    void cancel();
    // Loads level k into the main view (false, with a message, when there is no such level).
    bool load_k(std::size_t k);

    SweepRunner& runner() { return *runner_; }
    ElbowChart& chart() { return *chart_; }
    QString summary_text() const;

signals:
    void message(QString text);  // errors and hints for the main window's banner

private:
    void refresh();

    RunController& controller_;
    SweepRunner* runner_ = nullptr;
    ElbowChart* chart_ = nullptr;
    QSpinBox* first_ = nullptr;
    QSpinBox* last_ = nullptr;
    QSpinBox* step_ = nullptr;
    QCheckBox* hierarchy_ = nullptr;
    QPushButton* start_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* summary_ = nullptr;
    bool converge_when_ready_ = false;
};

}  // namespace kms::ui
