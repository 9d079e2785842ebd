// PlotWidget: tick arithmetic, label formatting, painting at any size, the
// pixels a series lands on, hover and click, 10k-point series.
#include <QtTest>
#include <QtWidgets>

#include <cmath>
#include <limits>

#include "charts/plot_widget.hpp"

using kms::ui::PlotSeries;
using kms::ui::PlotWidget;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void compare_ticks(const std::vector<double>& actual, const std::vector<double>& expected) {
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double tolerance = 1e-12 * std::max(1.0, std::abs(expected[i]));
        if (std::abs(actual[i] - expected[i]) > tolerance)
            QFAIL(qPrintable(QStringLiteral("tick %1: %2, expected %3").arg(i).arg(actual[i], 0, 'g', 17).arg(expected[i])));
    }
}

PlotSeries line(const QString& name, QColor colour, std::vector<double> values, double first_x = 1.0) {
    PlotSeries series;
    series.name = name;
    series.color = colour;
    series.values = std::move(values);
    series.first_x = first_x;
    return series;
}

// Whether `colour` appears within `radius` pixels of `point` (antialiased lines
// blend at their edges, so look for a near-exact pixel in a small window).
bool colour_near(const QImage& image, QPointF point, QColor colour, int radius = 2, int tolerance = 40) {
    const int cx = static_cast<int>(std::lround(point.x())), cy = static_cast<int>(std::lround(point.y()));
    for (int y = cy - radius; y <= cy + radius; ++y)
        for (int x = cx - radius; x <= cx + radius; ++x) {
            if (!image.rect().contains(x, y)) continue;
            const QColor pixel = image.pixelColor(x, y);
            if (std::abs(pixel.red() - colour.red()) + std::abs(pixel.green() - colour.green()) +
                    std::abs(pixel.blue() - colour.blue()) <= tolerance)
                return true;
        }
    return false;
}

QImage render(PlotWidget& plot, QSize size) {
    plot.resize(size);
    return plot.grab().toImage().convertToFormat(QImage::Format_RGB32);
}

}  // namespace

class TestPlotWidget : public QObject {
    Q_OBJECT
private slots:
    void niceStep() {
        QCOMPARE(kms::ui::nice_step(10.0, 5), 2.0);
        QCOMPARE(kms::ui::nice_step(1.0, 10), 0.1);
        QCOMPARE(kms::ui::nice_step(7.0, 1), 10.0);
        QCOMPARE(kms::ui::nice_step(100.0, 4), 50.0);   // 25 rounds up to 50 (1-2-5 only)
        QCOMPARE(kms::ui::nice_step(0.0, 5), 0.0);
        QCOMPARE(kms::ui::nice_step(kNaN, 5), 0.0);
    }

    void niceTicks() {
        compare_ticks(kms::ui::nice_ticks(0, 1, 5), {0, 0.2, 0.4, 0.6, 0.8, 1.0});
        compare_ticks(kms::ui::nice_ticks(0, 97, 5), {0, 20, 40, 60, 80});
        compare_ticks(kms::ui::nice_ticks(-3.7, 12.2, 6), {0, 5, 10});
        compare_ticks(kms::ui::nice_ticks(1, 1e6, 5), {2e5, 4e5, 6e5, 8e5, 1e6});
        compare_ticks(kms::ui::nice_ticks(0.001, 0.0013, 4), {0.001, 0.0011, 0.0012, 0.0013});
        compare_ticks(kms::ui::nice_ticks(5, -5, 4), {-5, 0, 5});  // reversed bounds; 2.5 rounds up to 5
        compare_ticks(kms::ui::nice_ticks(0.1, 0.7, 6), {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7});  // no 0.30000000000000004
        QCOMPARE(kms::ui::nice_ticks(0.1, 0.7, 6)[2], 0.3);
        compare_ticks(kms::ui::nice_ticks(3, 3, 5), {3});
        QVERIFY(kms::ui::nice_ticks(0, kNaN, 5).empty());
        // Zero is exactly zero, never -0 or 1e-17.
        for (double tick : kms::ui::nice_ticks(-0.3, 0.3, 6))
            if (std::abs(tick) < 1e-6) QVERIFY(tick == 0.0 && !std::signbit(tick));
    }

    void niceRange() {
        QCOMPARE(kms::ui::nice_range(0, 97, 5), (std::pair{0.0, 100.0}));
        QCOMPARE(kms::ui::nice_range(3.2, 8.9, 6), (std::pair{3.0, 9.0}));
        QCOMPARE(kms::ui::nice_range(-12, 0, 4), (std::pair{-15.0, 0.0}));
    }

