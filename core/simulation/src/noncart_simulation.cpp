// The simulator on a non-Cartesian spoiled GE (the blocks of sequence_noncart_blocks.hpp); simulate() hands non-Cartesian
// scenarios here. Coils and truth as simulate() makes them; a 3-D trajectory (stack of spirals) also gets
// its truth as a volume.
#include <chrono>
#include <cmath>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"

#include "mrwb/simulation/simulate.hpp"

namespace mrwb {
namespace {

// Mxy at TE averaged over each cubic voxel of the matrix^3 grid (voxel iv centred at (iv - n/2) fov/n on
// every axis, as the reconstruction's x = (i - n/2)/n), times sqrt(sum |s_c|^2) with coil arrays.
ImageVolume voxel_truth_volume(const CellPhantom& ph, const CoilMaps& coils, const std::vector<std::complex<float>>& cell_truth,
                               const SequenceSpec& seq) {
  const int n = seq.matrix, cpv = ph.cells_per_voxel;
  const double voxel_m = seq.fov_m / n;
  ImageVolume v;
  v.nx = v.ny = v.nz = n;
  v.fov_x_m = v.fov_y_m = v.fov_z_m = seq.fov_m;
  v.data.assign(static_cast<std::size_t>(n) * n * n, {});
  const float scale = 1.0f / static_cast<float>(cpv * cpv * cpv);  // cell volume / voxel volume
  for (int iz = 0; iz < ph.nz; ++iz) {
    const int vz = static_cast<int>(std::floor(ph.z_m(iz) / voxel_m + n / 2 + 0.5));
    if (vz < 0 || vz >= n) continue;
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = (static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix;
        const float w = coil_sos_weight(coils, ph.size(), i);
        v.data[(static_cast<std::size_t>(vz) * n + iy / cpv) * n + ix / cpv] += cell_truth[i] * (scale * w);
      }
  }
  return v;
}

SimulationResult run_noncart(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                             const ProgressFn& progress, const CancelToken& cancel, ImageVolume* volume_truth) {
  const auto t0 = std::chrono::steady_clock::now();
  const SequenceSpec& seq = scenario.sequence;
  const CellPhantom ph = build_phantom(scenario);
  // The blocks' program: radial spokes as one Readout event each (constant gradient), spiral samples one
  // event each; samples come out in ADC order either way.
  const seq::ProgramConversion c = scenario_program(seq, built);
  const SequenceProgram& prog = c.program;
  const CoilMaps coils = scenario_coil_maps(scenario, ph);
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  std::vector<std::complex<float>> samples(coils.ncoils * per_coil), cell_truth(ph.size());
  check_engine_plays_cell_states(engine, prog);
  engine.run(ph, prog, coils, samples, cell_truth, progress, cancel);
  seq::demodulate(c, samples, coils.ncoils);

  SimulationResult r;
  r.backend = engine.name();
  r.cell_states = engine.held_cell_states();  // the plan the engine held, not planned again
  RawData& raw = r.raw;
  raw = simulated_raw_header(scenario, built, coils.ncoils);
  // The trajectory as played (the k of every sample integrated from the blocks' gradients), in the
  // reconstruction's cycles/FOV; readouts by LIN = acquisition order.
  const bool three_d = seq.trajectory == Trajectory::StackOfSpirals;
  const double fov[3] = {seq.fov_m, seq.fov_m, seq.fov_m};
  noncart::Trajectory t = seq::played_trajectory(c, fov, three_d ? 3 : 2);
  raw.nx = t.samples;
  raw.ny = t.readouts;
  raw.traj_dims = t.dims;
  raw.traj = std::move(t.k);
  // The ISMRMRD names (RawData::trajectory_type is a file-format field).
  raw.trajectory_type = seq.trajectory == Trajectory::GoldenRadial ? "goldenangle"
                        : seq.trajectory == Trajectory::Radial      ? "radial"
                                                                    : "spiral";
  raw.dwell_s = prog.dwell_s;
  // Voxel units, as simulate(): cell area / voxel area, or cell volume / voxel volume for a 3-D trajectory;
  // then times the voxel area (volume) 1 / matrix^dims, so that the samples are the object's Fourier
  // transform in FOV units (recon/noncart_types.hpp convention).
  const int cpv = ph.cells_per_voxel;
  const float cell_scale = 1.0f / static_cast<float>(three_d ? cpv * cpv * cpv : cpv * cpv);
  const float voxel_size = static_cast<float>(std::pow(1.0 / seq.matrix, three_d ? 3 : 2));
  raw.kspace.assign(samples.size(), {});
  for (int coil = 0; coil < coils.ncoils; ++coil)
    for (int a = 0; a < c.adc_count; ++a)
      for (int i = 0; i < raw.nx; ++i)
        raw.kspace[(static_cast<std::size_t>(coil) * raw.ny + c.adc_line[a]) * raw.nx + i] =
            samples[coil * per_coil + static_cast<std::size_t>(a) * raw.nx + i] * (cell_scale * voxel_size);

  r.truth = sos_weighted_truth(ph, coils, cell_truth, seq);
  if (volume_truth) *volume_truth = voxel_truth_volume(ph, coils, cell_truth, seq);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

SimulationResult simulate_noncart(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                  const CancelToken& cancel) {
  return run_noncart(scenario, validated_sequence(scenario, "scenario"), engine, progress, cancel, nullptr);
}

SimulationResult simulate_noncart(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                                  const ProgressFn& progress, const CancelToken& cancel) {
  return run_noncart(scenario, built, engine, progress, cancel, nullptr);
}

NoncartVolumeSimulation simulate_noncart_volume(const Scenario& scenario, SimulationEngine& engine,
                                                const ProgressFn& progress, const CancelToken& cancel) {
  NoncartVolumeSimulation v;
  v.result = run_noncart(scenario, validated_sequence(scenario, "scenario"), engine, progress, cancel, &v.truth);
  return v;
}

}  // namespace mrwb
