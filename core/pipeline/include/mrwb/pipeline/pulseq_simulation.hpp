#pragma once
// An imported Pulseq sequence played on a scenario's phantom and coils: what `mrwb simulate --seq` and the
// GUI's Pulseq panel run (the file supplies every pulse, gradient and ADC; the scenario the object).
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

struct ImportedSequenceRun {
  std::vector<RawData> segments;  // one per SET label value (simulate_block_sequence), lines by LIN
  Image2D image;                  // FFT (root-sum-of-squares) image of the first segment
  Image2D truth;                  // voxel-averaged Mxy at the k-space centre, receiver frame
  std::string backend;
  double seconds = 0;
};

// Played with block_playback(scenario.sequence.fidelity) on the scenario's phantom and coils. Throws InputError
// when the sequence has no ADC; Cancelled when `cancel` is set.
ImportedSequenceRun simulate_imported_sequence(const Scenario& scenario, const seq::BlockSequence& sequence,
                                               SimulationEngine& engine, const ProgressFn& progress,
                                               const CancelToken& cancel);

}  // namespace mrwb
