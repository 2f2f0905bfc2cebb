// Loop-coil sensitivities by Biot–Savart (quasi-static), correlated receiver noise, the multi-coil forward model.
#include "mrwb/phantom/coil_sensitivity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"

namespace mrwb {

std::vector<std::complex<float>> loop_coil_sensitivities(int ncoils, int nx, int ny, double fov_m,
                                                         const LoopCoilOptions& o) {
  if (ncoils < 1 || nx < 1 || ny < 1 || !(fov_m > 0) || o.wire_segments < 4)
    throw InputError("coils: ncoils >= 1, nx, ny >= 1, fov_m > 0 and wire_segments >= 4 required");
  const int per_ring = o.coils_per_ring > 0 ? o.coils_per_ring : std::max(8, (ncoils + 3) / 4);
  const int rings = (ncoils + per_ring - 1) / per_ring;
  const double Ra = o.array_radius_m > 0 ? o.array_radius_m : 0.6 * fov_m;
  const double a = o.loop_radius_m > 0 ? o.loop_radius_m : std::min(1.1 * M_PI * Ra / per_ring, 0.3 * fov_m);
  const double spacing = o.ring_spacing_m > 0 ? o.ring_spacing_m : 1.8 * a;
  const double dx = fov_m / nx, dy = fov_m / ny;
  const double soft2 = 0.25 * std::min(dx, dy) * std::min(dx, dy);  // keeps pixels on a wire finite
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  std::vector<std::complex<float>> s(plane * ncoils);
  std::vector<double> sos(plane, 0.0);
  using V3 = std::array<double, 3>;
  for (int c = 0; c < ncoils; ++c) {
    const int ring = c / per_ring, k = c % per_ring;
    const double phi = 2 * M_PI * k / per_ring + (ring % 2 ? M_PI / per_ring : 0.0);  // staggered rings
    const double z = (ring - 0.5 * (rings - 1)) * spacing;
    const V3 centre = {Ra * std::cos(phi), Ra * std::sin(phi), z}, u = {-std::sin(phi), std::cos(phi), 0}, v = {0, 0, 1};
    // Wire segments: midpoint and dl of a loop in the plane tangent to the cylinder.
    std::vector<V3> mid(o.wire_segments), dl(o.wire_segments);
    for (int w = 0; w < o.wire_segments; ++w) {
      const double t0 = 2 * M_PI * w / o.wire_segments, t1 = 2 * M_PI * (w + 1) / o.wire_segments;
      for (int d = 0; d < 3; ++d) {
        const double p0 = centre[d] + a * (std::cos(t0) * u[d] + std::sin(t0) * v[d]);
        const double p1 = centre[d] + a * (std::cos(t1) * u[d] + std::sin(t1) * v[d]);
        mid[w][d] = 0.5 * (p0 + p1);
        dl[w][d] = p1 - p0;
      }
    }
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const V3 r = {(i - nx / 2) * dx, (j - ny / 2) * dy, 0.0};
        double Bx = 0, By = 0;  // mu0·I/(4 pi) = 1
        for (int w = 0; w < o.wire_segments; ++w) {
          const V3 d = {r[0] - mid[w][0], r[1] - mid[w][1], r[2] - mid[w][2]};
          const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + soft2;
          const double inv3 = 1.0 / (d2 * std::sqrt(d2));
          Bx += (dl[w][1] * d[2] - dl[w][2] * d[1]) * inv3;
          By += (dl[w][2] * d[0] - dl[w][0] * d[2]) * inv3;
        }
        const std::size_t o2 = static_cast<std::size_t>(j) * nx + i;
        s[c * plane + o2] = std::complex<float>(static_cast<float>(Bx), static_cast<float>(-By));
        sos[o2] += Bx * Bx + By * By;
      }
  }
  const double peak = std::sqrt(*std::max_element(sos.begin(), sos.end()));
  if (peak > 0)
    for (auto& v : s) v /= static_cast<float>(peak);
  return s;
}

