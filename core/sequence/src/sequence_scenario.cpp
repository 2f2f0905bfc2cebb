// A scenario's sequence as blocks, as the simulator's program (bssfp, tof), as diagram and trajectory.
#include "mrwb/sequence/sequence_scenario.hpp"

#include <cmath>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/sequence_noncart_blocks.hpp"
#include "mrwb/sequence/sequence_noncart_gre.hpp"

namespace mrwb::seq {

CartesianParams cartesian_params(const SequenceSpec& q) {
  CartesianParams p;
  p.fov_m = q.fov_m;
  p.matrix = q.matrix;
  p.TE_s = q.TE_s;
  p.TR_s = q.TR_s;
  p.flip_angle_deg = q.type == SequenceType::SpinEcho ? 90 : q.flip_angle_deg;
  p.bandwidth_Hz_per_pixel = q.bandwidth_Hz_per_pixel;
  p.dummy_scans = q.dummy_scans;
  p.accel_R = q.acceleration;
  p.acs_lines = q.acs_lines;
  p.separate_acs = q.acs_mode == "separate";
  p.flow_compensation = q.flow_compensation;
  p.venc_m_per_s = q.venc_m_per_s;
  p.venc_axes.clear();
  for (const std::string& d : q.venc_directions) p.venc_axes.push_back(d == "x" ? 0 : d == "y" ? 1 : 2);
  p.slices = q.slices;  // multi-slice / 3-D (multislice.hpp)
  p.slice_gap_m = q.slice_gap_m;
  p.partitions = q.partitions;
  p.slice_thickness_m = q.slice_thickness_m;
  return p;
}

SystemLimits scenario_system_limits(const SequenceSpec& q) {
  return q.trajectory == Trajectory::Cartesian ? SystemLimits{} : noncart_system_limits(q);
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source) {
  return scenario_blocks(q, source, scenario_system_limits(q));
}

BuiltSequence scenario_timing(const SequenceSpec& q, const std::string& source) {
  if (q.trajectory != Trajectory::Cartesian && q.type == SequenceType::SpoiledGre)
    return build_noncart_gre_blocks(q, scenario_system_limits(q), source, false);
  return scenario_blocks(q, source);
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source, const SystemLimits& sys) {
  // Radial and spiral: the readouts the simulator plays (noncart_trajectory), as gradients.
  if (q.trajectory != Trajectory::Cartesian) {
    if (q.type != SequenceType::SpoiledGre)
      throw InputError(source + ": sequence.type = '" + name_of(q.type) + "' with sequence.trajectory = '" +
                       name_of(q.trajectory) + "' (allowed: spoiled_gre)");
    return build_noncart_gre_blocks(q, sys, source);
  }
  CartesianParams p = cartesian_params(q);
  p.sys = sys;
  return build_blocks(q.type, p, source);
}

}  // namespace mrwb::seq

namespace mrwb {

using namespace seq;

SequenceFidelity played_fidelity(const SequenceSpec& q) {
  SequenceFidelity f = q.fidelity;
  if (f.rf == RfFidelity::Auto)
    f.rf = q.type == SequenceType::SpoiledGre || q.type == SequenceType::SpinEcho ? RfFidelity::Hard : RfFidelity::Shaped;
  if (q.type == SequenceType::Bssfp) f.spoiling = SpoilingFidelity::Gradients;  // balanced: never spoiled
  return f;
}

std::string played_fidelity_text(const SequenceSpec& q) {
  const SequenceFidelity f = played_fidelity(q);
  return std::string(f.rf == RfFidelity::Hard ? "hard RF" : "shaped RF") +
         (f.gradients == GradientFidelity::Moments ? ", gradient moments" : ", gradient waveforms") +
         (q.type == SequenceType::Bssfp ? ", balanced (no spoiling)"
          : f.spoiling == SpoilingFidelity::Ideal ? ", ideal spoiling" : ", spoiler gradients and RF spoiling");
}

SequenceProgram build_sequence_program(const SequenceSpec& q) {
  if (q.type == SequenceType::PhaseContrast)
    throw InputError("sequence.type: 'phase_contrast' is not available as one program (allowed: spoiled_gre, "
                     "spin_echo, bssfp, tof; phase contrast plays one program per encoding: simulate_phase_contrast)");
  // sequence.fidelity (sequence_fidelity.hpp). Its defaults are the choices each type is validated with
  // against analytic results (Ernst steady state, spin-echo T2 decay, bSSFP's and time of flight's steady
  // states): spoiled GE and spin echo with hard RF and ideal spoiling (so RF spoiling is off and no RF
  // phase needs following); bSSFP with shaped RF and its 0/180° phase followed; time of flight with
  // shaped RF and ideal spoiling.
  const SequenceFidelity f = played_fidelity(q);
  const bool ideal_spoil = f.spoiling == SpoilingFidelity::Ideal;
  const bool hard = f.rf == RfFidelity::Hard;
  const CartesianParams p = cartesian_params(q);
  const BuiltSequence b = build_blocks(q.type, p, "sequence");
  ConversionOptions o;
  o.hard_rf = hard;
  o.rf_step_s = 100e-6;  // shaped: 10 rotations per 1 ms pulse (the slice gradient is along z)
  o.ideal_spoiling = ideal_spoil;
  // Follow the RF phase where it changes (bSSFP's alternation, RF spoiling of GE / TOF, whose ADC phase
  // follows it), so that samples come out demodulated. The spin echo's 180° about y is not followed: its
  // ADC keeps phase 0.
  o.follow_rf_phase = q.type == SequenceType::Bssfp || q.type == SequenceType::Tof ||
                      (q.type == SequenceType::SpoiledGre && !ideal_spoil);
  o.max_free_step_s = f.gradients == GradientFidelity::Waveform ? 20e-6 : 0;
  ProgramConversion c = to_sequence_program(b.seq, o);
  // The builders set the ADC phase to the RF phase, so following the RF phase leaves nothing to demodulate.
  if (c.per_sample_readouts) throw std::logic_error("build_sequence_program: readouts are not uniform");
  for (double d : c.demod_phase_rad)
    if (std::abs(std::remainder(d, 2 * M_PI)) > 1e-9) throw std::logic_error("build_sequence_program: receiver phase left");
  SequenceProgram prog = std::move(c.program);
  prog.nx = prog.ny = q.matrix;
  prog.fov_m = q.fov_m;
  prog.flip_angle_deg = p.flip_angle_deg;  // spin echo: 90
  prog.accel_R = std::max(1, q.acceleration);
  prog.line_flags.assign(q.matrix, 0);
  for (int i = 0; i < c.adc_count; ++i) prog.line_flags[c.adc_line[i]] |= c.adc_flags[i];
  return prog;
}

}  // namespace mrwb
