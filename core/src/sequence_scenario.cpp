// A scenario's sequence as blocks, as the simulator's program (bssfp, tof), as diagram and trajectory.
#include "mrwb/sequence_scenario.hpp"

#include <cmath>
#include <stdexcept>

#include "mrwb/errors.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/sequence_noncart_blocks.hpp"
#include "mrwb/sequence_noncart_gre.hpp"

namespace mrwb::seq {

CartesianParams cartesian_params(const SequenceSpec& q) {
  CartesianParams p;
  p.fov_m = q.fov_m;
  p.matrix = q.matrix;
  p.TE_s = q.TE_s;
  p.TR_s = q.TR_s;
  p.flip_angle_deg = q.type == "spin_echo" ? 90 : q.flip_angle_deg;
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
  return q.trajectory == "cartesian" ? SystemLimits{} : noncart_system_limits(q);
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source) {
  return scenario_blocks(q, source, scenario_system_limits(q));
}

BuiltSequence scenario_timing(const SequenceSpec& q, const std::string& source) {
  if (q.trajectory != "cartesian" && q.type == "spoiled_gre")
    return build_noncart_gre_blocks(q, scenario_system_limits(q), source, false);
  return scenario_blocks(q, source);
}

BuiltSequence scenario_blocks(const SequenceSpec& q, const std::string& source, const SystemLimits& sys) {
  // Radial and spiral: the readouts the simulator plays (noncart_trajectory), as gradients.
  if (q.trajectory != "cartesian") {
    if (q.type != "spoiled_gre")
      throw InputError(source + ": sequence.type = '" + q.type + "' with sequence.trajectory = '" + q.trajectory +
                       "' (allowed: spoiled_gre)");
    return build_noncart_gre_blocks(q, sys, source);
  }
  CartesianParams p = cartesian_params(q);
  p.sys = sys;
  return build_blocks(q.type, p, source);
}

SequenceProgram block_sequence_program(const SequenceSpec& q) {
  if (q.type != "bssfp" && q.type != "tof")
    throw InputError("sequence.type: '" + q.type + "' is not simulated through the block model (allowed: bssfp, tof)");
  const bool tof = q.type == "tof";
  CartesianParams p = cartesian_params(q);
  p.rf_spoiling = !tof;  // tof: ideal spoiling below (a cell grid cannot resolve spoiler gradients)
  const BuiltSequence b = build_blocks(q.type, p, "sequence");
  ConversionOptions o;
  o.rf_step_s = 100e-6;  // hard-pulse step: 10 rotations per 1 ms pulse (the slice gradient is along z)
  o.follow_rf_phase = true;
  o.ideal_spoiling = tof;
  ProgramConversion c = to_sequence_program(b.seq, o);
  // The builders set the ADC phase to the RF phase, so following the RF phase leaves nothing to demodulate.
  if (c.per_sample_readouts) throw std::logic_error("block_sequence_program: readouts are not uniform");
  for (double d : c.demod_phase_rad)
    if (std::abs(std::remainder(d, 2 * M_PI)) > 1e-9) throw std::logic_error("block_sequence_program: receiver phase left");
  SequenceProgram prog = std::move(c.program);
  prog.nx = prog.ny = q.matrix;
  prog.fov_m = q.fov_m;
  prog.flip_angle_deg = q.flip_angle_deg;
  prog.accel_R = std::max(1, q.acceleration);
  prog.line_flags.assign(q.matrix, 0);
  for (int i = 0; i < c.adc_count; ++i) prog.line_flags[c.adc_line[i]] |= c.adc_flags[i];
  return prog;
}

SequenceDiagram sequence_diagram(const Scenario& sc, double t_max_s) {
  const BuiltSequence b = scenario_blocks(sc.sequence, "scenario: sequence");
  // The first acquired line starts at the excitation block before the first ADC.
  double t = 0, t_exc = 0;
  for (const Block& bl : b.seq.blocks) {
    if (bl.rf) t_exc = t;
    if (bl.adc) break;
    t += bl.duration_s;
  }
  const double span = t_max_s > 0 ? t_max_s : b.TR_s;
  return sequence_diagram(b.seq, t_exc, t_exc + span);
}

noncart::Trajectory scenario_trajectory(const Scenario& sc) {
  if (sc.sequence.trajectory != "cartesian") {  // as simulated; the same checks (TE, readout within TR)
    validate_noncart_sequence(sc, "scenario: sequence");
    return noncart_trajectory(sc.sequence);
  }
  const BuiltSequence b = scenario_blocks(sc.sequence, "scenario: sequence");
  const ProgramConversion c = to_sequence_program(b.seq, {1e-3});  // k needs no fine RF steps
  noncart::Trajectory t;
  t.dims = 2;
  t.readouts = c.adc_count;
  t.samples = c.adc_count > 0 ? c.adc_samples[0] : 0;
  t.k.resize(t.count() * 2);
  for (std::size_t i = 0; i < t.count(); ++i) {
    t.k[2 * i] = static_cast<float>(c.kx[i] * sc.sequence.fov_m);
    t.k[2 * i + 1] = static_cast<float>(c.ky[i] * sc.sequence.fov_m);
  }
  return t;
}

}  // namespace mrwb::seq
