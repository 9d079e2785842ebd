#pragma once
// `kmeans-studio --steps N --screenshot PATH`: waits for the data and the
// solver(s), runs N iterations (or to convergence), saves the window as PNG and
// quits with 0; any error goes to stderr and quits with 1.
#include <QObject>
#include <QString>
#include <QTimer>

#include "studio/studio_options.hpp"

namespace kms::ui {

class MainWindow;

class ScriptedRun : public QObject {
    Q_OBJECT
public:
    ScriptedRun(MainWindow& window, StudioOptions options, QObject* parent = nullptr);
    // Applies the options to the window and starts loading. Without
    // --screenshot the window simply stays open after the steps.
    void start();

signals:
    void finished(int exit_code);

private:
    void on_ready();
    void poll();
    void fail(const QString& message);
    void save_and_finish();
    void print_timing() const;

    MainWindow& window_;
    StudioOptions options_;
    QTimer poll_timer_;
    enum class Phase { Loading, Comparing, Stepping, Spectral, Sweeping, Settling, Done } phase_ = Phase::Loading;
    int settle_ticks_ = 0;
    int idle_ticks_ = 0;  // consecutive settling ticks with every score in
    int target_iteration_ = 0;  // every run must reach it (or converge) before the screenshot
};

}  // namespace kms::ui
