#include "mrwb/io/colormap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace mrwb::colormap {
namespace {

constexpr double kPi = std::numbers::pi;

double unit(double t) { return t >= 0 ? std::min(t, 1.0) : 0.0; }  // NaN -> 0

std::uint8_t byte(double v) { return static_cast<std::uint8_t>(std::lround(255 * std::clamp(v, 0.0, 1.0))); }

struct Stop {
  double at, r, g, b;
};

// Linear in RGB between stops sorted by `at`, the first at 0 and the last at 1.
template <std::size_t N>
Rgb8 piecewise(const std::array<Stop, N>& stops, double t) {
  t = unit(t);
  std::size_t i = 0;
  while (i + 2 < N && t > stops[i + 1].at) ++i;
  const Stop &a = stops[i], &b = stops[i + 1];
  const double s = (t - a.at) / (b.at - a.at);
  return {byte((1 - s) * a.r + s * b.r), byte((1 - s) * a.g + s * b.g), byte((1 - s) * a.b + s * b.b)};
}

// ---- Moreland's Msh space: CIELAB (sRGB, D65) in polar form: M = |Lab|, s = angle from L, h = hue.
struct Vec3 {
  double x, y, z;
};

double linear_from_srgb(double c) { return c > 0.04045 ? std::pow((c + 0.055) / 1.055, 2.4) : c / 12.92; }
double srgb_from_linear(double c) { return c > 0.0031308 ? 1.055 * std::pow(c, 1 / 2.4) - 0.055 : 12.92 * c; }
constexpr Vec3 kWhite{0.9505, 1.0, 1.089};  // D65 reference white (XYZ)

Vec3 msh_from_rgb(Vec3 rgb) {
  const double r = linear_from_srgb(rgb.x), g = linear_from_srgb(rgb.y), b = linear_from_srgb(rgb.z);
  const Vec3 xyz{0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b,
                 0.0193 * r + 0.1192 * g + 0.9505 * b};
  auto f = [](double v) { return v > 0.008856 ? std::cbrt(v) : 7.787 * v + 16.0 / 116.0; };
  const double fx = f(xyz.x / kWhite.x), fy = f(xyz.y / kWhite.y), fz = f(xyz.z / kWhite.z);
  const double L = 116 * fy - 16, A = 500 * (fx - fy), B = 200 * (fy - fz);
  const double M = std::sqrt(L * L + A * A + B * B);
  const double s = M > 0.001 ? std::acos(L / M) : 0.0;
  const double h = s > 0.001 ? std::atan2(B, A) : 0.0;
  return {M, s, h};
}

Vec3 rgb_from_msh(Vec3 msh) {
  const double L = msh.x * std::cos(msh.y), A = msh.x * std::sin(msh.y) * std::cos(msh.z),
               B = msh.x * std::sin(msh.y) * std::sin(msh.z);
  auto inv = [](double v) { return v * v * v > 0.008856 ? v * v * v : (v - 16.0 / 116.0) / 7.787; };
  const double fy = (L + 16) / 116;
  const double x = kWhite.x * inv(A / 500 + fy), y = kWhite.y * inv(fy), z = kWhite.z * inv(fy - B / 200);
  double r = srgb_from_linear(3.2406 * x - 1.5372 * y - 0.4986 * z);
  double g = srgb_from_linear(-0.9689 * x + 1.8758 * y + 0.0415 * z);
  double b = srgb_from_linear(0.0557 * x - 0.2040 * y + 1.0570 * z);
  // Out of gamut: scale the brightest channel down to 1, then clip negatives.
  if (const double top = std::max({r, g, b}); top > 1) r /= top, g /= top, b /= top;
  return {std::max(r, 0.0), std::max(g, 0.0), std::max(b, 0.0)};
}

// Moreland's hue for the unsaturated end of a segment, so the hue seems to change at a constant rate.
double adjusted_hue(Vec3 saturated, double unsaturated_m) {
  if (saturated.x >= unsaturated_m - 0.1) return saturated.z;
  const double spin = saturated.y * std::sqrt(unsaturated_m * unsaturated_m - saturated.x * saturated.x) /
                      (saturated.x * std::sin(saturated.y));
  return saturated.z > -0.3 * kPi ? saturated.z + spin : saturated.z - spin;
}

// From a saturated colour (s = 0) to an unsaturated one (s = 1), or the reverse, in Msh.
Vec3 msh_segment(Vec3 rgb1, Vec3 rgb2, double s) {
  Vec3 a = msh_from_rgb(rgb1), b = msh_from_rgb(rgb2);
  if (a.y < 0.05 && b.y > 0.05) a.z = adjusted_hue(b, a.x);
  else if (b.y < 0.05 && a.y > 0.05) b.z = adjusted_hue(a, b.x);
  return rgb_from_msh({(1 - s) * a.x + s * b.x, (1 - s) * a.y + s * b.y, (1 - s) * a.z + s * b.z});
}

Rgb8 bytes(Vec3 c) { return {byte(c.x), byte(c.y), byte(c.z)}; }

}  // namespace

