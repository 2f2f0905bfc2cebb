// `mrwb bench --suite sim`: the Bloch simulator, CPU and CUDA. Static spoiled-GE scenarios (exact event
// path); Jurczuk et al. 2016's objects with flow (time-stepped path with transport): the straight tube 940 × 190
// (128 PE), the bifurcation presets (512² cells, 128 PE), a 1024² slice of the liver-like tree (256 PE)
// and the liver-like slab 1000 × 1000 × 70 in 3-D (256 PE); the cancel latency. Cell-steps per second
// and, for the moving cases, the bytes the run moves against the card's memory bandwidth (run_traffic).
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench_sim_slab.hpp"
#include "bench_suites.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/phantom/tissue_table.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/cancel_latency.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/internal/separable_readout_signal.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#endif

namespace mrwb::cli {
namespace {

struct MovingCase {
  std::string name;
  CellPhantom ph;
  SequenceProgram prog;
  bool with_cpu;  // the CPU reference too (off where it would take minutes)
};

std::vector<Backend> engines(const BenchOptions& options);

// Passes of the CUDA engine's closed-form path over its cells: one per group of events ending at a
// readout, at most 64 events a group (cuda_simulation_engine.cu). only_separable: the passes ending at a
// readout along x (separable_pass).
long closed_form_passes(const SequenceProgram& prog, bool only_separable = false) {
  long passes = 0;
  int in_group = 0;
  for (const SeqEvent& e : prog.events) {
    ++in_group;
    if (e.kind == EventKind::Readout || in_group == 64) {
      passes += !only_separable || separable::readout_is_separable(e);
      in_group = 0;
    }
  }
  return passes + (in_group > 0 && !only_separable ? 1 : 0);
}

// What one run moves through memory [bytes]. Cell-steps are counted for every cell at every time step
// (time_step_count), cells the CUDA engine plays in closed form included as if they were stepped.
// Time-stepped cell (all cells on the CPU; the fluid cells on CUDA), per step, as the per-step update
// needs them: M read (12) and written (12), PD T1 T2 dB ux uy (24), type (1), uz (4, with 3-D flow),
// open_end (1, with vessel ends inside the grid), the list index (4, CUDA, when not every cell is
// fluid). These are the effective bytes of the per-step update, kept fixed across kernel designs: the
// CUDA engine's stencil kernel reads about as much (state 24, position and tissue entry 8, stencil 24,
// grid index 4 with coil maps or truth; docs/benchmarks.md).
// Closed-form pass (CUDA): with a cell list (closed-form cells under 3/4 of the grid) M read and written
// (24), PD T1 T2 dB (16), list index (4) per closed-form cell; over the whole grid (no list) closed-form
// cells 40 (+ type 1 when moving), the others read PD (4) (+ type 1 for fluid cells, whose PD != 0).
// Separable passes run over the whole grid the same way. Reads of neighbours are not counted. The
// closed-form kernels now read a 2-byte tissue entry instead of PD T1 T2 dB and type where the phantom
// holds at most 65,536 tissues (mrwb/phantom/tissue_table.hpp): about 26 of the 41 B counted per cell and pass
// (docs/benchmarks.md gives the slab's fraction at those bytes too).
struct Traffic {
  double bytes = 0, stepped_cells = 0, closed_form_cells = 0;
  double separable_passes = 0, separable_bytes = 0;  // the separable passes' share of `bytes`
};
Traffic run_traffic(const CellPhantom& ph, const SequenceProgram& prog, bool hybrid) {
  const double steps = static_cast<double>(time_step_count(ph, prog));
  const double n = static_cast<double>(ph.size());
  Traffic t;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    if (!hybrid || ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid))
      t.stepped_cells += 1;
    else if (ph.PD[i] != 0.f)
      t.closed_form_cells += 1;
  }
  const bool moving = phantom_moves(ph);
  const double step_bytes = 49 + (ph.uz.empty() ? 0 : 4) + (ph.open_end.empty() ? 0 : 1) + (hybrid && t.stepped_cells < n ? 4 : 0);
  const double grid_pass_bytes = t.closed_form_cells * (40 + (moving ? 1 : 0)) + (n - t.closed_form_cells) * 4 +
                                 (moving && hybrid ? t.stepped_cells : 0);
  const bool listed = t.closed_form_cells < std::floor(n / 4) * 3;
  const double pass_bytes = listed ? t.closed_form_cells * 44 : grid_pass_bytes;
  // Separable passes (readouts along x, at most k_max_readout_groups (T2, ΔB)) run over the whole grid.
  separable::ReadoutGroups groups;
  const double sep_passes =
      hybrid && separable::readout_groups(ph, moving, groups) && groups.count > 0 ? closed_form_passes(prog, true) : 0;
  t.separable_passes = sep_passes;
  t.separable_bytes = sep_passes * grid_pass_bytes;
  t.bytes = t.stepped_cells * steps * step_bytes +
            (static_cast<double>(closed_form_passes(prog)) - sep_passes) * pass_bytes + t.separable_bytes;
  return t;
}

