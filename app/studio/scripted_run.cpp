#include "studio/scripted_run.hpp"

#include <QCoreApplication>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compare/compare_table.hpp"
#include "compare/compare_view.hpp"
#include "export/animation_export.hpp"
#include "main_window.hpp"
#include "run/openmp_policy.hpp"
#include "run/solver_panel.hpp"
#include "sweep/sweep_panel.hpp"
#include "sweep/sweep_runner.hpp"
#include "spectral/spectral_panel.hpp"
#include "spectral/spectral_pipeline.hpp"

namespace kms::ui {

ScriptedRun::ScriptedRun(MainWindow& window, StudioOptions options, QObject* parent)
    : QObject(parent), window_(window), options_(std::move(options)) {
    poll_timer_.setInterval(20);
    connect(&poll_timer_, &QTimer::timeout, this, &ScriptedRun::poll);
}

void ScriptedRun::start() {
    window_.set_projection_mode(options_.projection);
    window_.set_colour_mode(options_.compare.empty() && options_.colour == ColourMode::Difference ? ColourMode::Labels
                                                                                                 : options_.colour);
    window_.set_show_voronoi(options_.voronoi);
    window_.set_show_trails(options_.trails);
    if (options_.point_size > 0) window_.set_point_size(options_.point_size);
    RunController& controller = window_.controller();
    if (options_.presentation) window_.set_presentation(true);
    if (options_.half_steps) window_.set_half_steps(true);
    if (options_.lesson) window_.set_lesson(true);
    if (options_.k_given) controller.set_k_from_data(false);  // --k wins over the data's classes
    if (options_.scripted()) {
        connect(&controller, &RunController::errorOccurred, this, &ScriptedRun::fail);
        connect(&window_.compare_session(), &CompareSession::errorOccurred, this, &ScriptedRun::fail);
    }
    // With --k absent the panel's k stays; a generated set brings its own k.
    RunSetup setup = options_.setup;
    if (!options_.k_given) setup.k = controller.setup().k;
    if (!options_.k_given && !options_.generate.empty()) {
        const auto pos = options_.generate.find("k=");
        if (pos != std::string::npos) setup.k = std::size_t(std::max(1, std::atoi(options_.generate.c_str() + pos + 2)));
    }
    controller.set_setup(setup);
    controller.set_geo_options(options_.geo);
    window_.solver_panel().set_setup(setup);
    if (!options_.replay.empty()) {
        try {
            const int recorded = window_.open_run(QString::fromStdString(options_.replay));
            // Without --steps, as far as the saved run went (or to convergence): a replay's
            // animation of iteration 0 alone was one silent frame (issue 36).
            if (!options_.steps_given) options_.steps = recorded > 0 ? recorded : -1;
        } catch (const std::exception& error) {
            phase_ = Phase::Loading;
            QTimer::singleShot(0, this, [this, message = QString::fromStdString(error.what())] { fail(message); });
            return;
        }
    } else if (!options_.input.empty()) controller.load_file(QString::fromStdString(options_.input));
    else if (!options_.generate.empty()) controller.generate(QString::fromStdString(options_.generate), options_.seed);
    else window_.open_default();
    phase_ = Phase::Loading;
    poll_timer_.start();
}

void ScriptedRun::fail(const QString& message) {
    if (phase_ == Phase::Done) return;
    phase_ = Phase::Done;
    poll_timer_.stop();
    std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(message));
    emit finished(1);
}

