// Simulation of multi-slice 2-D (spoiled_gre, tof) and 3-D tof scenarios through the block builders'
// sequence, played on the scenario's slab phantom; the raw data come out slices × partitions.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

namespace mrwb {
namespace {

// Where each readout of the program goes: its SLC, PAR and LIN labels.
struct ReadoutPlace {
  int slice = 0, partition = 0, line = 0;
};

struct VolumeProgram {
  seq::ProgramConversion conversion;  // the program, and the receiver demodulation (slice offsets leave a phase)
  std::vector<ReadoutPlace> place;    // [readout]
};

VolumeProgram volume_program(const SequenceSpec& q, const seq::BuiltSequence& b) {
  VolumeProgram v;
  v.conversion = scenario_program(q, b);  // shaped RF stepped finer for a stack of slices, ideal spoiling
  // The labels of every ADC block, in order (the conversion keeps LIN; SLC and PAR are read here).
  const std::vector<int> slc = seq::adc_label_values(b.seq, "SLC"), par = seq::adc_label_values(b.seq, "PAR"),
                         lin = seq::adc_label_values(b.seq, "LIN");
  for (std::size_t i = 0; i < lin.size(); ++i) v.place.push_back({slc[i], par[i], lin[i]});
  if (static_cast<int>(v.place.size()) != v.conversion.program.readouts) throw std::logic_error("volume_program: ADC count");
  return v;
}

// The readout (event index) of slice `slice` that sits where the program records the truth (k = 0).
void move_truth_to_slice(SequenceProgram& prog, const std::vector<ReadoutPlace>& place, int slice) {
  int r = 0, truth_r = -1, truth_sample = -1;
  for (const SeqEvent& e : prog.events)
    if (e.kind == EventKind::Readout) {
      if (e.truth_sample >= 0) truth_r = r, truth_sample = e.truth_sample;
      ++r;
    }
  if (truth_r < 0) throw std::logic_error("volume simulation: the program records no truth");
  r = 0;
  for (SeqEvent& e : prog.events)
    if (e.kind == EventKind::Readout) {
      const ReadoutPlace& p = place[static_cast<std::size_t>(r)];
      const bool here = p.slice == slice && p.partition == place[truth_r].partition && p.line == place[truth_r].line;
      e.truth_sample = here ? truth_sample : -1;
      ++r;
    }
}

}  // namespace

bool is_volume_scenario(const Scenario& s) { return s.sequence.slices > 1 || s.sequence.partitions > 1; }

VolumeSimulationResult simulate_volume(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                       const CancelToken& cancel) {
  return simulate_volume(scenario, validated_sequence(scenario, "scenario"), build_phantom(scenario), engine, progress, cancel);
}

VolumeSimulationResult simulate_volume(const Scenario& scenario, const CellPhantom& ph, SimulationEngine& engine,
                                       const ProgressFn& progress, const CancelToken& cancel) {
  return simulate_volume(scenario, seq::scenario_blocks(scenario.sequence, "scenario: sequence"), ph, engine, progress, cancel);
}

VolumeSimulationResult simulate_volume(const Scenario& scenario, const seq::BuiltSequence& built, const CellPhantom& ph,
                                       SimulationEngine& engine, const ProgressFn& progress, const CancelToken& cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  const SequenceSpec& q = scenario.sequence;
  if (!is_volume_scenario(scenario))
    throw InputError("scenario: sequence.slices and sequence.partitions are 1: not a volume (use simulate)");
  if (ph.nz < 2) throw InputError("scenario: a multi-slice / 3-D scan needs a slab phantom (phantom.slab_thickness_m > 0)");
  const VolumeProgram vp = volume_program(q, built);
  const SequenceProgram& prog = vp.conversion.program;
  const int S = q.slices, P = q.partitions, nx = prog.nx;
  const double spacing = q.slice_thickness_m + q.slice_gap_m;

  // Multi-slice: each cell belongs to the z band of its nearest slice centre; 3-D: one band, the slab.
  std::vector<int> band_of(static_cast<std::size_t>(ph.nz));
  for (int iz = 0; iz < ph.nz; ++iz) {
    const double s = ph.z_m(iz) / spacing + 0.5 * (S - 1);
    band_of[static_cast<std::size_t>(iz)] = S == 1 ? 0 : std::clamp(static_cast<int>(std::lround(s)), 0, S - 1);
  }

  VolumeSimulationResult r;
  r.backend = engine.name();
  const int cpv = ph.cells_per_voxel;
  const float scale = 1.0f / static_cast<float>(cpv * cpv);  // cell area / voxel area, as simulate()
  ImageVolume& truth = r.truth;
  truth.nx = truth.ny = q.matrix;
  truth.nz = S * P;
  truth.fov_x_m = truth.fov_y_m = q.fov_m;
  truth.fov_z_m = P > 1 ? q.slice_thickness_m : S * spacing;
  truth.data.assign(truth.plane() * truth.nz, {});
  const int ncoils = std::max(1, scenario.coils.count);
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(ncoils) * prog.readouts * nx);