    void logTicks() {
        compare_ticks(kms::ui::log_ticks(1, 1e6, 10), {1, 10, 100, 1e3, 1e4, 1e5, 1e6});
        compare_ticks(kms::ui::log_ticks(1e-6, 1e6, 5), {1e-6, 1e-3, 1, 1e3, 1e6});
        compare_ticks(kms::ui::log_ticks(1, 10, 10), {1, 2, 5, 10});
        compare_ticks(kms::ui::log_ticks(1, 10, 2), {1, 10});
        QVERIFY(kms::ui::log_ticks(0, 10, 5).empty());
        QVERIFY(kms::ui::log_ticks(-1, 10, 5).empty());
    }

    void tickLabels() {
        QCOMPARE(kms::ui::format_tick(1500, 500, 3000), QStringLiteral("1500"));
        QCOMPARE(kms::ui::format_tick(25000, 5000, 1e5), QStringLiteral("25k"));
        QCOMPARE(kms::ui::format_tick(1.5e6, 5e5, 2e6), QStringLiteral("1.5M"));
        QCOMPARE(kms::ui::format_tick(0.2, 0.2, 1), QStringLiteral("0.2"));
        QCOMPARE(kms::ui::format_tick(0.05, 0.05, 0.3), QStringLiteral("0.05"));
        QCOMPARE(kms::ui::format_tick(0.0, 0.05, 0.3), QStringLiteral("0"));
        QCOMPARE(kms::ui::format_tick(-20, 10, 40), QStringLiteral("-20"));
        QCOMPARE(kms::ui::format_tick(2e-5, 1e-5, 5e-5), QStringLiteral("2e-05"));
        QCOMPARE(kms::ui::format_log_tick(1000), QStringLiteral("1000"));
        QCOMPARE(kms::ui::format_log_tick(1e6), QStringLiteral("1M"));
        QCOMPARE(kms::ui::format_log_tick(0.01), QStringLiteral("0.01"));
        QCOMPARE(kms::ui::format_value(1234567), QStringLiteral("1,234,567"));
        QCOMPARE(kms::ui::format_value(12.3456), QStringLiteral("12.35"));
        QCOMPARE(kms::ui::format_value(kNaN), QStringLiteral("–"));
    }

    void paintsAtAnySizeAndWithoutData() {
        PlotWidget empty;
        empty.setTitle(QStringLiteral("empty"));
        PlotWidget full;
        full.setTitle(QStringLiteral("with data"));
        full.addSeries(line(QStringLiteral("a"), Qt::blue, {1, 2, kNaN, 4, 0, -3}));
        full.addSeries(line(QStringLiteral("b"), Qt::red, {}));
        for (bool log : {false, true}) {
            empty.setLogScale(log);
            full.setLogScale(log);
            for (QSize size : {QSize(0, 0), QSize(1, 1), QSize(30, 20), QSize(120, 60), QSize(100, 800),
                               QSize(900, 300)}) {
                QCOMPARE(render(empty, size).size(), size.isEmpty() ? QSize(0, 0) : size);
                render(full, size);
            }
        }
        // One value only: a dot, and a sane range around it.
        PlotWidget single;
        single.addSeries(line(QString(), Qt::blue, {5.0}));
        render(single, {300, 200});
        QVERIFY(single.yRange().first <= 5.0 && single.yRange().second >= 5.0);
    }

