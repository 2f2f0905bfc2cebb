#pragma once
// CUDA twin of mrwb::LagrangianCpuEngine (lagrangian_engine.hpp): the same spins, born on the same
// schedule, moved and precessed by the same per-spin operations (lagrangian_spin_ops.hpp), each spin kept
// in registers over a chunk of the program. name() "cuda-lagrangian".
#include <memory>

#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::gpu {

// Also a SpinTracker (lagrangian_engine.hpp): the last run's spin-steps, for `mrwb bench`.
std::unique_ptr<SimulationEngine> make_cuda_lagrangian_engine(int spins_per_axis = 3, unsigned seed = 1);

}  // namespace mrwb::gpu
