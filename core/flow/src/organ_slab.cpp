// Jurczuk et al. 2016's liver-like slab (mrwb/flow/organ_slab.hpp).
#include "mrwb/flow/organ_slab.hpp"

#include <algorithm>
#include <cmath>

#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/phantom/vessel_generators.hpp"

namespace mrwb {

CellPhantom organ_slab_phantom(const OrganSlabSpec& s, const std::string& where, std::size_t max_bytes) {
  VesselTreeSpec spec;
  spec.generator = "organ_tree";
  spec.dims = 3;
  spec.seed = 2016;
  spec.terminals = s.terminals;
  spec.radius_m = s.root_radius_m;
  spec.organ_semi_axes_m[0] = 0.55 * s.nx * s.cell_m;
  spec.organ_semi_axes_m[1] = 0.45 * s.ny * s.cell_m;
  spec.organ_semi_axes_m[2] = 0.45 * s.nz * s.cell_m;
  const VesselTree tree = generate_vessel_tree(spec, where);
  CellGrid g;
  g.nx = s.nx;
  g.ny = s.ny;
  g.nz = s.nz;
  g.cell_m = s.cell_m;
  g.origin_m = {-0.5 * (s.nx - 1) * s.cell_m, -0.5 * (s.ny - 1) * s.cell_m, -0.5 * (s.nz - 1) * s.cell_m};
  const VesselCells cells = discretise_vessels(tree, g, where, max_bytes);
  FlowSpec flow;
  flow.enabled = true;
  const FlowField f = poiseuille_flow_field(tree, cells, flow);

  CellPhantom ph = uniform_phantom(s.nx, s.ny, s.cell_m, 0.f, 0.f, 0.f, CellType::Background);
  ph.nz = s.nz;
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
  const TissueProperties* parenchyma = s.parenchyma.empty() ? nullptr : &tissue_1p5T(s.parenchyma);
  double u_max = 0;  // largest |ux| + |uy| + |uz| [m/s]
  for (std::size_t i = 0; i < n; ++i) {
    const bool fluid = ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
    if (fluid) u_max = std::max(u_max, static_cast<double>(std::abs(f.ux_m_per_s[i]) + std::abs(f.uy_m_per_s[i]) +
                                                           std::abs(f.uz_m_per_s[i])));
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Background)) continue;
    const TissueProperties* t = fluid ? &blood : parenchyma;
    if (!t) continue;
    ph.PD[i] = static_cast<float>(t->PD);
    ph.T1_s[i] = static_cast<float>(t->T1_s);
    ph.T2_s[i] = static_cast<float>(t->T2_s);
  }
  // Flow step: the fastest cell moves 0.9 cells per step (lattice units as the simulator takes them).
  ph.flow_dt_s = u_max > 0 ? 0.9 * s.cell_m / u_max : 0;
  const double to_cells = ph.flow_dt_s / s.cell_m;
  for (std::size_t i = 0; i < n; ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      ph.ux[i] = static_cast<float>(f.ux_m_per_s[i] * to_cells);
      ph.uy[i] = static_cast<float>(f.uy_m_per_s[i] * to_cells);
      ph.uz[i] = static_cast<float>(f.uz_m_per_s[i] * to_cells);
    }
  return ph;
}

}  // namespace mrwb
