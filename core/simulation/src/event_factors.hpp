#pragma once
// Per-cell factors of the Bloch operator for one interval of one event (CPU engines): the precession
// rotation (cos, sin) and the relaxation factors 1 − E1 and E2.
#include <complex>
#include <cstddef>
#include <vector>

#include "mrwb/phantom/phantom.hpp"

namespace mrwb {

struct EventFactors {
  std::vector<float> c, s, omE1, E2;  // per cell of [begin, end)
  std::vector<std::complex<double>> col, row, plane;  // scratch: separable gradient phase per axis
};

// Interval dt_s with gradient moment (dk_x, dk_y, dk_z) [cycles/m] over it, for cells [begin, end).
// Relaxation depends only on (dt, T1, T2) and is recomputed only where the tissue changes; the gradient
// phase exp(−i 2π (dkx·x + dky·y + dkz·z)) is separable (nx + ny + nz sin/cos per event, not one per
// cell); off-resonance adds a per-cell factor where dB != 0. Angles are reduced to a fraction of a turn
// first.
void compute_event_factors(const CellPhantom& ph, double dt_s, double dk_x, double dk_y, double dk_z,
                           std::size_t begin, std::size_t end, EventFactors& f);

}  // namespace mrwb
