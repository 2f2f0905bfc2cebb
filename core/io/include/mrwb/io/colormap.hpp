#pragma once
// The workbench's colormaps, value -> 8-bit RGB, defined once for the PNG writer and the ui views.
// They are code, not files under resources/: core reads no Qt resource, and the PNG writer (CLI) and
// the views must draw the same colours without a file to find at run time.
// Every map takes t in [0, 1] (clamped; NaN reads as 0) unless it says otherwise.
#include <cstdint>

namespace mrwb::colormap {

struct Rgb8 {
  std::uint8_t r, g, b;
  friend bool operator==(const Rgb8&, const Rgb8&) = default;
};

// Moreland's cool-warm diverging map ("Diverging Color Maps for Scientific Visualization", 2009),
// blue (0) - grey 221 (0.5) - red (1). Two renderings of it, kept as they were drawn:
// cool_warm_table: linear in RGB between his table's samples every 1/8 (PNG error maps);
Rgb8 cool_warm_table(double t);
// cool_warm_msh: interpolated in his Msh colour space between the blue, grey and red ends (the views'
// signed maps, the vessel-tree colours). Warmer ends than the table's linear steps.
Rgb8 cool_warm_msh(double t);

// Sequential maps for magnitudes, linear in RGB between control points.
Rgb8 grey(double t);
Rgb8 hot(double t);           // black - red - yellow - white (matplotlib's control points)
Rgb8 viridis(double t);       // matplotlib's viridis at 0, 1/4, .., 1: perceptually even
Rgb8 inferno_like(double t);  // 4 points near matplotlib's inferno: dark (still) to bright (fast)

// Phase in radians on a cyclic hue wheel (HSV, saturation 0.75, value 0.95), so -pi and +pi look alike.
Rgb8 phase_wheel(double radians);

}  // namespace mrwb::colormap
