// The simulator on a non-Cartesian spoiled GE (sequence_noncart_gre.hpp); simulate() hands non-Cartesian
// scenarios here. Coils and truth as simulate() makes them.
#include <chrono>
#include <cmath>

#include "mrwb/coil_sensitivity.hpp"
#include "mrwb/sequence_noncart_gre.hpp"

namespace mrwb {

SimulationResult simulate_noncart(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                  const CancelToken& cancel) {
  validate_scenario(scenario, "scenario");
  const auto t0 = std::chrono::steady_clock::now();
  const SequenceSpec& seq = scenario.sequence;
  const CellPhantom ph = build_phantom(scenario);
  const SequenceProgram prog = build_noncart_gre(seq);
  const CoilMaps coils = scenario_coil_maps(scenario, ph);
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  std::vector<std::complex<float>> samples(coils.ncoils * per_coil), cell_truth(ph.size());
  engine.run(ph, prog, coils, samples, cell_truth, progress, cancel);

  SimulationResult r;
  r.backend = engine.name();
  RawData& raw = r.raw;
  raw.nx = prog.nx;
  raw.ny = prog.ny;  // line r is readout event r (build_noncart_gre numbers them in order)
  raw.ncoils = coils.ncoils;
  raw.fov_x_m = raw.fov_y_m = seq.fov_m;
  raw.TR_s = seq.TR_s;
  raw.TE_s = seq.TE_s;
  raw.flip_angle_deg = seq.flip_angle_deg;
  raw.scenario_name = scenario.name;
  const int cpv = ph.cells_per_voxel;
  const float cell_scale = 1.0f / static_cast<float>(cpv * cpv);  // voxel units, as simulate()
  raw.kspace.resize(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) raw.kspace[i] = samples[i] * cell_scale;
  finish_noncart_raw(seq, raw);

  r.truth = sos_weighted_truth(ph, coils, cell_truth, seq);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
