#include "mrwb/phantom.hpp"

#include <cmath>

#include "mrwb/flow.hpp"
#include "mrwb/phantom_discretise.hpp"
#include "mrwb/tissue.hpp"

namespace mrwb {

std::size_t phantom_memory_bytes(const PhantomSpec& spec, int matrix) {
  const std::size_t n = static_cast<std::size_t>(matrix) * spec.cells_per_voxel;
  // PD, T1, T2, dB, ux, uy (6 floats) + type (1 B) + state Mx, My, Mz (3 floats) + truth (8 B).
  const std::size_t per_cell = 6 * 4 + 1 + 3 * 4 + 8;
  return n * n * per_cell;
}

namespace {

// Preset "vessel_tree": the z = 0 slice of the generated tree (blood) in a disc of tissue, or in the
// organ ellipse for organ_tree. Partial volume: the vessel fraction from discretise_vessels (4x4
// sub-samples), the tissue fraction from 4x4 sub-samples of the region, PD mixed by fraction, T1/T2 of
// the majority.
void fill_tree_phantom(CellPhantom& ph, const PhantomSpec& spec) {
  const VesselTree tree = generate_vessel_tree(spec.tree, "phantom.tree");
  CellGrid g;
  g.nx = ph.nx;
  g.ny = ph.ny;
  g.cell_m = ph.cell_size_m;
  g.origin_m = {ph.x0_m, ph.y0_m, 0};
  const bool organ = spec.tree.generator == "organ_tree";
  const double ax = spec.tree.organ_semi_axes_m[0], ay = spec.tree.organ_semi_axes_m[1], R = spec.disc_radius_m;
  auto in_region = [&](double x, double y) {
    return organ ? x * x / (ax * ax) + y * y / (ay * ay) <= 1 : x * x + y * y <= R * R;
  };
  const VesselCells cells = discretise_vessels(tree, g, "phantom.tree", k_flow_memory_limit_bytes);
  const TissueProperties& tissue = tissue_1p5T(spec.background_tissue);
  const TissueProperties& blood = tissue_1p5T(spec.vessel_tissue);
  constexpr int sub = 4;
  for (int iy = 0; iy < ph.ny; ++iy)
    for (int ix = 0; ix < ph.nx; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
      int in_tissue = 0;
      for (int sy = 0; sy < sub; ++sy)
        for (int sx = 0; sx < sub; ++sx)
          in_tissue += in_region(ph.x_m(ix) + ((sx + 0.5) / sub - 0.5) * ph.cell_size_m,
                                 ph.y_m(iy) + ((sy + 0.5) / sub - 0.5) * ph.cell_size_m);
      const double fv = cells.fluid_fraction[i];
      const double ft = std::min(1.0 - fv, static_cast<double>(in_tissue) / (sub * sub));
      if (fv + ft <= 0) continue;
      const bool vessel_major = fv >= 0.5 || fv >= ft;
      const TissueProperties& t = vessel_major ? blood : tissue;
      ph.PD[i] = static_cast<float>(fv * blood.PD + ft * tissue.PD);
      ph.T1_s[i] = static_cast<float>(t.T1_s);
      ph.T2_s[i] = static_cast<float>(t.T2_s);
      ph.type[i] = static_cast<std::uint8_t>(fv >= 0.5 ? CellType::Fluid : CellType::Stationary);
    }
}

// Vessel ends inside the grid are inlets and outlets, not caps (issue 6): the fluid cells near the end
// disc (from a cell and a half inside it to a rounded cap beyond it) and within its radius plus a cell get
// open_end = 1, so transport lets fresh blood in and outflow out there. Ends outside the grid need
// nothing: the grid edge is open. 2-D trees only (a 3-D tree's ends are not in the imaged plane).
void mark_vessel_ends(CellPhantom& ph, const VesselTree& tree) {
  if (tree.dims != 2) return;
  ph.open_end.assign(ph.size(), 0);
  bool any = false;
  auto mark = [&](const Vec3& p, const Vec3& q, double r) {  // end point p, q: the point before it
    const double lx = p.x - q.x, ly = p.y - q.y, len = std::hypot(lx, ly);
    if (len <= 0) return;
    const double tx = lx / len, ty = ly / len, h = ph.cell_size_m;
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
        if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
        const double dx = ph.x_m(ix) - p.x, dy = ph.y_m(iy) - p.y;
        const double axial = dx * tx + dy * ty, radial = std::abs(-dx * ty + dy * tx);
        if (axial >= -1.5 * h && axial <= r + h && radial <= r + h) {
          ph.open_end[i] = 1;
          any = true;
        }
      }
  };
  for (int s : tree.inlets()) {
    const VesselSegment& seg = tree.segments[s];
    mark(seg.centreline_m[0], seg.centreline_m[1], seg.radius_m[0]);
  }
  for (int s : tree.outlets()) {
    const VesselSegment& seg = tree.segments[s];
    const std::size_t k = seg.centreline_m.size();
    mark(seg.centreline_m[k - 1], seg.centreline_m[k - 2], seg.radius_m[k - 1]);
  }
  if (!any) ph.open_end.clear();
}

}  // namespace

