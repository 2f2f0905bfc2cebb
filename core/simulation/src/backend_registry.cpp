#include "mrwb/simulation/backend_registry.hpp"

#include <algorithm>
#include <thread>

#include "mrwb/base/backend_registry.hpp"
#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/lagrangian_engine.hpp"

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
  return BackendInfo{Backend::Cpu, std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " CPU threads", true};
}

std::unique_ptr<SimulationEngine> make_cpu_engine(SimulationModel model) {
  if (model == SimulationModel::Lagrangian) return std::make_unique<LagrangianCpuEngine>();
  return std::make_unique<CpuSimulationEngine>();
}

EngineRegistry& registry() {
  static EngineRegistry r(
      {{{k_engine, Backend::Cpu}, engine_entry({cpu_info, make_cpu_engine})}});
  return r;
}

std::string refusal(BackendRefusal why, Backend choice, Backend backend) {
  if (why == BackendRefusal::Unavailable)
    return "--backend " + name_of(choice) + ": not available here (" +
           registry().find(k_engine, backend)->make.info().device + ")";
  if (backend == Backend::Cuda) return "--backend cuda: " + cuda_backends_missing_reason() + " (allowed: auto, cpu)";
  return "--backend " + name_of(choice) + ": this build has no CPU backend";
}

}  // namespace

void register_simulation_backend(Backend name, SimulationBackend backend) {
  registry().add(k_engine, name, engine_entry(std::move(backend)));
}

std::vector<BackendInfo> list_backends() {
  std::vector<BackendInfo> out;
  for (const auto& [name, e] : registry().entries(k_engine)) out.push_back(e.make.info());
  return out;
}

std::unique_ptr<SimulationEngine> make_simulation_engine(Backend choice, SimulationModel model) {
  const SimulationBackend& b = registry().choose(k_engine, choice, refusal);
  std::unique_ptr<SimulationEngine> engine = b.make(model);
  if (!engine)
    throw InputError("simulation.model lagrangian: the " + name_of(b.info().name) +
                     " backend has no Lagrangian engine (allowed with it: eulerian)");
  return engine;
}

}  // namespace mrwb