Rgb8 cool_warm_table(double t) {
  // Moreland's table every 1/8, in 8-bit units.
  static constexpr std::array<std::array<double, 3>, 9> k = {{{59, 76, 192},
                                                              {98, 130, 234},
                                                              {141, 176, 254},
                                                              {184, 208, 249},
                                                              {221, 221, 221},
                                                              {245, 196, 173},
                                                              {244, 154, 123},
                                                              {222, 96, 77},
                                                              {180, 4, 38}}};
  t = unit(t) * 8.0;
  const int i = std::min(7, static_cast<int>(t));
  const double f = t - i;
  auto mix = [&](int c) { return static_cast<std::uint8_t>(std::lround(k[i][c] + f * (k[i + 1][c] - k[i][c]))); };
  return {mix(0), mix(1), mix(2)};
}

Rgb8 cool_warm_msh(double t) {
  static constexpr Vec3 kBlue{0.230, 0.299, 0.754}, kGrey{0.865, 0.865, 0.865}, kRed{0.706, 0.016, 0.150};
  t = unit(t);
  if (t == 0) return bytes(kBlue);
  if (t == 1) return bytes(kRed);
  if (t == 0.5) return bytes(kGrey);
  return bytes(t < 0.5 ? msh_segment(kBlue, kGrey, t / 0.5) : msh_segment(kGrey, kRed, (t - 0.5) / 0.5));
}

Rgb8 grey(double t) { return piecewise(std::array<Stop, 2>{{{0, 0, 0, 0}, {1, 1, 1, 1}}}, t); }

Rgb8 hot(double t) {
  static constexpr std::array<Stop, 4> k = {{{0.0, 0.04, 0.0, 0.0},
                                             {0.375, 1.0, 0.0, 0.0},
                                             {0.75, 1.0, 1.0, 0.0},
                                             {1.0, 1.0, 1.0, 1.0}}};
  return piecewise(k, t);
}

Rgb8 viridis(double t) {
  static constexpr std::array<Stop, 5> k = {{{0.0, 0.267, 0.005, 0.329},
                                             {0.25, 0.229, 0.322, 0.546},
                                             {0.5, 0.128, 0.567, 0.551},
                                             {0.75, 0.369, 0.789, 0.383},
                                             {1.0, 0.993, 0.906, 0.144}}};
  return piecewise(k, t);
}

Rgb8 inferno_like(double t) {
  static constexpr std::array<Stop, 4> k = {{{0.0, 0.0, 0.0, 0.02},
                                             {0.33, 0.47, 0.11, 0.43},
                                             {0.66, 0.93, 0.41, 0.15},
                                             {1.0, 0.99, 1.0, 0.64}}};
  return piecewise(k, t);
}

Rgb8 phase_wheel(double radians) {
  constexpr double s = 0.75, v = 0.95;
  double hue = (std::isfinite(radians) ? radians + kPi : 0.0) / (2 * kPi);
  hue = std::fmod(std::max(0.0, hue), 1.0) * 6;  // sextant of the hue circle
  const int sextant = std::min(5, static_cast<int>(hue));
  const double f = hue - sextant;
  const double p = v * (1 - s), q = v * (1 - s * f), u = v * (1 - s * (1 - f));
  // Per sextant, (r, g, b) taken from {v, p, u, q}.
  static constexpr int kOrder[6][3] = {{0, 2, 1}, {3, 0, 1}, {1, 0, 2}, {1, 3, 0}, {2, 1, 0}, {0, 1, 3}};
  const double values[4] = {v, p, u, q};
  const int* o = kOrder[sextant];
  return {byte(values[o[0]]), byte(values[o[1]]), byte(values[o[2]])};
}

}  // namespace mrwb::colormap