CellPhantom uniform_phantom(int nx, int ny, double cell_m, float PD, float T1_s, float T2_s, CellType type) {
  CellPhantom ph;
  ph.nx = nx;
  ph.ny = ny;
  ph.cell_size_m = cell_m;
  ph.x0_m = -0.5 * nx * cell_m + 0.5 * cell_m;
  ph.y0_m = -0.5 * ny * cell_m + 0.5 * cell_m;
  const std::size_t n = ph.size();
  ph.PD.assign(n, PD);
  ph.T1_s.assign(n, T1_s);
  ph.T2_s.assign(n, T2_s);
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(type));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  return ph;
}

CellPhantom build_phantom(const PhantomSpec& spec, double fov_m, int matrix) {
  CellPhantom ph;
  const int cpv = spec.cells_per_voxel;
  ph.nx = ph.ny = matrix * cpv;
  ph.cells_per_voxel = cpv;
  ph.cell_size_m = fov_m / ph.nx;
  const double voxel_m = fov_m / matrix;
  // Voxel 0 is centred at −(matrix/2)·voxel; its first cell sits half a cell in from its edge.
  ph.x0_m = ph.y0_m = -0.5 * matrix * voxel_m - 0.5 * voxel_m + 0.5 * ph.cell_size_m;

  const std::size_t n = ph.size();
  ph.PD.assign(n, 0.f);
  ph.T1_s.assign(n, 0.f);
  ph.T2_s.assign(n, 0.f);
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(CellType::Background));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);

  if (spec.preset == "vessel_tree") {
    fill_tree_phantom(ph, spec);
    return ph;
  }
  const TissueProperties& tissue = tissue_1p5T(spec.background_tissue);
  const TissueProperties& blood = tissue_1p5T(spec.vessel_tissue);
  const bool with_vessel = spec.preset == "straight_vessel";
  const double a = spec.vessel_angle_deg * M_PI / 180.0;
  const double ax = std::cos(a), ay = std::sin(a);  // vessel axis direction

  // Partial volume: 4×4 sub-samples per cell decide the occupied fraction and the majority tissue.
  constexpr int sub = 4;
  for (int iy = 0; iy < ph.ny; ++iy) {
    for (int ix = 0; ix < ph.nx; ++ix) {
      int in_tissue = 0, in_vessel = 0;
      for (int sy = 0; sy < sub; ++sy) {
        for (int sx = 0; sx < sub; ++sx) {
          const double x = ph.x_m(ix) + ((sx + 0.5) / sub - 0.5) * ph.cell_size_m;
          const double y = ph.y_m(iy) + ((sy + 0.5) / sub - 0.5) * ph.cell_size_m;
          // Signed distance from the vessel axis (a line through the offset point, normal (-ay, ax)).
          const double d_axis = -ay * x + ax * y - spec.vessel_offset_m;
          if (with_vessel && std::abs(d_axis) <= spec.vessel_radius_m)
            ++in_vessel;
          else if (x * x + y * y <= spec.disc_radius_m * spec.disc_radius_m)
            ++in_tissue;
        }
      }
      const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
      if (in_vessel + in_tissue == 0) continue;
      const bool vessel_major = in_vessel >= in_tissue;
      const TissueProperties& t = vessel_major ? blood : tissue;
      const double occupied = static_cast<double>(in_vessel + in_tissue) / (sub * sub);
      ph.PD[i] = static_cast<float>(t.PD * occupied);
      ph.T1_s[i] = static_cast<float>(t.T1_s);
      ph.T2_s[i] = static_cast<float>(t.T2_s);
      ph.type[i] = static_cast<std::uint8_t>(vessel_major ? CellType::Fluid : CellType::Stationary);
    }
  }
  return ph;
}

CellPhantom build_phantom(const Scenario& s, const LbmRunner& lbm_runner) {
  CellPhantom ph = build_phantom(s.phantom, s.sequence.fov_m, s.sequence.matrix);
  if (!s.flow.enabled) return ph;
  const FlowField f = scenario_flow_field(s, s.flow.solver, lbm_runner ? lbm_runner : LbmRunner(lbm_run_cpu));
  // Lattice units of the simulator: cells per flow time step.
  const double to_cells = s.flow_time_step_s() / ph.cell_size_m;
  ph.flow_dt_s = s.flow_time_step_s();
  const CellGrid& g = f.grid;
  const int iz = g.nz > 1 ? static_cast<int>(std::lround(-g.origin_m.z / g.cell_m)) : 0;
  for (int iy = 0; iy < ph.ny; ++iy)
    for (int ix = 0; ix < ph.nx; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
      if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
      const long gx = std::lround((ph.x_m(ix) - g.origin_m.x) / g.cell_m);
      const long gy = std::lround((ph.y_m(iy) - g.origin_m.y) / g.cell_m);
      if (gx < 0 || gy < 0 || gx >= g.nx || gy >= g.ny || iz < 0 || iz >= g.nz) continue;
      const std::size_t j = g.index(static_cast<int>(gx), static_cast<int>(gy), iz);
      ph.ux[i] = static_cast<float>(f.ux_m_per_s[j] * to_cells);
      ph.uy[i] = static_cast<float>(f.uy_m_per_s[j] * to_cells);
    }
  if (s.phantom.preset == "vessel_tree") mark_vessel_ends(ph, generate_vessel_tree(s.phantom.tree, "phantom.tree"));
  return ph;
}

}  // namespace mrwb