    void seriesColourWhereExpected() {
        PlotWidget plot;
        const QColor red(220, 20, 20), blue(20, 60, 220);
        plot.addSeries(line(QStringLiteral("flat"), red, std::vector<double>(10, 5.0)));
        plot.addSeries(line(QStringLiteral("ramp"), blue, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        const QImage image = render(plot, {500, 300});
        QVERIFY(colour_near(image, plot.toPixel(2.5, 5.0), red));
        QVERIFY(colour_near(image, plot.toPixel(8.5, 5.0), red));
        QVERIFY(colour_near(image, plot.toPixel(3.5, 2.5), blue));   // between ramp points (3,2) and (4,3)
        QVERIFY(!colour_near(image, plot.toPixel(8.5, 2.0), red, 3));  // below the flat line: background
        QVERIFY(!colour_near(image, plot.toPixel(8.5, 2.0), blue, 3));
        QVERIFY(plot.plotArea().contains(plot.toPixel(1, 0)));
        // Autoscale includes zero for counts and rounds to nice steps.
        QCOMPARE(plot.yRange().first, 0.0);
        QVERIFY(plot.yRange().second >= 9.0);
        QCOMPARE(plot.xRange(), (std::pair{1.0, 10.0}));
    }

    void repaintFollowsChanges() {
        // The plot layer is cached for hover; every change must still show.
        PlotWidget plot;
        const QColor red(220, 20, 20);
        plot.addSeries(line(QStringLiteral("s"), red, std::vector<double>(10, 8.0)));
        plot.setFixedYRange(std::pair{0.0, 10.0});
        QImage image = render(plot, {500, 300});
        QVERIFY(colour_near(image, plot.toPixel(5.5, 8.0), red));
        plot.setSeriesValues(0, std::vector<double>(10, 2.0));
        image = render(plot, {500, 300});
        QVERIFY(colour_near(image, plot.toPixel(5.5, 2.0), red));
        QVERIFY(!colour_near(image, plot.toPixel(5.5, 8.0), red, 3));
        plot.appendValue(0, 9.0);  // iteration 11
        image = render(plot, {500, 300});
        QVERIFY(colour_near(image, plot.toPixel(11, 9.0), red));
        image = render(plot, {320, 200});  // resized: redrawn at the new size
        QVERIFY(colour_near(image, plot.toPixel(5.5, 2.0), red));
    }

    void barsAndFixedRange() {
        PlotWidget plot;
        const QColor green(30, 160, 60);
        PlotSeries bars = line(QStringLiteral("bars"), green, {10, 40, 80});
        bars.style = PlotSeries::Style::Bars;
        plot.addSeries(bars);
        plot.setFixedYRange(std::pair{0.0, 100.0});
        QCOMPARE(plot.yRange(), (std::pair{0.0, 100.0}));
        const QImage image = render(plot, {400, 300});
        QVERIFY(colour_near(image, plot.toPixel(3, 40), green, 0, 10));   // inside the third bar
        QVERIFY(!colour_near(image, plot.toPixel(1, 40), green, 2, 10));  // above the first bar
    }

    void logScaleRangeAndGaps() {
        PlotWidget plot;
        plot.addSeries(line(QString(), Qt::blue, {1000, 100, 0, 1, 0.02}));
        plot.setLogScale(true);
        QCOMPARE(plot.yRange(), (std::pair{0.01, 1000.0}));
        QVERIFY(std::isnan(plot.toPixel(3, 0).y()));  // zero has no place on a log axis
        render(plot, {300, 200});
        plot.setLogScale(false);
        QCOMPARE(plot.yRange().first, 0.0);
    }

    void hoverAndClick() {
        PlotWidget plot;
        plot.addSeries(line(QStringLiteral("s"), Qt::blue, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        plot.resize(600, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QSignalSpy hovered(&plot, &PlotWidget::hoveredIterationChanged);
        QSignalSpy clicked(&plot, &PlotWidget::iterationClicked);
        const QPoint at = plot.toPixel(7.2, 3).toPoint();
        QTest::mouseMove(&plot, at);
        QTRY_COMPARE(plot.hoveredIteration(), std::optional<int>(7));
        QVERIFY(!hovered.isEmpty());
        QCOMPARE(hovered.last().at(0).toInt(), 7);
        QTest::mouseClick(&plot, Qt::LeftButton, {}, at);
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.first().at(0).toInt(), 7);
        // The hover box paints without trouble.
        plot.grab();
    }

    void currentIterationMarker() {
        PlotWidget plot;
        plot.addSeries(line(QString(), QColor(200, 200, 255), std::vector<double>(20, 1.0)));
        plot.setCurrentIteration(12);
        QCOMPARE(plot.currentIteration(), 12);
        const QImage image = render(plot, {500, 300});
        const QRectF area = plot.plotArea();
        const double x = plot.toPixel(12, 0).x();
        QVERIFY(colour_near(image, QPointF(x, area.center().y() + 20), QColor(0x20, 0x20, 0x20), 1, 30));
        QVERIFY(!colour_near(image, QPointF(plot.toPixel(6, 0).x(), area.center().y() + 20),
                             QColor(0x20, 0x20, 0x20), 1, 30));
    }

    void tenThousandPointsKeepSpikes() {
        PlotWidget plot;
        const QColor colour(200, 30, 30);
        const int index = plot.addSeries(line(QStringLiteral("long"), colour, {}));
        for (int i = 1; i <= 10000; ++i) plot.appendValue(index, i == 5000 ? 100.0 : 1.0);
        QCOMPARE(plot.series()[0].values.size(), std::size_t(10000));
        QCOMPARE(plot.xRange(), (std::pair{1.0, 10000.0}));
        QCOMPARE(plot.yRange(), (std::pair{0.0, 100.0}));
        const QImage image = render(plot, {600, 250});
        // The single spike survives the per-column reduction.
        QVERIFY(colour_near(image, plot.toPixel(5000, 95), colour, 2));
        QVERIFY(!colour_near(image, plot.toPixel(2500, 95), colour, 2));
    }
};

QTEST_MAIN(TestPlotWidget)
#include "test_plot_widget.moc"
