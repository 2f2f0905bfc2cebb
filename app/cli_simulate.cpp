#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "cli_png_options.hpp"
#include "cli_ranks.hpp"
#include "stage_times.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/input_source.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/pipeline/phase_contrast.hpp"
#include "mrwb/pipeline/pulseq_simulation.hpp"
#include "mrwb/pipeline/scenario_engine.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/velocity.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/noncart_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

namespace mrwb::cli {
namespace {

std::string extension(const std::string& path) { return std::filesystem::path(path).extension().string(); }

// "dir/name.ext" -> "dir/name<suffix>.ext": the per-encoding and per-axis files of a phase-contrast run.
std::string with_suffix(const std::string& path, const std::string& suffix) {
  std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  return p.replace_extension().string() + suffix + ext;
}

const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

// ISMRMRD keeps a non-Cartesian trajectory inside; a BART .cfl gets it beside (traj_out, default
// <out>_traj.cfl). Returns the trajectory file written ("" when none).
std::string write_raw(const std::string& path, const RawData& raw, const std::string& traj_out = "") {
  if (extension(path) == ".h5") {
    write_raw_ismrmrd(path, raw);
    return "";
  }
  const std::string traj = raw.cartesian() ? ""
                           : !traj_out.empty() ? traj_out
                                               : std::filesystem::path(path).replace_extension().string() + "_traj.cfl";
  write_raw_cfl(path, traj, raw);
  return traj;
}

// A signed velocity map [m/s]: complex (v, 0) in .h5 / .cfl; .png as a diverging map of ±VENC.
void write_velocity(const std::string& path, const VelocityMap& m, const std::vector<float>& v) {
  if (extension(path) == ".png") return write_png_error_map(path, v, m.nx, m.ny, static_cast<float>(m.venc_m_per_s));
  Image2D img;
  img.nx = m.nx;
  img.ny = m.ny;
  img.fov_x_m = m.fov_x_m;
  img.fov_y_m = m.fov_y_m;
  img.data.assign(v.begin(), v.end());
  write_image(path, img);
}

// What the summary line and --truth need from a run that wrote its own raw file(s): the raw data at `out`,
// the truth image (empty for a volume, written above), the backend and the time.
SimulationResult written_result(RawData raw, Image2D truth, const std::string& backend, double seconds) {
  SimulationResult r;
  r.raw = std::move(raw);
  r.truth = std::move(truth);
  r.backend = backend;
  r.seconds = seconds;
  return r;
}

// Phase contrast: every encoding as its own raw-data file (the reference at `out`, each encoded axis at
// <out>_venc_<axis>), and per axis the measured velocity <velocity_out>_<axis> and its truth
// <velocity_out>_<axis>_truth. Everything is simulated before anything is written.
SimulationResult simulate_phase_contrast_files(const Scenario& s, const seq::BuiltSequence& built, SimulationEngine& engine,
                                               const std::string& out, const std::string& velocity_out, bool quiet,
                                               OutputGate& gate, CommandOutputs& outputs) {
  PhaseContrastResult pc = simulate_phase_contrast(s, built, engine, terminal_progress(quiet), interrupt_token());
  if (!gate.writes()) return {};
  for (std::size_t seg = 0; seg < pc.segments.size(); ++seg)
    write_raw(seg == 0 ? out : with_suffix(out, std::string("_venc_") + axis_name(pc.velocity.axes[seg - 1])), pc.segments[seg]);
  if (!velocity_out.empty())
    for (std::size_t a = 0; a < pc.velocity.axes.size(); ++a) {
      const std::string base = with_suffix(velocity_out, std::string("_") + axis_name(pc.velocity.axes[a]));
      write_velocity(base, pc.velocity, pc.velocity.v_m_per_s[a]);
      write_velocity(with_suffix(base, "_truth"), pc.velocity, pc.velocity_truth_m_per_s[a]);
    }
  outputs.commit();
  if (!quiet)
    std::cerr << pc.sequence_report << "\nwrote " << pc.segments.size() << " encodings: " << out << " (reference) and "
              << with_suffix(out, "_venc_<axis>") << "\n";
  return written_result(std::move(pc.segments.front()), std::move(pc.truth), pc.backend, pc.simulate_seconds);
}

// An imported Pulseq file (read and checked by the caller, its SET segments bounded by the reader) on the
// scenario's phantom and coils: the first segment (SET label) at `out`, further segments at <out>_set<k>.
// Everything is simulated before anything is written; a write that fails leaves none of them (CommandOutputs).
SimulationResult simulate_pulseq_files(const Scenario& s, SimulationEngine& engine, const seq::BlockSequence& sequence,
                                       const std::string& seq_path, const std::string& out, bool quiet, OutputGate& gate,
                                       CommandOutputs& outputs) {
  ImportedSequenceRun run = about_source(seq_path, [&] {
    return simulate_imported_sequence(s, sequence, engine, terminal_progress(quiet), interrupt_token());
  });
  if (!gate.writes()) return {};
  for (std::size_t seg = 0; seg < run.segments.size(); ++seg)
    write_raw(seg == 0 ? out : with_suffix(out, "_set" + std::to_string(seg)), run.segments[seg]);  // a .cfl's trajectory beside it
  outputs.commit();
  if (!quiet && run.segments.size() > 1)
    std::cerr << "wrote " << run.segments.size() << " segments: " << out << " and " << with_suffix(out, "_set<k>") << "\n";
  return written_result(std::move(run.segments.front()), std::move(run.truth), run.backend, run.seconds);
}

// Multi-slice / 3-D: the raw data (ISMRMRD only) and the truth volume(s); names checked before simulating.
SimulationResult simulate_volume_files(const Scenario& s, const seq::BuiltSequence& built, SimulationEngine& engine,
                                       const std::string& out, const std::vector<std::string>& truth, bool quiet,
                                       OutputGate& gate, CommandOutputs& outputs) {
  if (extension(out) != ".h5")
    throw InputError(out + ": multi-slice / 3-D raw data are written as ISMRMRD (allowed: .h5)");
  for (const auto& t : truth) check_image_volume_path(t);
  VolumeSimulationResult v = simulate_volume(s, built, build_phantom(s), engine, terminal_progress(quiet), interrupt_token());
  if (!gate.writes()) return {};
  write_raw_ismrmrd(out, v.raw);
  for (const auto& t : truth) write_image_volume(t, v.truth);
  outputs.commit();
  if (!quiet)
    std::cerr << "wrote " << out << " (" << v.raw.slices << " slice(s) x " << v.raw.partitions << " partition(s) x "
              << v.raw.ny << " lines x " << v.raw.nx << " samples, " << v.seconds << " s on " << v.backend
              << "; played with " << played_fidelity_text(s.sequence) << ")\n";
  return written_result(std::move(v.raw), {}, v.backend, v.seconds);
}

}  // namespace

struct SimulateOptions {
  std::string scenario, out, traj_out, backend, model, flow_transport, velocity_out, seq, split_axis = "auto";
  std::vector<std::string> truth;
  PngOptions png;
  bool quiet = false, verbose = false;
  std::optional<int> ranks;
};

// The files a run writes that the options and the scenario name, checked before it starts: --out (and a
// non-Cartesian .cfl's trajectory), --traj-out, --truth, and of phase contrast every encoding and velocity map.
// An imported sequence's further SET segments are named once it is read, and checked as they are written.
std::vector<std::string> expected_outputs(const SimulateOptions& o, const Scenario& s) {
  std::vector<std::string> files{o.out, o.traj_out};
  files.insert(files.end(), o.truth.begin(), o.truth.end());
  if (o.traj_out.empty() && o.seq.empty() && extension(o.out) == ".cfl" && s.sequence.trajectory != Trajectory::Cartesian)
    files.push_back(std::filesystem::path(o.out).replace_extension().string() + "_traj.cfl");
  if (s.sequence.type == SequenceType::PhaseContrast && o.seq.empty())
    for (const int axis : seq::cartesian_params(s.sequence).venc_axes) {
      files.push_back(with_suffix(o.out, std::string("_venc_") + axis_name(axis)));
      if (o.velocity_out.empty()) continue;
      const std::string base = with_suffix(o.velocity_out, std::string("_") + axis_name(axis));
      files.push_back(base);
      files.push_back(with_suffix(base, "_truth"));
    }
  return files;
}

// The scenario's engine; as one of several ranks, the engine on this rank's slab (the CPU one, or with
// --backend cuda one GPU per rank), whose decomposition rank 0 prints once on stdout.
std::unique_ptr<SimulationEngine> simulate_engine(Scenario& s, RankComm* comm) {
  if (!comm || comm->size() == 1) return make_scenario_engine(s);
  if (s.simulation.model != SimulationModel::Eulerian)
    throw InputError("--ranks: the slab decomposition runs the eulerian model (allowed: --model eulerian)");
  if (s.backend != Backend::Cuda) s.backend = Backend::Cpu;  // auto: the CPU, which every host has
  auto engine = make_scenario_engine(s);
  if (auto* cpu = dynamic_cast<CpuSimulationEngine*>(engine.get())) cpu->set_threads(threads_per_rank(*comm));
  auto printed = std::make_shared<bool>(false);
  engine->set_rank_comm(comm, [comm, printed](const SlabSplit& split) {
    test_rank_failure_hook(*comm);
    if (comm->rank() == 0 && !*printed) std::cout << decomposition_text(split) << std::endl;
    *printed = true;
  });
  return engine;
}

int simulate_command(const SimulateOptions& o, RankComm* comm) {
  const bool quiet = o.quiet || (comm && comm->rank() != 0);  // rank 0 speaks for the run
  StageTimes times(o.verbose && !(comm && comm->rank() != 0));
  OutputGate gate(comm);  // rank 0 writes, after every rank's part is done
  seq::BuiltSequence built;  // the sequence, built once by the scenario's checks
  Scenario s = load_scenario(o.scenario, &built);
  if (!o.backend.empty()) s.backend = parse_flag("--backend", o.backend, k_backend_names, "backend");
  if (!o.model.empty()) s.simulation.model = parse_flag("--model", o.model, k_simulation_model_names, "simulation model");
  if (!o.flow_transport.empty())
    s.simulation.flow_transport = parse_flag("--flow-transport", o.flow_transport, k_flow_transport_names, "flow transport");
  // Check every output name before the (long) simulation, so bad names fail at once.
  const std::string ext = extension(o.out);
  if (ext != ".h5" && ext != ".cfl")
    throw InputError(o.out + ": --out must be ISMRMRD .h5 or BART .cfl (got '" + ext + "')");
  if (!o.traj_out.empty() && (ext != ".cfl" || extension(o.traj_out) != ".cfl"))
    throw InputError(o.traj_out + ": --traj-out must be a .cfl and goes with a .cfl --out (ISMRMRD keeps its trajectory)");
  if (!o.traj_out.empty() && s.sequence.trajectory == Trajectory::Cartesian)
    throw InputError(o.traj_out + ": sequence.trajectory is cartesian, so there is no trajectory to write; drop --traj-out");
  for (const auto& t : o.truth)
    if (const auto te = extension(t); te != ".h5" && te != ".cfl" && te != ".nii" && te != ".png")
      throw InputError(t + ": unknown --truth image format '" + te + "' (allowed: .h5, .cfl, .nii, .png)");
  const bool pc = s.sequence.type == SequenceType::PhaseContrast;
  if (!o.velocity_out.empty()) {
    if (!pc)
      throw InputError(o.velocity_out + ": --velocity-out needs sequence.type \"phase_contrast\" (the scenario has \"" +
                       name_of(s.sequence.type) + "\")");
    // NIfTI is refused: the NIfTI writer stores magnitude, which would drop the velocity's sign.
    if (const auto ve = extension(o.velocity_out); ve != ".h5" && ve != ".cfl" && ve != ".png")
      throw InputError(o.velocity_out + ": unknown --velocity-out format '" + ve + "' (allowed: .h5, .cfl, .png)");
  }
  if (!o.seq.empty() && (pc || !o.traj_out.empty()))
    throw InputError(o.seq + ": --seq plays the file's own sequence; it does not combine with phase contrast or --traj-out "
                     "(a non-Cartesian .cfl gets <out>_traj.cfl)");
  if (is_volume_scenario(s) && (!o.seq.empty() || !o.traj_out.empty()))
    throw InputError(o.scenario + ": a multi-slice / 3-D scenario does not combine with --seq or --traj-out");
  CommandOutputs outputs({o.scenario, o.seq}, expected_outputs(o, s));
  // Every input is read and checked before the banner: a refused .seq gets its one line alone.
  std::optional<seq::BlockSequence> imported;
  if (!o.seq.empty()) {
    imported = seq::read_pulseq(o.seq);
    if (imported->adc_samples() == 0)
      throw InputError(o.seq + ": the sequence has no ADC to simulate (allowed: at least one block with an ADC)");
  }
  const std::optional<SplitAxis> split_axis = parse_split_axis(o.split_axis);
  if (!split_axis) throw InputError("--split-axis: '" + o.split_axis + "' (allowed: auto, y, z)");
  times.mark("scenario");
  auto engine = simulate_engine(s, comm);
  engine->set_split_axis(*split_axis);
  times.mark("engine");
  const bool live = !quiet && on_terminal();  // in a log the closing line says what ran
  if (live)
    std::cerr << "simulating '" << s.name << "' on backend " << engine->name() << " (model "
              << simulation_model_text(s.simulation) << ")\n";
  if (is_volume_scenario(s)) {
    simulate_volume_files(s, built, *engine, o.out, o.truth, quiet, gate, outputs);
    times.mark("simulate and write");
    times.print();
    return 0;
  }
  // Radial / spiral scenarios: the raw data carries the trajectory as played.
  SimulationResult r = imported ? simulate_pulseq_files(s, *engine, *imported, o.seq, o.out, quiet, gate, outputs)
                       : pc ? simulate_phase_contrast_files(s, built, *engine, o.out, o.velocity_out, quiet, gate, outputs)
                       : simulate(s, built, *engine, terminal_progress(quiet), interrupt_token());
  times.mark(pc || imported ? "simulate and write" : "simulate");
  if (!gate.writes()) return 0;
  std::string traj_written;
  if (pc || !o.seq.empty()) {
    // written above, every encoding / segment
  } else {
    traj_written = write_raw(o.out, r.raw, o.traj_out);
  }
  for (const auto& t : o.truth) write_image(t, r.truth, o.png);
  outputs.commit();
  if (!pc && !imported) times.mark("write");
  if (!quiet) {
    // Its own line: the plan says what the run held per cell, and the closing line stays under 200 characters.
    if (!r.cell_states.empty()) std::cerr << r.cell_states << "\n";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g", r.seconds);  // a log line, not a benchmark
    std::cerr << "wrote " << o.out << " (" << r.raw.ny << " lines x " << r.raw.nx << " samples, " << seconds
              << " s on " << r.backend;
    if (!live) std::cerr << ", model " << simulation_model_text(s.simulation);
    std::cerr << ")";
    if (!traj_written.empty()) std::cerr << " and its trajectory " << traj_written;
    if (o.seq.empty()) std::cerr << "; played with " << played_fidelity_text(s.sequence);
    std::cerr << "\n";
  }
  times.print();
  return 0;
}

Action add_simulate(CLI::App& app) {
  auto* sub = app.add_subcommand("simulate", "Run the Bloch simulator on a scenario; write ISMRMRD or BART raw data");
  auto o = std::make_shared<SimulateOptions>();
  sub->add_option("--scenario", o->scenario, "Scenario JSON")->required();
  sub->add_option("--out", o->out, "Raw data: ISMRMRD .h5 or BART k-space .cfl")->required();
  sub->add_option("--traj-out", o->traj_out,
                  "BART trajectory .cfl of non-Cartesian data ([3, samples, lines], cycles/FOV; default <out>_traj.cfl)");
  sub->add_option("--truth", o->truth, "Ground truth image(s): .h5, .cfl, .nii and/or .png (repeatable)");
  sub->add_option("--velocity-out", o->velocity_out,
                  "Phase contrast: velocity maps [m/s] per encoded axis, V_<axis> and V_<axis>_truth (.h5, .cfl or .png)");
  sub->add_option("--seq", o->seq,
                  "Play this Pulseq .seq (1.2 to 1.5; Cartesian, radial or spiral readouts) on the scenario's phantom and coils "
                  "instead of the scenario's sequence, with its sequence.fidelity (non-Cartesian: the trajectory from its gradients)");
  add_png_options(sub, o->png);
  sub->add_option("--backend", o->backend, "auto | cpu | cuda (default: the scenario's)");
  sub->add_option("--model", o->model,
                  "Simulation model: eulerian (cells) | lagrangian (spin tracking) (default: the scenario's simulation.model)");
  sub->add_option("--flow-transport", o->flow_transport,
                  "Eulerian flow transport: gradient_frame | gradient_frame_limited (second order, flux-limited) | donor_cell (default: the scenario's simulation.flow_transport)");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  sub->add_flag("--verbose", o->verbose, "At the end, one line of where the time went (scenario, engine, simulate, write; the CUDA start)");
  sub->add_option("--ranks", o->ranks,
                  "Split the simulation into N slabs of z planes or y rows (a 2-D phantom: y rows), one process each (with "
                  "--backend cuda one GPU each, halos by peer stores between the GPUs of one host or NCCL), by running this command through "
                  "`mpirun -np N` (1 to 256; under mpirun: its -np)");
  sub->add_option("--split-axis", o->split_axis,
                  "With --ranks, the axis a 3-D phantom's slabs cut: auto (the one whose balanced slabs leave the busiest rank "
                  "the least work, halo included) | y | z (default: auto)");
  return [o] { return run_as_ranks(o->ranks, [o](RankComm* comm) { return simulate_command(*o, comm); }); };
}

}  // namespace mrwb::cli
