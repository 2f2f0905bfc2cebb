// Jurczuk et al. 2016's liver-like slab (mrwb/flow/organ_slab.hpp).
#include "mrwb/flow/organ_slab.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/phantom/vessel_generators.hpp"

namespace mrwb {

OrganSlabPlanes organ_slab_planes(const OrganSlabSpec& s, const std::string& where, std::size_t max_bytes, int z_begin,
                                  int z_end, int y_begin, int y_end) {
  // A part of a 3-D slab keeps two planes at least: a grid of one plane is a 2-D slice to the discretisation.
  const int least = s.nz > 1 ? 2 : 1;
  if (z_begin < 0 || z_end > s.nz || z_end - z_begin < least)
    throw InputError(where + ": planes [" + std::to_string(z_begin) + ", " + std::to_string(z_end) + ") of a slab of " +
                     std::to_string(s.nz) + " (allowed: 0 <= begin, begin + " + std::to_string(least) + " <= end <= " +
                     std::to_string(s.nz) + ")");
  if (y_end < 0) y_end = s.ny;
  if (y_begin < 0 || y_end > s.ny || y_end <= y_begin)
    throw InputError(where + ": rows [" + std::to_string(y_begin) + ", " + std::to_string(y_end) + ") of a slab of " +
                     std::to_string(s.ny) + " (allowed: 0 <= begin < end <= " + std::to_string(s.ny) + ")");
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
  g.ny = y_end - y_begin;
  g.nz = z_end - z_begin;
  g.cell_m = s.cell_m;
  // Plane z of the whole sits at −(nz − 1)/2 + z cells (row y likewise); a part starts at its first plane's place.
  g.origin_m = {-0.5 * (s.nx - 1) * s.cell_m, (y_begin - 0.5 * (s.ny - 1)) * s.cell_m, (z_begin - 0.5 * (s.nz - 1)) * s.cell_m};
  VesselCells cells = discretise_vessels(tree, g, where, max_bytes);
  FlowSpec flow;
  flow.enabled = true;
  FlowField f = poiseuille_flow_field(tree, cells, flow);

  // The phantom takes the cell types and the velocities (zero outside the fluid cells) over rather than copying
  // them: at 10^8 cells and more, first touching fresh arrays is most of a build.
  OrganSlabPlanes out;
  CellPhantom& ph = out.ph;
  ph = uniform_phantom(s.nx, g.ny, s.cell_m, 0.f, 0.f, 0.f, CellType::Background);
  ph.nz = g.nz;
  const std::size_t n = g.size();
  ph.PD.assign(n, 0.f);
  ph.T1_s.assign(n, 0.f);
  ph.T2_s.assign(n, 0.f);
  ph.dB_T.assign(n, 0.f);
  ph.type = std::move(cells.type);
  ph.ux = std::move(f.ux_m_per_s);
  ph.uy = std::move(f.uy_m_per_s);
  ph.uz = std::move(f.uz_m_per_s);
  ph.x0_m = g.origin_m.x;
  ph.y0_m = g.origin_m.y;
  ph.z0_m = g.origin_m.z;
  const TissueProperties& blood = tissue_1p5T("blood");
  const TissueProperties* parenchyma = s.parenchyma.empty() ? nullptr : &tissue_1p5T(s.parenchyma);
  // Each part's largest |ux| + |uy| + |uz| [m/s] over its fluid cells; their maximum is the slab's.
  const int parts = range_parts(n);
  std::vector<double> part_max(static_cast<std::size_t>(parts), 0.0);
  for_each_range(n, parts, [&](int p, std::size_t begin, std::size_t end) {
    double u_max = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const bool fluid = ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      if (fluid) u_max = std::max(u_max, static_cast<double>(std::abs(ph.ux[i]) + std::abs(ph.uy[i]) + std::abs(ph.uz[i])));
      if (ph.type[i] == static_cast<std::uint8_t>(CellType::Background)) continue;
      const TissueProperties* t = fluid ? &blood : parenchyma;
      if (!t) continue;
      ph.PD[i] = static_cast<float>(t->PD);
      ph.T1_s[i] = static_cast<float>(t->T1_s);
      ph.T2_s[i] = static_cast<float>(t->T2_s);
    }
    part_max[static_cast<std::size_t>(p)] = u_max;
  });
  const double u_max = *std::max_element(part_max.begin(), part_max.end());
  out.u_max_m_per_s = u_max;
  return out;
}

