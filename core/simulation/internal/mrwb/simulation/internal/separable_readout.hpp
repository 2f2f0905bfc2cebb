#pragma once
// Separable readout of cells that obey the Bloch operator alone (stationary tissue). During a
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

#include "mrwb/simulation/bloch_cell_ops.hpp"

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

// cos and sin of 2π·turns: the angle reduced to a fraction of a turn in double (exact for large
// arguments), then sine and cosine in float (double transcendentals per cell would bound the CUDA pass).
MRWB_HD void turn(double turns, float& c, float& s) {
  const float frac = static_cast<float>(turns - rint(turns));
#if defined(__CUDA_ARCH__)
  sincospif(2.0f * frac, &s, &c);
#else
  const double angle = 2.0 * 3.14159265358979323846 * frac;
  s = static_cast<float>(std::sin(angle));
  c = static_cast<float>(std::cos(angle));
#endif
}

// z^n = E2^n·exp(−i 2π n φ) as (re, im), the decay in float.
MRWB_HD void power(double cycles, double dt_s, float T2_s, int n, float& re, float& im) {
  const float decay = T2_s > 0.f ? expf(-static_cast<float>(n * dt_s) / T2_s) : 1.f;
  float c, s;
  turn(n * cycles, c, s);
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

// What a pass needs of a cell's tissue (T1, T2, ΔB) for one event, apart from its position: the CUDA
// engine tabulates these per (event, tissue entry) on the host when the closed-form cells hold a few
// tissues, and computes them per cell otherwise, with the same functions.
// Free interval dt: 1 − E1, E2 and the off-resonance turn exp(+i 2π γ̄ ΔB dt) as (c, s), to be
// composed with the gradient's turn before bloch::precess_relax.
struct FreeTissueFactors {
  float omE1, E2, c, s;
};
MRWB_HD FreeTissueFactors free_tissue_factors(double dt_s, float T1_s, float T2_s, float dB_T) {
  constexpr double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * 3.14159265358979323846);
  const float fdt = static_cast<float>(dt_s);
  FreeTissueFactors f{T1_s > 0.f ? -expm1f(-fdt / T1_s) : 0.f, T2_s > 0.f ? expf(-fdt / T2_s) : 1.f, 1.f, 0.f};
  if (dB_T != 0.f) turn(gamma_cycles * static_cast<double>(dB_T) * dt_s, f.c, f.s);
  return f;
}
// Readout of n dwells dt with the truth at dwell t (t < 0: none): 1 − E1^n and the tissue's part of
// z^n and z^t, E2^n·exp(−i 2π n γ̄ ΔB dt) (re, im); a cell's z^n is this times exp(−i 2π n dk_x x).
struct ReadoutTissueFactors {
  float omE1n, zn_re, zn_im, zt_re, zt_im;
};
MRWB_HD ReadoutTissueFactors readout_tissue_factors(double dt_s, int n, int t, float T1_s, float T2_s, float dB_T) {
  ReadoutTissueFactors f{T1_s > 0.f ? -expm1f(-static_cast<float>(n * dt_s) / T1_s) : 0.f, 1.f, 0.f, 1.f, 0.f};
  const double phi = dwell_cycles(0.0, 0.0, dB_T, dt_s);
  power(phi, dt_s, T2_s, n, f.zn_re, f.zn_im);
  if (t >= 0) power(phi, dt_s, T2_s, t, f.zt_re, f.zt_im);
  return f;
}

}  // namespace mrwb::separable
