// The scenario's vessel tree, its cell grid and its flow field.
#include "mrwb/scenario/scenario_phantom.hpp"

#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/input_source.hpp"
#include "mrwb/base/number_text.hpp"

namespace mrwb {

VesselTree scenario_vessel_tree(const Scenario& s, const std::string& source) {
  const auto& p = s.phantom;
  if (p.preset == "vessel_tree") return generate_vessel_tree(p.tree, source + ": phantom.tree");
  if (p.preset == "straight_vessel") {
    // The band of the static preset, as a tube long enough to cross the field of view.
    const double a = p.vessel_angle_deg * M_PI / 180.0;
    const double L = s.sequence.fov_m * (std::abs(std::cos(a)) + std::abs(std::sin(a))) + 4 * p.vessel_radius_m;
    const Vec3 e{std::cos(a), std::sin(a), 0}, n{-std::sin(a), std::cos(a), 0};
    const Vec3 c{n.x * p.vessel_offset_m, n.y * p.vessel_offset_m, 0};
    VesselTree t;
    t.dims = 2;
    VesselSegment g;
    g.centreline_m = {{c.x - e.x * L / 2, c.y - e.y * L / 2, 0}, {c.x + e.x * L / 2, c.y + e.y * L / 2, 0}};
    g.radius_m = {p.vessel_radius_m, p.vessel_radius_m};
    t.segments.push_back(g);
    return t;
  }
  throw InputError(source + ": phantom.preset = '" + p.preset +
                   "' has no vessel for a flow field (allowed with flow: straight_vessel, vessel_tree)");
}

CellGrid scenario_cell_grid(const Scenario& s) {
  const int matrix = s.sequence.matrix, cpv = s.phantom.cells_per_voxel;
  CellGrid g;
  g.nx = g.ny = matrix * cpv;
  g.nz = 1;
  g.cell_m = s.sequence.fov_m / g.nx;
  const double voxel = s.sequence.fov_m / matrix;
  const double o = -0.5 * matrix * voxel - 0.5 * voxel + 0.5 * g.cell_m;  // as build_phantom
  g.origin_m = {o, o, 0};
  return g;
}

FlowField scenario_flow_field(const Scenario& s, const std::string& solver, const LbmRunner& runner,
                              const std::function<void(const std::string&)>& info, const ProgressFn& progress,
                              const CancelToken& cancel, std::size_t memory_limit) {
  if (solver != "poiseuille" && solver != "lbm")
    throw InputError("--solver " + solver + ": unknown solver (allowed: poiseuille, lbm)");
  if (!s.source.empty()) {
    Scenario in_memory = s;  // the same steps, their refusals said about the scenario's file
    in_memory.source.clear();
    return about_source(s.source, [&] {
      return scenario_flow_field(in_memory, solver, runner, info, progress, cancel, memory_limit);
    });
  }
  const VesselTree tree = scenario_vessel_tree(s);
  CellGrid grid = scenario_cell_grid(s);
  if (tree.dims == 3) {
    // A volume around the tree with the simulator's cell size, aligned with the simulator's grid.
    const CellGrid around = grid_around_tree(tree, grid.cell_m, 2 * grid.cell_m);
    const int ox = static_cast<int>(std::floor((around.origin_m.x - grid.origin_m.x) / grid.cell_m));
    const int oy = static_cast<int>(std::floor((around.origin_m.y - grid.origin_m.y) / grid.cell_m));
    grid.origin_m = {grid.origin_m.x + ox * grid.cell_m, grid.origin_m.y + oy * grid.cell_m, around.origin_m.z};
    grid.nx = around.nx + 1;
    grid.ny = around.ny + 1;
    grid.nz = around.nz;
  }
  std::size_t bytes = discretise_memory_bytes(grid) + 7 * sizeof(float) * grid.size();
  if (solver == "lbm") {
    LbmDomain probe;
    probe.nx = grid.nx, probe.ny = grid.ny, probe.nz = grid.nz;
    bytes += lbm_memory_bytes(probe);
  }
  if (info) info("flow grid " + describe_grid_memory(grid, bytes) + " estimated before building");
  if (bytes > memory_limit)
    throw InputError("flow: " + describe_grid_memory(grid, bytes) + " needed, more than the " +
                     number_text(memory_limit / (1024.0 * 1024.0)) + " MiB allowed (raise cells size: lower "
                     "phantom.cells_per_voxel or sequence.matrix)");
  const VesselCells cells = discretise_vessels(tree, grid, "phantom.tree", memory_limit, {}, info, progress, cancel);
  FlowField f = solver == "poiseuille" ? poiseuille_flow_field(tree, cells, s.flow)
                                       : lbm_flow_field(tree, cells, s.flow, runner, progress, cancel);
  // The simulator's transport needs |u| <= 1 cell per step.
  const double u_cells = f.max_speed_m_per_s() * s.flow_time_step_s() / grid.cell_m;
  if (u_cells > 1)
    throw InputError("flow.inlet_flow_m3_per_s = " + number_text(s.flow.inlet_flow_m3_per_s) + " gives " +
                     number_text(f.max_speed_m_per_s()) + " m/s = " + number_text(u_cells) + " cells per step of " +
                     number_text(s.flow_time_step_s()) + " s: breaks |u| <= 1 (lower the flow or flow.time_step_s)");
  return f;
}

}  // namespace mrwb