void scale_organ_slab_flow(CellPhantom& ph, double u_max_m_per_s) {
  // Flow step: the fastest cell moves 0.9 cells per step (lattice units as the simulator takes them).
  ph.flow_dt_s = u_max_m_per_s > 0 ? 0.9 * ph.cell_size_m / u_max_m_per_s : 0;
  const double to_cells = ph.flow_dt_s / ph.cell_size_m;
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      ph.ux[i] = static_cast<float>(ph.ux[i] * to_cells);
      ph.uy[i] = static_cast<float>(ph.uy[i] * to_cells);
      ph.uz[i] = static_cast<float>(ph.uz[i] * to_cells);
    }
}

int organ_slab_stack_planes_total(const OrganSlabSpec& s, int copies) { return copies * (s.nz + 2); }

OrganSlabPlanes organ_slab_stack_planes(const OrganSlabSpec& s, int copies, const std::string& where, std::size_t max_bytes,
                                        int z_begin, int z_end, int offset, int y_begin, int y_end) {
  const int T = s.nz + 2, total = organ_slab_stack_planes_total(s, copies);
  if (offset < 0 || offset >= T)
    throw InputError(where + ": offset " + std::to_string(offset) + " (allowed: 0 to " + std::to_string(T - 1) + ")");
  if (copies < 1 || s.nz < 2 || z_begin < 0 || z_end > total || z_end - z_begin < 2)
    throw InputError(where + ": planes [" + std::to_string(z_begin) + ", " + std::to_string(z_end) + ") of a stack of " +
                     std::to_string(copies) + " slabs of " + std::to_string(s.nz) + " + 2 planes (allowed: at least one copy of " +
                     "2 planes or more, 0 <= begin, begin + 2 <= end <= " + std::to_string(total) + ")");
  const OrganSlabPlanes one = organ_slab_planes(s, where, max_bytes, 0, s.nz, y_begin, y_end);
  const CellPhantom& b = one.ph;
  OrganSlabPlanes out;
  out.u_max_m_per_s = one.u_max_m_per_s;
  CellPhantom& ph = out.ph;
  ph = crop_phantom(b, 0, 0, 0, b.nx, b.ny, 0);  // the scalars
  ph.nz = z_end - z_begin;
  ph.z0_m = (z_begin - 0.5 * (total - 1)) * s.cell_m;
  const std::size_t plane = b.slice_size(), n = ph.size();
  const TissueProperties* parenchyma = s.parenchyma.empty() ? nullptr : &tissue_1p5T(s.parenchyma);
  auto fill = [&](auto& dst, const auto& src, auto cap) {
    if (src.size() != b.size()) return;
    dst.resize(n);
    for (int z = 0; z < ph.nz; ++z) {
      const int q = (offset + z_begin + z) % T;  // plane of the copy: 0 and T − 1 are the caps
      const auto to = dst.begin() + static_cast<std::ptrdiff_t>(z * plane);
      if (q == 0 || q == T - 1)
        std::fill_n(to, plane, cap);
      else
        std::copy_n(src.begin() + static_cast<std::ptrdiff_t>((q - 1) * plane), plane, to);
    }
  };
  fill(ph.PD, b.PD, parenchyma ? static_cast<float>(parenchyma->PD) : 0.f);
  fill(ph.T1_s, b.T1_s, parenchyma ? static_cast<float>(parenchyma->T1_s) : 0.f);
  fill(ph.T2_s, b.T2_s, parenchyma ? static_cast<float>(parenchyma->T2_s) : 0.f);
  fill(ph.dB_T, b.dB_T, 0.f);
  fill(ph.type, b.type, static_cast<std::uint8_t>(CellType::Stationary));
  fill(ph.ux, b.ux, 0.f);
  fill(ph.uy, b.uy, 0.f);
  fill(ph.uz, b.uz, 0.f);
  fill(ph.open_end, b.open_end, std::uint8_t{0});
  return out;
}

CellPhantom organ_slab_phantom(const OrganSlabSpec& s, const std::string& where, std::size_t max_bytes) {
  OrganSlabPlanes all = organ_slab_planes(s, where, max_bytes, 0, s.nz);
  scale_organ_slab_flow(all.ph, all.u_max_m_per_s);
  return std::move(all.ph);
}

}  // namespace mrwb
