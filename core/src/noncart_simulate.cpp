// The simulator on a non-Cartesian spoiled GE (sequence_noncart_gre.hpp). Mirrors simulate()'s coil
// set-up and truth averaging (simulate.cpp) for the program it cannot select yet.
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
  const Phantom2D ph = build_phantom(scenario);
  const SequenceProgram prog = build_noncart_gre(seq);
  CoilMaps coils;
  if (scenario.coils.count > 1) {
    coils.ncoils = scenario.coils.count;
    coils.sens = scenario.coils.arrangement == "uniform" ? uniform_coil_sensitivities(coils.ncoils, ph.nx, ph.ny)
                                                         : loop_coil_sensitivities(coils.ncoils, ph.nx, ph.ny, seq.fov_m);
  }
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

  Image2D& truth = r.truth;
  truth.nx = truth.ny = seq.matrix;
  truth.fov_x_m = truth.fov_y_m = seq.fov_m;
  truth.data.assign(truth.size(), {});
  for (int iy = 0; iy < ph.ny; ++iy)
    for (int ix = 0; ix < ph.nx; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
      float w = 1.f;
      if (!coils.uniform()) {
        float sos = 0.f;
        for (int c = 0; c < coils.ncoils; ++c) sos += std::norm(coils.sens[c * ph.size() + i]);
        w = std::sqrt(sos);
      }
      truth.data[static_cast<std::size_t>(iy / cpv) * truth.nx + ix / cpv] += cell_truth[i] * (cell_scale * w);
    }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
