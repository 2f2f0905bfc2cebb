// Seed 004's liver-like slab for `mrwb bench --suite sim`: a 3-D organ vessel tree discretised into
// cubic cells, blood moving with the analytic Poiseuille field, the parenchyma stationary.
#include "bench_sim_slab.hpp"

#include <algorithm>
#include <cmath>

#include "mrwb/flow.hpp"
#include "mrwb/phantom_discretise.hpp"
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

CellPhantom crop_phantom(const CellPhantom& ph, int x0, int y0, int z0, int nx, int ny, int nz) {
  CellPhantom c = ph;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  c.x0_m = ph.x_m(x0);
  c.y0_m = ph.y_m(y0);
  c.z0_m = ph.z_m(z0);
  auto crop = [&](auto& dst, const auto& src) {
    if (src.size() != ph.size()) return;
    dst.resize(c.size());
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y) {
        const std::size_t from = ((static_cast<std::size_t>(z0 + z) * ph.ny) + y0 + y) * ph.nx + x0;
        std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(from), nx,
                    dst.begin() + static_cast<std::ptrdiff_t>((static_cast<std::size_t>(z) * ny + y) * nx));
      }
  };
  crop(c.PD, ph.PD);
  crop(c.T1_s, ph.T1_s);
  crop(c.T2_s, ph.T2_s);
  crop(c.dB_T, ph.dB_T);
  crop(c.type, ph.type);
  crop(c.ux, ph.ux);
  crop(c.uy, ph.uy);
  crop(c.uz, ph.uz);
  crop(c.open_end, ph.open_end);
  return c;
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

}  // namespace mrwb::cli
