#include "mrwb/simulation/backend_registry.hpp"

#include <algorithm>
#include <thread>

#include "mrwb/base/backend_registry.hpp"
#include "mrwb/simulation/cpu_engine.hpp"

namespace mrwb {
namespace {

// Every simulation backend makes one product: an engine.
constexpr const char* k_engine = "engine";

using EngineRegistry = BackendRegistry<SimulationBackend>;

BackendEntry<SimulationBackend> engine_entry(SimulationBackend b) {
  auto info = b.info;
  return {[info] { return info().available; }, std::move(b)};
}

BackendInfo cpu_info() {
  return BackendInfo{"cpu", std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " CPU threads", true};
}

EngineRegistry& registry() {
  static EngineRegistry r(
      {{{k_engine, "cpu"}, engine_entry({cpu_info, [] { return std::make_unique<CpuSimulationEngine>(); }})}});
  return r;
}

std::string refusal(BackendRefusal why, const std::string& choice, const std::string& backend) {
  if (why == BackendRefusal::Unavailable)
    return "--backend " + choice + ": not available here (" + registry().find(k_engine, backend)->make.info().device + ")";
  if (why == BackendRefusal::Missing && backend == "cuda")
    return "--backend cuda: this build has no CUDA backend (allowed: auto, cpu)";
  return "--backend " + choice + ": unknown backend (allowed: auto, cpu, cuda)";
}

}  // namespace

void register_simulation_backend(const std::string& name, SimulationBackend backend) {
  registry().add(k_engine, name, engine_entry(std::move(backend)));
}

std::vector<BackendInfo> list_backends() {
  std::vector<BackendInfo> out;
  for (const auto& [name, e] : registry().entries(k_engine)) out.push_back(e.make.info());
  return out;
}

std::unique_ptr<SimulationEngine> make_simulation_engine(const std::string& choice) {
  return registry().choose(k_engine, choice, refusal).make();
}

}  // namespace mrwb
