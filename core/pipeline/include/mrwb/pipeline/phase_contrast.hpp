#pragma once
// A phase-contrast scenario end to end: simulate the velocity-encoded acquisitions of the block builder
// (simulation/block_simulation.hpp), reconstruct one complex image per segment and map the velocity per
// encoded axis (recon/velocity.hpp).
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/velocity.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

struct PhaseContrastResult {
  std::vector<RawData> segments;  // reference, then one per encoded axis
  std::vector<Image2D> images;    // FFT reconstruction of each segment
  VelocityMap velocity;
  std::vector<std::vector<float>> velocity_truth_m_per_s;  // per encoded axis (velocity.axes), on its grid
  Image2D truth;                  // Mxy at the k-space centre of the reference, voxel-averaged
  std::string backend;
  std::string sequence_report;    // TE, TR, VENC, bipolar as built
  double simulate_seconds = 0;
};

// Scenario with sequence.type "phase_contrast": its phantom and flow, the phase-contrast block sequence,
// FFT reconstruction of every segment, velocity map. InputError for a timing the builder cannot meet.
PhaseContrastResult simulate_phase_contrast(const Scenario& scenario, SimulationEngine& engine,
                                            const ProgressFn& progress, const CancelToken& cancel);
// The same on the scenario's sequence as validated_sequence built it.
PhaseContrastResult simulate_phase_contrast(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                                            const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb

