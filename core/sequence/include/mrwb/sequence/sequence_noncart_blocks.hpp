#pragma once
// Radial, golden-angle radial, spiral and stack-of-spirals spoiled gradient echo as Pulseq blocks: the
// readouts of the simulator's noncart_trajectory (noncart_design.hpp) played by real gradients, so
// `mrwb sequence --scenario S --out X.seq` exports what `mrwb simulate --scenario S` simulates.
#include <string>

#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_spec.hpp"

namespace mrwb::seq {

// The hardware a scenario's non-Cartesian trajectory was designed for: radial the defaults (32 mT/m,
// 130 T/m/s, 10 us raster); spiral the spiral design's 40 mT/m, 150 T/m/s and its 4 us gradient raster
// (= ADC dwell), so each design step is one raster value; sequence.max_grad_mT_per_m / max_slew_T_per_m_per_s
// when set.
SystemLimits noncart_system_limits(const SequenceSpec& spec);

// Per readout: a slice-selective sinc (2-D; stack of spirals: a non-selective 0.2 ms block pulse), a
// prephaser block (radial: to the spoke's first sample; slice rephaser; stack of spirals: the kz
// partition), the TE delay, the readout (radial: the Cartesian readout trapezoid rotated onto x and y;
// spiral: arbitrary x/y waveforms on the gradient raster, k = 0 at sample 0, ramped down at the slew
// limit after the last sample), a spoiler (radial: along the spoke; spiral: rewinds x/y to k = 0; z: 4
// cycles per slice, kz rewound) and the TR delay. RF spoiling (117°), the ADC phase follows the RF.
// Labels LIN = readout index (acquisition order), REF 0, IMA 1. Minimum TE / TR computed; InputError
// naming `source` and the field for TE or TR below them, or gradients beyond `sys`. With `assemble` false
// the timing and every check only, seq left empty (a stack of spirals holds many waveforms).
BuiltSequence build_noncart_gre_blocks(const SequenceSpec& spec, const SystemLimits& sys,
                                       const std::string& source = "sequence", bool assemble = true);

}  // namespace mrwb::seq
