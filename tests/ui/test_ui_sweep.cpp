// The studio's k sweep (ui/sweep/), offscreen: the background sweep finishes and
// fills the elbow chart, Cancel stops it with the finished levels kept, and a click
// on a k loads that level into the main run: the same centroids and labels as the
// sweep's fit (plain and hierarchy levels).
#include <QtTest>

#include <QApplication>

#include "kms/sweep.hpp"
#include "run/run_controller.hpp"
#include "sweep/elbow_chart.hpp"
#include "sweep/sweep_panel.hpp"
#include "sweep/sweep_runner.hpp"
#include "test_support.hpp"

using namespace kms;
using namespace kms::ui;
using kms::test::wait_for;

namespace {

void make_ready(RunController& controller, const char* spec, std::size_t k, std::uint64_t seed) {
    RunSetup setup;
    setup.k = k;
    setup.config.backend = Backend::Sequential;
    setup.init.seed = seed;
    controller.set_k_from_data(false);
    controller.set_setup(setup);
    controller.generate(QString::fromLatin1(spec), seed);
    QVERIFY2(wait_for([&] { return controller.ready() && !controller.busy(); }), "controller never became ready");
}

// Clicks the chart's inertia panel at k and waits for the main run to converge.
void click_k_and_converge(SweepPanel& panel, RunController& controller, std::size_t k) {
    ElbowChart& chart = panel.chart();
    const QRectF inertia = chart.panel_rects().front();
    const QPoint at(int(std::lround(chart.x_of(k, inertia))), int(inertia.center().y()));
    QTest::mouseClick(&chart, Qt::LeftButton, {}, at);
    QCOMPARE(chart.selected_k().value_or(0), k);
    QVERIFY2(wait_for([&] { return controller.ready() && controller.converged() && !controller.running() &&
                                   controller.setup().k == k && controller.latest_labels(); }),
             "the loaded k never converged");
}

void expect_same_as_level(const RunController& controller, const SweepLevel& level) {
    const Matrix<double>& centroids = controller.history().back().centroids;
    QCOMPARE(centroids.rows(), level.fit.centroids.rows());
    for (std::size_t r = 0; r < centroids.rows(); ++r)
        for (std::size_t c = 0; c < centroids.cols(); ++c) QCOMPARE(centroids(r, c), level.fit.centroids(r, c));
    QCOMPARE(*controller.latest_labels(), level.fit.labels);
}

}  // namespace

class TestUiSweep : public QObject {
    Q_OBJECT
private slots:
    void sweep_fills_the_chart_and_a_click_loads_a_k() {
        RunController controller;
        make_ready(controller, "blobs:n=900,k=4,d=2,spread=0.03", 4, 3);
        SweepPanel panel(controller);
        panel.resize(900, 700);
        panel.show();
        QSignalSpy finished(&panel.runner(), &SweepRunner::finished);
        panel.start_sweep(KRange{2, 7, 1}, false);
        QVERIFY(panel.runner().running());
        QVERIFY(wait_for([&] { return finished.count() == 1; }));
        QCOMPARE(finished.first().first().toBool(), false);  // not cancelled
        QCOMPARE(panel.runner().levels().size(), std::size_t(6));
        QCOMPARE(panel.chart().points().size(), std::size_t(6));
        QVERIFY(panel.runner().result());
        QVERIFY2(panel.summary_text().contains("Elbow (kneedle)"), qPrintable(panel.summary_text()));
        // The chart's values are the levels' values.
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(panel.chart().points()[i].k, std::size_t(2 + i));
            QCOMPARE(panel.chart().points()[i].inertia, panel.runner().levels()[i]->fit.inertia);
        }
        // The same fits as kms::sweep outside the studio.
        SweepOptions options;
        options.range = KRange{5, 5, 1};
        options.fit.solver = controller.setup().config;
        options.fit.init = controller.setup().init;
        options.scores = false;
        const auto points = std::shared_ptr<const Matrix<double>>(controller.dataset().dataset,
                                                                  &controller.dataset().dataset->points);
        QCOMPARE(sweep(points, options).levels.front().fit.inertia, panel.runner().level_for(5)->fit.inertia);

        for (const std::size_t k : {std::size_t(5), std::size_t(2)}) {
            click_k_and_converge(panel, controller, k);
            expect_same_as_level(controller, *panel.runner().level_for(k));
        }
    }

    void hierarchy_levels_load_too() {
        RunController controller;
        make_ready(controller, "blobs:n=700,k=5,d=3", 5, 8);
        SweepPanel panel(controller);
        panel.resize(500, 900);  // a column of panels
        panel.show();
        QSignalSpy finished(&panel.runner(), &SweepRunner::finished);
        panel.start_sweep(KRange{2, 8, 2}, true);
        QVERIFY(wait_for([&] { return finished.count() == 1; }));
        QCOMPARE(panel.runner().levels().size(), std::size_t(4));
        const auto rects = panel.chart().panel_rects();
        QVERIFY(rects[1].top() > rects[0].top() && rects[1].left() == rects[0].left());
        click_k_and_converge(panel, controller, 4);  // seeded from k = 6 by merging
        expect_same_as_level(controller, *panel.runner().level_for(4));
    }

    void cancel_keeps_finished_levels() {
        RunController controller;
        make_ready(controller, "blobs:n=30000,k=20,d=2", 20, 1);
        SweepPanel panel(controller);
        QSignalSpy finished(&panel.runner(), &SweepRunner::finished);
        panel.start_sweep(KRange{2, 400, 1}, false);
        QVERIFY(wait_for([&] { return panel.runner().levels().size() >= 1; }));
        panel.cancel();
        QVERIFY(wait_for([&] { return finished.count() == 1; }));
        QCOMPARE(finished.first().first().toBool(), true);  // cancelled
        QVERIFY(!panel.runner().running());
        const std::size_t kept = panel.runner().levels().size();
        QVERIFY(kept >= 1 && kept < 399);
        QCOMPARE(panel.chart().points().size(), kept);
        QVERIFY(panel.summary_text().contains("cancelled"));
        // A k that was not fitted cannot be loaded.
        QSignalSpy messages(&panel, &SweepPanel::message);
        QVERIFY(!panel.load_k(399));
        QCOMPARE(messages.count(), 1);
    }
};

QTEST_MAIN(TestUiSweep)
#include "test_ui_sweep.moc"
