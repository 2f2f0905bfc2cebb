#include <chrono>

#include "mrwb/errors.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb {

SimulationResult simulate(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                          const CancelToken& cancel) {
  validate_scenario(scenario, "scenario");
  const auto t0 = std::chrono::steady_clock::now();
  const auto& seq = scenario.sequence;
  const Phantom2D ph = build_phantom(scenario.phantom, seq.fov_m, seq.matrix);
  const SequenceProgram prog = build_sequence_program(seq);

  std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx);
  std::vector<std::complex<float>> cell_truth(ph.size());
  engine.run(ph, prog, samples, cell_truth, progress, cancel);

  SimulationResult r;
  r.backend = engine.name();
  RawData& raw = r.raw;
  raw.nx = prog.nx;
  raw.ny = prog.ny;
  raw.ncoils = scenario.coils.count;
  raw.fov_x_m = raw.fov_y_m = seq.fov_m;
  raw.TR_s = seq.TR_s;
  raw.TE_s = seq.TE_s;
  raw.flip_angle_deg = seq.flip_angle_deg;
  raw.dwell_s = prog.dwell_s;
  raw.scenario_name = scenario.name;
  raw.kspace.assign(static_cast<std::size_t>(raw.ncoils) * raw.ny * raw.nx, {});
  // Signal in voxel units: each cell carries (cell area / voxel area) of a voxel's magnetization.
  const int cpv = ph.cells_per_voxel;
  const float scale = 1.0f / static_cast<float>(cpv * cpv);
  for (int line = 0; line < raw.ny; ++line)
    for (int s = 0; s < raw.nx; ++s) raw.at(0, line, s) = samples[static_cast<std::size_t>(line) * raw.nx + s] * scale;

  // Ground truth: Mxy at TE averaged over the cells of each image voxel.
  Image2D& truth = r.truth;
  truth.nx = truth.ny = seq.matrix;
  truth.fov_x_m = truth.fov_y_m = seq.fov_m;
  truth.data.assign(truth.size(), {});
  for (int iy = 0; iy < ph.ny; ++iy)
    for (int ix = 0; ix < ph.nx; ++ix)
      truth.data[static_cast<std::size_t>(iy / cpv) * truth.nx + ix / cpv] +=
          cell_truth[static_cast<std::size_t>(iy) * ph.nx + ix] * scale;

  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
