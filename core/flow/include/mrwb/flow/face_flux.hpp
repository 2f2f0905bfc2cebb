#pragma once
// The face fluxes the simulator moves magnetization with (Jurczuk et al. 2016 Eq. 1 as a conservative
// donor cell): the velocity on a face between two fluid cells is the mean of theirs, a face to the outside
// (grid edge, open vessel end) carries the cell's own, a wall none. Both simulation models take their
// motion from these faces (transport_cell_ops.hpp, lagrangian_spin_ops.hpp).
//
// A flow field that is divergence-free in the continuum is not so on these faces: a staircase wall stops
// the flux a cell's velocity points into it, the analytic per-segment Poiseuille profile of a 2-D slice
// through a narrowing pipe carries more in-plane flux through the throat than through the inlet, segments
// overlap at a junction. Each imbalance is a source or a sink in the transport of magnetization density,
// which the conservative scheme then piles up or drains (bright or dark blood that no real flow makes),
// and spins of the Lagrangian engine bunch up there alike. make_face_fluxes_divergence_free removes them.
#include <cstddef>

#include "mrwb/base/host_device.hpp"
#include "mrwb/phantom/phantom.hpp"

namespace mrwb {

// Velocity on the face between two fluid cells, from the cell below it (lower coordinate along the face's
// axis) and the cell above it: one expression whichever side asks, so the fluxes cancel exactly.
MRWB_HD float face_velocity(float u_below, float u_above) { return 0.5f * (u_below + u_above); }

struct FaceFluxReport {
  std::size_t fluid_cells = 0;
  int iterations = 0;
  // Largest net outflow of a fluid cell through its faces [cells per flow step], before and after.
  double max_divergence_before = 0, max_divergence_after = 0;
  // Largest |u| component of a fluid cell before and after, and the largest change of one [cells per flow step].
  double max_speed_before = 0, max_speed_after = 0, max_change = 0;
};

// The least change (in the sum of squares) of the fluid cells' velocities (ph.ux/uy/uz, cells per flow step)
// that makes every fluid cell's net face flux zero, holding the velocity across every face where fresh blood
// enters (so the inflow, and with it the flux through every cross-section, stays what the flow model set):
// u = u0 + Dᵀλ with D Dᵀ λ = −D u0 (D: the cells' net face flux), solved by conjugate gradients to a largest
// divergence of `tolerance` × the largest speed or `max_iterations`. Static phantoms are left as they are.
FaceFluxReport make_face_fluxes_divergence_free(CellPhantom& ph, double tolerance = 1e-5, int max_iterations = 20000);

}  // namespace mrwb
