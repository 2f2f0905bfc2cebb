#pragma once
// A complex 2-D image on the reconstruction grid (row-major, y rows of x columns).
#include <complex>
#include <cstddef>
#include <vector>

namespace mrwb {

struct Image2D {
  int nx = 0, ny = 0;
  double fov_x_m = 0, fov_y_m = 0;
  std::vector<std::complex<float>> data;

  std::size_t size() const { return static_cast<std::size_t>(nx) * ny; }
  std::vector<float> magnitude() const;
};

}  // namespace mrwb
