// Seed 004's liver-like slab for `mrwb bench --suite sim`: a 3-D organ vessel tree discretised into
// cubic cells, blood moving with the analytic Poiseuille field, the parenchyma stationary.
#include "bench_sim_slab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "mrwb/backend_registry.hpp"
#include "mrwb/flow.hpp"
#include "mrwb/phantom_discretise.hpp"
#include "mrwb/separable_readout_signal.hpp"
#include "mrwb/simulation_engine.hpp"
#include "mrwb/tissue.hpp"
#include "mrwb/vessel_generators.hpp"

namespace mrwb::cli {

CellPhantom liver_slab(int nx, int ny, int nz, double cell_m) {
  // A slab cut from a liver: every cell is parenchyma except the lumen. The tree grows in a flattened
  // ellipsoid whose x semi-axis reaches past the grid, so the root (which enters at the −x pole) crosses
  // the grid's open edge and blood flows in.
  VesselTreeSpec spec;
  spec.generator = "organ_tree";
  spec.dims = 3;
  spec.seed = 2016;
  spec.terminals = 48;
  spec.radius_m = 0.002;
  spec.organ_semi_axes_m[0] = 0.55 * nx * cell_m;
  spec.organ_semi_axes_m[1] = 0.45 * ny * cell_m;
  spec.organ_semi_axes_m[2] = 0.45 * nz * cell_m;
  const VesselTree tree = generate_vessel_tree(spec, "bench slab");
  CellGrid g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.cell_m = cell_m;
  g.origin_m = {-0.5 * (nx - 1) * cell_m, -0.5 * (ny - 1) * cell_m, -0.5 * (nz - 1) * cell_m};
  const VesselCells cells = discretise_vessels(tree, g, "bench slab", std::size_t{16} << 30);
  FlowSpec flow;
  flow.enabled = true;
  const FlowField f = poiseuille_flow_field(tree, cells, flow);

  CellPhantom ph = uniform_phantom(nx, ny, cell_m, 0.f, 0.f, 0.f, CellType::Background);
  ph.nz = nz;
  const std::size_t n = g.size();
  ph.PD.assign(n, 0.f);
  ph.T1_s.assign(n, 0.f);
  ph.T2_s.assign(n, 0.f);
  ph.dB_T.assign(n, 0.f);
  ph.type = cells.type;
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  ph.uz.assign(n, 0.f);
  ph.x0_m = g.origin_m.x;
  ph.y0_m = g.origin_m.y;
  ph.z0_m = g.origin_m.z;
  const TissueProperties& blood = tissue_1p5T("blood");
  const TissueProperties& liver = tissue_1p5T("liver");
  double u_max = 0;  // largest |ux| + |uy| + |uz| [m/s]
  for (std::size_t i = 0; i < n; ++i) {
    const bool fluid = ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
    if (fluid) u_max = std::max(u_max, static_cast<double>(std::abs(f.ux_m_per_s[i]) + std::abs(f.uy_m_per_s[i]) +
                                                           std::abs(f.uz_m_per_s[i])));
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Background)) continue;
    const TissueProperties& t = fluid ? blood : liver;
    ph.PD[i] = static_cast<float>(t.PD);
    ph.T1_s[i] = static_cast<float>(t.T1_s);
    ph.T2_s[i] = static_cast<float>(t.T2_s);
  }
  // Flow step: the fastest cell moves 0.9 cells per step (lattice units as the simulator takes them).
  ph.flow_dt_s = u_max > 0 ? 0.9 * cell_m / u_max : 0;
  const double to_cells = ph.flow_dt_s / cell_m;
  for (std::size_t i = 0; i < n; ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      ph.ux[i] = static_cast<float>(f.ux_m_per_s[i] * to_cells);
      ph.uy[i] = static_cast<float>(f.uy_m_per_s[i] * to_cells);
      ph.uz[i] = static_cast<float>(f.uz_m_per_s[i] * to_cells);
    }
  return ph;
}

SequenceProgram first_readouts(const SequenceProgram& prog, int count) {
  SequenceProgram p = prog;
  p.events.clear();
  int seen = 0;
  for (const SeqEvent& e : prog.events) {
    if (e.kind == EventKind::Rf && seen >= count) break;
    p.events.push_back(e);
    if (e.kind == EventKind::Readout) ++seen;
  }
  p.readouts = seen;
  return p;
}

void bench_closed_form_only(const CellPhantom& slab, const SequenceProgram& prog, const std::string& name,
                            double roofline_GB_per_s, nlohmann::json& report) {
  bool cuda = false;
  for (const auto& b : list_backends()) cuda = cuda || (b.name == "cuda" && b.available);
  if (!cuda) return;
  CellPhantom still = slab;
  still.flow_dt_s = 0;
  auto engine = make_simulation_engine("cuda");
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(still.size());
  const auto t0 = std::chrono::steady_clock::now();
  engine->run(still, prog, samples, truth, {}, {});
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Bytes: one separable pass per readout along x over the grid, every cell with PD != 0 moving M
  // (24) and reading PD T1 T2 dB (16), the others PD (4); the passes without a readout are left out.
  double played = 0;
  for (float pd : still.PD) played += pd != 0.f;
  double passes = 0;
  for (const SeqEvent& e : prog.events) passes += separable::readout_is_separable(e);
  const double bytes = passes * (played * 40 + (static_cast<double>(still.size()) - played) * 4);
  const double gbs = bytes / sec * 1e-9;
  std::printf("%-44s %-6s %10.4f %14s %10.1f %6.1f%%\n", name.c_str(), "cuda", sec, "-", gbs, 100 * gbs / roofline_GB_per_s);
  report["cases"].push_back({{"case", name}, {"engine", "cuda"}, {"seconds", sec}, {"closed_form_cells", played},
                             {"bytes", bytes}, {"GB_per_s", gbs}, {"roofline_fraction", gbs / roofline_GB_per_s}});
}

}  // namespace mrwb::cli