void ScriptedRun::poll() {
    RunController& controller = window_.controller();
    CompareSession& compare = window_.compare_session();
    switch (phase_) {
        case Phase::Loading:
            if (!controller.ready() || controller.busy()) return;
            if (!options_.compare.empty()) {
                window_.start_compare(options_.compare);
                window_.set_colour_mode(options_.colour);
                phase_ = Phase::Comparing;
                return;
            }
            on_ready();
            return;
        case Phase::Comparing:
            if (!compare.all_ready()) return;
            on_ready();
            return;
        case Phase::Stepping: {
            const bool busy = window_.compare_mode() ? compare.any_running() : controller.running();
            if (busy) return;
            auto finished = [this](const RunController& run) {
                const bool reached = options_.steps < 0 ? run.converged()
                                                        : run.latest_iteration() >= target_iteration_ || run.converged();
                return reached && !run.running() && (run.latest_iteration() == 0 || run.displayed_labels());
            };
            bool done = true;
            if (window_.compare_mode()) {
                for (std::size_t i = 0; i < compare.size(); ++i) done = done && finished(compare.run(i));
            } else {
                done = finished(controller);
            }
            if (!done) return;
            if (options_.spectral_clusters) {
                window_.show_spectral(true);
                SpectralPipeline& spectral = window_.spectral();
                spectral.panel()->set_values(static_cast<int>(*options_.spectral_clusters), 0,
                                             static_cast<int>(SpectralOptions::kDefaultNeighbours), 0.0);
                spectral.panel()->run();
                phase_ = Phase::Spectral;
                return;
            }
            settle_ticks_ = 0;
            if (options_.sweep && !window_.compare_mode()) {
                connect(&window_.sweep_panel(), &SweepPanel::message, this, &ScriptedRun::fail);
                window_.start_sweep(*options_.sweep, options_.sweep_hierarchy);
                phase_ = Phase::Sweeping;
                return;
            }
            phase_ = Phase::Settling;
            return;
        }
        case Phase::Spectral: {
            SpectralPipeline& spectral = window_.spectral();
            if (spectral.state() == SpectralPipeline::State::Running) return;
            if (spectral.state() != SpectralPipeline::State::Done) {
                fail(tr("spectral pipeline: %1").arg(spectral.state() == SpectralPipeline::State::Failed ? spectral.error()
                                                                                                        : tr("cancelled")));
                return;
            }
            if (options_.spectral_show_representatives) spectral.set_display(SpectralPipeline::Display::Representatives);
            settle_ticks_ = 0;
            phase_ = Phase::Settling;
            return;
        }
        case Phase::Sweeping:
            if (window_.sweep_panel().runner().running()) return;
            phase_ = Phase::Settling;
            return;
        case Phase::Settling:
            // A few event-loop turns so every view has painted the last frame,
            // and the scores of the last iteration are in (up to 20 s: a screenshot without them beats none),
            // and a few turns more after they came, for the docks' layouts to take them in.
            idle_ticks_ = window_.scores_idle() ? idle_ticks_ + 1 : 0;
            if (++settle_ticks_ < 5 || (idle_ticks_ < 5 && settle_ticks_ < 1000)) return;
            if (options_.scripted()) save_and_finish();
            else {
                phase_ = Phase::Done;
                poll_timer_.stop();
            }
            return;
        case Phase::Done: return;
    }
}

