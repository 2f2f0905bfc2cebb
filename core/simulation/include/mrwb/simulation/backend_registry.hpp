#pragma once
// Simulation engines by backend, in core's one registry (base/backend_registry.hpp). core registers Cpu;
// gpu/ registers Cuda through mrwb::gpu::register_backends() (called by the executables, never by ui/).
// Auto picks CUDA when a device is present, else CPU.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

struct BackendInfo {
  Backend name = Backend::Cpu;  // Cpu, Cuda
  std::string device;       // e.g. "NVIDIA H100 80GB HBM3, 79.1 GiB" or "2 CPU threads"
  bool available = false;   // a CUDA build on a machine with no GPU: false
};

// `make` returns the backend's engine of a model, or null when the backend has none of that model.
struct SimulationBackend {
  std::function<BackendInfo()> info;
  std::function<std::unique_ptr<SimulationEngine>(SimulationModel)> make;
};

void register_simulation_backend(Backend name, SimulationBackend backend);
std::vector<BackendInfo> list_backends();
// Throws InputError for a missing or unavailable choice, or a backend without that model.
std::unique_ptr<SimulationEngine> make_simulation_engine(Backend choice,
                                                         SimulationModel model = SimulationModel::Eulerian);

}  // namespace mrwb
