#include <algorithm>
#include <chrono>
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

namespace mrwb {

RawData simulated_raw_header(const Scenario& scenario, const seq::BuiltSequence& built, int ncoils) {
  const auto& seq = scenario.sequence;
  RawData raw;
  raw.ncoils = ncoils;
  raw.fov_x_m = raw.fov_y_m = seq.fov_m;
  raw.TR_s = built.TR_s;  // as built: on the block raster
  raw.TE_s = built.TE_s;
  raw.flip_angle_deg = seq::cartesian_params(seq).flip_angle_deg;
  raw.scenario_name = scenario.name;
  return raw;
}

SimulationResult simulate(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                          const CancelToken& cancel) {
  return simulate(scenario, validated_sequence(scenario, "scenario"), engine, progress, cancel);
}

SimulationResult simulate(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                          const ProgressFn& progress, const CancelToken& cancel) {
  if (is_volume_scenario(scenario))
    throw InputError("scenario: sequence.slices / sequence.partitions above 1 give a volume (simulate_volume, volume_simulation.hpp)");
  if (scenario.sequence.trajectory != Trajectory::Cartesian) return simulate_noncart(scenario, built, engine, progress, cancel);
  const auto t0 = std::chrono::steady_clock::now();
  const auto& seq = scenario.sequence;
  const CellPhantom ph = build_phantom(scenario);  // with its flow field when the scenario has one
  const seq::ProgramConversion conversion = scenario_program(seq, built);
  const SequenceProgram& prog = conversion.program;

  const CoilMaps coils = scenario_coil_maps(scenario, ph);
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(coils.ncoils) * prog.readouts * prog.nx);
  std::vector<std::complex<float>> cell_truth(ph.size());
  check_engine_plays_cell_states(engine, prog);
  engine.run(ph, prog, coils, samples, cell_truth, progress, cancel);
  seq::demodulate(conversion, samples, coils.ncoils);  // the builders' ADC follows the RF: a no-op but for rounding

  SimulationResult r;
  r.backend = engine.name();
  r.cell_states = engine.held_cell_states();  // the plan the engine held, not planned again
  RawData& raw = r.raw;
  raw = simulated_raw_header(scenario, built, coils.ncoils);
  raw.nx = prog.nx;
  raw.ny = prog.ny;
  raw.dwell_s = prog.dwell_s;
  raw.kspace.assign(static_cast<std::size_t>(raw.ncoils) * raw.ny * raw.nx, {});
  // Signal in voxel units: each cell carries (cell area / voxel area) of a voxel's magnetization.
  const int cpv = ph.cells_per_voxel;
  const float scale = 1.0f / static_cast<float>(cpv * cpv);
  // Readout r fills its line; unacquired lines stay zero and are flagged so.
  for (int c = 0; c < raw.ncoils; ++c)
    for (int r = 0; r < prog.readouts; ++r)
      for (int s = 0; s < raw.nx; ++s)
        raw.at(c, conversion.adc_line[r], s) = samples[(static_cast<std::size_t>(c) * prog.readouts + r) * raw.nx + s] * scale;
  raw.accel_R = prog.accel_R;
  if (prog.accel_R > 1 || seq.acs_lines > 0 || seq.partial_fourier < 1) raw.line_flags = prog.line_flags;
  // Receiver noise on the acquired samples, and a noise scan of the same statistics for prewhitening.
  add_receiver_noise(raw, scenario.coils.noise_std, scenario.coils.noise_correlation);

  r.truth = sos_weighted_truth(ph, coils, cell_truth, seq);

  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

CoilMaps scenario_coil_maps(const Scenario& scenario, const CellPhantom& ph) {
  // Sensitivities are smooth: evaluating them at cell centres rather than on the image grid's points
  // shifts them by less than a voxel.
  CoilMaps coils;
  if (scenario.coils.count > 1) {
    coils.ncoils = scenario.coils.count;
    coils.sens = scenario_image_coil_maps(scenario, ph.nx, ph.ny);
    if (ph.nz > 1) {  // a slab: the in-plane maps repeated along z (coils far from a thin slab)
      std::vector<std::complex<float>> slab(static_cast<std::size_t>(coils.ncoils) * ph.size());
      const std::size_t plane = ph.slice_size();
      for (int c = 0; c < coils.ncoils; ++c)
        for (int iz = 0; iz < ph.nz; ++iz)
          std::copy_n(coils.sens.begin() + c * plane, plane, slab.begin() + (c * ph.nz + iz) * plane);
      coils.sens = std::move(slab);
    }
  }
  return coils;
}

std::vector<std::complex<float>> scenario_image_coil_maps(const Scenario& scenario, int nx, int ny) {
  const int n = scenario.coils.count;
  if (n <= 1) return std::vector<std::complex<float>>(static_cast<std::size_t>(nx) * ny, 1.0f);
  return scenario.coils.arrangement == "uniform" ? uniform_coil_sensitivities(n, nx, ny)
                                                 : loop_coil_sensitivities(n, nx, ny, scenario.sequence.fov_m);
}

Image2D sos_weighted_truth(const CellPhantom& ph, const CoilMaps& coils,
                           const std::vector<std::complex<float>>& cell_truth, const SequenceSpec& seq) {
  const int cpv = ph.cells_per_voxel;
  const float scale = 1.0f / static_cast<float>(cpv * cpv);  // cell area / voxel area
  Image2D truth;
  truth.nx = truth.ny = seq.matrix;
  truth.fov_x_m = truth.fov_y_m = seq.fov_m;
  truth.data.assign(truth.size(), {});
  // A slab: Mxy summed over z per in-plane voxel, in the same units as the signal (which sums every cell
  // with the same cell area / voxel area): a z-uniform slab of nz cells reads nz times its slice.
  for (int iz = 0; iz < ph.nz; ++iz)
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = (static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix;
        truth.data[static_cast<std::size_t>(iy / cpv) * truth.nx + ix / cpv] +=
            cell_truth[i] * (scale * coil_sos_weight(coils, ph.size(), i));
      }
  return truth;
}

}  // namespace mrwb