void ScriptedRun::print_timing() const {
    // What drawing cost: per view, the median paintGL (host colours are built and
    // uploaded there) and the median CUDA–GL colour write (the interop path's instead).
    const auto frames = [](const char* name, const PointCloudView& view) {
        const QString interop = view.interop_message();
        std::printf("kmeans-studio: view %s: %zu frames, paint median %.2f ms; %zu colour writes on the GPU, median "
                    "%.2f ms (%s)\n",
                    name, view.paint_times().count, view.paint_times().median(), view.device_write_times().count,
                    view.device_write_times().median(), interop.isEmpty() ? "host colours" : qPrintable(interop));
    };
    // The solver's own step times (as kmeans-cli measures them), iteration 1 (warm-up) left out.
    if (window_.compare_mode()) {
        for (std::size_t i = 0; i < window_.compare_view().panel_count(); ++i)
            frames(qPrintable(QStringLiteral("panel %1").arg(i + 1)), *window_.compare_view().panel(i));
        // The table's numbers, by the table's rule (CompareModel: speed-up without iteration 1).
        const CompareModel& model = *window_.compare_table().model();
        for (int row = 0; row < model.rowCount(); ++row) {
            const CompareSummary summary = summarize(model.entries()[std::size_t(row)]);
            const auto cell = [&](int column) {
                return model.data(model.index(row, column), CompareModel::kValueRole).toDouble();
            };
            const double speed_up = cell(CompareModel::SpeedUp);
            const QString speed = std::isnan(speed_up) ? QStringLiteral("running (not converged)")
                                                       : QString::number(speed_up, 'f', 2) + QLatin1Char('x');
            std::printf("kmeans-studio: compare %s: %d iterations, total %.3f ms, iteration 1 (warm-up) %.3f ms, "
                        "median step %.3f ms and speed-up %s (of iterations 2-%d)\n",
                        qPrintable(model.entries()[std::size_t(row)].name), summary.iterations, summary.total_ms,
                        summary.first_iteration_ms, steady_time_ms(summary), qPrintable(speed), summary.iterations);
        }
        return;
    }
    frames("single", window_.view());
    const std::vector<IterationStats> stats = window_.controller().stats_history();
    if (stats.size() < 2) return;
    std::vector<double> times;
    for (std::size_t i = 1; i < stats.size(); ++i) times.push_back(stats[i].time_total_ms);
    std::sort(times.begin(), times.end());
    std::printf("kmeans-studio: %s, iterations 2-%zu: solver time per iteration median %.3f ms, min %.3f ms; %s\n",
                qPrintable(window_.controller().solver_description()), stats.size(), times[times.size() / 2],
                times.front(), qPrintable(openmp_wait_policy_text()));
}

void ScriptedRun::on_ready() {
    phase_ = Phase::Stepping;
    target_iteration_ = options_.steps;  // every run starts at iteration 0
    if (options_.steps == 0) return;
    if (window_.compare_mode()) {
        if (options_.steps < 0) window_.compare_session().run_all_to_convergence();
        else window_.compare_session().run_steps(options_.steps);
    } else {
        if (options_.steps < 0) window_.controller().run_to_convergence();
        else window_.controller().run_steps(options_.steps);
    }
}

void ScriptedRun::save_and_finish() {
    phase_ = Phase::Done;
    poll_timer_.stop();
    print_timing();
    try {
        if (!options_.screenshot.empty()) window_.export_png(QString::fromStdString(options_.screenshot));
        if (!options_.save_run.empty()) {
            const QString written = window_.save_run(QString::fromStdString(options_.save_run));
            std::printf("kmeans-studio: wrote %s\n", qPrintable(written));
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "kmeans-studio: %s\n", error.what());
        emit finished(1);
        return;
    }
    if (!options_.export_animation.empty()) {
        // Frames of the point view at --size (else the view's own size), one per kept (half-)step.
        const QSize size = options_.width > 0 ? QSize(options_.width, options_.height) : window_.view().size();
        AnimationExport* job = window_.export_animation(QString::fromStdString(options_.export_animation), size);
        if (!job) {
            std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(window_.last_error()));
            emit finished(1);
            return;
        }
        connect(job, &AnimationExport::finished, this, [this, frames = job->frame_count()](const QString& error) {
            if (!error.isEmpty()) {
                std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(error));
                emit finished(1);
                return;
            }
            std::printf("kmeans-studio: wrote %s (%d frames)\n", options_.export_animation.c_str(), frames);
            std::fflush(stdout);
            emit finished(0);
        });
        return;
    }
    if (options_.screenshot.empty()) {
        std::fflush(stdout);
        emit finished(0);
        return;
    }
    // One line for logs: what rendered it, and whether CUDA wrote the colours.
    const QString interop = window_.view().interop_message();
    std::printf("kmeans-studio: wrote %s (GL: %s%s%s)\n", options_.screenshot.c_str(), qPrintable(window_.view().renderer()),
                interop.isEmpty() ? "" : "; ", qPrintable(interop));
    std::fflush(stdout);
    emit finished(0);
}

}  // namespace kms::ui
