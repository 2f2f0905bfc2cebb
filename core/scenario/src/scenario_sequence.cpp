#include "mrwb/scenario/scenario_sequence.hpp"

#include <optional>

#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/noncart_design.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

namespace mrwb {

void check_recon_method(std::string_view method, const SequenceSpec& q, const std::string& source) {
  const std::optional<ReconMethod> m = parse_recon_method(method);
  const bool cartesian = q.trajectory == Trajectory::Cartesian;
  if (cartesian ? (m == ReconMethod::Fft || m == ReconMethod::Grappa || m == ReconMethod::Sense || m == ReconMethod::Cs)
                : (m == ReconMethod::Gridding || m == ReconMethod::Cg))
    return;
  const std::string refused = source + ": recon.method = '" + std::string(method) + "' is not allowed";
  if (cartesian) throw InputError(refused + " (allowed: fft, grappa, sense, cs)");
  throw InputError(refused + " with sequence.trajectory = '" + name_of(q.trajectory) + "' (allowed: gridding, cg)");
}

void validate_noncart_scenario(const Scenario& s, const std::string& source) {
  validate_noncart_sequence(s.sequence, source);
  check_recon_method(to_string(s.recon.method), s.sequence, source);
}

}  // namespace mrwb

namespace mrwb::seq {

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
  if (sc.sequence.trajectory != Trajectory::Cartesian) validate_noncart_scenario(sc, "scenario: sequence");
  const BuiltSequence b = scenario_blocks(sc.sequence, "scenario: sequence");
  ConversionOptions k_only;
  k_only.hard_rf = true;  // k needs no RF steps
  const ProgramConversion c = to_sequence_program(b.seq, k_only);
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
