#pragma once
// A scenario's sequence in the block model: for Pulseq export (`mrwb sequence --scenario`), for the GUI's
// sequence diagram and k-space view, and as the simulator's program for the types it plays through the
// block model (bssfp, tof).
#include <string>

#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_spec.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb::seq {

// Builder parameters of a scenario's sequence: FOV, matrix, TE, TR, flip angle (spin echo: 90°),
// bandwidth, dummy scans, acceleration R, ACS lines, flow compensation.
CartesianParams cartesian_params(const SequenceSpec& spec);
// The scenario's sequence as blocks, with R and ACS (labels LIN, REF, IMA). Throws InputError naming
// `source` and the field (TE below the minimum, ...). Radial / spiral trajectories: spoiled GRE
// (build_noncart_gre_blocks) playing the simulator's readouts. The one place the minimum TE / TR of a
// scenario is decided: validate_scenario (mrwb simulate) and mrwb sequence both build through it.
BuiltSequence scenario_blocks(const SequenceSpec& spec, const std::string& source = "sequence");
// The same within other hardware limits (mrwb sequence --max-grad / --max-slew).
BuiltSequence scenario_blocks(const SequenceSpec& spec, const std::string& source, const SystemLimits& sys);
// Minimum TE / TR and every check of scenario_blocks; radial / spiral without assembling the blocks
// (seq empty), for validate_scenario.
BuiltSequence scenario_timing(const SequenceSpec& spec, const std::string& source);
// The hardware the scenario's sequence is designed for: the defaults, or the spiral design's
// (noncart_system_limits).
SystemLimits scenario_system_limits(const SequenceSpec& spec);

}  // namespace mrwb::seq

namespace mrwb {

// A Cartesian scenario sequence (spoiled_gre, spin_echo, bssfp, tof) as the simulator's program: the
// blocks of scenario_blocks' builders converted by to_sequence_program, so the simulation plays the
// sequence that the diagram shows and the Pulseq file holds. Spoiled GE and spin echo: hard RF and ideal
// spoiling; bSSFP: shaped RF, RF phase followed (its 0/180° alternation: samples come out demodulated);
// tof: shaped RF and ideal spoiling. Lines and flags come from the labels, ny = matrix. InputError for
// phase_contrast (one program per encoding: simulate_phase_contrast) and for parameters the builder refuses.
SequenceProgram build_sequence_program(const SequenceSpec& spec);
// The fidelity build_sequence_program plays `spec` with: sequence.fidelity with "auto" resolved (hard RF for
// spoiled GE and spin echo, shaped for bSSFP and TOF) and bSSFP unspoiled; and as one line for the user,
// e.g. "hard RF, gradient moments, ideal spoiling".
SequenceFidelity played_fidelity(const SequenceSpec& spec);
std::string played_fidelity_text(const SequenceSpec& spec);

}  // namespace mrwb

