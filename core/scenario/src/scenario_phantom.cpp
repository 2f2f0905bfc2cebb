#include "mrwb/scenario/scenario_phantom.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/input_source.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/flow/face_flux.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"

namespace mrwb {
namespace {

// A slab's flow field on the slab's own cells (m/s): the scenario's vessels discretised in 3-D (the
// straight vessel a cylinder), then Poiseuille per segment or the LBM (D3Q19) on them. Same limits as
// scenario_flow_field: the memory of the grid (and the lattice) and |u| <= 1 cell per flow step.
FlowField slab_flow_field(const Scenario& s, const CellPhantom& ph, const LbmRunner& runner) {
  const VesselTree tree = scenario_vessel_tree(s);
  const CellGrid g = phantom_grid(ph);
  if (s.flow.solver == "lbm") {
    LbmDomain probe;
    probe.nx = g.nx, probe.ny = g.ny, probe.nz = g.nz;
    const std::size_t bytes = discretise_memory_bytes(g) + lbm_memory_bytes(probe);
    if (bytes > k_flow_memory_limit_bytes)
      throw InputError("flow: the slab's lattice, " + describe_grid_memory(g, bytes) +
                       ", is over the 4 GiB allowed (use a thinner phantom.slab_thickness_m or fewer cells)");
  }
  const VesselCells cells = discretise_vessels(tree, g, "phantom", k_flow_memory_limit_bytes);
  FlowField f = s.flow.solver == "lbm" ? lbm_flow_field(tree, cells, s.flow, runner)
                                       : poiseuille_flow_field(tree, cells, s.flow);
  const double u_cells = f.max_speed_m_per_s() * s.flow_time_step_s() / g.cell_m;
  if (u_cells > 1) {
    char msg[200];
    std::snprintf(msg, sizeof msg,
                  "flow.inlet_flow_m3_per_s = %g gives %g cells per step of %g s in the slab: breaks |u| <= 1 "
                  "(lower the flow or flow.time_step_s)",
                  s.flow.inlet_flow_m3_per_s, u_cells, s.flow_time_step_s());
    throw InputError(msg);
  }
  return f;
}

}  // namespace

CellPhantom build_phantom(const Scenario& s, const LbmRunner& lbm_runner) {
  if (!s.source.empty()) {
    Scenario in_memory = s;  // the same steps, their refusals said about the scenario's file
    in_memory.source.clear();
    return about_source(s.source, [&] { return build_phantom(in_memory, lbm_runner); });
  }
  CellPhantom ph = build_phantom(s.phantom, s.sequence.fov_m, s.sequence.matrix);
  if (!s.flow.enabled) return ph;
  const LbmRunner runner = lbm_runner ? lbm_runner : LbmRunner(lbm_run_cpu);
  const bool slab = ph.nz > 1;
  const FlowField f = slab ? slab_flow_field(s, ph, runner) : scenario_flow_field(s, s.flow.solver, runner);
  // Lattice units of the simulator: cells per flow time step.
  const double to_cells = s.flow_time_step_s() / ph.cell_size_m;
  ph.flow_dt_s = s.flow_time_step_s();
  const CellGrid& g = f.grid;
  // A 2-D slice takes the plane z = 0 of a 3-D field; a slab looks every cell up by its own z.
  const int iz_plane = g.nz > 1 ? static_cast<int>(std::lround(-g.origin_m.z / g.cell_m)) : 0;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
    const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>((i / ph.nx) % ph.ny);
    const long gx = std::lround((ph.x_m(ix) - g.origin_m.x) / g.cell_m);
    const long gy = std::lround((ph.y_m(iy) - g.origin_m.y) / g.cell_m);
    const int iz = static_cast<int>(i / ph.slice_size());
    const long gz = slab ? std::lround((ph.z_m(iz) - g.origin_m.z) / g.cell_m) : iz_plane;
    if (gx < 0 || gy < 0 || gz < 0 || gx >= g.nx || gy >= g.ny || gz >= g.nz) continue;
    const std::size_t j = g.index(static_cast<int>(gx), static_cast<int>(gy), static_cast<int>(gz));
    ph.ux[i] = static_cast<float>(f.ux_m_per_s[j] * to_cells);
    ph.uy[i] = static_cast<float>(f.uy_m_per_s[j] * to_cells);
    if (slab) ph.uz[i] = static_cast<float>(f.uz_m_per_s[j] * to_cells);
  }
  if (s.phantom.preset == "vessel_tree") mark_vessel_ends(ph, generate_vessel_tree(s.phantom.tree, "phantom.tree"));
  // The transport's faces must balance (face_flux.hpp): both simulation models move blood on them.
  const FaceFluxReport flux = make_face_fluxes_divergence_free(ph);
  if (flux.max_speed_after > 1)
    throw InputError("flow.inlet_flow_m3_per_s = " + number_text(s.flow.inlet_flow_m3_per_s) +
                     ": the divergence-free field reaches " + number_text(flux.max_speed_after) +
                     " cells per step of " + number_text(s.flow_time_step_s()) +
                     " s: breaks |u| <= 1 (lower the flow or flow.time_step_s)");
  return ph;
}

}  // namespace mrwb
