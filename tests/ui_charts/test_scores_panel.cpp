// ScoresPanel and SilhouettePlot: the texts and states shown, per-cluster
// grouping of exact and sampled silhouettes, and where the bars are painted.
#include <QtTest>
#include <QtWidgets>

#include <cmath>

#include "charts/distinct_colours.hpp"
#include "kms/generate.hpp"
#include "kms/scores.hpp"
#include "scores/scores_panel.hpp"
#include "scores/silhouette_plot.hpp"

using kms::ui::ScoresPanel;
using kms::ui::SilhouettePlot;
using Row = kms::ui::ScoresPanel::Row;
using State = kms::ui::ScoresPanel::State;

namespace {

bool colour_at(const QImage& image, QPointF point, QColor colour, int tolerance = 12) {
    const QColor pixel = image.pixelColor(point.toPoint());
    return std::abs(pixel.red() - colour.red()) + std::abs(pixel.green() - colour.green()) +
               std::abs(pixel.blue() - colour.blue()) <= tolerance;
}

kms::Scores sample_scores() {
    kms::Scores scores;
    scores.silhouette = 0.55;
    scores.silhouette_points = 4;
    scores.calinski_harabasz = 1234.5678;
    scores.davies_bouldin = 0.41234;
    scores.inertia = 98765.4321;
    scores.silhouette_detail.score = 0.55;
    scores.silhouette_detail.values = {0.9, 0.2, 0.7, 0.4};
    return scores;
}

}  // namespace

class TestScoresPanel : public QObject {
    Q_OBJECT
private slots:
    void silhouetteText() {
        kms::Scores scores = sample_scores();
        QCOMPARE(kms::ui::silhouette_text(scores, 4), QStringLiteral("0.5500 (exact, all 4 points)"));
        scores.silhouette_detail.sampled = true;
        scores.silhouette_points = 2000;
        scores.silhouette_standard_error = 0.00421;
        QCOMPARE(kms::ui::silhouette_text(scores, 100000),
                 QStringLiteral("0.5500 ± 0.0042 (sampled: 2,000 of 100,000 points)"));
        scores.silhouette = kms::Scores::none;
        QCOMPARE(kms::ui::silhouette_text(scores, 100000), QStringLiteral("–"));
    }

    void valuesAndGroundTruthRows() {
        ScoresPanel panel;
        QCOMPARE(panel.state(), State::Empty);
        QVERIFY(!panel.rowVisible(Row::Ari));
        const std::vector<std::int32_t> labels{0, 1, 0, 1};
        kms::Scores scores = sample_scores();
        panel.setScores(scores, 4, 7, labels);
        QCOMPARE(panel.state(), State::Ready);
        QCOMPARE(panel.valueText(Row::Silhouette), QStringLiteral("0.5500 (exact, all 4 points)"));
        QCOMPARE(panel.valueText(Row::CalinskiHarabasz), QStringLiteral("1,234.57"));
        QCOMPARE(panel.valueText(Row::DaviesBouldin), QStringLiteral("0.4123"));
        QCOMPARE(panel.valueText(Row::Inertia), QStringLiteral("98,765.4"));
        QVERIFY(!panel.rowVisible(Row::Ari));  // no ground truth: no ARI/NMI rows
        QVERIFY(!panel.rowVisible(Row::Nmi));
        QVERIFY(!panel.rowVisible(Row::CentroidIndex));
        QCOMPARE(panel.statusText(), QStringLiteral("Scores of iteration 7"));

        scores.ari = 0.98765;
        scores.nmi = 1.0;
        scores.centroid_index = 0;
        scores.notes = {"davies_bouldin: something to say"};
        panel.setScores(scores, 4, 8, labels);
        QVERIFY(panel.rowVisible(Row::Ari));
        QCOMPARE(panel.valueText(Row::Ari), QStringLiteral("0.9877"));
        QCOMPARE(panel.valueText(Row::Nmi), QStringLiteral("1.0000"));
        QCOMPARE(panel.valueText(Row::CentroidIndex), QStringLiteral("0"));
        QCOMPARE(panel.notesText(), QStringLiteral("davies_bouldin: something to say"));
        // Silhouette diagram grouped by the run's labels.
        QCOMPARE(panel.silhouettePlot()->clusterCount(), std::size_t(2));
        QCOMPARE(panel.silhouettePlot()->clusterValues(0), (std::vector<double>{0.9, 0.7}));
        QCOMPARE(panel.silhouettePlot()->clusterValues(1), (std::vector<double>{0.4, 0.2}));
        panel.clear();
        QCOMPARE(panel.state(), State::Empty);
        QVERIFY(!panel.rowVisible(Row::Ari));
        QCOMPARE(panel.valueText(Row::Silhouette), QStringLiteral("–"));
    }

