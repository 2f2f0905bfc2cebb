// `mrwb bench --suite sim`: the Bloch simulator, CPU and CUDA. Static spoiled-GE scenarios (exact event
// path) and seed 004's straight tube (940 × 190 cells, Poiseuille flow, 128 phase encodes: the
// time-stepped path with transport). Cell-steps per second and, for the moving case, the bytes each
// cell-step moves against the card's memory bandwidth.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench_suites.hpp"
#include "mrwb/backend_registry.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_program.hpp"
#include "mrwb/simulation_engine.hpp"
#include "mrwb/tissue.hpp"

namespace mrwb::cli {
namespace {

// Seed 004 object (a): a straight tube filling the grid, blood, Poiseuille profile across y with a peak
// of u_max cells per flow step.
Phantom2D straight_tube(int nx, int ny, double cell_m, double u_max, double flow_dt_s) {
  const TissueProperties& blood = tissue_1p5T("blood");
  Phantom2D ph;
  ph.nx = nx;
  ph.ny = ny;
  ph.cell_size_m = cell_m;
  ph.x0_m = -0.5 * nx * cell_m + 0.5 * cell_m;
  ph.y0_m = -0.5 * ny * cell_m + 0.5 * cell_m;
  ph.flow_dt_s = flow_dt_s;
  const std::size_t n = ph.size();
  ph.PD.assign(n, static_cast<float>(blood.PD));
  ph.T1_s.assign(n, static_cast<float>(blood.T1_s));
  ph.T2_s.assign(n, static_cast<float>(blood.T2_s));
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(CellType::Fluid));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  for (int iy = 0; iy < ny; ++iy) {
    const double r = (iy + 0.5) / ny * 2 - 1;  // −1 .. 1 across the tube
    for (int ix = 0; ix < nx; ++ix) ph.ux[static_cast<std::size_t>(iy) * nx + ix] = static_cast<float>(u_max * (1 - r * r));
  }
  return ph;
}

std::vector<std::string> engines(const BenchOptions& options) {
  std::vector<std::string> out;
  if (options.backend == "auto") {
    for (const auto& b : list_backends())
      if (b.available) out.push_back(b.name);
  } else {
    out.push_back(options.backend);
  }
  return out;
}

}  // namespace

int bench_sim(const BenchOptions& options, nlohmann::json& report) {
  report["cases"] = nlohmann::json::array();
  std::printf("%-44s %-6s %10s %14s %10s\n", "case", "engine", "seconds", "cell-steps/s", "GB/s");

  // Static scenarios: every cell advanced once per event interval and once per ADC sample.
  struct StaticCase {
    const char* name;
    int matrix, cells_per_voxel;
  };
  std::vector<StaticCase> statics = {{"static GE 128x128, 256^2 cells", 128, 2}};
  if (options.quick) statics = {{"static GE 64x64, 128^2 cells", 64, 2}};
  for (const auto& c : statics) {
    Scenario s = scenario_preset("default");
    s.sequence.matrix = c.matrix;
    s.phantom.cells_per_voxel = c.cells_per_voxel;
    const double cells = std::pow(static_cast<double>(c.matrix) * c.cells_per_voxel, 2);
    const double steps = cells * (2.0 * (s.sequence.dummy_scans + c.matrix) + static_cast<double>(c.matrix) * c.matrix);
    for (const auto& b : engines(options)) {
      auto engine = make_simulation_engine(b);
      simulate(s, *engine, {}, {});  // warm-up (CUDA context, allocations)
      const SimulationResult r = simulate(s, *engine, {}, {});
      std::printf("%-44s %-6s %10.4f %14.3e %10s\n", c.name, b.c_str(), r.seconds, steps / r.seconds, "-");
      report["cases"].push_back({{"case", c.name}, {"engine", b}, {"seconds", r.seconds}, {"cell_steps_per_s", steps / r.seconds}});
    }
  }

  // Seed 004 straight tube with flow: cells 0.1 mm, u_max 0.8 cells per 100 µs step (0.8 m/s peak).
  const int tube_nx = options.quick ? 188 : 940, tube_ny = options.quick ? 38 : 190, lines = options.quick ? 16 : 128;
  const Phantom2D tube = straight_tube(tube_nx, tube_ny, 1e-4, 0.8, 1e-4);
  SequenceSpec seq;
  seq.matrix = lines;
  seq.fov_m = tube_nx * 1e-4;
  seq.TR_s = 0.01;
  seq.TE_s = 0.004;
  seq.flip_angle_deg = 30;
  seq.bandwidth_Hz_per_pixel = 500;
  seq.dummy_scans = 0;
  const SequenceProgram prog = build_spoiled_gre(seq);
  // Steps as both engines take them: sub-steps of the Free intervals keep the Courant number <= 1.
  const double dt_cfl = tube.flow_dt_s / 0.8;
  double n_steps = 0;
  for (const auto& e : prog.events) {
    if (e.kind == EventKind::Free) n_steps += std::max(1.0, std::ceil(e.dt_s / dt_cfl - 1e-9));
    if (e.kind == EventKind::Readout) n_steps += e.n_samples * std::max(1.0, std::ceil(e.dt_s / dt_cfl - 1e-9));
  }
  const double cell_steps = n_steps * static_cast<double>(tube.size());
  // Bytes per cell-step of the CUDA step kernel: M read (12) + written (12), PD T1 T2 dB ux uy (24), type (1).
  const double bytes_per_cell_step = 49;
  char name[96];
  std::snprintf(name, sizeof name, "tube %dx%d flow, GE %d PE", tube_nx, tube_ny, lines);
  for (const auto& b : engines(options)) {
    auto engine = make_simulation_engine(b);
    std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(tube.size());
    const auto t0 = std::chrono::steady_clock::now();
    engine->run(tube, prog, samples, truth, {}, {});
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double gbs = cell_steps * bytes_per_cell_step / sec * 1e-9;
    std::printf("%-44s %-6s %10.4f %14.3e %10.1f\n", name, b.c_str(), sec, cell_steps / sec, gbs);
    report["cases"].push_back({{"case", name}, {"engine", b}, {"seconds", sec}, {"cell_steps", cell_steps},
                               {"cell_steps_per_s", cell_steps / sec}, {"bytes_per_cell_step", bytes_per_cell_step},
                               {"GB_per_s", gbs}});
  }
  return 0;
}

}  // namespace mrwb::cli
