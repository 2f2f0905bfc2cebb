// The LBM on a discretised vessel tree, in physical units.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/vessel_geometry.hpp"

namespace mrwb {

LbmDomain lbm_domain_from_cells(const VesselTree& tree, const VesselCells& cells, double u_peak) {
  const CellGrid& g = cells.grid;
  LbmDomain d;
  d.nx = g.nx;
  d.ny = g.ny;
  d.nz = g.nz;
  d.node.assign(g.size(), static_cast<std::uint8_t>(LbmNode::Solid));
  d.inlet_u.assign(3 * g.size(), 0.f);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (cells.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) d.node[i] = static_cast<std::uint8_t>(LbmNode::Fluid);
  const auto geo = detail::vessel_geometry(tree);
  const double layer = 1.5 * g.cell_m;
  const int root = tree.inlets().at(0);
  const auto outlets = tree.outlets();
  // First piece of the root and last piece of every leaf.
  for (std::size_t p = 0; p < geo.pieces.size(); ++p) {
    const auto& q = geo.pieces[p];
    const bool first = q.segment == root && q.s0_m == 0;
    const bool last = std::find(outlets.begin(), outlets.end(), q.segment) != outlets.end() &&
                      (p + 1 == geo.pieces.size() || geo.pieces[p + 1].segment != q.segment);
    if (!first && !last) continue;
    for (int z = 0; z < g.nz; ++z)
      for (int y = 0; y < g.ny; ++y)
        for (int x = 0; x < g.nx; ++x) {
          const std::size_t i = g.index(x, y, z);
          if (d.node[i] == static_cast<std::uint8_t>(LbmNode::Solid)) continue;
          const auto hit = detail::hit_piece(q, g.centre(x, y, z));
          if (!hit.inside) continue;
          const double s = hit.t * q.length_m;
          if (first && s < layer) {
            d.node[i] = static_cast<std::uint8_t>(LbmNode::Inlet);
            const double u = u_peak * std::max(0.0, 1 - hit.d * hit.d / (hit.r * hit.r));
            d.inlet_u[3 * i] = static_cast<float>(u * q.axis.x);
            d.inlet_u[3 * i + 1] = static_cast<float>(u * q.axis.y);
            d.inlet_u[3 * i + 2] = static_cast<float>(u * q.axis.z);
          } else if (last && q.length_m - s < layer) {
            d.node[i] = static_cast<std::uint8_t>(LbmNode::Outlet);
          }
        }
  }
  // Vessels crossing the grid's edge (tubes longer than the field of view): the fluid nodes on the edge
  // become open boundaries, an inlet where the root carries flow into the grid (the same parabolic
  // profile) and an outlet where any vessel carries it out. Without this a tube whose ends lie outside
  // the grid would have no inlet and no flow.
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const std::size_t i = g.index(x, y, z);
        if (d.node[i] != static_cast<std::uint8_t>(LbmNode::Fluid)) continue;
        const Vec3 out{x == 0 ? -1.0 : x == g.nx - 1 ? 1.0 : 0.0, y == 0 ? -1.0 : y == g.ny - 1 ? 1.0 : 0.0,
                       g.nz > 1 && z == 0 ? -1.0 : g.nz > 1 && z == g.nz - 1 ? 1.0 : 0.0};
        if (out.x == 0 && out.y == 0 && out.z == 0) continue;  // not on the edge
        for (const auto& q : geo.pieces) {
          const auto hit = detail::hit_piece(q, g.centre(x, y, z));
          if (!hit.inside) continue;
          const double along = q.axis.x * out.x + q.axis.y * out.y + q.axis.z * out.z;  // > 0: leaving
          if (along < -0.1 && q.segment == root) {
            d.node[i] = static_cast<std::uint8_t>(LbmNode::Inlet);
            const double u = u_peak * std::max(0.0, 1 - hit.d * hit.d / (hit.r * hit.r));
            d.inlet_u[3 * i] = static_cast<float>(u * q.axis.x);
            d.inlet_u[3 * i + 1] = static_cast<float>(u * q.axis.y);
            d.inlet_u[3 * i + 2] = static_cast<float>(u * q.axis.z);
          } else if (along > 0.1) {
            d.node[i] = static_cast<std::uint8_t>(LbmNode::Outlet);
          }
          break;
        }
      }
  return d;
}

