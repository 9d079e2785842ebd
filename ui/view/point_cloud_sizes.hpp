#pragma once
// Sizes shared by the point view's files (point_cloud_view.cpp: GL; point_cloud_overlay.cpp:
// what QPainter draws over the points; point_cloud_input.cpp: mouse and keys).
namespace kms::ui {
inline constexpr double kMarkerPixels = 22.0;      // a centroid marker's diameter at ui_scale() 1
inline constexpr double kGrabRadiusPixels = 12.0;  // how near a press must be to grab a marker
}  // namespace kms::ui
