// 2-D radial trajectories (uniform and golden-angle), BART convention.
#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb/trajectory.hpp"

namespace mrwb::noncart {

Trajectory radial_2d(int n, int spokes, int samples, bool golden_angle) {
  if (n < 2 || spokes < 1 || samples < 2) throw InputError("radial trajectory: need n >= 2, spokes >= 1, samples >= 2");
  Trajectory t;
  t.dims = 2;
  t.readouts = spokes;
  t.samples = samples;
  t.k.resize(t.count() * 2);
  const double golden = M_PI * (std::sqrt(5.0) - 1.0) / 2.0;  // 111.246° as a fraction of pi
  for (int s = 0; s < spokes; ++s) {
    const double theta = golden_angle ? std::fmod(s * golden, M_PI) : M_PI * s / spokes;
    for (int j = 0; j < samples; ++j) {
      const double r = -n / 2.0 + static_cast<double>(j) * n / samples;  // -n/2 .. n/2 (exclusive)
      const std::size_t i = (static_cast<std::size_t>(s) * samples + j) * 2;
      t.k[i] = static_cast<float>(r * std::cos(theta));
      t.k[i + 1] = static_cast<float>(r * std::sin(theta));
    }
  }
  return t;
}

}  // namespace mrwb::noncart