// What the CUDA kernels move where that differs from the fixed model above: a separable pass reads a
// cell's 2-byte tissue entry (16 B of tissue per cell beyond 65,536 tissues, mrwb/phantom/tissue_table.hpp) and
// the state of every cell (it loads rows ahead; M of PD = 0 cells is read, never written) and writes the
// state of the cells it plays: 26 B per played cell, 14 B per other cell. Everything else as the model
// (the fluid part's 58 B per cell-step are close to what the stencil kernel reads, ≈ 56 B).
double cuda_kernel_bytes(const CellPhantom& ph, const Traffic& t) {
  const double entry = closed_form_tissue(ph, phantom_moves(ph)).entry.empty() ? 16 : 2;
  const double n = static_cast<double>(ph.size());
  return t.bytes - t.separable_bytes +
         t.separable_passes * (t.closed_form_cells * (entry + 24) + (n - t.closed_form_cells) * (entry + 12));
}

// The roof: peak memory bandwidth of the card in use, read from the device (0: no device, no roof).
double roofline_GB_per_s() {
#ifdef MRWB_HAVE_CUDA
  static const double roof = gpu::device_memory_bandwidth_GB_per_s();
  return roof;
#else
  return 0;
#endif
}
// "  42.0%" of the roof, "      -" without one.
std::string roof_text(double gbs) {
  char buf[16];
  if (roofline_GB_per_s() > 0)
    std::snprintf(buf, sizeof buf, "%6.1f%%", 100 * gbs / roofline_GB_per_s());
  else
    std::snprintf(buf, sizeof buf, "%7s", "-");
  return buf;
}
double roof_fraction(double gbs) { return roofline_GB_per_s() > 0 ? gbs / roofline_GB_per_s() : 0; }

// The SFU roof of the card in use [ops/s] (0: no device), and the SFU operations a time-stepped fluid
// cell-step issues on the device (moving_step_ops.hpp): sin and cos of the precession and exp of E2, and
// sin and cos of the gradient frame's turn by motion (docs/flow_transport.md).
double sfu_roof_ops_per_s() {
#ifdef MRWB_HAVE_CUDA
  static const double roof = gpu::device_facts().sfu_ops_per_s();
  return roof;
#else
  return 0;
#endif
}
double sfu_ops_per_fluid_step(FlowTransport t) { return in_gradient_frame(t) ? 5 : 3; }

