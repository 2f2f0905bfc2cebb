#include "mrwb/simulation/backend_registry.hpp"

#include <map>
#include <mutex>
#include <thread>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, SimulationBackend> sim;
  Registry() {
    sim["cpu"] = SimulationBackend{
        [] {
          return BackendInfo{"cpu", std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " CPU threads",
                             true};
        },
        [] { return std::make_unique<CpuSimulationEngine>(); }};
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_simulation_backend(const std::string& name, SimulationBackend backend) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.sim[name] = std::move(backend);
}

std::vector<BackendInfo> list_backends() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<BackendInfo> out;
  for (const auto& [name, b] : r.sim) out.push_back(b.info());
  return out;
}

std::unique_ptr<SimulationEngine> make_simulation_engine(const std::string& choice) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (choice == "auto") {
    auto it = r.sim.find("cuda");
    if (it != r.sim.end() && it->second.info().available) return it->second.make();
    return r.sim.at("cpu").make();
  }
  auto it = r.sim.find(choice);
  if (it == r.sim.end()) {
    if (choice == "cuda") throw InputError("--backend cuda: this build has no CUDA backend (allowed: auto, cpu)");
    throw InputError("--backend " + choice + ": unknown backend (allowed: auto, cpu, cuda)");
  }
  const BackendInfo info = it->second.info();
  if (!info.available) throw InputError("--backend " + choice + ": not available here (" + info.device + ")");
  return it->second.make();
}

}  // namespace mrwb
