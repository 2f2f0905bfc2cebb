#pragma once
// Non-Cartesian trajectories in BART's convention: k [readout][sample][dims] in cycles per FOV.
#include <vector>

namespace mrwb::noncart {

struct Trajectory {
  int dims = 2;
  int readouts = 0, samples = 0;  // per readout
  std::vector<float> k;           // [readouts][samples][dims]
  std::size_t count() const { return static_cast<std::size_t>(readouts) * samples; }
};

// 2-D radial spokes through the centre, `samples` points from -n/2 to n/2 (exclusive end), angles uniform
// over [0, pi) or golden-angle (111.246...°) increments.
Trajectory radial_2d(int n, int spokes, int samples, bool golden_angle);
// 3-D radial (kooshball): `spokes` diameters through the centre, `samples` points from -n/2 to n/2
// (exclusive end) along each, directions on the upper hemisphere by the 2-D golden means (Chan et al.,
// MRM 2009: cos(polar) = frac(m·0.4656), azimuth = 2pi·frac(m·0.6823)), so any leading subset of spokes
// covers the sphere nearly uniformly (Stone et al. 2008's 128³ case).
Trajectory radial_3d(int n, int spokes, int samples);
// Nyquist spoke count of radial_3d for an n³ image: the 2·spokes ends on the sphere |k| = n/2 (area pi·n²)
// at most 1 apart, ceil(pi/2 · n²).
int radial_3d_nyquist_spokes(int n);

struct SpiralLimits {
  double fov_m = 0.24;
  double gmax_T_per_m = 0.040;      // gradient amplitude limit
  double smax_T_per_m_s = 150.0;    // slew-rate limit
  double dt_s = 4e-6;               // gradient raster = ADC dwell
};
// Variable-density spiral: k(theta) = kmax (theta/theta_max)^alpha e^{i theta} per interleave (alpha = 1:
// Archimedean, uniform density; alpha > 1 denser centre), time-optimal within gmax and smax (numerical
// design on the raster). Stops at |k| = n/2.
Trajectory spiral_2d(int n, int interleaves, double alpha, const SpiralLimits& lim);
// Gradient waveform [T/m] of interleave 0 (finite differences of k) for limit checks.
std::vector<double> spiral_gradient(const Trajectory& t, const SpiralLimits& lim, std::vector<double>* slew);

// Stack of spirals: the 2-D spiral repeated at partitions kz = -nz/2 .. nz/2 - 1 (cycles/FOV).
Trajectory stack_of_spirals(int n, int nz, int interleaves, double alpha, const SpiralLimits& lim);

// Stone et al. 2008's sampling ratio on an n^3 matrix (284,592 samples for 128^3, 13.6 % of the voxel
// count; its trajectory is not given): the stack of n 3-interleave variable-density spirals (alpha 2,
// default limits) decimated uniformly to round(284592 n^3 / 128^3) points, k [M][3] cycles/FOV.
std::vector<float> stone2008_points(int n);

}  // namespace mrwb::noncart
