#include "mrwb/pipeline/scenario_engine.hpp"

#include "mrwb/simulation/backend_registry.hpp"

namespace mrwb {

std::unique_ptr<SimulationEngine> make_scenario_engine(const Scenario& scenario) {
  std::unique_ptr<SimulationEngine> engine = make_simulation_engine(scenario.backend, scenario.simulation.model);
  engine->set_flow_transport(scenario.simulation.flow_transport);
  engine->set_spins_per_axis(scenario.simulation.spins_per_axis);
  return engine;
}

std::string simulation_model_text(const SimulationSpec& simulation) {
  if (simulation.model == SimulationModel::Lagrangian) return name_of(simulation.model);
  return name_of(simulation.model) + ", " + name_of(simulation.flow_transport) + " transport";
}

}  // namespace mrwb
