#include "mrwb/pipeline/pulseq_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>

#include "mrwb/base/errors.hpp"
#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/pulseq_limits.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"

namespace mrwb {

namespace {

// A non-Cartesian trajectory is read in cycles per FOV, so the file must state its FOV.
void require_fov(const seq::BlockSequence& s) {
  if (s.fov_m[0] <= 0 || s.fov_m[1] <= 0)
    throw InputError("non-Cartesian sequence: no FOV in [DEFINITIONS] (allowed: FOV x y z > 0), needed for cycles/FOV");
}

// Cartesian: every ADC samples a line along x (equal kx steps) at one ky and kz. [cycles/m]
bool cartesian_readouts(const seq::ProgramConversion& c, double dk_tolerance) {
  std::size_t o = 0;
  for (int n : c.adc_samples) {
    for (int i = 1; i < n; ++i) {
      const std::size_t j = o + i;
      if (std::abs(c.ky[j] - c.ky[o]) > dk_tolerance || std::abs(c.kz[j] - c.kz[o]) > dk_tolerance ||
          (i > 1 && std::abs((c.kx[j] - c.kx[j - 1]) - (c.kx[o + 1] - c.kx[o])) > dk_tolerance))
        return false;
    }
    o += n;
  }
  return true;
}

// A non-Cartesian segment: the k of every sample (from the file's gradients) as its trajectory in cycles
// per FOV (BART convention, rows by LIN as the samples), and the samples scaled by the voxel area over the
// FOV area, so that they are the object's Fourier transform in FOV units (as simulate_noncart).
void attach_trajectory(const seq::ProgramConversion& c, const seq::BlockSequence& s, double voxel_m, int cells_per_voxel,
                       RawData& raw) {
  const double fov[3] = {s.fov_m[0], s.fov_m[1], s.fov_m[2] > 0 ? s.fov_m[2] : s.fov_m[0]};
  require_fov(s);
  bool three_d = false;
  for (double kz : c.kz) three_d = three_d || std::abs(kz * fov[2]) > 1e-3;
  noncart::Trajectory t = seq::played_trajectory(c, fov, three_d ? 3 : 2);
  if (t.readouts != raw.ny || t.samples != raw.nx)
    throw InputError("non-Cartesian sequence: " + std::to_string(t.readouts) + " ADCs of " + std::to_string(t.samples) +
                     " samples for " + std::to_string(raw.ny) + " lines (allowed: each line once, or no LIN labels)");
  raw.traj_dims = t.dims;
  raw.traj = std::move(t.k);
  raw.line_flags.clear();
  raw.trajectory_type.clear();  // "other": a Pulseq file does not say
  float area = static_cast<float>(voxel_m * voxel_m / (fov[0] * fov[1]));
  // 3-D: the voxel's depth over the FOV's, and the cells per voxel along z (the segment's samples are
  // scaled by the in-plane cell area only, simulate_block_sequence), as simulate_noncart's cell volume.
  if (three_d) area *= static_cast<float>(voxel_m / fov[2] / cells_per_voxel);
  for (auto& v : raw.kspace) v *= area;
}

}  // namespace

ImportedSequenceRun simulate_imported_sequence(const Scenario& scenario, const seq::BlockSequence& sequence,
                                               SimulationEngine& engine, const ProgressFn& progress,
                                               const CancelToken& cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  // What can refuse the sequence is decided before the simulation: the k of every sample, as
  // simulate_block_sequence integrates it (k needs no fine RF steps), and its SET segments.
  seq::ConversionOptions k_only;
  k_only.hard_rf = true;
  const seq::ProgramConversion c = seq::to_sequence_program(sequence, k_only);
  const std::vector<int> set_of_adc = seq::adc_set_labels(sequence);
  if (set_of_adc.empty()) throw InputError("the sequence has no ADC to simulate");
  const bool cartesian = cartesian_readouts(c, 1e-3 / std::max(sequence.fov_m[0], 1e-3));
  const int segments = 1 + *std::max_element(set_of_adc.begin(), set_of_adc.end());
  if (!cartesian && segments != 1)
    throw InputError("non-Cartesian sequence with " + std::to_string(segments) + " SET segments (allowed: one segment)");
  if (!cartesian) require_fov(sequence);
  // A .seq is played as one 2-D k-space per SET segment: slices and 3-D partitions by label would be laid
  // over each other unseen (multi-slice and 3-D are simulated from scenarios, volume_simulation.hpp).
  for (const char* label : {"SLC", "PAR"}) {
    const std::vector<int> v = seq::adc_label_values(sequence, label);
    if (const int top = *std::max_element(v.begin(), v.end()); top > 0)
      throw InputError(std::string("label ") + label + " reaches " + std::to_string(top) +
                       " at the ADCs (allowed: 0; an imported sequence is simulated as one 2-D slice, multi-slice and "
                       "3-D sequences from a scenario)");
  }
  // The raw data the simulation lays out, per coil as the reader bounded it, now for the scenario's coils.
  {
    int samples = 0;
    for (int n : c.adc_samples) samples = std::max(samples, n);
    const double bytes = static_cast<double>(segments) * (1.0 + *std::max_element(c.adc_line.begin(), c.adc_line.end())) *
                         std::max<double>(samples, 1) * std::max(1, scenario.coils.count) * sizeof(std::complex<float>);
    if (bytes > seq::pulseq_limits::kMaxImportedRawBytes)
      throw InputError("the sequence's k-space for " + std::to_string(scenario.coils.count) + " coils needs " +
                       std::to_string(static_cast<long long>(bytes)) + " bytes (allowed: <= " +
                       std::to_string(static_cast<long long>(seq::pulseq_limits::kMaxImportedRawBytes)) +
                       " bytes: fewer coils, lines or samples)");
  }

  const CellPhantom ph = build_phantom(scenario);
  const CoilMaps coils = scenario_coil_maps(scenario, ph);
  ImportedSequenceRun r;
  r.backend = engine.name();
  // Played with the scenario's sequence.fidelity ("auto": hard RF, gradient waveforms: the file's type is unknown).
  r.segments = simulate_block_sequence(ph, sequence, engine, coils, &r.truth, progress, cancel,
                                       block_playback(scenario.sequence.fidelity));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (cartesian) {
    r.image = reconstruct_fft(r.segments.front());
    return r;
  }
  RawData& raw = r.segments.front();
  attach_trajectory(c, sequence, ph.cell_size_m * std::max(1, ph.cells_per_voxel), std::max(1, ph.cells_per_voxel), raw);
  raw.scenario_name = scenario.name;
  if (raw.traj_dims == 2) {
    ReconOptions o;
    o.method = ReconMethod::Gridding;
    r.image = noncart::make_gridding_reconstructor_cpu()->reconstruct(raw, o, {}, cancel);
  }
  return r;
}

}  // namespace mrwb
