#pragma once
// Simulation of multi-slice 2-D and 3-D (kz partition) scenarios (sequence.slices > 1 or
// sequence.partitions > 1).
#include <string>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// True when the scenario asks for a volume: sequence.slices > 1 or sequence.partitions > 1.
bool is_volume_scenario(const Scenario& s);
struct VolumeSimulationResult {
  RawData raw;         // slices × partitions k-space
  ImageVolume truth;   // per slice (2-D) or per partition (3-D): cell Mxy at the k = 0 readout, summed
                       // over the cells of that z range and weighted as sos_weighted_truth does
  std::string backend;
  double seconds = 0;
};
// The block builder's sequence (spoiled_gre / tof, slices interleaved per TR with RF frequency offsets,
// or the 3-D tof slab with kz partitions) through to_sequence_program on the scenario's slab phantom
// (phantom.slab_thickness_m > 0). Multi-slice: the slab is split into one z band per slice and each band is
// played through the whole interleaved program (the bands' signals add up to the full phantom's exactly,
// as long as nothing moves between bands); band s's truth is its cells at slice s's k = 0 readout.
VolumeSimulationResult simulate_volume(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                       const CancelToken& cancel);
// The same on a given phantom (tests use phantoms whose content varies along z).
VolumeSimulationResult simulate_volume(const Scenario& scenario, const CellPhantom& phantom, SimulationEngine& engine,
                                       const ProgressFn& progress, const CancelToken& cancel);
// The same with the scenario's sequence as validated_sequence built it.
VolumeSimulationResult simulate_volume(const Scenario& scenario, const seq::BuiltSequence& built, const CellPhantom& phantom,
                                       SimulationEngine& engine, const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