  for (int band = 0; band < S; ++band) {
    const auto lo = std::find(band_of.begin(), band_of.end(), band);
    if (lo == band_of.end()) continue;  // no cells near this slice
    const int iz0 = static_cast<int>(lo - band_of.begin());
    const int iz1 = static_cast<int>(std::find_if(lo, band_of.end(), [&](int b) { return b != band; }) - band_of.begin());
    const CellPhantom sub = crop_phantom(ph, 0, 0, iz0, ph.nx, ph.ny, iz1 - iz0);
    SequenceProgram band_prog = prog;
    if (S > 1) move_truth_to_slice(band_prog, vp.place, band);
    const CoilMaps coils = scenario_coil_maps(scenario, sub);
    std::vector<std::complex<float>> band_samples(samples.size());
    std::vector<std::complex<float>> cell_truth(sub.size());
    ProgressFn band_progress;
    if (progress) band_progress = [&](double f, std::string_view stage) { progress((band + f) / S, stage); };
    check_engine_plays_cell_states(engine, band_prog);
    engine.run(sub, band_prog, coils, band_samples, cell_truth, band_progress, cancel);
    // The bands' signals add up to the whole phantom's (each cell evolves on its own).
    for (std::size_t i = 0; i < samples.size(); ++i) samples[i] += band_samples[i];
    // Truth: band cells summed per voxel of their slice (2-D) or partition (3-D: z = (p − P/2)·dz, periodic
    // as the kz sampling sees it).
    const double dz = q.slice_thickness_m / P;
    for (int iz = 0; iz < sub.nz; ++iz) {
      const int plane = P > 1 ? ((static_cast<int>(std::lround(sub.z_m(iz) / dz)) + P / 2) % P + P) % P : band;
      for (int iy = 0; iy < sub.ny; ++iy)
        for (int ix = 0; ix < sub.nx; ++ix) {
          const std::size_t i = (static_cast<std::size_t>(iz) * sub.ny + iy) * sub.nx + ix;
          truth.data[truth.plane() * plane + static_cast<std::size_t>(iy / cpv) * truth.nx + ix / cpv] +=
              cell_truth[i] * (scale * coil_sos_weight(coils, sub.size(), i));
        }
    }
  }
  // The slice offsets leave a receiver phase per sample (the RF frequency offset's phase at the ADC).
  seq::demodulate(vp.conversion, samples, ncoils);

  RawData& raw = r.raw;
  raw = simulated_raw_header(scenario, built, ncoils);
  raw.nx = raw.ny = q.matrix;
  raw.slices = S;
  raw.partitions = P;
  raw.fov_z_m = q.slice_thickness_m;
  raw.slice_spacing_m = S > 1 ? spacing : 0;
  raw.dwell_s = prog.dwell_s;
  raw.accel_R = prog.accel_R;
  raw.kspace.assign(raw.kspace_size(), {});
  for (int c = 0; c < ncoils; ++c)
    for (int ro = 0; ro < prog.readouts; ++ro) {
      const ReadoutPlace& p = vp.place[static_cast<std::size_t>(ro)];
      for (int s = 0; s < nx; ++s)
        raw.kspace[raw.index(c, p.slice, p.partition, p.line, s)] =
            samples[(static_cast<std::size_t>(c) * prog.readouts + ro) * nx + s] * scale;
    }
  if (prog.accel_R > 1 || q.acs_lines > 0 || q.partial_fourier < 1) raw.line_flags = prog.line_flags;
  // Receiver noise per slice / partition (its own draw), and the noise scan of the first.
  if (scenario.coils.noise_std > 0) {
    const std::size_t plane = static_cast<std::size_t>(raw.ny) * raw.nx;
    for (int s = 0; s < S; ++s)
      for (int p = 0; p < P; ++p) {
        RawData one = extract_slice(raw, s, p);
        add_receiver_noise(one, scenario.coils.noise_std, scenario.coils.noise_correlation, 5u + static_cast<unsigned>(s * P + p));
        for (int c = 0; c < ncoils; ++c)
          std::copy_n(one.kspace.begin() + static_cast<std::ptrdiff_t>(plane * c), plane,
                      raw.kspace.begin() + static_cast<std::ptrdiff_t>(raw.index(c, s, p, 0, 0)));
        if (s == 0 && p == 0) {
          raw.noise = std::move(one.noise);
          raw.noise_samples = one.noise_samples;
        }
      }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
