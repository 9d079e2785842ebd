// Paint cost of the studio's iteration charts (ui/charts): full repaint of the
// six charts, hover repaint of one chart, appendIteration, for 1 or 4 overlaid
// runs of 100 to 10,000 iterations, at 1200×560 on the offscreen raster
// platform (CPU only, what the studio's widgets cost without any GPU).
// Usage: QT_QPA_PLATFORM=offscreen bench_charts [repetitions]
#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "charts/distinct_colours.hpp"
#include "charts/iteration_charts.hpp"
#include "charts/plot_widget.hpp"

namespace {

// Statistics shaped like a bounded solver's: decaying work, saw-tooth skips.
std::vector<kms::IterationStats> synthetic_run(int iterations, int seed) {
    std::vector<kms::IterationStats> run;
    for (int i = 1; i <= iterations; ++i) {
        kms::IterationStats s;
        s.iteration = i;
        const double wobble = 1.0 + 0.3 * std::sin(i * 0.01 + seed);
        s.time_assign_ms = 2.0 * wobble;
        s.time_bounds_ms = 0.3 * wobble;
        s.time_update_ms = 0.5 * wobble;
        s.time_total_ms = 3.0 * wobble;
        s.point_centroid_distances = 10'000'000u / static_cast<unsigned>(1 + i % 50);
        s.bound_skips = 90'000u * static_cast<unsigned>(i % 7) / 7u;
        s.labels_changed = 100'000u / static_cast<unsigned>(i);
        s.max_shift = 1.0 / i;
        s.inertia = 1e6 + 1e5 / i;
        run.push_back(s);
    }
    return run;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const int repetitions = argc > 1 ? std::max(3, std::atoi(argv[1])) : 15;
    QElapsedTimer timer;
    timer.start();
    kms::ui::distinct_colour(0);  // the palette table is built on first use
    std::printf("palette table (%zu colours) built in %.1f ms\n", kms::ui::distinct_table_size(),
                timer.nsecsElapsed() / 1e6);
    std::printf("| runs | iterations | full repaint, 6 charts (median ms) | hover repaint, 1 chart (median ms) | appendIteration (median µs) |\n");
    std::printf("|---|---|---|---|---|\n");
    for (int runs : {1, 4}) {
        for (int iterations : {100, 1000, 10000}) {
            kms::ui::IterationCharts charts;
            charts.resize(1200, 560);
            for (int r = 0; r < runs; ++r) {
                if (r == 0) charts.setRun(100000, 100, synthetic_run(iterations, r), QStringLiteral("run 1"));
                else charts.addRun(QStringLiteral("run %1").arg(r + 1), 100000, 100, synthetic_run(iterations, r));
            }
            charts.grab();  // warm-up (fonts, caches)
            std::vector<double> full, hover, append;
            for (int rep = 0; rep < repetitions; ++rep) {
                charts.setCurrentIteration(rep + 1);  // invalidates every chart's cached plot
                timer.restart();
                const QPixmap pixmap = charts.grab();
                full.push_back(timer.nsecsElapsed() / 1e6);
            }
            kms::ui::PlotWidget* plot = charts.chart(kms::ui::IterationCharts::Chart::DistancePercent);
            for (int rep = 0; rep < repetitions; ++rep) {
                const QPointF at = plot->toPixel(iterations / 3 + rep, 10);
                QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                                 Qt::NoModifier);
                QApplication::sendEvent(plot, &move);
                timer.restart();
                const QPixmap pixmap = plot->grab();
                hover.push_back(timer.nsecsElapsed() / 1e6);
            }
            kms::IterationStats next = synthetic_run(iterations + 1, 0).back();
            for (int rep = 0; rep < 200; ++rep) {
                ++next.iteration;
                timer.restart();
                charts.appendIteration(next, 0);
                append.push_back(timer.nsecsElapsed() / 1e3);
            }
            std::printf("| %d | %d | %.2f | %.2f | %.2f |\n", runs, iterations, median(full), median(hover),
                        median(append));
        }
    }
    return 0;
}
