#include "mrwb/pipeline/phase_contrast.hpp"

#include <chrono>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/velocity.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"

namespace mrwb {

PhaseContrastResult simulate_phase_contrast(const Scenario& sc, SimulationEngine& engine, const ProgressFn& progress,
                                            const CancelToken& cancel) {
  return simulate_phase_contrast(sc, validated_sequence(sc, "scenario"), engine, progress, cancel);
}

PhaseContrastResult simulate_phase_contrast(const Scenario& sc, const seq::BuiltSequence& built, SimulationEngine& engine,
                                            const ProgressFn& progress, const CancelToken& cancel) {
  if (sc.sequence.type != SequenceType::PhaseContrast)
    throw InputError("scenario: sequence.type = '" + name_of(sc.sequence.type) +
                     "' is not a phase-contrast sequence (allowed: phase_contrast)");
  const auto t0 = std::chrono::steady_clock::now();
  const seq::CartesianParams params = seq::cartesian_params(sc.sequence);
  const CellPhantom ph = build_phantom(sc);
  const CoilMaps coils = scenario_coil_maps(sc, ph);
  PhaseContrastResult r;
  r.segments = simulate_block_sequence(ph, built.seq, engine, coils, &r.truth, progress, cancel, scenario_conversion(sc.sequence));
  for (RawData& raw : r.segments) raw.scenario_name = sc.name;
  for (const RawData& raw : r.segments) r.images.push_back(reconstruct_fft(raw));
  r.velocity = velocity_map(r.segments, params.venc_axes, params.venc_m_per_s);
  for (int axis : params.venc_axes) r.velocity_truth_m_per_s.push_back(velocity_truth_m_per_s(ph, axis));
  r.backend = engine.name();
  r.sequence_report = built.report;
  r.simulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
