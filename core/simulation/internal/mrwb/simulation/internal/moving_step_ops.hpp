#pragma once
// Per-cell operators of one time step of a moving cell (moving_step_table.hpp), shared verbatim by the
// CUDA engine's step kernel and its CPU twin, like bloch_cell_ops.hpp:
//  - apply_op: the step's RF or spoiling;
//  - fluid_bloch: E_relax · Rz(θ_G + θ_IH) of one step, the angle reduced to a fraction of a turn in
//    double, its sine and cosine and the relaxation factors in float, from the relaxation rates
//    R1 = 1/T1, R2 = 1/T2 (0 where T = 0: no relaxation), so a step multiplies instead of dividing.
#include <cmath>
#include <cstdint>

#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb::fluid {

// Applies a step's instantaneous operator (RF or spoiling) to m.
MRWB_HD void apply_op(const FluidStep& S, bloch::Mag& m) {
  if (S.op == 1) bloch::rf_rotate(m, S.ca, S.sa, S.cp, S.sp);
  if (S.op == 2) bloch::spoil(m);
}

// e^x − 1 for the relaxation of one step (x = −dt/T1, tiny): four Taylor terms where |x| < 2^−7 (relative
// error < x^4/120 < 4e-11, below float rounding), expm1f elsewhere. Cheaper than expm1f on the device,
// where the step kernel is bound by its instruction count.
MRWB_HD float expm1_step(float x) {
  if (x > -0.0078125f && x < 0.0078125f) return x * (1.f + x * (0.5f + x * (1.f / 6.f + x * (1.f / 24.f))));
  return expm1f(x);
}

// The gradient frame's turn of a moving cell over one step, exp(+i 2π k·u·scale) (transport_cell_ops.hpp:
// frame_turn_by_motion), k·cell and the velocity [cells per flow step] in float: cos in *c, sin in *s.
MRWB_HD void frame_motion_turn(const FrameStep& F, float ux, float uy, float uz, float scale, float* c, float* s) {
  const float cycles = (F.k_cell[0] * ux + F.k_cell[1] * uy + F.k_cell[2] * uz) * scale;
  bloch::turn_fraction(cycles - rintf(cycles), *c, *s);
}

// 1/T [1/s], 0 for T = 0 (the tissue tables' "no relaxation").
MRWB_HD float relaxation_rate(float T_s) { return T_s > 0.f ? 1.f / T_s : 0.f; }

// One step's Bloch operator for a cell at (x, y, z) [m] with tissue (PD, R1 = 1/T1, R2 = 1/T2, ΔB).
MRWB_HD void fluid_bloch(bloch::Mag& m, float pd, float R1_per_s, float R2_per_s, float dB, double x_m, double y_m,
                         double z_m, const FluidStep& S) {
  constexpr double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * 3.14159265358979323846);
  const double cycles = S.dk_x * x_m + S.dk_y * y_m + S.dk_z * z_m + gamma_cycles * static_cast<double>(dB) * S.dt_s;
  const float frac = static_cast<float>(cycles - rint(cycles));
  float sn, cs;
  bloch::turn_fraction(frac, cs, sn);
  const float fdt = static_cast<float>(S.dt_s);
  const float omE1 = -expm1_step(-fdt * R1_per_s);
  const float E2 = expf(-fdt * R2_per_s);
  bloch::precess_relax(m, pd, omE1, E2, cs, sn);
}

}  // namespace mrwb::fluid
