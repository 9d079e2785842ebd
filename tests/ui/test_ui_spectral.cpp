// The studio's spectral pipeline (ui/spectral), offscreen: the worker thread runs
// the chain on the controller's data, shows the representatives then the
// clusters, beats plain k-means on moons and circles, cancels, forgets its result
// when the data changes, and the panel drives it; the studio's --spectral options.
#include <QtTest>

#include <QApplication>
#include <QElapsedTimer>

#include <cmath>

#include "kms/eigen.hpp"
#include "run/run_controller.hpp"
#include "studio/studio_options.hpp"
#include "spectral/spectral_panel.hpp"
#include "spectral/spectral_pipeline.hpp"
#include "test_support.hpp"

using namespace kms;
using kms::test::wait_for;
using namespace kms::ui;

namespace {

void make_ready(RunController& controller, const char* spec, std::uint64_t seed) {
    RunSetup setup;
    setup.k = 2;
    setup.config.backend = Backend::OpenMP;
    setup.init.seed = seed;
    controller.set_setup(setup);
    controller.generate(QString::fromLatin1(spec), seed);
    QVERIFY2(wait_for([&] { return controller.ready() && !controller.busy(); }), "controller never became ready");
}

bool settled(const SpectralPipeline& pipeline) { return pipeline.state() != SpectralPipeline::State::Running; }

}  // namespace

class TestUiSpectral : public QObject {
    Q_OBJECT
private slots:
    void init() {
        if (!kms::lapack_built()) QSKIP("built without LAPACKE");
    }

    void runsInTheBackgroundAndBeatsKMeans() {
        const char* specs[] = {"moons:n=3000,noise=0.06", "circles:n=3000,noise=0.05,factor=0.5"};
        for (std::uint64_t seed : {1, 2})
            for (const char* spec : specs) {
                RunController controller;
                make_ready(controller, spec, seed);
                SpectralPipeline pipeline(controller);
                int representatives_shown = 0;
                connect(&pipeline, &SpectralPipeline::changed, this, [&] {
                    if (pipeline.has_representatives() && pipeline.display() == SpectralPipeline::Display::Representatives)
                        ++representatives_shown;
                });
                pipeline.start(pipeline.options_for(0, 300, 10, 0.0));  // --k auto
                QCOMPARE(pipeline.state(), SpectralPipeline::State::Running);
                QVERIFY(wait_for([&] { return settled(pipeline); }));
                QVERIFY2(pipeline.state() == SpectralPipeline::State::Done, qPrintable(pipeline.error()));
                QVERIFY(representatives_shown > 0);  // the representatives came first
                QCOMPARE(pipeline.display(), SpectralPipeline::Display::Clusters);
                const SpectralResult& result = *pipeline.result();
                QCOMPARE(result.clusters, std::size_t{2});
                QCOMPARE(result.labels.size(), std::size_t{3000});
                QCOMPARE(result.representatives, std::size_t{300});
                QVERIFY2(pipeline.spectral_ari() >= 0.95, qPrintable(QString("%1: %2").arg(spec).arg(pipeline.spectral_ari())));
                QVERIFY2(pipeline.plain_ari() < 0.6, qPrintable(QString("%1: %2").arg(spec).arg(pipeline.plain_ari())));
                pipeline.set_display(SpectralPipeline::Display::Representatives);
                QVERIFY(pipeline.view()->overlay().caption.contains("300"));
            }
    }

    void cancelEndsTheRunAndANewOneWorks() {
        RunController controller;
        make_ready(controller, "moons:n=200000,noise=0.05", 3);
        SpectralPipeline pipeline(controller);
        pipeline.start(pipeline.options_for(2, 1000, 10, 0.0));
        QTest::qWait(50);
        QElapsedTimer timer;
        timer.start();
        pipeline.cancel();
        QCOMPARE(pipeline.state(), SpectralPipeline::State::Cancelled);
        QVERIFY(!pipeline.result());
        // A new run on the same worker: its results are not mixed with the cancelled one's.
        pipeline.start(pipeline.options_for(2, 200, 10, 0.0));
        QVERIFY(wait_for([&] { return settled(pipeline); }, 60000));
        QVERIFY2(pipeline.state() == SpectralPipeline::State::Done, qPrintable(pipeline.error()));
        QCOMPARE(pipeline.result()->representatives, std::size_t{200});
        // The worker let go of the cancelled run soon (after the k-means step in progress).
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));
    }

    void newDataClearsTheResult() {
        RunController controller;
        make_ready(controller, "moons:n=1000,noise=0.05", 4);
        SpectralPipeline pipeline(controller);
        pipeline.start(pipeline.options_for(2, 100, 10, 0.0));
        QVERIFY(wait_for([&] { return settled(pipeline); }));
        QCOMPARE(pipeline.state(), SpectralPipeline::State::Done);
        make_ready(controller, "circles:n=800,noise=0.05", 4);
        QCOMPARE(pipeline.state(), SpectralPipeline::State::Idle);
        QVERIFY(!pipeline.result());
        QVERIFY(!pipeline.has_representatives());
    }

    void errorsAreShownNotThrown() {
        RunController controller;
        make_ready(controller, "moons:n=100,noise=0.05", 5);
        SpectralPipeline pipeline(controller);
        pipeline.start(pipeline.options_for(150, 120, 10, 0.0));  // R > n
        QVERIFY(wait_for([&] { return settled(pipeline); }));
        QCOMPARE(pipeline.state(), SpectralPipeline::State::Failed);
        QVERIFY2(pipeline.error().contains("more than the 100 points"), qPrintable(pipeline.error()));
    }

    void panelDrivesThePipeline() {
        RunController controller;
        make_ready(controller, "circles:n=2000,noise=0.05,factor=0.5", 6);
        SpectralPipeline pipeline(controller);
        pipeline.panel()->set_values(2, 250, 0, 0.05);  // full graph, sigma given
        pipeline.panel()->run();
        QVERIFY(wait_for([&] { return settled(pipeline); }));
        QVERIFY2(pipeline.state() == SpectralPipeline::State::Done, qPrintable(pipeline.error()));
        QCOMPARE(pipeline.result()->sigma, 0.05);
        QCOMPARE(pipeline.result()->neighbours, std::size_t{0});
        QCOMPARE(pipeline.result()->representatives, std::size_t{250});
        const QString text = pipeline.panel()->results_text();
        QVERIFY2(text.contains("k = 2") && text.contains("eigengap") && text.contains("ARI"), qPrintable(text));
    }

    void studioOptions() {
        QCOMPARE(*parse_studio_options({"--spectral", "auto"}).spectral_clusters, std::size_t{0});
        QCOMPARE(*parse_studio_options({"--spectral", "3"}).spectral_clusters, std::size_t{3});
        QVERIFY(!parse_studio_options({}).spectral_clusters);
        QVERIFY(parse_studio_options({"--spectral", "2", "--spectral-view", "representatives"}).spectral_show_representatives);
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse_studio_options({"--spectral", "0"}));
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse_studio_options({"--spectral", "many"}));
        QVERIFY_THROWS_EXCEPTION(kms::UsageError, parse_studio_options({"--spectral-view", "both"}));
    }
};

QTEST_MAIN(TestUiSpectral)
#include "test_ui_spectral.moc"
