#pragma once
// The step table of the time-stepped (moving) cells: a moving phantom's fluid cells are advanced in time
// steps short enough for transport (Courant number <= 1), and every step of a run is one record here,
// built once on the host and read by the CUDA engine's per-step kernel and by its CPU twin.
#include <cstdint>
#include <utility>
#include <vector>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

// One time step of the time-stepped path: every sub-step of every Free interval and ADC sample, each
// RF / spoil folded into the step after it (a zero-length step when two come in a row). Shared by the
// CUDA engine (copied to the device as is) and the CPU twin.
struct FluidStep {
  double dt_s, dk_x, dk_y, dk_z;  // interval and gradient moment of this step [s, cycles/m]
  float scale;                    // dt / flow_dt: the Courant scale of the transport
  int sample;                     // coil-0 k-space index of the state before the step (after `op`), or −1
  int truth;                      // 1: record cell Mxy of that state
  int op;                         // instantaneous operator before the step: 0 none, 1 RF, 2 spoil
  float ca, sa, cp, sp;           // RF: cos/sin of flip and phase
};

// The step table of `prog` over `ph` (sub-steps under courant_dt_s(ph)); trs_at gets (steps queued,
// TRs completed by then) at every TR boundary (tr_progress_marks). A trailing op changes no sample and
// is dropped.
std::vector<FluidStep> fluid_step_table(const CellPhantom& ph, const SequenceProgram& prog,
                                        std::vector<std::pair<long, int>>& trs_at);

}  // namespace mrwb