    void computingAndStaleStates() {
        ScoresPanel panel;
        panel.markStale(3);  // nothing shown yet: nothing to be stale
        QCOMPARE(panel.state(), State::Empty);
        panel.setComputing(3);
        QCOMPARE(panel.state(), State::Computing);
        QCOMPARE(panel.statusText(), QStringLiteral("Computing… scores for iteration 3"));
        panel.setScores(sample_scores(), 4, 3, std::vector<std::int32_t>{0, 1, 0, 1});
        QCOMPARE(panel.state(), State::Ready);
        QVERIFY(panel.silhouettePlot()->isEnabled());
        panel.markStale(3);  // same iteration: still current
        QCOMPARE(panel.state(), State::Ready);
        panel.markStale(5);
        QCOMPARE(panel.state(), State::Stale);
        QCOMPARE(panel.statusText(), QStringLiteral("Stale: scores of iteration 3, the run is at iteration 5"));
        QCOMPARE(panel.valueText(Row::DaviesBouldin), QStringLiteral("0.4123"));  // kept, greyed
        QVERIFY(!panel.silhouettePlot()->isEnabled());
        panel.setComputing(5);
        QCOMPARE(panel.statusText(), QStringLiteral("Computing… scores for iteration 5 (showing iteration 3)"));
        panel.markStale(6);  // still computing: the status says so until the result arrives
        QCOMPARE(panel.state(), State::Computing);
        panel.setFailed(QStringLiteral("silhouette: cancelled"));
        QCOMPARE(panel.state(), State::Failed);
        QCOMPARE(panel.statusText(), QStringLiteral("Scores failed: silhouette: cancelled"));
        panel.resize(500, 600);
        panel.grab();
    }

    void sampledSilhouetteUsesPointIndices() {
        kms::Scores scores = sample_scores();
        scores.silhouette_detail.sampled = true;
        scores.silhouette_detail.values = {0.2, 0.9, -0.3};
        scores.silhouette_detail.indices = {3, 0, 1};
        SilhouettePlot plot;
        plot.setScores(scores, std::vector<std::int32_t>{1, 2, 0, 0});
        QCOMPARE(plot.clusterCount(), std::size_t(3));
        QCOMPARE(plot.clusterValues(0), (std::vector<double>{0.2}));
        QCOMPARE(plot.clusterValues(1), (std::vector<double>{0.9}));
        QCOMPARE(plot.clusterValues(2), (std::vector<double>{-0.3}));
        // The axis reaches the lowest value (rounded out to a fifth).
        QVERIFY(plot.xForValue(-0.4) >= plot.barArea().left() - 0.5);
    }

