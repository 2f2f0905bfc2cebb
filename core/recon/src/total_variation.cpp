#include "mrwb/recon/total_variation.hpp"

#include <cmath>

namespace mrwb {

using cfloat = std::complex<float>;

std::vector<cfloat> tv_gradient(const std::vector<cfloat>& x, int nx, int ny) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  std::vector<cfloat> g(2 * n);
  for (int y = 0; y < ny; ++y) {
    const std::size_t row = static_cast<std::size_t>(y) * nx, next = static_cast<std::size_t>((y + 1) % ny) * nx;
    for (int x0 = 0; x0 < nx; ++x0) {
      const cfloat v = x[row + x0];
      g[row + x0] = x[row + (x0 + 1) % nx] - v;
      g[n + row + x0] = x[next + x0] - v;
    }
  }
  return g;
}

std::vector<cfloat> tv_gradient_adjoint(const std::vector<cfloat>& g, int nx, int ny) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  std::vector<cfloat> out(n);
  for (int y = 0; y < ny; ++y) {
    const std::size_t row = static_cast<std::size_t>(y) * nx, prev = static_cast<std::size_t>((y + ny - 1) % ny) * nx;
    for (int x0 = 0; x0 < nx; ++x0)
      out[row + x0] = (g[row + (x0 + nx - 1) % nx] - g[row + x0]) + (g[n + prev + x0] - g[n + row + x0]);
  }
  return out;
}

void shrink_isotropic(std::vector<cfloat>& g, int nx, int ny, float tau) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  for (std::size_t i = 0; i < n; ++i) {
    const float mag = std::sqrt(std::norm(g[i]) + std::norm(g[n + i]));
    const float s = mag > tau ? 1.0f - tau / mag : 0.0f;
    g[i] *= s;
    g[n + i] *= s;
  }
}

double tv_norm(const std::vector<cfloat>& x, int nx, int ny) {
  const std::vector<cfloat> g = tv_gradient(x, nx, ny);
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += std::sqrt(double(std::norm(g[i])) + double(std::norm(g[n + i])));
  return s;
}

}  // namespace mrwb
