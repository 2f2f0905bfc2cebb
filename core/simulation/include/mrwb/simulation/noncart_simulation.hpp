#pragma once
// simulate() for non-Cartesian scenarios (radial, golden-angle radial, spiral, stack of spirals): the
// blocks of build_noncart_gre_blocks (sequence/sequence_noncart_blocks.hpp), converted by scenario_program,
// on the scenario's phantom and coils.
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// simulate() for a scenario with a non-Cartesian sequence.trajectory: its validated blocks' program on the
// scenario's phantom and coils; the raw data readouts x samples with the trajectory as played (traj_dims 2,
// or 3 for stack_of_spirals) and the samples scaled by the voxel area 1/matrix^2 (volume 1/matrix^3 in 3-D),
// so that they are the object's Fourier transform in FOV units. Truth as simulate(): Mxy at TE per voxel
// (times sqrt(sum |s_c|^2) with coil arrays).
SimulationResult simulate_noncart(const Scenario& scenario, SimulationEngine& engine, const ProgressFn& progress,
                                  const CancelToken& cancel);
// The same on the scenario's sequence as validated_sequence built it.
SimulationResult simulate_noncart(const Scenario& scenario, const seq::BuiltSequence& built, SimulationEngine& engine,
                                  const ProgressFn& progress, const CancelToken& cancel);
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
