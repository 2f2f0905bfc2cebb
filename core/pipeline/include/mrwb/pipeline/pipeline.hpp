#pragma once
// The end-to-end path used by the GUI and `scripts/run`: simulate, reconstruct, compare with the truth.
#include <optional>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/metrics/recon_comparison.hpp"
#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/recon/velocity.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

struct PipelineResult {
  RawData raw;
  Image2D truth;
  Image2D recon;
  std::vector<float> error_map;  // |recon| − |truth|
  Metrics metrics;
  std::string backend;           // simulation engine used
  std::string model;             // simulation model and transport (simulation_model_text)
  std::string sequence_played;   // how the sequence's blocks were played (played_fidelity_text)
  std::string cell_states;       // the cell-state plan when played with them (SimulationResult::cell_states)
  double simulate_seconds = 0;
  double recon_seconds = 0;
  // Multi-slice / 3-D scenarios: the whole reconstruction and truth, and their metrics over every voxel
  // (compare_volumes: SSIM over 7x7x7 windows from 7 planes on); recon/truth/metrics above are the central plane.
  std::optional<ImageVolume> recon_volume, truth_volume;
  std::optional<Metrics> volume_metrics;
  std::optional<RawData> volume_raw;  // every slice / partition (raw above: the shown plane's k-space)
  // sequence.type "phase_contrast": velocity per encoded direction (raw/recon/truth: the reference segment).
  std::optional<VelocityMap> velocity;
};

// progress: simulation is 0..0.95, reconstruction and metrics the rest. Multi-slice / 3-D scenarios
// (multislice.hpp) are simulated and reconstructed whole; raw, recon and truth are then the central slice
// (or the central partition, with the slab's kz = 0 k-space).
PipelineResult run_pipeline(const Scenario& scenario, const ProgressFn& progress, const CancelToken& cancel);

// The scenario run end to end with each simulation model: Eulerian (with the scenario's flow transport) and
// Lagrangian, the reference the Eulerian model is measured against (docs/architecture.md).
struct ModelComparison {
  PipelineResult eulerian, lagrangian;
  // For the comparison view: the Lagrangian image in the reference (truth) slot, one entry with the Eulerian
  // image, its difference map |E| − |L| and its metrics against |L|.
  ReconComparison comparison;
  double relative_rms_difference = 0;  // RMS(|E| − |L|) / RMS(|L|) of the reconstructed magnitudes
};

// progress: the Eulerian run is 0..0.5, the Lagrangian one the rest. Throws InputError when the backend has
// no engine of a model.
ModelComparison compare_models(const Scenario& scenario, const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
