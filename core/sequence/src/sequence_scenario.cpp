// A scenario's sequence as blocks, as the simulator's program (bssfp, tof), as diagram and trajectory.
#include "mrwb/sequence/sequence_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/input_source.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/sequence_noncart_blocks.hpp"
#include "mrwb/sequence/noncart_design.hpp"

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
  p.undersampling = q.undersampling;
  p.undersampling_seed = static_cast<unsigned>(q.undersampling_seed);
  p.separate_acs = q.acs_mode == "separate";
  p.flow_compensation = q.flow_compensation;
  p.venc_m_per_s = q.venc_m_per_s;
  p.venc_axes.clear();
  for (const std::string& d : q.venc_directions) p.venc_axes.push_back(d == "x" ? 0 : d == "y" ? 1 : 2);
  p.slices = q.slices;  // multi-slice / 3-D (multislice.hpp)
  p.slice_gap_m = q.slice_gap_m;
  p.partitions = q.partitions;
  p.slice_thickness_m = q.slice_thickness_m;
  p.partial_fourier = q.partial_fourier;
  p.sys = scenario_system_limits(q);
  return p;
}

SystemLimits scenario_system_limits(const SequenceSpec& q) {
  // noncart_system_limits takes sequence.max_grad / max_slew too (the spiral is designed within them).
  if (q.trajectory != Trajectory::Cartesian) return noncart_system_limits(q);
  SystemLimits sys;
  if (q.max_grad_mT_per_m > 0) sys.max_grad_Hz_per_m = q.max_grad_mT_per_m * 1e-3 * gamma_Hz_per_T;
  if (q.max_slew_T_per_m_per_s > 0) sys.max_slew_Hz_per_m_per_s = q.max_slew_T_per_m_per_s * gamma_Hz_per_T;
  return sys;
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source) {
  return scenario_blocks(q, source, scenario_system_limits(q));
}

// The gradient designs do not know the file: their refusals ("gradient: 55.6 mT/m needed ...") are said
// about `source` (about_source).
BuiltSequence scenario_timing(const SequenceSpec& q, const std::string& source) {
  if (q.trajectory != Trajectory::Cartesian && q.type == SequenceType::SpoiledGre)
    return about_source(source, [&] { return build_noncart_gre_blocks(q, scenario_system_limits(q), source, false); });
  return scenario_blocks(q, source);
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source, const SystemLimits& sys) {
  // Radial and spiral: the readouts the simulator plays (noncart_trajectory), as gradients.
  if (q.trajectory != Trajectory::Cartesian) {
    if (q.type != SequenceType::SpoiledGre)
      throw InputError(source + ": sequence.type = '" + name_of(q.type) + "' with sequence.trajectory = '" +
                       name_of(q.trajectory) + "' (allowed: spoiled_gre)");
    return about_source(source, [&] { return build_noncart_gre_blocks(q, sys, source); });
  }
  CartesianParams p = cartesian_params(q);
  p.sys = sys;
  return about_source(source, [&] { return build_blocks(q.type, p, source); });
}

}  // namespace mrwb::seq

namespace mrwb {

using namespace seq;

namespace {
bool volume(const SequenceSpec& q) { return q.slices > 1 || q.partitions > 1; }
}  // namespace

SequenceFidelity played_fidelity(const SequenceSpec& q) {
  SequenceFidelity f = q.fidelity;
  if (f.rf == RfFidelity::Auto)
    f.rf = q.type == SequenceType::Bssfp || q.type == SequenceType::Tof || volume(q) ? RfFidelity::Shaped : RfFidelity::Hard;
  if (f.gradients == GradientFidelity::Auto)
    f.gradients = q.type == SequenceType::PhaseContrast ? GradientFidelity::Waveform : GradientFidelity::Moments;
  if (q.type == SequenceType::Bssfp) f.spoiling = SpoilingFidelity::Gradients;  // balanced: never spoiled
  return f;
}

std::string played_fidelity_text(const SequenceSpec& q) {
  const SequenceFidelity f = played_fidelity(q);
  return std::string(f.rf == RfFidelity::Hard ? "hard RF" : "shaped RF") +
         (f.gradients == GradientFidelity::Moments ? ", gradient moments" : ", gradient waveforms") +
         (q.type == SequenceType::Bssfp ? ", balanced (no spoiling)"
          : f.spoiling == SpoilingFidelity::Ideal ? ", ideal spoiling"
          : f.spoiling == SpoilingFidelity::States ? ", spoiling in cell states"
                                                   : ", spoiler gradients and RF spoiling");
}

ConversionOptions scenario_conversion(const SequenceSpec& q) {
  // The defaults are the choices each type is validated with against analytic results (Ernst steady
  // state, spin-echo T2 decay, bSSFP's and time of flight's steady states, phase-contrast velocity).
  const SequenceFidelity f = played_fidelity(q);
  ConversionOptions o;
  o.hard_rf = f.rf == RfFidelity::Hard;
  // Shaped: 10 rotations per 1 ms pulse (time-bandwidth 4) for one slice or slab. The hard-pulse
  // approximation repeats the profile every (steps per pulse / time-bandwidth) thicknesses, so multi-slice
  // steps finer until the repeats lie (slices + 1) spacings away: beyond every other slice of the stack.
  const double spacing = q.slice_thickness_m + q.slice_gap_m;
  o.rf_step_s = q.slices > 1 ? std::max(1e-6, 250e-6 * q.slice_thickness_m / ((q.slices + 1) * spacing)) : 100e-6;
  o.ideal_spoiling = f.spoiling == SpoilingFidelity::Ideal;
  // The spin echo's 180° about y is not followed: its ADC keeps phase 0. Phase contrast is demodulated by
  // simulate_block_sequence.
  o.follow_rf_phase = q.type == SequenceType::Bssfp || q.type == SequenceType::Tof || volume(q) ||
                      (q.type == SequenceType::SpoiledGre && !o.ideal_spoiling);
  o.max_free_step_s = f.gradients == GradientFidelity::Waveform ? 20e-6 : 0;
  o.cell_states = f.spoiling == SpoilingFidelity::States;
  return o;
}

ProgramConversion scenario_program(const SequenceSpec& q, const BuiltSequence& built) {
  ProgramConversion c = to_sequence_program(built.seq, scenario_conversion(q));
  if (!volume(q)) c.program.slice_thickness_m = q.slice_thickness_m;
  if (q.trajectory != Trajectory::Cartesian || q.type == SequenceType::PhaseContrast) return c;
  if (c.per_sample_readouts) throw std::logic_error("scenario_program: Cartesian readouts are not uniform");
  SequenceProgram& prog = c.program;
  prog.nx = prog.ny = q.matrix;
  prog.fov_m = q.fov_m;
  prog.flip_angle_deg = cartesian_params(q).flip_angle_deg;  // spin echo: 90
  prog.accel_R = std::max(1, q.acceleration);
  prog.line_flags.assign(q.matrix, 0);
  for (int i = 0; i < c.adc_count; ++i) prog.line_flags[c.adc_line[i]] |= c.adc_flags[i];
  return c;
}

SequenceProgram build_sequence_program(const SequenceSpec& q) {
  return scenario_program(q, scenario_blocks(q, "sequence")).program;
}

}  // namespace mrwb
