#pragma once
// How the comparison's tables write their numbers (compare_table.cpp,
// iteration_detail_model.cpp): English digit grouping, "–" for a missing value.
#include <QColor>
#include <QLocale>
#include <QString>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "charts/distinct_colours.hpp"

namespace kms::ui::table_format {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline const QLocale& english() {
    static const QLocale locale(QLocale::English);
    return locale;
}

inline QString dash() { return QStringLiteral("–"); }

inline QString milliseconds(double value) {
    if (std::isnan(value)) return dash();
    const int decimals = value < 1.0 ? 3 : value < 100.0 ? 2 : 1;
    return english().toString(value, 'f', decimals) + QStringLiteral(" ms");
}

inline QString count(double value) {
    if (std::isnan(value)) return dash();
    return english().toString(static_cast<qulonglong>(value));
}

inline QString percent(double value) {
    if (std::isnan(value)) return dash();
    return english().toString(value, 'f', 1) + QLatin1Char('%');
}

inline QString fixed(double value, int decimals) { return std::isnan(value) ? dash() : english().toString(value, 'f', decimals); }

// Sums (inertia, Calinski–Harabasz): six significant digits.
inline QString significant(double value) {
    if (std::isnan(value)) return dash();
    if (value == 0.0) return QStringLiteral("0");
    if (std::abs(value) >= 1e15 || std::abs(value) < 1e-3) return QString::number(value, 'g', 6);
    const int digits = static_cast<int>(std::floor(std::log10(std::abs(value)))) + 1;
    return english().toString(value, 'f', std::clamp(6 - digits, 0, 6));
}

inline double median(std::vector<double> values) {
    if (values.empty()) return kNaN;
    const std::size_t middle = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
    const double upper = values[middle];
    if (values.size() % 2 == 1) return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
    return (lower + upper) / 2.0;
}

inline QColor qcolour(Rgb colour) { return QColor(colour.r, colour.g, colour.b); }

}  // namespace kms::ui::table_format
