#pragma once
// The Courant rule of moving phantoms: how long a time step may be so that no magnetization crosses more
// than one cell per step, and how many steps a program takes under it. Both engines and the bench follow it.
#include <algorithm>
#include <cmath>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

// True when some fluid cell has a non-zero velocity (ux, uy or uz) and the phantom has a flow time step.
bool phantom_moves(const CellPhantom& phantom);
// Largest |ux| + |uy| + |uz| over fluid cells: both engines sub-step so that this times dt/flow_dt <= 1.
double max_courant_speed(const CellPhantom& phantom);
// Longest step keeping the Courant number <= 1 [s] (0: nothing moves, no limit), and the number of
// equal sub-steps an interval dt_s takes under it: the one rule both engines (and the bench) follow.
inline double courant_dt_s(const CellPhantom& phantom) {
  const double u = phantom.flow_dt_s > 0 ? max_courant_speed(phantom) : 0.0;
  return u > 0 ? phantom.flow_dt_s / u : 0.0;
}
inline int courant_substeps(double dt_s, double courant_dt) {
  return courant_dt > 0 ? std::max(1, static_cast<int>(std::ceil(dt_s / courant_dt - 1e-9))) : 1;
}
// Time steps the time-stepped path takes for `program` (sub-steps of every Free interval and every ADC
// sample).
long time_step_count(const CellPhantom& phantom, const SequenceProgram& program);

}  // namespace mrwb
