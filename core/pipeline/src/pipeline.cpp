#include "mrwb/pipeline/pipeline.hpp"

#include <chrono>

#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb/pipeline/scenario_engine.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/velocity.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

namespace mrwb {

PipelineResult run_pipeline(const Scenario& scenario, const ProgressFn& progress, const CancelToken& cancel) {
  auto engine = make_scenario_engine(scenario);
  ProgressFn sim_progress;
  if (progress) sim_progress = [&](double f, std::string_view stage) { progress(0.95 * f, stage); };
  std::optional<VelocityMap> velocity;
  SimulationResult sim;
  std::optional<VolumeSimulationResult> volume;  // multi-slice / 3-D: shown by its central slice / partition
  // The sequence is built once, by the checks that decide its timing; every stage below plays these blocks.
  const seq::BuiltSequence built = validated_sequence(scenario, "scenario");
  if (is_volume_scenario(scenario)) {
    volume = simulate_volume(scenario, built, build_phantom(scenario), *engine, sim_progress, cancel);
    sim.backend = volume->backend;
    sim.seconds = volume->seconds;
  } else if (scenario.sequence.type == SequenceType::PhaseContrast) {
    // The reference segment is reconstructed and compared like any image; the velocity map rides along.
    PhaseContrastResult pc = simulate_phase_contrast(scenario, built, *engine, sim_progress, cancel);
    sim.raw = std::move(pc.segments.front());
    sim.truth = std::move(pc.truth);
    sim.backend = pc.backend;
    sim.seconds = pc.simulate_seconds;
    velocity = std::move(pc.velocity);
  } else {
    sim = simulate(scenario, built, *engine, sim_progress, cancel);  // non-Cartesian: simulate_noncart
  }

  PipelineResult r;
  r.backend = sim.backend;
  r.model = simulation_model_text(scenario.simulation);
  r.sequence_played = played_fidelity_text(scenario.sequence);
  r.cell_states = sim.cell_states;
  r.simulate_seconds = sim.seconds;
  const auto t0 = std::chrono::steady_clock::now();
  ReconOptions options;
  options.method = scenario.recon.method;
  options.backend = scenario.backend;  // every method has a CPU and a CUDA reconstructor
  options.grappa.kernel_pe = scenario.recon.grappa_kernel_pe;
  options.grappa.kernel_ro = scenario.recon.grappa_kernel_ro;
  options.grappa.lambda = scenario.recon.grappa_lambda;
  options.grappa.approach = scenario.recon.grappa_approach;
  options.grappa.eta = scenario.recon.grappa_eta;
  options.grappa.clip = scenario.recon.grappa_clip;
  options.noncart.iterations = scenario.recon.cg_iterations;
  options.noncart.lambda = scenario.recon.cg_lambda;
  options.sense.cg.iterations = scenario.recon.cg_iterations;  // CG-SENSE
  options.sense.cg.lambda = scenario.recon.cg_lambda;
  options.cs.regularizer = scenario.recon.cs_regularizer;
  options.cs.lambda = scenario.recon.cs_lambda;
  options.cs.iterations = scenario.recon.cs_iterations;
  if (options.method == ReconMethod::Sense || options.method == ReconMethod::Cs)
    options.sense.maps = recon_coil_maps(scenario, volume ? volume->raw : sim.raw, options.backend);
  // The cg: the scenario's maps where recon.maps is set (empty otherwise: its own estimate).
  if (options.method == ReconMethod::Cg && !volume && !sim.raw.cartesian())
    options.noncart.sensitivities = recon_coil_maps(scenario, sim.raw, options.backend);
  if (volume) {
    const RawData& raw = volume->raw;
    const int plane = raw.slices > 1 ? raw.slices / 2 : raw.partitions / 2;
    r.recon_volume = reconstruct_volume(raw, options, {}, cancel);
    r.recon = r.recon_volume->slice(plane);
    sim.truth = volume->truth.slice(plane);
    r.truth_volume = volume->truth;
    r.volume_metrics = compare_volumes(r.recon_volume->magnitude(), r.truth_volume->magnitude(), r.recon_volume->nx,
                                       r.recon_volume->ny, r.recon_volume->nz);
    // Its k-space: the central slice, or the kz = 0 partition of a slab (its projection along z).
    sim.raw = raw.slices > 1 ? extract_slice(raw, plane, 0) : extract_slice(raw, 0, raw.k0_partition());
    r.volume_raw = std::move(volume->raw);
  } else {
    r.recon = reconstruct(sim.raw, options, {}, cancel);
  }
  r.recon_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto recon_mag = r.recon.magnitude();
  const auto truth_mag = sim.truth.magnitude();
  r.metrics = compare_images(recon_mag, truth_mag, r.recon.nx, r.recon.ny);
  r.error_map = error_map(recon_mag, truth_mag);
  r.raw = std::move(sim.raw);
  r.truth = std::move(sim.truth);
  r.velocity = std::move(velocity);
  if (progress) progress(1.0, "done");
  return r;
}

ModelComparison compare_models(const Scenario& scenario, const ProgressFn& progress, const CancelToken& cancel) {
  auto part = [&](double lo, const char* model) -> ProgressFn {
    if (!progress) return {};
    return [&progress, lo, model](double f, std::string_view stage) {
      progress(lo + 0.5 * f, std::string(model) + ": " + std::string(stage));
    };
  };
  ModelComparison c;
  Scenario s = scenario;
  s.simulation.model = SimulationModel::Eulerian;
  c.eulerian = run_pipeline(s, part(0.0, "eulerian"), cancel);
  s.simulation.model = SimulationModel::Lagrangian;
  c.lagrangian = run_pipeline(s, part(0.5, "lagrangian"), cancel);

  ReconComparison& rc = c.comparison;
  rc.has_truth = true;
  rc.truth = c.lagrangian.recon;
  rc.truth_magnitude = rc.truth.magnitude();
  ComparisonEntry e;
  e.label = "Eulerian (" + name_of(scenario.simulation.flow_transport) + ")";
  e.method = scenario.recon.method;
  e.backend = c.eulerian.backend;
  e.image = c.eulerian.recon;
  e.magnitude = e.image.magnitude();
  e.seconds = c.eulerian.simulate_seconds + c.eulerian.recon_seconds;
  if (e.image.nx == rc.truth.nx && e.image.ny == rc.truth.ny) {  // one scenario: always, unless a model crops
    e.error_map = error_map(e.magnitude, rc.truth_magnitude);
    e.metrics = compare_images(e.magnitude, rc.truth_magnitude, e.image.nx, e.image.ny);
    e.has_metrics = true;
    c.relative_rms_difference = e.metrics.percent_error / 100.0;
  }
  rc.entries.push_back(std::move(e));
  if (progress) progress(1.0, "done");
  return c;
}

}  // namespace mrwb
