#pragma once
// Separable readout of cells that obey the Bloch operator alone (stationary tissue; issue 6). During a
// readout whose gradient moves k along x only (dk_y = dk_z = 0 per dwell), such a cell evolves in closed
// form over n dwells (rotation convention of bloch_cell_ops.hpp: Mxy' = Mxy·exp(−iθ)):
//   Mxy(n) = Mxy(0)·z^n,  z = E2·exp(−i 2π φ),  φ = dk_x·x + γ̄·ΔB·dt   [cycles per dwell]
//   Mz(n)  = Mz(0) + (1 − E1^n)·(PD − Mz(0))
// which is exactly the composition of n single-dwell operators. z depends on the cell through (x, T2, ΔB)
// only, so for the cells of a group g sharing (T2, ΔB) the signal of coil c is
//   S_c(n) = Σ_g Σ_x z_{g,x}^n · P_{c,g}(x),   P_{c,g}(x) = Σ_{cells of g in column x} C_c(r)·Mxy_r(0):
// one memory-bound pass over the cells (build P, advance each cell over the whole readout) and
// nx × samples × coils × groups terms, instead of cells × samples × coils (a direct DFT).
// Shared by the CPU twin (separable_readout.cpp) and the CUDA kernels, like bloch_cell_ops.hpp.
#include <cmath>

#include "mrwb/bloch_cell_ops.hpp"

namespace mrwb::separable {

// Distinct (T2, ΔB) pairs a readout may be split into; more than this: the direct per-cell sum.
constexpr int k_max_readout_groups = 8;

struct ReadoutGroups {
  int count = 0;
  float T2_s[k_max_readout_groups] = {};
  float dB_T[k_max_readout_groups] = {};
};

// Index of (T2, ΔB) in the table, −1 when absent (exact float match: cells of one tissue share them).
MRWB_HD int group_of(const ReadoutGroups& g, float T2_s, float dB_T) {
  for (int k = 0; k < g.count; ++k)
    if (g.T2_s[k] == T2_s && g.dB_T[k] == dB_T) return k;
  return -1;
}

// φ: the precession of one dwell [cycles] of a cell at x with off-resonance dB.
MRWB_HD double dwell_cycles(double dk_x, double x_m, float dB_T, double dt_s) {
  constexpr double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * 3.14159265358979323846);
  return dk_x * x_m + gamma_cycles * static_cast<double>(dB_T) * dt_s;
}

// z^n = E2^n·exp(−i 2π n φ) as (re, im): the angle reduced to a fraction of a turn in double (exact
// for large n·φ), then sine, cosine and the decay in float (float results; double transcendentals per
// cell would bound the CUDA pass).
MRWB_HD void power(double cycles, double dt_s, float T2_s, int n, float& re, float& im) {
  const double turns = n * cycles;
  const float frac = static_cast<float>(turns - rint(turns));
  const float decay = T2_s > 0.f ? expf(-static_cast<float>(n * dt_s) / T2_s) : 1.f;
  float s, c;
#if defined(__CUDA_ARCH__)
  sincospif(2.0f * frac, &s, &c);
#else
  const double angle = 2.0 * 3.14159265358979323846 * frac;
  s = static_cast<float>(std::sin(angle));
  c = static_cast<float>(std::cos(angle));
#endif
  re = decay * c;
  im = -decay * s;
}

// Mxy·z^n as (Mx, My).
MRWB_HD void times(float mx, float my, float re, float im, float& out_x, float& out_y) {
  out_x = mx * re - my * im;
  out_y = mx * im + my * re;
}

// The cell after n dwells of the readout: Mxy·z^n and Mz recovered over n·dt (1 − E1^n via expm1).
MRWB_HD void advance(bloch::Mag& m, float PD, float T1_s, float T2_s, double cycles, double dt_s, int n) {
  float re, im;
  power(cycles, dt_s, T2_s, n, re, im);
  times(m.Mx, m.My, re, im, m.Mx, m.My);
  const float one_minus_E1n = T1_s > 0.f ? -expm1f(-static_cast<float>(n * dt_s) / T1_s) : 0.f;
  m.Mz = m.Mz + one_minus_E1n * (PD - m.Mz);
}

}  // namespace mrwb::separable
