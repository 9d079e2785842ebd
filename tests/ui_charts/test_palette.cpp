// The cluster palette: deterministic, distinguishable over 256+ colours, and
// readable on the white chart background.
#include <QtTest>

#include <algorithm>

#include "charts/distinct_colours.hpp"

using kms::ui::Rgb;

namespace {

double min_pairwise_distance(const std::vector<Rgb>& colours) {
    double smallest = 1e9;
    for (std::size_t i = 0; i < colours.size(); ++i)
        for (std::size_t j = i + 1; j < colours.size(); ++j)
            smallest = std::min(smallest, kms::ui::cie76_distance(colours[i], colours[j]));
    return smallest;
}

}  // namespace

class TestPalette : public QObject {
    Q_OBJECT
private slots:
    void labConversionKnownValues() {
        const kms::ui::Lab white = kms::ui::to_lab({255, 255, 255});
        QVERIFY(std::abs(white.l - 100.0) < 0.01 && std::abs(white.a) < 0.01 && std::abs(white.b) < 0.01);
        const kms::ui::Lab black = kms::ui::to_lab({0, 0, 0});
        QVERIFY(std::abs(black.l) < 1e-9);
        // sRGB red is L*53.24 a*80.09 b*67.20 (D65).
        const kms::ui::Lab red = kms::ui::to_lab({255, 0, 0});
        QVERIFY(std::abs(red.l - 53.24) < 0.05 && std::abs(red.a - 80.09) < 0.1 && std::abs(red.b - 67.20) < 0.1);
        QCOMPARE(kms::ui::cie76_distance({10, 20, 30}, {10, 20, 30}), 0.0);
    }

    void distinguishable() {
        // ΔE*ab ≈ 2.3 is a just-noticeable difference; these thresholds are far above it.
        QVERIFY2(min_pairwise_distance(kms::ui::distinct_palette(10)) > 25.0, "first 10 colours too close");
        QVERIFY2(min_pairwise_distance(kms::ui::distinct_palette(64)) > 18.0, "64 colours too close");
        const double across_256 = min_pairwise_distance(kms::ui::distinct_palette(256));
        QVERIFY2(across_256 > 12.0, qPrintable(QStringLiteral("256 colours: min ΔE %1").arg(across_256)));
        QVERIFY(min_pairwise_distance(kms::ui::distinct_palette(kms::ui::distinct_table_size())) > 6.0);
    }

    void readableOnWhiteAndNotGrey() {
        for (const Rgb& colour : kms::ui::distinct_palette(300)) {
            const kms::ui::Lab lab = kms::ui::to_lab(colour);
            QVERIFY(kms::ui::cie76_distance(colour, {255, 255, 255}) > 10.0);
            QVERIFY(lab.l <= 91.0);
            QVERIFY(std::hypot(lab.a, lab.b) >= 12.0);  // grey reads as "unassigned"
        }
    }

    void deterministicAndConsistent() {
        const auto palette = kms::ui::distinct_palette(1100);
        QCOMPARE(palette.size(), std::size_t(1100));
        for (std::size_t i = 0; i < palette.size(); ++i) QCOMPARE(palette[i], kms::ui::distinct_colour(i));
        QCOMPARE(kms::ui::distinct_colour(0), (Rgb{0x4e, 0x79, 0xa7}));
        QCOMPARE(kms::ui::series_colour(2), kms::ui::distinct_colour(2));
        // Past the spread table, colours keep coming (and neighbours differ).
        for (std::size_t i = kms::ui::distinct_table_size(); i < 1100; ++i)
            QVERIFY(kms::ui::cie76_distance(palette[i], palette[i + 1 < 1100 ? i + 1 : i - 1]) > 5.0);
    }
};

QTEST_MAIN(TestPalette)
#include "test_palette.moc"
