#pragma once
// The plot widget's sizes and colours, shared by its files (plot_widget.cpp: data and
// layout; plot_painting.cpp: drawing; plot_ticks.cpp: axis ticks and number text).
#include <QColor>

#include <cmath>
#include <vector>

namespace kms::ui::plot_style {
inline constexpr double kMargin = 6.0;
inline constexpr double kTickLength = 4.0;
inline const QColor kAxisColour(0x55, 0x55, 0x55);
inline const QColor kGridColour(0xe4, 0xe4, 0xe4);
inline const QColor kTextColour(0x22, 0x22, 0x22);
inline const QColor kMarkerColour(0x20, 0x20, 0x20);

inline bool is_finite(double value) { return std::isfinite(value); }
// Ticks at multiples of `step` inside [low, high] (plot_ticks.cpp).
std::vector<double> ticks_with_step(double low, double high, double step);
}  // namespace kms::ui::plot_style
