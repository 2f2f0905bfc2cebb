#pragma once
// Where a program's gradient moments dephase the magnetization within each cell: the shifts of the
// configuration states a cell holds when a program is played with cell states (spoiling "states";
// docs/intravoxel.md), planned once per run from the program and the cell's extent.
//
// The moments are split in two (the design of docs/intravoxel.md). Every moment still turns each cell by its
// phase at the cell's centre (the gradient frame, as with one magnetization per cell). The moments played
// between consecutive shift points (the centres of RF pulses, and readouts at their middle sample) are
// measured in cycles per cell; those of at least one cycle dephase within the cell. One axis of them (the
// largest) sets the state direction: its moments are whole multiples n of one order, the largest order that
// divides them all (so a spoiled GE's spoiler per TR is order 1, as in Weigel 2015), and n is the shift of
// the states there. Another dephasing axis joins the direction when its moments are the same multiples of its
// own order; otherwise it stays in the frame alone (named in the summary). A cell's signal is its order-0
// state; the others average to zero over the cell exactly when an order is a whole number of cycles per cell
// on some axis of the direction. The states diffuse with the cell's ADC along the direction's axes only: an
// axis that stays in the frame dephases the cell without diffusing it.
#include <cstddef>
#include <string>
#include <vector>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

class SimulationEngine;

struct CellStatePlan {
  bool active = false;  // some event shifts the states (else one magnetization per cell is exact)
  int states = 1;       // N: orders 0 .. N-1 of F+, F-, Z kept per cell
  // One order's moment along x, y, z in cycles per cell (0: the axis is not in the state direction).
  double order_cycles_per_cell[3] = {0, 0, 0};
  // The same as a wave vector, 2 pi (cycles per cell) / (the cell's extent) along each axis [rad/m]: the dk of
  // the states' diffusion (epg::cell::diffuse).
  double order_rad_per_m[3] = {0, 0, 0};
  bool diffusion = false;  // some cell of the phantom has an ADC > 0: the states diffuse (along the direction)
  bool centres_marked = false;  // the program marks its RF centres (else every Rf event is a shift point)
  std::vector<int> shift_before;  // per event of the program: the states' shift right before it (0: none)
  int shift_total = 0;            // sum of |shift|: the highest order the program can reach
  // Largest moment a shift left off the order grid, cycles per cell of the direction's main axis (0 when one
  // order divides every moment).
  double off_grid_cycles = 0;
  std::string frame_only_axes;  // dephasing axes whose moments are not on the state direction
  bool capped = false;          // N was cut to the cap (the truncation bound then reports the loss)
  std::size_t bytes_per_cell() const { return std::size_t{4} * static_cast<std::size_t>(6 * states - 3); }
  // "cell states: 51 orders (1212 B per cell), one order 2.5 cycles per cell along x and 6 along z; diffusion
  // included" (or "; x in the frame only, not diffused; diffusion included"; "; no diffusion (ADC 0)").
  std::string summary() const;
};

// The sample of a readout at which its shift point lies (its echo: the truth's sample, else the middle one).
inline int shift_sample(const SeqEvent& readout) {
  return readout.truth_sample >= 0 ? readout.truth_sample : readout.n_samples / 2;
}

// The plan for `program` on `phantom`'s cells: N from the longest T2 of the phantom and the time per order,
// at most `max_states`, so that a dephased state has decayed by 1e-5 before it leaves the graph.
CellStatePlan plan_cell_states(const SequenceProgram& program, const CellPhantom& phantom, int max_states = 256);

// Refuses (InputError) a program played with cell states on an engine that does not carry them (every
// engine but the CPU engine's still path, for now).
void check_engine_plays_cell_states(const SimulationEngine& engine, const SequenceProgram& program);

}  // namespace mrwb
