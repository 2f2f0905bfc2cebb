#pragma once
// The design of a scenario's non-Cartesian spoiled GE: the readouts of a radial, golden-angle radial or
// spiral Trajectory (trajectory.hpp, cycles/FOV) that build_noncart_gre_blocks (sequence_noncart_blocks.hpp)
// plays with gradients, and the scenario checks of its fields.
#include <string>

#include "mrwb/sequence/sequence_spec.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb {

// The scenario's trajectory, readouts in acquisition order:
//  radial / golden_radial: `spokes` (0: ceil(pi/2 · matrix)) of `matrix` samples from -matrix/2, dwell
//    1 / (bandwidth_Hz_per_pixel · matrix) as the Cartesian readout, the spoke centre (sample matrix/2) at TE;
//  spiral: Archimedean spiral-out, `interleaves` (0: 16), designed on a 4 us raster (= ADC dwell) within
//    40 mT/m and 150 T/m/s (or sequence.max_grad_mT_per_m / max_slew_T_per_m_per_s) for fov_m, k = 0 (sample 0) at TE. Each design is at Nyquist (the turn spacing
//    at the edge is interleaves cycles/FOV), so the sample count barely changes with `interleaves`;
//    `design_interleaves` > interleaves keeps the readout of that design and acquires only `interleaves`
//    rotations of it: angular undersampling by design_interleaves / interleaves;
//  stack_of_spirals: that spiral at `matrix` partitions kz = -matrix/2 .. matrix/2 - 1 cycles/FOV (cubic
//    FOV), the partition encode played by the prephaser (SeqEvent::dk_z).
noncart::Trajectory noncart_trajectory(const SequenceSpec& seq);
// ADC dwell of that trajectory's readouts [s].
double noncart_dwell_s(const SequenceSpec& seq);
// Index of the k = 0 sample of each readout (played at TE).
int noncart_echo_sample(const SequenceSpec& seq);

// Scenario checks for a non-Cartesian trajectory (one-line InputError naming the field): type spoiled_gre,
// no acceleration / ACS, spokes 0..4096, interleaves 0..256,
// design_interleaves 0 or interleaves..256 (spiral only). (TE and TR against the minima of the blocks:
// scenario_timing; recon.method gridding | cg: validate_scenario.)
void validate_noncart_sequence(const SequenceSpec& seq, const std::string& source);

}  // namespace mrwb
