#include <filesystem>
#include <iostream>

#include "cli_commands.hpp"
#include "cli_png_options.hpp"
#include "mrwb/backend_registry.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_noncart_gre.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb::cli {
namespace {

std::string extension(const std::string& path) { return std::filesystem::path(path).extension().string(); }

}  // namespace

Action add_simulate(CLI::App& app) {
  auto* sub = app.add_subcommand("simulate", "Run the Bloch simulator on a scenario; write ISMRMRD or BART raw data");
  struct Opts {
    std::string scenario, out, traj_out, backend;
    std::vector<std::string> truth;
    PngOptions png;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--scenario", o->scenario, "Scenario JSON")->required();
  sub->add_option("--out", o->out, "Raw data: ISMRMRD .h5 or BART k-space .cfl")->required();
  sub->add_option("--traj-out", o->traj_out,
                  "BART trajectory .cfl of non-Cartesian data ([3, samples, lines], cycles/FOV; default <out>_traj.cfl)");
  sub->add_option("--truth", o->truth, "Ground truth image(s): .h5, .cfl, .nii and/or .png (repeatable)");
  add_png_options(sub, o->png);
  sub->add_option("--backend", o->backend, "auto | cpu | cuda (default: the scenario's)");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  return [o] {
    Scenario s = load_scenario(o->scenario);
    if (!o->backend.empty()) s.backend = o->backend;
    // Check every output name before the (long) simulation, so bad names fail at once.
    const std::string ext = extension(o->out);
    if (ext != ".h5" && ext != ".cfl")
      throw InputError(o->out + ": --out must be ISMRMRD .h5 or BART .cfl (got '" + ext + "')");
    if (!o->traj_out.empty() && (ext != ".cfl" || extension(o->traj_out) != ".cfl"))
      throw InputError(o->traj_out + ": --traj-out must be a .cfl and goes with a .cfl --out (ISMRMRD keeps its trajectory)");
    if (!o->traj_out.empty() && s.sequence.trajectory == "cartesian")
      throw InputError(o->traj_out + ": sequence.trajectory is cartesian, so there is no trajectory to write; drop --traj-out");
    for (const auto& t : o->truth)
      if (const auto te = extension(t); te != ".h5" && te != ".cfl" && te != ".nii" && te != ".png")
        throw InputError(t + ": unknown --truth image format '" + te + "' (allowed: .h5, .cfl, .nii, .png)");
    auto engine = make_simulation_engine(s.backend);
    if (!o->quiet) std::cerr << "simulating '" << s.name << "' on backend " << engine->name() << "\n";
    // Radial / spiral scenarios play their own readouts (as the pipeline does); the raw data carries the trajectory.
    SimulationResult r = s.sequence.trajectory == "cartesian"
                             ? simulate(s, *engine, terminal_progress(o->quiet), interrupt_token())
                             : simulate_noncart(s, *engine, terminal_progress(o->quiet), interrupt_token());
    std::string traj_written;
    if (ext == ".h5") {
      write_raw_ismrmrd(o->out, r.raw);
    } else {
      if (!r.raw.cartesian())
        traj_written = !o->traj_out.empty() ? o->traj_out
                                            : (std::filesystem::path(o->out).replace_extension().string() + "_traj.cfl");
      write_raw_cfl(o->out, traj_written, r.raw);
    }
    for (const auto& t : o->truth) write_image(t, r.truth, o->png);
    if (!o->quiet) {
      std::cerr << "wrote " << o->out << " (" << r.raw.ny << " lines x " << r.raw.nx << " samples, " << r.seconds
                << " s on " << r.backend << ")";
      if (!traj_written.empty()) std::cerr << " and its trajectory " << traj_written;
      std::cerr << "\n";
    }
    return 0;
  };
}

}  // namespace mrwb::cli