std::vector<std::complex<float>> uniform_coil_sensitivities(int ncoils, int nx, int ny) {
  if (ncoils < 1 || nx < 1 || ny < 1) throw InputError("coils: ncoils >= 1 and nx, ny >= 1 required");
  return std::vector<std::complex<float>>(static_cast<std::size_t>(ncoils) * nx * ny,
                                          std::complex<float>(1.f / std::sqrt(static_cast<float>(ncoils)), 0.f));
}

std::vector<std::complex<double>> coil_noise_covariance(int ncoils, double rho) {
  if (ncoils < 1 || !(rho >= 0 && rho < 1)) throw InputError("coils: noise covariance needs ncoils >= 1 and 0 <= rho < 1");
  std::vector<std::complex<double>> psi(static_cast<std::size_t>(ncoils) * ncoils);
  for (int i = 0; i < ncoils; ++i)
    for (int j = 0; j < ncoils; ++j) psi[static_cast<std::size_t>(i) * ncoils + j] = std::pow(rho, std::abs(i - j));
  return psi;
}

void add_correlated_noise(RawData& raw, const std::vector<std::complex<double>>& psi, double sigma, int noise_samples,
                          unsigned seed) {
  const int nc = raw.ncoils;
  if (psi.size() != static_cast<std::size_t>(nc) * nc || !(sigma >= 0) || noise_samples < 0)
    throw InputError("coils: noise covariance must be ncoils x ncoils, sigma >= 0, noise_samples >= 0");
  Eigen::MatrixXcd P(nc, nc);
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) P(i, j) = psi[static_cast<std::size_t>(i) * nc + j];
  const Eigen::LLT<Eigen::MatrixXcd> llt(P);
  if (llt.info() != Eigen::Success) throw InputError("coils: noise covariance is not positive definite");
  const Eigen::MatrixXcd L = llt.matrixL();
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, std::sqrt(0.5));  // real and imaginary part: E|z|² = 1
  Eigen::VectorXcd z(nc);
  auto draw = [&] {
    for (int c = 0; c < nc; ++c) z(c) = {normal(rng), normal(rng)};
    return Eigen::VectorXcd(sigma * (L * z));
  };
  for (int line = 0; line < raw.ny; ++line) {
    if (!(raw.flags(line) & kLineAcquired)) continue;  // unacquired lines stay zero
    for (int s = 0; s < raw.nx; ++s) {
      const Eigen::VectorXcd n = draw();
      for (int c = 0; c < nc; ++c) raw.at(c, line, s) += std::complex<float>(n(c));
    }
  }
  raw.noise_samples = noise_samples;
  raw.noise.assign(static_cast<std::size_t>(nc) * noise_samples, {});
  for (int s = 0; s < noise_samples; ++s) {
    const Eigen::VectorXcd n = draw();
    for (int c = 0; c < nc; ++c) raw.noise[static_cast<std::size_t>(c) * noise_samples + s] = std::complex<float>(n(c));
  }
}

void add_receiver_noise(RawData& raw, double noise_std, double rho, unsigned seed) {
  if (noise_std == 0) return;
  add_correlated_noise(raw, coil_noise_covariance(raw.ncoils, rho), noise_std, k_receiver_noise_samples, seed);
}

RawData multicoil_raw(const std::vector<std::complex<float>>& image, const std::vector<std::complex<float>>& sens,
                      int ncoils, int nx, int ny, double fov_x_m, double fov_y_m) {
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  if (image.size() != plane || sens.size() != plane * ncoils)
    throw InputError("coils: image must hold nx*ny and sensitivities ncoils*nx*ny samples");
  RawData raw;
  raw.nx = nx;
  raw.ny = ny;
  raw.ncoils = ncoils;
  raw.fov_x_m = fov_x_m;
  raw.fov_y_m = fov_y_m;
  raw.kspace.resize(plane * ncoils);
  std::vector<std::complex<float>> coil(plane);
  for (int c = 0; c < ncoils; ++c) {
    for (std::size_t i = 0; i < plane; ++i) coil[i] = sens[c * plane + i] * image[i];
    const auto k = centred_fft2(coil.data(), nx, ny);
    std::copy(k.begin(), k.end(), raw.kspace.begin() + c * plane);
  }
  raw.line_flags.assign(ny, static_cast<std::uint8_t>(kLineAcquired | kLineImaging));
  return raw;
}

}  // namespace mrwb
