#pragma once
// The step table of the time-stepped (moving) cells: a moving phantom's fluid cells are advanced in time
// steps short enough for transport (Courant number <= 1), and every step of a run is one record here,
// built once on the host and read by the CUDA engine's per-step kernel and by its CPU twin.
#include <cstdint>
#include <span>
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
  std::int16_t truth;             // 1: record cell Mxy of that state
  std::int16_t frame;             // FrameChange of `op` (gradient frame, fluid_frame_table)
  int op;                         // instantaneous operator before the step: 0 none, 1 RF, 2 spoil
  float ca, sa, cp, sp;           // RF: cos/sin of flip and phase
};

// The step table of `prog` over `ph` (sub-steps under courant_dt_s(ph)); trs_at gets (steps queued,
// TRs completed by then) at every TR boundary (tr_progress_marks). A trailing op changes no sample and
// is dropped. `rf_steps_alone`: every RF pulse gets a zero-length step of its own, so a kernel that applies
// a step's op after its transport (valid for ops that commute with it) stays exact in the gradient frame,
// whose face turns do not commute with an RF rotation.
std::vector<FluidStep> fluid_step_table(const CellPhantom& ph, const SequenceProgram& prog,
                                        std::vector<std::pair<long, int>>& trs_at, bool rf_steps_alone = false);

// How the gradient frame's k changes at an instantaneous event (docs/flow_transport.md). Any k is exact;
// the choice keeps m = M·exp(+i 2π k·x) smooth: k restarts at 0 at a spoil (Mxy = 0, so for free) and at the
// peak of a shaped excitation (its effective time: the k of the lobe before it is rewound after it), and
// changes sign at a refocusing pulse (which conjugates the transverse magnetization).
enum class FrameChange : std::int16_t { Keep = 0, Restart = 1, Conjugate = 2 };

// Per event of `prog` (Keep for Free and Readout): Spoil restarts. A run of RF events below 150° with only
// Free events between them is one shaped pulse: its largest piece restarts (an excitation) or conjugates (a refocusing
// pulse: |Σ flip·e^(i phase)| ≥ 150°), the other pieces keep. A lone RF event conjugates at a flip within
// 30° of 180°, else keeps (a hard excitation follows a spoil, where k is 0 already; bSSFP's balanced
// gradients bring k back to its value at the previous pulse).
std::vector<FrameChange> frame_changes(const SequenceProgram& prog);

// The gradient frame of one step (docs/flow_transport.md; transport_cell_ops.hpp: face_turn,
// frame_turn_by_motion): k · cell [cycles per cell] for a moving cell's turn, k's mean over the step (after
// the step's op); the turns of the transverse magnetization entering through each face (cos, sin; +x, −x,
// +y, −y, +z, −z), at the step's start.
struct FrameStep {
  float k_cell[3];
  float face_turn[12];
};

// The frame of every step of `table`, as the CPU engine follows it: the step's FrameChange, then the step
// with that k; k gains each step's moment after the step.
std::vector<FrameStep> fluid_frame_table(std::span<const FluidStep> table, double cell_size_m);

}  // namespace mrwb
