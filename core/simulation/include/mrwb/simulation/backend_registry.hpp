#pragma once
// Simulation engines by backend name, in core's one registry (base/backend_registry.hpp). core registers
// "cpu"; gpu/ registers "cuda" through mrwb::gpu::register_backends() (called by the executables, never by
// ui/). `auto` picks CUDA when a device is present, else CPU.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

struct BackendInfo {
  std::string name;         // "cpu", "cuda"
  std::string device;       // e.g. "NVIDIA H100 80GB HBM3, 79.1 GiB" or "2 CPU threads"
  bool available = false;   // a CUDA build on a machine with no GPU: false
};

struct SimulationBackend {
  std::function<BackendInfo()> info;
  std::function<std::unique_ptr<SimulationEngine>()> make;
};

void register_simulation_backend(const std::string& name, SimulationBackend backend);
std::vector<BackendInfo> list_backends();
// choice: auto | cpu | cuda. Throws InputError for an unknown or unavailable choice.
std::unique_ptr<SimulationEngine> make_simulation_engine(const std::string& choice);

}  // namespace mrwb
