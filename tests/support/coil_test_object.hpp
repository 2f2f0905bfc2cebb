#pragma once
// The complex object the parallel-imaging tests (SENSE, g-factor) reconstruct: an ellipse of 1 with two
// brighter discs and a darker one, and a phase ramp along x, on an n x n grid (features placed for n = 60,
// scaled with n).
#include <cmath>
#include <complex>
#include <vector>

namespace mrwb_test {

inline std::vector<std::complex<float>> coil_test_object(int n) {
  const double s = n / 60.0;
  std::vector<std::complex<float>> im(static_cast<std::size_t>(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double u = (x - n / 2) / (0.42 * n), v = (y - n / 2) / (0.40 * n);
      if (u * u + v * v > 1) continue;
      double m = 1;
      if (std::hypot(x - 22 * s, y - 28 * s) < 5 * s) m = 2;
      if (std::hypot(x - 38 * s, y - 33 * s) < 4 * s) m = 1.5;
      if (std::hypot(x - 30 * s, y - 20 * s) < 3 * s) m = 0.4;
      im[static_cast<std::size_t>(y) * n + x] = std::polar(static_cast<float>(m), static_cast<float>(0.02 * x / s));
    }
  return im;
}

}  // namespace mrwb_test
