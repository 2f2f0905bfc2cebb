// Radial trajectories: 2-D (uniform and golden-angle) and 3-D (golden means), BART convention.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb::noncart {

namespace {
// Diameters through the centre along unit directions: `samples` points from -n/2 to n/2 (exclusive end).
Trajectory spokes(const char* what, int n, int dims, const std::vector<std::array<double, 3>>& dirs, int samples) {
  if (n < 2 || dirs.empty() || samples < 2)
    throw InputError(std::string(what) + ": need n >= 2, spokes >= 1, samples >= 2");
  Trajectory t;
  t.dims = dims;
  t.readouts = static_cast<int>(dirs.size());
  t.samples = samples;
  t.k.resize(t.count() * dims);
  for (int s = 0; s < t.readouts; ++s)
    for (int j = 0; j < samples; ++j) {
      const double r = -n / 2.0 + static_cast<double>(j) * n / samples;
      const std::size_t i = (static_cast<std::size_t>(s) * samples + j) * dims;
      for (int d = 0; d < dims; ++d) t.k[i + d] = static_cast<float>(r * dirs[s][d]);
    }
  return t;
}
}  // namespace

Trajectory radial_2d(int n, int spokes_count, int samples, bool golden_angle) {
  const double golden = M_PI * (std::sqrt(5.0) - 1.0) / 2.0;  // 111.246° as a fraction of pi
  std::vector<std::array<double, 3>> dirs(std::max(spokes_count, 0));
  for (int s = 0; s < spokes_count; ++s) {
    const double theta = golden_angle ? std::fmod(s * golden, M_PI) : M_PI * s / spokes_count;
    dirs[s] = {std::cos(theta), std::sin(theta), 0};
  }
  return spokes("radial trajectory", n, 2, dirs, samples);
}

Trajectory radial_3d(int n, int spokes_count, int samples) {
  constexpr double phi1 = 0.465571231876768, phi2 = 0.682327803828019;  // 2-D golden means (Chan 2009)
  std::vector<std::array<double, 3>> dirs(std::max(spokes_count, 0));
  for (int s = 0; s < spokes_count; ++s) {
    const double cos_polar = std::fmod(s * phi1, 1.0), azimuth = 2 * M_PI * std::fmod(s * phi2, 1.0);
    const double sin_polar = std::sqrt(std::max(0.0, 1 - cos_polar * cos_polar));
    dirs[s] = {sin_polar * std::cos(azimuth), sin_polar * std::sin(azimuth), cos_polar};
  }
  return spokes("3-D radial trajectory", n, 3, dirs, samples);
}

int radial_3d_nyquist_spokes(int n) { return static_cast<int>(std::ceil(M_PI / 2 * n * n)); }

}  // namespace mrwb::noncart
