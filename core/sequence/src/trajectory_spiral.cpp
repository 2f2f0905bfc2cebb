// Variable-density spirals designed on the gradient raster within |G| <= gmax and |dG/dt| <= smax, and a
// stack of them for 3-D. k(theta) = kmax (theta/theta_max)^alpha e^{i theta}; theta_max puts the spacing
// between turns at the edge at Nyquist (1 cycle/FOV per interleave set).
#include <algorithm>
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb::noncart {
namespace {

constexpr double kGammaBar = 42.577478518e6;  // Hz/T

// |k'(theta)| and |k''(theta)| of r(theta) e^{i theta}.
void derivatives(double kmax, double theta_max, double alpha, double th, double& d1, double& d2) {
  const double s = std::max(th, 1e-9) / theta_max;
  const double r = kmax * std::pow(s, alpha);
  const double r1 = kmax * alpha * std::pow(s, alpha - 1) / theta_max;
  const double r2 = kmax * alpha * (alpha - 1) * std::pow(s, alpha - 2) / (theta_max * theta_max);
  d1 = std::hypot(r1, r);
  d2 = std::hypot(r2 - r, 2 * r1);
}

}  // namespace

Trajectory spiral_2d(int n, int interleaves, double alpha, const SpiralLimits& lim) {
  if (n < 4 || interleaves < 1 || alpha < 1 || alpha > 4)
    throw InputError("spiral: need n >= 4, interleaves >= 1, alpha in 1 .. 4");
  const double kmax = n / 2.0;
  const double theta_max = 2 * M_PI * alpha * kmax / interleaves;
  // Limits in cycles/FOV per second (and per second^2).
  const double gk = kGammaBar * lim.gmax_T_per_m * lim.fov_m;
  const double sk = kGammaBar * lim.smax_T_per_m_s * lim.fov_m;
  const int sub = 20;  // integration sub-steps per raster interval
  const double h = lim.dt_s / sub;
  std::vector<double> thetas{0.0};
  double th = 0, thd = 0;
  for (long step = 0; step < 50'000'000; ++step) {
    double d1, d2;
    derivatives(kmax, theta_max, alpha, th, d1, d2);
    // Slew d2k/dt2 = k'' thd^2 + k' thdd: the centripetal part alone caps thd at 0.96 sqrt(sk / |k''|)
    // (92% of sk); the rest of the budget (up to 0.95 sk) accelerates along k', treated as orthogonal,
    // which holds for a spiral beyond its first turn. The gradient caps thd at gk / |k'|.
    const double centripetal = d2 * thd * thd;
    // (0.90 sk², not 0.95: in the first turn, where they are not orthogonal, 0.95 gave 153 T/m/s of 150 on
    // the raster; 0.90 keeps the sampled slew below the limit, Pulseq export checks it.)
    const double thdd = std::sqrt(std::max(0.0, 0.90 * sk * sk - centripetal * centripetal)) / d1;
    thd = std::min({thd + thdd * h, gk / d1, 0.96 * std::sqrt(sk / d2)});
    th += thd * h;
    if (th >= theta_max) break;  // the overshooting sample is dropped (clamping it would spike the slew)
    if ((step + 1) % sub == 0) thetas.push_back(th);
  }
  Trajectory t;
  t.dims = 2;
  t.readouts = interleaves;
  t.samples = static_cast<int>(thetas.size());
  t.k.resize(t.count() * 2);
  for (int il = 0; il < interleaves; ++il) {
    const double rot = 2 * M_PI * il / interleaves;
    for (int j = 0; j < t.samples; ++j) {
      const double thj = std::min(thetas[j], theta_max);
      const double r = std::min(kmax * std::pow(thj / theta_max, alpha), kmax * (1 - 1e-6));
      const std::size_t i = (static_cast<std::size_t>(il) * t.samples + j) * 2;
      t.k[i] = static_cast<float>(r * std::cos(thj + rot));
      t.k[i + 1] = static_cast<float>(r * std::sin(thj + rot));
    }
  }
  return t;
}

std::vector<double> spiral_gradient(const Trajectory& t, const SpiralLimits& lim, std::vector<double>* slew) {
  // G = dk/dt / (gammabar FOV) per axis; returns |G| per raster interval; slew |dG/dt| between them.
  std::vector<double> g;
  std::vector<double> gx, gy;
  const double scale = 1.0 / (kGammaBar * lim.fov_m * lim.dt_s);
  for (int j = 0; j + 1 < t.samples; ++j) {
    gx.push_back((t.k[(j + 1) * t.dims] - t.k[j * t.dims]) * scale);
    gy.push_back((t.k[(j + 1) * t.dims + 1] - t.k[j * t.dims + 1]) * scale);
    g.push_back(std::hypot(gx.back(), gy.back()));
  }
  if (slew) {
    slew->clear();
    for (std::size_t j = 0; j + 1 < gx.size(); ++j)
      slew->push_back(std::hypot(gx[j + 1] - gx[j], gy[j + 1] - gy[j]) / lim.dt_s);
  }
  return g;
}

Trajectory stack_of_spirals(int n, int nz, int interleaves, double alpha, const SpiralLimits& lim) {
  if (nz < 1) throw InputError("stack of spirals: need nz >= 1");
  const Trajectory s = spiral_2d(n, interleaves, alpha, lim);
  Trajectory t;
  t.dims = 3;
  t.readouts = s.readouts * nz;
  t.samples = s.samples;
  t.k.resize(t.count() * 3);
  for (int z = 0; z < nz; ++z)
    for (std::size_t i = 0; i < s.count(); ++i) {
      const std::size_t o = (static_cast<std::size_t>(z) * s.count() + i) * 3;
      t.k[o] = s.k[i * 2];
      t.k[o + 1] = s.k[i * 2 + 1];
      t.k[o + 2] = static_cast<float>(z - nz / 2);
    }
  return t;
}

std::vector<float> stone2008_points(int n) {
  const Trajectory t = stack_of_spirals(n, n, 3, 2.0, SpiralLimits{});
  const std::size_t M = static_cast<std::size_t>(std::llround(284592.0 * n * n * n / (128.0 * 128 * 128)));
  std::vector<float> k;
  k.reserve(3 * M);
  for (std::size_t i = 0; i < M; ++i) {
    const std::size_t j = i * t.count() / M;
    k.insert(k.end(), {t.k[j * 3], t.k[j * 3 + 1], t.k[j * 3 + 2]});
  }
  return k;
}

}  // namespace mrwb::noncart