    void barsPaintedInClusterColours() {
        SilhouettePlot plot;
        std::vector<double> values;
        std::vector<std::int32_t> labels;
        for (int i = 0; i < 300; ++i) {
            values.push_back(0.8);
            labels.push_back(0);
        }
        for (int i = 0; i < 100; ++i) {
            values.push_back(0.3 - 0.005 * i);
            labels.push_back(1);
        }
        plot.setValues(values, labels, 0.6);
        for (QSize size : {QSize(0, 0), QSize(50, 50), QSize(200, 100)}) {
            plot.resize(size);
            plot.grab();
        }
        plot.resize(500, 420);
        const QImage image = plot.grab().toImage().convertToFormat(QImage::Format_RGB32);
        const auto [top0, bottom0] = plot.clusterRows(0);
        const auto [top1, bottom1] = plot.clusterRows(1);
        QVERIFY(bottom0 <= top1);
        QVERIFY((bottom0 - top0) > 2.5 * (bottom1 - top1));  // 300 vs 100 points
        const QColor first = plot.clusterColour(0), second = plot.clusterColour(1);
        const kms::ui::Rgb expected = kms::ui::distinct_colour(1);
        QCOMPARE(second, QColor(expected.r, expected.g, expected.b));
        const double middle0 = (top0 + bottom0) / 2;
        QVERIFY(colour_at(image, {plot.xForValue(0.4), middle0}, first));
        QVERIFY(!colour_at(image, {plot.xForValue(0.9), middle0}, first));  // beyond the bar
        // Cluster 1 is sorted: its top rows reach 0.3, its bottom rows only about -0.2.
        QVERIFY(colour_at(image, {plot.xForValue(0.2), top1 + 2}, second));
        QVERIFY(!colour_at(image, {plot.xForValue(0.2), bottom1 - 2}, second));
        // The dashed mean line sits at 0.6 above the bars.
        QVERIFY(colour_at(image, {std::round(plot.xForValue(0.6)), plot.barArea().top() + 1}, QColor(0xd6, 0x27, 0x28), 60));
    }

    void manyClustersKeepTheirBars() {
        SilhouettePlot plot;
        std::vector<double> values;
        std::vector<std::int32_t> labels;
        for (int c = 0; c < 256; ++c)
            for (int i = 0; i < 20; ++i) {
                values.push_back(0.5);
                labels.push_back(c);
            }
        plot.setValues(values, labels, 0.5);
        plot.resize(400, 600);
        plot.grab();
        QCOMPARE(plot.clusterCount(), std::size_t(256));
        double bars = 0.0;
        for (std::size_t c = 0; c < 256; ++c) {
            const auto [top, bottom] = plot.clusterRows(c);
            QVERIFY(bottom > top);
            QVERIFY(bottom <= plot.barArea().bottom() + 1e-6);
            bars += bottom - top;
        }
        QVERIFY(bars >= 0.74 * plot.barArea().height());  // gaps take at most a quarter
    }

    void realScores() {
        const kms::Dataset data = kms::generate_dataset("blobs:n=600,k=4,d=2,spread=0.05", 11);
        kms::ScoreInputs inputs;
        inputs.points = &data.points;
        inputs.labels = data.truth_labels;
        inputs.truth_labels = data.truth_labels;
        const kms::Scores scores = kms::compute_scores(inputs, {});
        ScoresPanel panel;
        panel.setScores(scores, data.n(), 1, data.truth_labels);
        QVERIFY(panel.valueText(Row::Silhouette).contains(QStringLiteral("exact, all 600 points")));
        QCOMPARE(panel.valueText(Row::Ari), QStringLiteral("1.0000"));  // truth against itself
        QCOMPARE(panel.silhouettePlot()->clusterCount(), std::size_t(4));
        std::size_t plotted = 0;
        for (std::size_t c = 0; c < 4; ++c) plotted += panel.silhouettePlot()->clusterValues(c).size();
        QCOMPARE(plotted, std::size_t(600));
        panel.resize(460, 640);
        const QString dir = qEnvironmentVariable("KMS_CHARTS_SCREENSHOT_DIR");
        if (!dir.isEmpty()) QVERIFY(panel.grab().save(dir + QStringLiteral("/scores.png")));
    }
};

QTEST_MAIN(TestScoresPanel)
#include "test_scores_panel.moc"
