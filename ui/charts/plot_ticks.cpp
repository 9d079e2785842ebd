// Axis ticks and the numbers' text of the plots (declared in charts/plot_widget.hpp).
#include <QLocale>
#include <QString>

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/plot_style.hpp"
#include "charts/plot_widget.hpp"

namespace kms::ui {

namespace plot_style {

// Ticks at multiples of `step` inside [low, high], computed from the multiple's
// index (not by repeated addition) so 0.1-steps do not drift to 0.30000000000000004.
std::vector<double> ticks_with_step(double low, double high, double step) {
    std::vector<double> ticks;
    if (!(step > 0.0) || !is_finite(low) || !is_finite(high)) return ticks;
    const double slack = step * 1e-9;
    const double first = std::ceil((low - slack) / step);
    const double last = std::floor((high + slack) / step);
    if (last - first > 10000.0) return ticks;  // defensive: never a runaway loop
    for (double index = first; index <= last; index += 1.0) {
        double value = index * step;
        if (std::abs(value) < slack) value = 0.0;
        ticks.push_back(value);
    }
    return ticks;
}

}  // namespace plot_style

using namespace plot_style;

namespace {


int decimals_for_step(double step) {
    if (!(step > 0.0) || step >= 1.0) return 0;
    return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
}

struct ScaleSuffix {
    double divisor;
    const char* suffix;
};

ScaleSuffix scale_for(double magnitude) {
    if (magnitude >= 1e12) return {1e12, "T"};
    if (magnitude >= 1e9) return {1e9, "G"};
    if (magnitude >= 1e6) return {1e6, "M"};
    return {1e3, "k"};
}

}  // namespace

double nice_step(double span, int max_ticks) {
    if (!is_finite(span) || !(span > 0.0)) return 0.0;
    const double raw = span / std::max(1, max_ticks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double normalised = raw / magnitude;
    double factor = 10.0;
    if (normalised <= 1.0 + 1e-9) factor = 1.0;
    else if (normalised <= 2.0 + 1e-9) factor = 2.0;
    else if (normalised <= 5.0 + 1e-9) factor = 5.0;
    return factor * magnitude;
}

std::vector<double> nice_ticks(double low, double high, int max_ticks) {
    if (!is_finite(low) || !is_finite(high)) return {};
    if (high < low) std::swap(low, high);
    if (low == high) return {low};
    return ticks_with_step(low, high, nice_step(high - low, max_ticks));
}

std::pair<double, double> nice_range(double low, double high, int max_ticks) {
    if (!is_finite(low) || !is_finite(high)) return {low, high};
    if (high < low) std::swap(low, high);
    const double step = nice_step(high - low, max_ticks);
    if (step == 0.0) return {low, high};
    return {std::floor(low / step + 1e-9) * step, std::ceil(high / step - 1e-9) * step};
}

std::vector<double> log_ticks(double low, double high, int max_ticks) {
    std::vector<double> ticks;
    if (!(low > 0.0) || !(high > 0.0) || !is_finite(low) || !is_finite(high)) return ticks;
    if (high < low) std::swap(low, high);
    const double slack = 1e-9;
    const int first_decade = static_cast<int>(std::ceil(std::log10(low) - slack));
    const int last_decade = static_cast<int>(std::floor(std::log10(high) + slack));
    const int decades = last_decade - first_decade + 1;
    const int stride = std::max(1, static_cast<int>(std::ceil(static_cast<double>(decades) /
                                                              std::max(1, max_ticks))));
    for (int exponent = first_decade; exponent <= last_decade; ++exponent)
        if (((exponent % stride) + stride) % stride == 0) ticks.push_back(std::pow(10.0, exponent));

    // Few decades: 2× and 5× in between, when they fit the budget.
    if (std::log10(high / low) < 2.0 + slack) {
        std::vector<double> dense;
        for (int exponent = first_decade - 1; exponent <= last_decade; ++exponent)
            for (double mantissa : {1.0, 2.0, 5.0}) {
                const double value = mantissa * std::pow(10.0, exponent);
                if (value >= low * (1 - slack) && value <= high * (1 + slack)) dense.push_back(value);
            }
        if (static_cast<int>(dense.size()) <= std::max(2, max_ticks) && dense.size() > ticks.size())
            ticks = std::move(dense);
    }
    if (ticks.empty()) ticks = nice_ticks(low, high, max_ticks);
    return ticks;
}

QString format_tick(double value, double step, double max_abs) {
    if (value == 0.0) return QStringLiteral("0");
    if (max_abs >= 1e4) {
        const ScaleSuffix scale = scale_for(max_abs);
        return QString::number(value / scale.divisor, 'f', decimals_for_step(step / scale.divisor)) +
               QLatin1String(scale.suffix);
    }
    if (max_abs < 1e-3) return QString::number(value, 'g', 3);
    return QString::number(value, 'f', decimals_for_step(step));
}

QString format_log_tick(double value) {
    if (value >= 1e4) {
        const ScaleSuffix scale = scale_for(value);
        return QString::number(value / scale.divisor, 'g', 3) + QLatin1String(scale.suffix);
    }
    return QString::number(value, 'g', 6);
}

QString format_value(double value) {
    if (std::isnan(value)) return QStringLiteral("–");
    if (!is_finite(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    const QLocale english(QLocale::English);
    if (value == std::trunc(value) && std::abs(value) < 1e15)
        return english.toString(static_cast<qlonglong>(value));
    if (std::abs(value) >= 1000.0) return english.toString(value, 'f', 1);
    return QString::number(value, 'g', 4);
}

}  // namespace kms::ui