// Times one moving case on every engine; the CPU's time is estimated from `cpu_probe` (a sub-volume and
// a shorter program of the same objects) when given: cell-steps/s measured there, applied to the case.
void run_moving(const MovingCase& c, const BenchOptions& options, nlohmann::json& report,
                const MovingCase* cpu_probe = nullptr) {
  const double cell_steps = static_cast<double>(time_step_count(c.ph, c.prog)) * static_cast<double>(c.ph.size());
  for (const auto& b : engines(options)) {
    if (b == Backend::Cpu && !c.with_cpu && !cpu_probe) continue;
    const bool estimate = b == Backend::Cpu && !c.with_cpu;
    const MovingCase& run = estimate ? *cpu_probe : c;
    auto engine = make_simulation_engine(b);
    engine->set_flow_transport(options.flow_transport);
    std::vector<std::complex<float>> samples(static_cast<std::size_t>(run.prog.readouts) * run.prog.nx), truth(run.ph.size());
    const auto t0 = std::chrono::steady_clock::now();
    try {
      engine->run(run.ph, run.prog, samples, truth, {}, {});
    } catch (const std::exception& e) {
      std::printf("%-44s %-6s not run: %s\n", c.name.c_str(), name_of(b).c_str(), e.what());
      continue;
    }
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Traffic t = run_traffic(run.ph, run.prog, b == Backend::Cuda);
    const double gbs = t.bytes / sec * 1e-9;
    if (estimate) {  // probe rate applied to the whole case
      const double probe_steps = static_cast<double>(time_step_count(run.ph, run.prog)) * static_cast<double>(run.ph.size());
      sec *= cell_steps / probe_steps;
    }
    // SFU: the time-stepped fluid cells' share, on the device only.
    const double sfu = b == Backend::Cuda && sfu_roof_ops_per_s() > 0
                           ? t.stepped_cells * static_cast<double>(time_step_count(run.ph, run.prog)) *
                                 sfu_ops_per_fluid_step(engine->flow_transport()) / sec / sfu_roof_ops_per_s()
                           : 0;
    char sfu_text[16] = "      -";
    if (sfu > 0) std::snprintf(sfu_text, sizeof sfu_text, "%6.1f%%", 100 * sfu);
    std::printf("%-44s %-6s %10.4f %14.3e %10.1f %s %s%s\n", c.name.c_str(), name_of(b).c_str(), sec, cell_steps / sec,
                gbs, roof_text(gbs).c_str(), sfu_text, estimate ? ("  (estimate from " + run.name + ")").c_str() : "");
    nlohmann::json row = {{"case", c.name}, {"engine", name_of(b)}, {"seconds", sec}, {"estimated", estimate},
                          {"cell_steps", cell_steps}, {"cell_steps_per_s", cell_steps / sec},
                          {"time_stepped_cells", t.stepped_cells}, {"closed_form_cells", t.closed_form_cells},
                          {"bytes", t.bytes}, {"GB_per_s", gbs}, {"roofline_fraction", roof_fraction(gbs)},
                          {"sfu_fraction", sfu},
                          {"flow_transport", std::string(to_string(engine->flow_transport()))}};
    if (b == Backend::Cuda && t.separable_passes > 0) {
      const double kernel_gbs = cuda_kernel_bytes(run.ph, t) / sec * 1e-9;
      std::printf("%-44s %-6s %10s %14s %10.1f %s\n", "  at the bytes its kernels move", name_of(b).c_str(), "-", "-",
                  kernel_gbs, roof_text(kernel_gbs).c_str());
      row["kernel_GB_per_s"] = kernel_gbs;
      row["kernel_roofline_fraction"] = roof_fraction(kernel_gbs);
    }
    report["cases"].push_back(row);
  }
}

std::vector<Backend> engines(const BenchOptions& options) {
  std::vector<Backend> out;
  if (options.backend == Backend::Auto) {
    for (const auto& b : list_backends())
      if (b.available) out.push_back(b.name);
  } else {
    out.push_back(options.backend);
  }
  return out;
}

}  // namespace

SequenceSpec bench_ge(int lines, double fov_m) {
  SequenceSpec seq;
  seq.matrix = lines;
  seq.fov_m = fov_m;
  seq.TR_s = 0.01;
  seq.TE_s = 0.004;
  seq.flip_angle_deg = 30;
  seq.bandwidth_Hz_per_pixel = 500;
  seq.dummy_scans = 0;
  return seq;
}

