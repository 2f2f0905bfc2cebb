#pragma once
// The end-to-end path used by the GUI and `scripts/run`: simulate, reconstruct, compare with the truth.
#include <optional>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/metrics/metrics.hpp"
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
  std::string sequence_played;   // how the sequence's blocks were played (played_fidelity_text)
  double simulate_seconds = 0;
  double recon_seconds = 0;
  // sequence.type "phase_contrast": velocity per encoded direction (raw/recon/truth: the reference segment).
  std::optional<VelocityMap> velocity;
};

// progress: simulation is 0..0.95, reconstruction and metrics the rest. Multi-slice / 3-D scenarios
// (multislice.hpp) are simulated and reconstructed whole; raw, recon and truth are then the central slice
// (or the central partition, with the slab's kz = 0 k-space).
PipelineResult run_pipeline(const Scenario& scenario, const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
