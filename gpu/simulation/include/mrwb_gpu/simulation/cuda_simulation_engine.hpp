#pragma once
// CUDA twin of mrwb::CpuSimulationEngine. Cell state stays on the device for the whole run (SoA);
// one thread per cell plays the event program; readout sums are block-reduced on the device and only
// the finished k-space comes back. Per-cell operators: mrwb/simulation/bloch_cell_ops.hpp, shared with the CPU.
#include <memory>
#include <vector>

#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::gpu {

std::unique_ptr<SimulationEngine> make_cuda_simulation_engine();

// One Bloch step A_MRI = E_relax·Rz(theta) applied on the device to every cell (the unit the engine
// repeats); inputs as the CPU twin bloch::precess_relax takes them. Used by the gpu tests.
void precess_relax_on_device(std::vector<bloch::Mag>& m, const std::vector<float>& PD, const std::vector<float>& one_minus_E1,
                             const std::vector<float>& E2, const std::vector<float>& cos_theta,
                             const std::vector<float>& sin_theta);

}  // namespace mrwb::gpu
