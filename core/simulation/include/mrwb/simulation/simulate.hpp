#pragma once
// simulate(): a Cartesian 2-D scenario through an engine — phantom, program, coils, the run, the raw
// data with its header and the ground truth. (Multi-slice and 3-D: volume_simulation.hpp; non-Cartesian:
// noncart_simulation.hpp; block sequences: block_simulation.hpp.)
#include <complex>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

struct SimulationResult {
  RawData raw;
  Image2D truth;        // transverse magnetization at TE averaged over each image voxel (a slab: summed over z)
  std::string backend;  // engine actually used
  double seconds = 0;
  // Played with cell states (sequence.fidelity.spoiling "states"): the plan, as CellStatePlan::summary says
  // it (orders, bytes per cell, one order's moment); empty otherwise.
  std::string cell_states;
};

// The raw-data header every simulation path fills the same way, from the scenario and its sequence as
// built: coils, in-plane FOV, TR and TE as built, flip angle (spin echo: 90°) and the scenario's name;
// matrix and k-space left to the caller.
RawData simulated_raw_header(const Scenario& scenario, const seq::BuiltSequence& built, int ncoils);
// Validates the scenario, which builds its sequence once (validated_sequence), and simulates that.
SimulationResult simulate(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                          const CancelToken& cancel);
// Plays `built` (the scenario's validated sequence) on the scenario's phantom: program by scenario_program,
// `engine`, signal scaled to voxel units (cell area / voxel area) so the FFT image and the truth share one
// scale. Non-Cartesian scenarios (sequence.trajectory) go to simulate_noncart (noncart_simulation.hpp).
SimulationResult simulate(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                          const ProgressFn& progress, const CancelToken& cancel);
// The scenario's receive coils on the phantom's cell grid (none: one uniform coil).
CoilMaps scenario_coil_maps(const Scenario& scenario, const CellPhantom& ph);
// The same coils on an nx × ny image grid, [coil][y][x] (one coil: all 1): the true maps that SENSE unfolds
// a simulated scenario with.
std::vector<std::complex<float>> scenario_image_coil_maps(const Scenario& scenario, int nx, int ny);
// Ground truth on the image grid: Mxy at TE averaged over the cells of each voxel (in voxel units) and,
// with several coils, weighted by sqrt(Σ_c |s_c|²) as an ideal root-sum-of-squares image shows it.
Image2D sos_weighted_truth(const CellPhantom& ph, const CoilMaps& coils,
                           const std::vector<std::complex<float>>& cell_truth, const SequenceSpec& seq);

}  // namespace mrwb