// Jurczuk et al. 2016, object (a): a straight tube filling the grid, blood, Poiseuille profile across y with a peak
// of u_max cells per flow step.
CellPhantom straight_tube(int nx, int ny, double cell_m, double u_max, double flow_dt_s) {
  const TissueProperties& blood = tissue_1p5T("blood");
  CellPhantom ph = uniform_phantom(nx, ny, cell_m, static_cast<float>(blood.PD), static_cast<float>(blood.T1_s),
                                   static_cast<float>(blood.T2_s), CellType::Fluid);
  ph.flow_dt_s = flow_dt_s;
  for (int iy = 0; iy < ny; ++iy) {
    const double r = (iy + 0.5) / ny * 2 - 1;  // −1 .. 1 across the tube
    for (int ix = 0; ix < nx; ++ix) ph.ux[static_cast<std::size_t>(iy) * nx + ix] = static_cast<float>(u_max * (1 - r * r));
  }
  return ph;
}

int bench_sim(const BenchOptions& options, nlohmann::json& report) {
  report["cases"] = nlohmann::json::array();
  if (roofline_GB_per_s() > 0)
    std::printf("roof: %% of the card's peak memory bandwidth, %.0f GB/s (read from the device)\n", roofline_GB_per_s());
  report["roofline_GB_per_s"] = roofline_GB_per_s();
  if (sfu_roof_ops_per_s() > 0)
    std::printf("SFU: %% of the card's special-function rate, %.3e ops/s (read from the device: SMs x 16 x clock), "
                "for the time-stepped fluid cells' sin, cos and exp\n",
                sfu_roof_ops_per_s());
  report["sfu_ops_per_s"] = sfu_roof_ops_per_s();
  std::printf("%-44s %-6s %10s %14s %10s %7s %7s\n", "case", "engine", "seconds", "cell-steps/s", "GB/s", "roof", "SFU");

  // The CUDA context and first allocations, outside every timed case (when --case skips the static one).
  for (const auto& b : engines(options))
    if (b != Backend::Cpu) {
      Scenario s = scenario_preset("straight_vessel");
      s.sequence.matrix = 16;
      auto engine = make_simulation_engine(b);
      simulate(s, *engine, {}, {});
    }

  // Static scenarios: every cell advanced once per event interval and once per ADC sample.
  struct StaticCase {
    const char* name;
    int matrix, cells_per_voxel;
  };
  std::vector<StaticCase> statics = {{"static GE 128x128, 256^2 cells", 128, 2}};
  if (options.quick) statics = {{"static GE 64x64, 128^2 cells", 64, 2}};
  for (const auto& c : statics) {
    if (!options.wants(c.name)) continue;
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = c.matrix;
    s.phantom.cells_per_voxel = c.cells_per_voxel;
    const double cells = std::pow(static_cast<double>(c.matrix) * c.cells_per_voxel, 2);
    const double steps = cells * (2.0 * (s.sequence.dummy_scans + c.matrix) + static_cast<double>(c.matrix) * c.matrix);
    for (const auto& b : engines(options)) {
      auto engine = make_simulation_engine(b);
      simulate(s, *engine, {}, {});  // warm-up (CUDA context, allocations)
      const SimulationResult r = simulate(s, *engine, {}, {});
      std::printf("%-44s %-6s %10.4f %14.3e %10s\n", c.name, name_of(b).c_str(), r.seconds, steps / r.seconds, "-");
      report["cases"].push_back(
          {{"case", c.name}, {"engine", name_of(b)}, {"seconds", r.seconds}, {"cell_steps_per_s", steps / r.seconds}});
    }
  }

  // Moving phantoms (time-stepped path with transport). Jurczuk et al. 2016's straight tube: cells 0.1 mm, u_max 0.8
  // cells per 100 µs step (0.8 m/s peak), filling the grid.
  const int tube_nx = options.quick ? 188 : 940, tube_ny = options.quick ? 38 : 190, lines = options.quick ? 16 : 128;
  MovingCase tube{"", straight_tube(tube_nx, tube_ny, 1e-4, 0.8, 1e-4), {}, true};
  {
    SequenceSpec seq = bench_ge(lines, tube_nx * 1e-4);
    tube.prog = build_sequence_program(seq);
    char name[96];
    std::snprintf(name, sizeof name, "tube %dx%d flow, GE %d PE", tube_nx, tube_ny, lines);
    tube.name = name;
  }
  if (options.wants(tube.name)) run_moving(tube, options, report);
  // Jurczuk et al. 2016's branching objects: the bifurcation presets (Poiseuille flow, 2 mL/s) on 512²
  // cells, and a 1024² slice of the liver-like vessel tree with a 256-PE GE (one slice of the paper's slab).
  struct TreeCase {
    const char* preset;
    int matrix, cells_per_voxel;
    bool with_cpu;
  };
  std::vector<TreeCase> trees = {{"bifurcation", 128, 4, true}, {"multi_bifurcation", 128, 4, true},
                                 {"liver_tree", 256, 4, false}};
  if (options.quick) trees = {{"bifurcation", 32, 2, true}};
  for (const auto& t : trees) {
    Scenario s = scenario_preset(t.preset);
    s.sequence = bench_ge(t.matrix, s.sequence.fov_m);
    s.phantom.cells_per_voxel = t.cells_per_voxel;
    MovingCase c{"", build_phantom(s), build_sequence_program(s.sequence), t.with_cpu};
    char name[96];
    std::snprintf(name, sizeof name, "%s %dx%d flow, GE %d PE", t.preset, c.ph.nx, c.ph.ny, t.matrix);
    c.name = name;
    if (options.wants(c.name)) run_moving(c, options, report);
  }
  // Jurczuk et al. 2016's liver-like slab: 1000 × 1000 × 70 cubic cells of 0.2 mm, a 2-D spoiled GE with 256 phase
  // encodes over the whole slab (non-selective pulses: the image is the projection along z). The CPU
  // engine's rate is measured on the central 250 × 250 × 70 cells over the first 2 TRs.
  const int sx = options.quick ? 100 : 1000, sz = options.quick ? 14 : 70, pe = options.quick ? 32 : 256;
  char slab_name[96];
  std::snprintf(slab_name, sizeof slab_name, "liver slab %dx%dx%d flow, GE %d PE", sx, sx, sz, pe);
  if (options.wants(slab_name)) {
    const double cell_m = 2e-4;
    MovingCase slab{slab_name, liver_slab(sx, sx, sz, cell_m), build_sequence_program(bench_ge(pe, sx * cell_m)), false};
    char name[96];
    const int px = sx / 4;
    MovingCase probe{"", crop_phantom(slab.ph, (sx - px) / 2, (sx - px) / 2, 0, px, px, sz), first_readouts(slab.prog, 2), true};
    std::snprintf(name, sizeof name, "%dx%dx%d cells, 2 TRs", px, px, sz);
    probe.name = name;
    run_moving(slab, options, report, &probe);
    std::snprintf(name, sizeof name, "  its closed-form part alone (flow stopped)");
    if (options.backend != Backend::Cpu) bench_closed_form_only(slab.ph, slab.prog, name, roofline_GB_per_s(), report);
  }
  // Cancel latency: cancel() 300 ms into a long run of the tube, time until the engine returns.
  if (!options.wants("cancel latency (tube, 300 ms in)")) return 0;
  SequenceSpec long_seq = bench_ge(lines, tube_nx * 1e-4);
  long_seq.dummy_scans = options.quick ? 200 : 2000;
  const SequenceProgram long_prog = build_sequence_program(long_seq);
  for (const auto& b : engines(options)) {
    auto engine = make_simulation_engine(b);
    const double ms = cancel_latency_s(*engine, tube.ph, long_prog, 0.3) * 1e3;  // < 0: ended first
    std::printf("%-44s %-6s %10.1f ms\n", "cancel latency (tube, 300 ms in)", name_of(b).c_str(), ms);
    report["cases"].push_back({{"case", "cancel latency"}, {"engine", name_of(b)}, {"cancel_latency_ms", ms}});
  }
  return 0;
}

}  // namespace mrwb::cli
