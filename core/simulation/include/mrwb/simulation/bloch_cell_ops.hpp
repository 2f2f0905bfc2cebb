#pragma once
// Per-cell Bloch operators of Jurczuk et al. 2016 Eq. 5, shared verbatim by the CPU engine (core) and the CUDA
// kernels (gpu), so the two backends are twins by construction and tests compare their results.
//
//   A_MRI(dt) = E_relax(dt) · Rz(theta_G) · Rz(theta_IH) · R_RF
//
// Convention used everywhere (Eq. 7 of Jurczuk et al. 2016): Rz(theta) = [[cos, sin, 0], [-sin, cos, 0], [0, 0, 1]],
// i.e. Mxy' = Mxy · exp(-i·theta) with Mxy = Mx + i·My and theta = gamma·(G·r + dB)·dt. Hence the
// signal of a static object is S(k) = sum_r Mxy(r) exp(-i 2 pi k·r): the image is its inverse DFT.
// RF: a clockwise rotation by the flip angle alpha about the axis (cos phi, sin phi, 0); with phi = 0,
// M0·z goes to M0·sin(alpha)·y.
// Relaxation (corrected Eq. 6): Mxy' = E2·Mxy, Mz' = E1·Mz + PD·(1 − E1), E1 = exp(-dt/T1), E2 = exp(-dt/T2).
// The recovery is evaluated as Mz' = Mz + (1 − E1)·(PD − Mz) with (1 − E1) = −expm1(−dt/T1) passed in:
// for a dwell of ~10 µs, E1 rounded to float keeps only ~0.3 % of (1 − E1), a systematic bias.

#include <cmath>

#include "mrwb/base/host_device.hpp"

namespace mrwb::bloch {

struct Mag {
  float Mx, My, Mz;
};

// Gyromagnetic ratio of 1H [rad/s/T].
constexpr double gamma_rad_per_s_T = 2.6752218744e8;

// Hard pulse: clockwise rotation by alpha about (cos phi, sin phi, 0); Rodrigues with angle -alpha.
MRWB_HD void rf_rotate(Mag& m, float cos_alpha, float sin_alpha, float cos_phi, float sin_phi) {
  const float nx = cos_phi, ny = sin_phi;
  const float ndotm = nx * m.Mx + ny * m.My;
  // n × m with n = (nx, ny, 0)
  const float cx = ny * m.Mz;
  const float cy = -nx * m.Mz;
  const float cz = nx * m.My - ny * m.Mx;
  const float s = -sin_alpha;  // sin(-alpha)
  const float one_minus_c = 1.0f - cos_alpha;
  Mag r;
  r.Mx = m.Mx * cos_alpha + cx * s + nx * ndotm * one_minus_c;
  r.My = m.My * cos_alpha + cy * s + ny * ndotm * one_minus_c;
  r.Mz = m.Mz * cos_alpha + cz * s;
  m = r;
}

// Free precession + relaxation over one interval: E_relax · Rz(theta), theta = theta_G + theta_IH.
MRWB_HD void precess_relax(Mag& m, float PD, float one_minus_E1, float E2, float cos_theta, float sin_theta) {
  const float mx = m.Mx * cos_theta + m.My * sin_theta;
  const float my = -m.Mx * sin_theta + m.My * cos_theta;
  m.Mx = E2 * mx;
  m.My = E2 * my;
  m.Mz = m.Mz + one_minus_E1 * (PD - m.Mz);
}

// Cosine and sine of a turn by `frac` of a full turn, |frac| <= 0.5 (callers reduce the phase in cycles
// first). On the device the special-function units' __sincosf, whose absolute error is ~5e-7 for
// |angle| <= pi (a software sincospif costs ~40 instructions more per call); on the host sin and cos in double.
MRWB_HD void turn_fraction(float frac, float& cos_turn, float& sin_turn) {
#if defined(__CUDA_ARCH__)
  __sincosf(6.28318530717958647692f * frac, &sin_turn, &cos_turn);
#else
  const double angle = 6.28318530717958647692 * static_cast<double>(frac);
  cos_turn = static_cast<float>(std::cos(angle));
  sin_turn = static_cast<float>(std::sin(angle));
#endif
}

// Ideal spoiling (Jurczuk et al. 2016): transverse magnetization destroyed after each readout.
MRWB_HD void spoil(Mag& m) {
  m.Mx = 0.0f;
  m.My = 0.0f;
}

}  // namespace mrwb::bloch
