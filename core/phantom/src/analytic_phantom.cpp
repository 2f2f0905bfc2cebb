// Shepp-Logan phantoms with analytic Fourier transforms (2-D ellipses, 3-D ellipsoids).
#include "mrwb/phantom/analytic_phantom.hpp"

#include <cmath>

namespace mrwb::noncart {

AnalyticPhantom AnalyticPhantom::shepp_logan(int dims) {
  // Toft's modified Shepp-Logan (value, a, b, c, x0, y0, z0, phi deg) on [-1, 1]; the 3-D c, z0 follow
  // Kak & Slaney's ellipsoids. Scaled by 0.5 into FOV units.
  struct Row { double v, a, b, c, x0, y0, z0, phi; };
  const Row rows[] = {
      {1.0, .69, .92, .81, 0, 0, 0, 0},          {-.8, .6624, .874, .78, 0, -.0184, 0, 0},
      {-.2, .11, .31, .22, .22, 0, 0, -18},      {-.2, .16, .41, .28, -.22, 0, 0, 18},
      {.1, .21, .25, .41, 0, .35, -.15, 0},      {.1, .046, .046, .05, 0, .1, .25, 0},
      {.1, .046, .046, .05, 0, -.1, .25, 0},     {.1, .046, .023, .05, -.08, -.605, 0, 0},
      {.1, .023, .023, .02, 0, -.606, 0, 0},     {.1, .023, .046, .02, .06, -.605, 0, 0}};
  AnalyticPhantom p;
  p.dims = dims;
  for (const auto& r : rows)
    p.parts.push_back({r.v, .5 * r.a, .5 * r.b, .5 * r.c, .5 * r.x0, .5 * r.y0, dims == 3 ? .5 * r.z0 : 0.0,
                       r.phi * M_PI / 180});
  return p;
}

AnalyticPhantom AnalyticPhantom::shepp_logan_other_contrast(int dims) {
  // Region values become: skull 0.6, brain 0.35, the two large ellipses 0.65 / 0.6, the top one 0.2, the
  // small ones 0.15-0.55 (Toft's: 1, 0.2, 0, 0, 0.3, 0.3, ...); every boundary of the original still jumps
  // by >= 0.1 (checked on point samples at 256^2 and 96^3).
  const double values[] = {0.6, -0.25, 0.3, 0.25, -0.15, 0.2, -0.12, 0.15, -0.2, 0.2};
  AnalyticPhantom p = shepp_logan(dims);
  for (std::size_t i = 0; i < p.parts.size(); ++i) p.parts[i].value = values[i];
  return p;
}

std::complex<double> AnalyticPhantom::ft(const double* k) const {
  std::complex<double> sum{};
  for (const auto& e : parts) {
    const double c = std::cos(e.phi_rad), s = std::sin(e.phi_rad);
    // k in the ellipse's frame (rotation by -phi), scaled by the semi-axes.
    const double kx = c * k[0] + s * k[1], ky = -s * k[0] + c * k[1];
    double q2 = (e.a * kx) * (e.a * kx) + (e.b * ky) * (e.b * ky);
    double shift = k[0] * e.x0 + k[1] * e.y0;
    double mag;
    if (dims == 3) {
      q2 += (e.c * k[2]) * (e.c * k[2]);
      shift += k[2] * e.z0;
      const double q = std::sqrt(q2), w = 2 * M_PI * q;
      // Unit ball: (sin w - w cos w) / (2 pi^2 q^3); limit 4 pi / 3.
      mag = q < 1e-4 ? 4 * M_PI / 3 * (1 - w * w / 10) : (std::sin(w) - w * std::cos(w)) / (2 * M_PI * M_PI * q2 * q);
      mag *= e.a * e.b * e.c;
    } else {
      const double q = std::sqrt(q2);
      // Unit disc: J1(2 pi q) / q; limit pi.
      mag = q < 1e-6 ? M_PI : std::cyl_bessel_j(1.0, 2 * M_PI * q) / q;
      mag *= e.a * e.b;
    }
    sum += e.value * mag * std::polar(1.0, -2 * M_PI * shift);
  }
  return sum;
}

double AnalyticPhantom::value(const double* x) const {
  double v = 0;
  for (const auto& e : parts) {
    const double c = std::cos(e.phi_rad), s = std::sin(e.phi_rad);
    const double dx = x[0] - e.x0, dy = x[1] - e.y0;
    const double u = c * dx + s * dy, w = -s * dx + c * dy;
    double r = (u / e.a) * (u / e.a) + (w / e.b) * (w / e.b);
    if (dims == 3) r += ((x[2] - e.z0) / e.c) * ((x[2] - e.z0) / e.c);
    if (r <= 1.0) v += e.value;
  }
  return v;
}

std::vector<std::complex<float>> AnalyticPhantom::kspace(const std::vector<float>& k) const {
  const std::size_t M = k.size() / dims;
  std::vector<std::complex<float>> d(M);
  for (std::size_t m = 0; m < M; ++m) {
    double km[3] = {k[m * dims], k[m * dims + 1], dims == 3 ? k[m * dims + 2] : 0.0};
    d[m] = std::complex<float>(ft(km));
  }
  return d;
}

std::vector<float> AnalyticPhantom::image(int n, int sub) const {
  const int zn = dims == 3 ? n : 1, zs = dims == 3 ? sub : 1;
  std::vector<float> img(static_cast<std::size_t>(zn) * n * n);
  for (int z = 0; z < zn; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        double acc = 0;
        for (int sz = 0; sz < zs; ++sz)
          for (int sy = 0; sy < sub; ++sy)
            for (int sx = 0; sx < sub; ++sx) {
              // sub-sample centres inside voxel [i - 1/2, i + 1/2]/n around x = (i - n/2)/n
              const double p[3] = {(x - n / 2 + (sx + 0.5) / sub - 0.5) / n, (y - n / 2 + (sy + 0.5) / sub - 0.5) / n,
                                   (z - n / 2 + (sz + 0.5) / zs - 0.5) / n};
              acc += value(p);
            }
        img[(static_cast<std::size_t>(z) * n + y) * n + x] = static_cast<float>(acc / (sub * sub * zs));
      }
  return img;
}

}  // namespace mrwb::noncart
