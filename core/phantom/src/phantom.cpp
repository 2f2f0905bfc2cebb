#include "mrwb/phantom/phantom.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/tissue.hpp"

namespace mrwb {

int slab_cells(const PhantomSpec& spec, double fov_m, int matrix) {
  if (spec.slab_thickness_m <= 0 || fov_m <= 0) return 1;
  const double cell_m = fov_m / (static_cast<double>(matrix) * spec.cells_per_voxel);
  return std::max(1, static_cast<int>(std::lround(spec.slab_thickness_m / cell_m)));
}

std::size_t phantom_memory_bytes(const PhantomSpec& spec, int matrix, double fov_m) {
  const std::size_t n = static_cast<std::size_t>(matrix) * spec.cells_per_voxel;
  const int nz = slab_cells(spec, fov_m, matrix);
  // PD, T1, T2, ADC, dB, ux, uy (7 floats; uz too in a slab) + type (1 B) + state Mx, My, Mz (3 floats) +
  // truth (8 B).
  const std::size_t per_cell = (nz > 1 ? 8 : 7) * 4 + 1 + 3 * 4 + 8;
  return n * n * nz * per_cell;
}

CellGrid phantom_grid(const CellPhantom& ph) {
  CellGrid g;
  g.nx = ph.nx;
  g.ny = ph.ny;
  g.nz = ph.nz;
  g.cell_m = ph.cell_size_m;
  g.origin_m = {ph.x0_m, ph.y0_m, ph.z0_m};
  return g;
}

namespace {

// Preset "vessel_tree": the z = 0 slice (or the slab) of the generated tree (blood) in a disc (cylinder)
// of tissue, or in the organ ellipse for organ_tree. Partial volume: the vessel fraction from
// discretise_vessels (4x4 sub-samples, 4x4x4 in a slab), the tissue fraction from 4x4 sub-samples of the
// region, PD mixed by fraction, T1/T2 of the majority.
void fill_tree_phantom(CellPhantom& ph, const PhantomSpec& spec) {
  const VesselTree tree = generate_vessel_tree(spec.tree, "phantom.tree");
  const CellGrid g = phantom_grid(ph);
  const bool organ = spec.tree.generator == "organ_tree";
  const double ax = spec.tree.organ_semi_axes_m[0], ay = spec.tree.organ_semi_axes_m[1], R = spec.disc_radius_m;
  auto in_region = [&](double x, double y) {
    return organ ? x * x / (ax * ax) + y * y / (ay * ay) <= 1 : x * x + y * y <= R * R;
  };
  const VesselCells cells = discretise_vessels(tree, g, "phantom.tree", k_flow_memory_limit_bytes);
  const TissueProperties& tissue = tissue_1p5T(spec.background_tissue);
  const TissueProperties& blood = tissue_1p5T(spec.vessel_tissue);
  constexpr int sub = 4;
  for (std::size_t i = 0; i < ph.size(); ++i) {  // the region is z-invariant (a cylinder in a slab)
    const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>((i / ph.nx) % ph.ny);
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
    ph.ADC_m2_per_s[i] = static_cast<float>(t.ADC_m2_per_s);
    ph.type[i] = static_cast<std::uint8_t>(fv >= 0.5 ? CellType::Fluid : CellType::Stationary);
  }
}

}  // namespace

// Vessel ends inside the grid are inlets and outlets, not caps: the fluid cells near the end
// disc (from a cell and a half inside it to a rounded cap beyond it) and within its radius plus a cell get
// open_end = 1, so transport lets fresh blood in and outflow out there. Ends outside the grid need
// nothing: the grid edge is open. A 2-D slice: 2-D trees only (a 3-D tree's ends are not in the imaged
// plane); a slab: any tree, with distances in 3-D.
void mark_vessel_ends(CellPhantom& ph, const VesselTree& tree) {
  const bool slab = ph.nz > 1;
  if (tree.dims != 2 && !slab) return;
  ph.open_end.assign(ph.size(), 0);
  bool any = false;
  auto mark = [&](const Vec3& p, const Vec3& q, double r) {  // end point p, q: the point before it
    const double lx = p.x - q.x, ly = p.y - q.y, lz = slab ? p.z - q.z : 0.0;
    const double len = slab ? std::sqrt(lx * lx + ly * ly + lz * lz) : std::hypot(lx, ly);
    if (len <= 0) return;
    const double tx = lx / len, ty = ly / len, tz = lz / len, h = ph.cell_size_m;
    for (std::size_t i = 0; i < ph.size(); ++i) {
      if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) continue;
      const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>((i / ph.nx) % ph.ny);
      const double dx = ph.x_m(ix) - p.x, dy = ph.y_m(iy) - p.y;
      const double dz = slab ? ph.z_m(static_cast<int>(i / ph.slice_size())) - p.z : 0.0;
      const double axial = dx * tx + dy * ty + dz * tz;
      const double radial = slab ? std::sqrt(std::max(0.0, dx * dx + dy * dy + dz * dz - axial * axial))
                                 : std::abs(-dx * ty + dy * tx);
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

CellPhantom uniform_phantom(int nx, int ny, double cell_m, float PD, float T1_s, float T2_s, CellType type,
                            int nz) {
  CellPhantom ph;
  ph.nx = nx;
  ph.ny = ny;
  ph.nz = nz;
  ph.cell_size_m = cell_m;
  ph.x0_m = -0.5 * nx * cell_m + 0.5 * cell_m;
  ph.y0_m = -0.5 * ny * cell_m + 0.5 * cell_m;
  ph.z0_m = nz > 1 ? -0.5 * nz * cell_m + 0.5 * cell_m : 0.0;
  const std::size_t n = ph.size();
  ph.PD.assign(n, PD);
  ph.T1_s.assign(n, T1_s);
  ph.T2_s.assign(n, T2_s);
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(type));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  if (nz > 1) ph.uz.assign(n, 0.f);
  return ph;
}

CellPhantom build_phantom(const PhantomSpec& spec, double fov_m, int matrix) {
  CellPhantom ph;
  const int cpv = spec.cells_per_voxel;
  ph.nx = ph.ny = matrix * cpv;
  ph.nz = slab_cells(spec, fov_m, matrix);
  ph.cells_per_voxel = cpv;
  ph.cell_size_m = fov_m / ph.nx;
  const double voxel_m = fov_m / matrix;
  // Voxel 0 is centred at −(matrix/2)·voxel; its first cell sits half a cell in from its edge.
  ph.x0_m = ph.y0_m = -0.5 * matrix * voxel_m - 0.5 * voxel_m + 0.5 * ph.cell_size_m;
  if (ph.nz > 1) ph.z0_m = -0.5 * (ph.nz - 1) * ph.cell_size_m;  // the slab centred on z = 0

  const std::size_t n = ph.size();
  ph.PD.assign(n, 0.f);
  ph.T1_s.assign(n, 0.f);
  ph.T2_s.assign(n, 0.f);
  ph.ADC_m2_per_s.assign(n, 0.f);
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(CellType::Background));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  if (ph.nz > 1) ph.uz.assign(n, 0.f);

  if (spec.preset == "vessel_tree") {
    fill_tree_phantom(ph, spec);
    return ph;
  }
  const TissueProperties& tissue = tissue_1p5T(spec.background_tissue);
  const TissueProperties& blood = tissue_1p5T(spec.vessel_tissue);
  const bool with_vessel = spec.preset == "straight_vessel";
  const double a = spec.vessel_angle_deg * M_PI / 180.0;
  const double ax = std::cos(a), ay = std::sin(a);  // vessel axis direction

  // Partial volume: 4×4 (4×4×4 in a slab) sub-samples per cell decide the occupied fraction and the
  // majority tissue.
  constexpr int sub = 4;
  const bool slab = ph.nz > 1;
  const int sub_z = slab ? sub : 1;
  const double r2 = spec.vessel_radius_m * spec.vessel_radius_m;
  for (int iz = 0; iz < ph.nz; ++iz) {
    for (int iy = 0; iy < ph.ny; ++iy) {
      for (int ix = 0; ix < ph.nx; ++ix) {
        int in_tissue = 0, in_vessel = 0;
        for (int sz = 0; sz < sub_z; ++sz) {
          const double z = slab ? ph.z_m(iz) + ((sz + 0.5) / sub - 0.5) * ph.cell_size_m : 0.0;
          for (int sy = 0; sy < sub; ++sy) {
            for (int sx = 0; sx < sub; ++sx) {
              const double x = ph.x_m(ix) + ((sx + 0.5) / sub - 0.5) * ph.cell_size_m;
              const double y = ph.y_m(iy) + ((sy + 0.5) / sub - 0.5) * ph.cell_size_m;
              // Signed distance from the vessel axis (a line through the offset point, normal (-ay, ax));
              // in a slab the vessel is the cylinder around that in-plane axis.
              const double d_axis = -ay * x + ax * y - spec.vessel_offset_m;
              const bool in_lumen = slab ? d_axis * d_axis + z * z <= r2 : std::abs(d_axis) <= spec.vessel_radius_m;
              if (with_vessel && in_lumen)
                ++in_vessel;
              else if (x * x + y * y <= spec.disc_radius_m * spec.disc_radius_m)
                ++in_tissue;
            }
          }
        }
        const std::size_t i = (static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix;
        if (in_vessel + in_tissue == 0) continue;
        const bool vessel_major = in_vessel >= in_tissue;
        const TissueProperties& t = vessel_major ? blood : tissue;
        const double occupied = static_cast<double>(in_vessel + in_tissue) / (sub * sub * sub_z);
        ph.PD[i] = static_cast<float>(t.PD * occupied);
        ph.T1_s[i] = static_cast<float>(t.T1_s);
        ph.T2_s[i] = static_cast<float>(t.T2_s);
        ph.ADC_m2_per_s[i] = static_cast<float>(t.ADC_m2_per_s);
        ph.type[i] = static_cast<std::uint8_t>(vessel_major ? CellType::Fluid : CellType::Stationary);
      }
    }
  }
  return ph;
}

namespace {
// The scalars of `ph`, not its arrays (a rank's slab of a phantom larger than memory twice), on an nx × ny × nz grid.
CellPhantom phantom_scalars(const CellPhantom& ph, int nx, int ny, int nz) {
  CellPhantom c;
  c.cell_size_m = ph.cell_size_m;
  c.flow_dt_s = ph.flow_dt_s;
  c.whole_courant_speed = ph.whole_courant_speed;
  c.cells_per_voxel = ph.cells_per_voxel;
  c.nx = nx;
  c.ny = ny;
  c.nz = nz;
  return c;
}
// fn(to.a, from.a) for each per-cell array a of a phantom but uy and uz (which swap_y_z exchanges).
template <typename Fn>
void each_cell_array_but_uy_uz(CellPhantom& to, const CellPhantom& from, Fn fn) {
  fn(to.PD, from.PD);
  fn(to.T1_s, from.T1_s);
  fn(to.T2_s, from.T2_s);
  fn(to.ADC_m2_per_s, from.ADC_m2_per_s);
  fn(to.dB_T, from.dB_T);
  fn(to.type, from.type);
  fn(to.ux, from.ux);
  fn(to.open_end, from.open_end);
}
}  // namespace

CellPhantom crop_phantom(const CellPhantom& ph, int x0, int y0, int z0, int nx, int ny, int nz) {
  CellPhantom c = phantom_scalars(ph, nx, ny, nz);
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
  each_cell_array_but_uy_uz(c, ph, crop);
  crop(c.uy, ph.uy);
  crop(c.uz, ph.uz);
  return c;
}

CellPhantom swap_y_z(const CellPhantom& ph) {
  CellPhantom s = phantom_scalars(ph, ph.nx, ph.nz, ph.ny);
  s.x0_m = ph.x0_m;
  s.y0_m = ph.z0_m;
  s.z0_m = ph.y0_m;
  auto swap = [&](auto& dst, const auto& src) {
    if (src.size() == ph.size()) swap_y_z_cells(src, dst, ph.nx, ph.ny, ph.nz);
  };
  each_cell_array_but_uy_uz(s, ph, swap);
  // A grid without uz has no through-plane motion: the swapped grid's uy is zero.
  if (ph.uz.size() == ph.size())
    swap(s.uy, ph.uz);
  else if (ph.uy.size() == ph.size())
    s.uy.assign(ph.size(), 0.f);
  swap(s.uz, ph.uy);
  return s;
}

}  // namespace mrwb
