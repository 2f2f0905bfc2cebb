#pragma once
// The events before a separable readout (RF, spoiling, Free intervals) of one tissue composed into
// affine maps of M = (Mx, My, Mz), split at the Free intervals with a gradient: those turn Mxy by
// exp(−i 2π dk·r), which depends on the cell's position. For a cell at r,
//   M_after = S_k(G_k(... G_1(S_0(M))))
// with S_j the composed maps and G_j the j-th gradient turn (bloch_cell_ops.hpp convention). The CUDA
// engine's separable pass plays a spoiled GE's pre-readout events (spoil, Free, RF, Free) as two maps and
// one turn per cell instead of four events (tissue factors, branches, event loads) per cell. Each map is
// composed with the same float operators a cell plays (bloch_cell_ops.hpp), applied to the origin and
// the unit vectors, so the two agree to float rounding.
#include <span>
#include <vector>

#include "mrwb/phantom/tissue_table.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"

namespace mrwb::separable {

// M' = A·M + b, stored as rows (A_r0, A_r1, A_r2, b_r): three 16-byte rows a kernel loads as float4.
struct alignas(16) AffineMap {
  float row[3][4];
};

MRWB_HD void apply(const AffineMap& f, bloch::Mag& m) {
  const float x = m.Mx, y = m.My, z = m.Mz;
  m.Mx = f.row[0][0] * x + f.row[0][1] * y + f.row[0][2] * z + f.row[0][3];
  m.My = f.row[1][0] * x + f.row[1][1] * y + f.row[1][2] * z + f.row[1][3];
  m.Mz = f.row[2][0] * x + f.row[2][1] * y + f.row[2][2] * z + f.row[2][3];
}

// Turns Mxy by the gradient's exp(−i θ), (c, s) = (cos θ, sin θ); Mz unchanged.
MRWB_HD void gradient_turn(bloch::Mag& m, float c, float s) {
  const float x = m.Mx, y = m.My;
  m.Mx = x * c + y * s;
  m.My = -x * s + y * c;
}

// A Free interval whose gradient moment is not zero: its turn depends on the cell's position.
bool has_gradient(const SeqEvent& e);

// The events (no readout among them) composed for tissue t = (PD, T1, T2, ΔB): one map more than the
// events have gradient intervals. A gradient interval's relaxation and off-resonance belong to the map
// before its turn (they commute with it).
std::vector<AffineMap> compose_pass(std::span<const SeqEvent> events, const TissueValue& t);

}  // namespace mrwb::separable
