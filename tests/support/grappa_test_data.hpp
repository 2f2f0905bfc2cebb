#pragma once
// Synthetic multi-coil test data for the GRAPPA suites: a Shepp–Logan-like sum of ellipses on the grid,
// seen by loop coils (coil_sensitivity.hpp), fully sampled; undersample with mrwb::undersample_cartesian.
#include <cmath>
#include <complex>
#include <vector>

#include "mrwb/base/raw_data.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"

namespace grappa_test {

// Modified Shepp–Logan (Toft) intensities and ellipses in units of half the FOV; a smooth phase ramp so
// the image is complex, as a real acquisition's is.
inline std::vector<std::complex<float>> shepp_logan(int nx, int ny) {
  struct E {
    double a, x0, y0, rx, ry, deg;
  };
  const E es[] = {{1.0, 0, 0, 0.69, 0.92, 0},        {-0.8, 0, -0.0184, 0.6624, 0.874, 0},
                  {-0.2, 0.22, 0, 0.11, 0.31, -18},  {-0.2, -0.22, 0, 0.16, 0.41, 18},
                  {0.1, 0, 0.35, 0.21, 0.25, 0},     {0.1, 0, 0.1, 0.046, 0.046, 0},
                  {0.1, 0, -0.1, 0.046, 0.046, 0},   {0.1, -0.08, -0.605, 0.046, 0.023, 0},
                  {0.1, 0, -0.606, 0.023, 0.023, 0}, {0.1, 0.06, -0.605, 0.023, 0.046, 0}};
  std::vector<std::complex<float>> img(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double x = 2.0 * (i - nx / 2) / nx, y = -2.0 * (j - ny / 2) / ny;
      double v = 0;
      for (const auto& e : es) {
        const double c = std::cos(e.deg * M_PI / 180), s = std::sin(e.deg * M_PI / 180);
        const double u = ((x - e.x0) * c + (y - e.y0) * s) / e.rx, w = (-(x - e.x0) * s + (y - e.y0) * c) / e.ry;
        if (u * u + w * w <= 1) v += e.a;
      }
      img[static_cast<std::size_t>(j) * nx + i] = std::polar(static_cast<float>(v), static_cast<float>(0.5 * x + 0.3 * y));
    }
  return img;
}

// Fully sampled multi-coil raw data of the phantom (FOV 0.24 m) seen by ncoils loop coils.
inline mrwb::RawData phantom_raw(int ncoils, int nx, int ny) {
  const double fov = 0.24;
  const auto sens = mrwb::loop_coil_sensitivities(ncoils, nx, ny, fov);
  return mrwb::multicoil_raw(shepp_logan(nx, ny), sens, ncoils, nx, ny, fov, fov);
}

}  // namespace grappa_test
