#pragma once
// A pulse sequence flattened into the timed events the simulator steps through.
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "mrwb/sequence/sequence_spec.hpp"

namespace mrwb {

enum class EventKind { Rf, Free, Readout, Spoil };

// One event. Gradient action is given as its k-space increment dk = gamma/(2 pi)·∫G dt [cycles/m], so
// the precession angle of a static cell at r is theta_G = 2 pi dk·r (exact for any gradient shape).
struct SeqEvent {
  EventKind kind = EventKind::Free;
  double flip_rad = 0, phase_rad = 0;  // Rf
  double dt_s = 0;                     // Free: whole interval; Readout: per sample (dwell)
  double dk_x = 0, dk_y = 0;           // Free: over the interval; Readout: per sample
  double dk_z = 0;                     // likewise along z (slice select, partition encoding; 3-D phantoms)
  int n_samples = 0;                   // Readout
  int line = -1;                       // Readout: destination row in the raw data
  int truth_sample = -1;               // Readout: sample at which cell Mxy is recorded as ground truth
  // Free of no length: the centre of an RF pulse, where the moments played since the last centre or readout
  // dephase the states within each cell (a program played with cell states only; docs/intravoxel.md).
  bool rf_centre = false;
};

struct SequenceProgram {
  std::vector<SeqEvent> events;
  int nx = 0, ny = 0;  // samples per readout, phase-encode lines
  double fov_m = 0;
  double TR_s = 0, TE_s = 0, flip_angle_deg = 0, dwell_s = 0;
  int readouts = 0;     // Readout events (== ny for a fully sampled Cartesian scan)
  int accel_R = 1;
  std::vector<std::uint8_t> line_flags;  // [line] LineFlag bits (raw_data.hpp); unacquired lines 0
  double duration_s = 0;
  // Played with the dephasing within each cell as configuration states (spoiling "states"): the engine plans
  // the states' shifts from the moments between RF centres and readouts (cell_state_plan.hpp).
  bool cell_states = false;
  // The extent of a cell of a 2-D slice along z (the slice thickness; 0: not known, z moments then stay in
  // the frame). 3-D grids use their cubic cells.
  double slice_thickness_m = 0;
};

// The program played on a phantom whose y and z axes are exchanged (swap_y_z, phantom.hpp): each event's y and z
// gradient moments exchanged, so every cell sees the phase it would see in the grid as given.
inline SequenceProgram swap_y_z(SequenceProgram p) {
  for (SeqEvent& e : p.events) std::swap(e.dk_y, e.dk_z);
  return p;
}

// Built from a scenario's sequence by build_sequence_program (sequence_scenario.hpp), from a Pulseq file by
// seq::to_sequence_program (sequence_blocks.hpp).

}  // namespace mrwb