FlowField lbm_flow_field(const VesselTree& tree, const VesselCells& cells, const FlowSpec& spec, const LbmRunner& runner,
                         const ProgressFn& progress, const CancelToken& cancel) {
  const CellGrid& g = cells.grid;
  const auto& root = tree.segments.at(tree.inlets().at(0));
  const double r_in = root.radius_m.front();
  const double Q = spec.inlet_flow_m3_per_s * waveform_factor(spec, spec.time_s);
  const double U_peak = 2 * Q / (std::numbers::pi * r_in * r_in);  // peak of the inlet's Poiseuille profile [m/s]
  const double nu = spec.viscosity_Pa_s / spec.density_kg_per_m3;
  const double D_lat = 2 * r_in / g.cell_m;

  FlowField f;
  f.grid = g;
  f.solver = g.nz > 1 ? "lbm d3q19" : "lbm d2q9";
  f.fluid_fraction = cells.fluid_fraction;
  f.type = cells.type;
  f.reynolds_physical = std::abs(U_peak) * 2 * r_in / nu;
  // Reynolds matching, Re = u_lat D_lat / nu_lat with nu_lat = (tau - 1/2) / 3. A fast flow runs at the lattice
  // speed lbm_u_max and the collision's smallest stable tau: at the simulator's cell sizes its Re is usually
  // above what that reaches, so Re_lattice < Re_physical (reported). A slower flow was matched by raising tau
  // at lbm_u_max, and the pressure drop that drives so viscous a flow at that speed (~ nu u) broke the
  // low-Mach limit: inlet flows of 1e-12 to 5e-9 m^3/s diverged (straight tube, 2 mm cells), 1e-8 did not
  // converge and came out at twice its speed. Matching it at a lower speed instead leaves the velocity within
  // float32's noise (residual 2e-5 at 0.01 cells per step and tau 0.6). So a slower flow runs as creeping flow,
  // whose field's shape no longer depends on Re: tau k_lbm_tau_slow_flow (fast to converge) at
  // k_lbm_creeping_fraction x lbm_u_max, the same nu u as a fast flow, Re_lattice below Re_physical
  // (reported). Scaled to the inlet's speed, a tiny flow gives a tiny field and none a field at rest.
  const bool mrt = spec.lbm_collision == "mrt";
  const double nu_min = ((mrt ? k_lbm_tau_min_mrt : k_lbm_tau_min_bgk) - 0.5) / 3;
  double u_lat = spec.lbm_u_max, nu_lat = nu_min;
  if (f.reynolds_physical < u_lat * D_lat / nu_min) {
    u_lat = k_lbm_creeping_fraction * spec.lbm_u_max;
    nu_lat = (k_lbm_tau_slow_flow - 0.5) / 3;
  }
  const double tau = 3 * nu_lat + 0.5;
  f.tau = tau;
  f.collision = mrt ? "mrt" : "bgk";
  f.reynolds_lattice = u_lat * D_lat / ((tau - 0.5) / 3);
  f.lattice_dt_s = U_peak != 0 ? g.cell_m * u_lat / std::abs(U_peak) : 0;

  LbmDomain d = lbm_domain_from_cells(tree, cells, U_peak >= 0 ? u_lat : -u_lat);
  LbmParams p;
  p.tau = tau;
  p.max_steps = spec.lbm_max_steps;
  p.tolerance = spec.lbm_tolerance;
  p.collision = mrt ? LbmCollision::Mrt : LbmCollision::Bgk;
  const LbmResult r = runner(d, p, progress, cancel);
  f.backend = r.backend;
  f.steps = r.steps;
  f.residual = r.residual;
  f.converged = r.converged;
  const double scale = std::abs(U_peak) / u_lat;  // (m/s) per (cell/step)
  f.ux_m_per_s.resize(g.size());
  f.uy_m_per_s.resize(g.size());
  f.uz_m_per_s.resize(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    const bool fluid = d.node[i] != static_cast<std::uint8_t>(LbmNode::Solid);
    f.ux_m_per_s[i] = fluid ? static_cast<float>(r.ux[i] * scale) : 0.f;
    f.uy_m_per_s[i] = fluid ? static_cast<float>(r.uy[i] * scale) : 0.f;
    f.uz_m_per_s[i] = fluid ? static_cast<float>(r.uz[i] * scale) : 0.f;
  }
  return f;
}

}  // namespace mrwb
