#pragma once
// The scenario's simulation engine: its backend, its model and (Eulerian) its flow transport. The one place
// where the scenario's "simulation" choice becomes an engine, for the pipeline, the CLI and the GUI alike.
#include <memory>
#include <string>

#include "mrwb/scenario/scenario.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// make_simulation_engine(scenario.backend, model) with the scenario's flow transport set (the engine's own
// default is not relied on). Throws InputError for an unavailable backend or one without that model.
std::unique_ptr<SimulationEngine> make_scenario_engine(const Scenario& scenario);

// "eulerian, gradient_frame transport" or "lagrangian": how runs report the model beside the backend.
std::string simulation_model_text(const SimulationSpec& simulation);

}  // namespace mrwb
