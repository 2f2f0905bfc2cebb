#pragma once
// simulate() for non-Cartesian scenarios (radial, golden-angle radial, spiral, stack of spirals): the
// program of build_noncart_gre (sequence/sequence_noncart_gre.hpp) on the scenario's phantom and coils.
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// simulate() for a scenario with a non-Cartesian sequence.trajectory: build_noncart_gre's program on the
// scenario's phantom and coils, then finish_noncart_raw. Truth as simulate(): Mxy at TE per voxel (times
// sqrt(sum |s_c|^2) with coil arrays). simulate() does not dispatch on sequence.trajectory: the pipeline
// calls this for non-Cartesian scenarios.
SimulationResult simulate_noncart(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                  const CancelToken& cancel);
// The same with the truth also as a volume (sequence.trajectory stack_of_spirals on a
// phantom.slab_thickness_m slab): Mxy at TE averaged over each cubic voxel of the matrix^3 grid whose FOV is
// fov_m on every axis (voxel i centred at (i - matrix/2) fov_m / matrix, as the reconstruction's grid).
struct NoncartVolumeSimulation {
  SimulationResult result;  // raw data with traj_dims 3; truth: the slab summed over z (as simulate())
  ImageVolume truth;        // matrix^3 voxels, fov_m on every axis
};
NoncartVolumeSimulation simulate_noncart_volume(const Scenario& scenario, SimulationEngine& engine,
                                                const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
