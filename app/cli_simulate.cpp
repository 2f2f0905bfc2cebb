#include <iostream>

#include "cli_commands.hpp"
#include "mrwb/backend_registry.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb::cli {

Action add_simulate(CLI::App& app) {
  auto* sub = app.add_subcommand("simulate", "Run the Bloch simulator on a scenario; write ISMRMRD raw data");
  struct Opts {
    std::string scenario, out, backend;
    std::vector<std::string> truth;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--scenario", o->scenario, "Scenario JSON")->required();
  sub->add_option("--out", o->out, "Raw data (ISMRMRD .h5)")->required();
  sub->add_option("--truth", o->truth, "Ground truth image(s): .h5 and/or .png (repeatable)");
  sub->add_option("--backend", o->backend, "auto | cpu | cuda (default: the scenario's)");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  return [o] {
    Scenario s = load_scenario(o->scenario);
    if (!o->backend.empty()) s.backend = o->backend;
    // Check every output before the (long) simulation, so bad names fail at once.
    if (o->out.size() < 3 || o->out.substr(o->out.size() - 3) != ".h5")
      throw InputError(o->out + ": --out must be an ISMRMRD .h5 file");
    auto engine = make_simulation_engine(s.backend);
    if (!o->quiet) std::cerr << "simulating '" << s.name << "' on backend " << engine->name() << "\n";
    SimulationResult r = simulate(s, *engine, terminal_progress(o->quiet), interrupt_token());
    write_raw_ismrmrd(o->out, r.raw);
    for (const auto& t : o->truth) write_image(t, r.truth);
    if (!o->quiet)
      std::cerr << "wrote " << o->out << " (" << r.raw.ny << " lines x " << r.raw.nx << " samples, " << r.seconds
                << " s on " << r.backend << ")\n";
    return 0;
  };
}

}  // namespace mrwb::cli
