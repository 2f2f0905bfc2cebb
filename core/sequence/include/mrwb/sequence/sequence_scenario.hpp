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

// How the simulator plays a scenario's blocks: sequence.fidelity with "auto" resolved (RF: hard for spoiled
// GE of any trajectory, spin echo and phase contrast; shaped for bSSFP, time of flight and multi-slice / 3-D
// slabs. Gradients: waveform pieces for phase contrast, moments otherwise) and bSSFP unspoiled; and as one
// line for the user, e.g. "hard RF, gradient moments, ideal spoiling".
SequenceFidelity played_fidelity(const SequenceSpec& spec);
std::string played_fidelity_text(const SequenceSpec& spec);
// played_fidelity as conversion options: shaped RF in 100 us steps (multi-slice: finer, so that the
// hard-pulse steps' repeated profile lies beyond the stack), gradient pieces of 20 us, ideal spoiling, and
// the RF phase followed where it changes with an ADC that follows it (bSSFP's alternation, slice offsets,
// RF spoiling played as designed), so that samples come out demodulated.
seq::ConversionOptions scenario_conversion(const SequenceSpec& spec);
// A scenario's blocks (scenario_blocks: the one build of a run) as the simulator's program, converted with
// scenario_conversion. Cartesian: nx = ny = matrix, lines and flags from the labels; radial: one Readout
// event per spoke; spiral: one per sample (per_sample_readouts); phase contrast: segments by the SET label.
seq::ProgramConversion scenario_program(const SequenceSpec& spec, const seq::BuiltSequence& built);
// scenario_program(spec, scenario_blocks(spec)).program, for tests and benchmarks.
SequenceProgram build_sequence_program(const SequenceSpec& spec);

}  // namespace mrwb
