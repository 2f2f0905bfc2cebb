// `mrwb flow --scenario S.json --solver poiseuille|lbm --out F.vti`: the scenario's velocity field as VTK
// XML image data (ParaView opens it).
#include <iostream>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/flow/lbm_backends.hpp"
#include "mrwb/io/vti_writer.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"

namespace mrwb::cli {

Action add_flow(CLI::App& app) {
  auto* sub = app.add_subcommand("flow", "Flow field of a scenario (Poiseuille or lattice Boltzmann) as VTK XML .vti");
  struct Opts {
    std::string scenario, solver, out, backend = "auto";
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--scenario", o->scenario, "Scenario JSON")->required();
  sub->add_option("--solver", o->solver, "poiseuille | lbm (default: the scenario's flow.solver)");
  sub->add_option("--out", o->out, "Velocity field (.vti)")->required();
  sub->add_option("--backend", o->backend, "auto | cpu | cuda (for lbm)");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  return [o] {
    if (o->out.size() < 4 || o->out.substr(o->out.size() - 4) != ".vti")
      throw InputError(o->out + ": --out must be a VTK XML image file (.vti)");
    CommandOutputs outputs({o->scenario}, {o->out});  // before the grid's summary and the (long) build
    const LbmRunner runner = choose_lbm_runner(parse_flag("--backend", o->backend, k_backend_names, "backend"));
    Scenario s = load_scenario(o->scenario);
    if (!s.flow.enabled) s.flow.enabled = true;  // defaults of the "flow" section
    const std::string solver = o->solver.empty() ? s.flow.solver : o->solver;
    auto say = [o](const std::string& line) {
      if (!o->quiet) std::cerr << line << "\n";
    };
    const FlowField f = scenario_flow_field(s, solver, runner, say, terminal_progress(o->quiet), interrupt_token());
    write_flow_vti(o->out, f);
    outputs.commit();
    if (!o->quiet) {
      std::cerr << "wrote " << o->out << " (" << f.solver << " on " << f.backend << ", " << f.grid.nx << " x " << f.grid.ny
                << " x " << f.grid.nz << " cells, max speed " << f.max_speed_m_per_s() << " m/s = "
                << f.max_speed_m_per_s() * s.flow_time_step_s() / f.grid.cell_m << " cells per step of "
                << s.flow_time_step_s() << " s)\n";
      if (solver == "lbm")
        std::cerr << "lbm: " << f.steps << " steps, residual " << f.residual << (f.converged ? " (converged)" : " (NOT converged: raise flow.lbm_max_steps)")
                  << ", " << f.collision << " tau " << f.tau << ", lattice step " << f.lattice_dt_s << " s\n"
                  << "lbm: Re physical " << f.reynolds_physical << ", Re lattice " << f.reynolds_lattice
                  << (f.reynolds_lattice < 0.99 * f.reynolds_physical
                          ? " (lower: tau held at its stable floor; the field is that of the lattice Re)"
                          : " (matched)")
                  << "\n";
    }
    return 0;
  };
}

}  // namespace mrwb::cli
