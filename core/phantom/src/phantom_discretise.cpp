#include "mrwb/phantom/phantom_discretise.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/vessel_geometry.hpp"

namespace mrwb {
namespace {
constexpr int k_sub = 4;  // sub-samples per axis for the partial volume

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

CellGrid grid_around_tree(const VesselTree& tree, double cell_m, double margin_m) {
  Vec3 lo, hi;
  tree.bounds(lo, hi);
  CellGrid g;
  g.cell_m = cell_m;
  auto count = [&](double a, double b) { return std::max(1, static_cast<int>(std::ceil((b - a + 2 * margin_m) / cell_m))); };
  g.nx = count(lo.x, hi.x);
  g.ny = count(lo.y, hi.y);
  g.nz = tree.dims == 3 ? count(lo.z, hi.z) : 1;
  // Centre the grid on the box.
  g.origin_m = {0.5 * (lo.x + hi.x) - 0.5 * (g.nx - 1) * cell_m, 0.5 * (lo.y + hi.y) - 0.5 * (g.ny - 1) * cell_m,
                tree.dims == 3 ? 0.5 * (lo.z + hi.z) - 0.5 * (g.nz - 1) * cell_m : 0.0};
  return g;
}

std::size_t discretise_memory_bytes(const CellGrid& grid) {
  return grid.size() * (sizeof(float) + sizeof(std::int32_t) + sizeof(std::uint8_t) + sizeof(std::uint64_t));
}

std::string describe_grid_memory(const CellGrid& g, std::size_t bytes) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d x %d x %d cells of %.4g um: %.4g MiB", g.nx, g.ny, g.nz, g.cell_m * 1e6,
                bytes / (1024.0 * 1024.0));
  return buf;
}

VesselCells discretise_vessels(const VesselTree& tree, const CellGrid& grid, const std::string& where,
                               std::size_t memory_limit_bytes, const std::function<bool(const Vec3&)>& in_tissue,
                               const std::function<void(const std::string&)>& warn, const ProgressFn& progress,
                               const CancelToken& cancel) {
  validate_vessel_tree(tree, where);
  if (!(grid.cell_m > 0) || grid.nx < 1 || grid.ny < 1 || grid.nz < 1)
    throw InputError(where + ": cell size " + num(grid.cell_m) + " m and grid " + num(grid.nx) + " x " + num(grid.ny) +
                     " x " + num(grid.nz) + " are out of range (cell > 0, at least 1 cell per axis)");
  const std::size_t bytes = discretise_memory_bytes(grid);
  if (bytes > memory_limit_bytes)
    throw InputError(where + ": " + describe_grid_memory(grid, bytes) + " needed, more than the " +
                     num(memory_limit_bytes / (1024.0 * 1024.0)) + " MiB allowed (use larger cells or a smaller region)");
  if (warn && grid.cell_m > tree.min_radius_m())
    warn(where + ": cells of " + num(grid.cell_m * 1e6) + " um are larger than the smallest vessel radius, " +
         num(tree.min_radius_m() * 1e6) + " um: that vessel is resolved by less than one cell");

  VesselCells out;
  out.grid = grid;
  const std::size_t n = grid.size();
  std::vector<std::uint64_t> mask(n, 0);
  out.segment.assign(n, -1);
  const bool is3 = grid.nz > 1;
  const int sub_z = is3 ? k_sub : 1;
  const double h = grid.cell_m;
  const auto geo = detail::vessel_geometry(tree);

  // Marks the sub-samples of every cell in [lo, hi] that `inside(p)` accepts.
  auto visit_box = [&](Vec3 lo, Vec3 hi, int segment, auto&& inside) {
    auto span = [&](double a, double b, double o, int count, int& i0, int& i1) {
      i0 = std::max(0, static_cast<int>(std::floor((a - o) / h - 0.5)));
      i1 = std::min(count - 1, static_cast<int>(std::ceil((b - o) / h + 0.5)));
    };
    int x0, x1, y0, y1, z0 = 0, z1 = 0;
    span(lo.x, hi.x, grid.origin_m.x, grid.nx, x0, x1);
    span(lo.y, hi.y, grid.origin_m.y, grid.ny, y0, y1);
    if (is3) span(lo.z, hi.z, grid.origin_m.z, grid.nz, z0, z1);
    for (int z = z0; z <= z1; ++z)
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
          const Vec3 c = grid.centre(x, y, z);
          const std::size_t i = grid.index(x, y, z);
          std::uint64_t m = 0;
          int bit = 0;
          for (int sz = 0; sz < sub_z; ++sz)
            for (int sy = 0; sy < k_sub; ++sy)
              for (int sx = 0; sx < k_sub; ++sx, ++bit) {
                const Vec3 p{c.x + ((sx + 0.5) / k_sub - 0.5) * h, c.y + ((sy + 0.5) / k_sub - 0.5) * h,
                             is3 ? c.z + ((sz + 0.5) / k_sub - 0.5) * h : c.z};
                if (inside(p)) m |= std::uint64_t{1} << bit;
              }
          if (m && (out.segment[i] < 0 || inside(c))) out.segment[i] = segment;
          mask[i] |= m;
        }
  };

  const std::size_t total = geo.pieces.size() + geo.balls.size();
  std::size_t done = 0;
  for (const auto& q : geo.pieces) {
    if ((done & 63) == 0) {
      cancel.throw_if_cancelled();
      if (progress) progress(static_cast<double>(done) / total, "discretise");
    }
    ++done;
    Vec3 lo, hi;
    detail::piece_box(q, lo, hi);
    visit_box(lo, hi, q.segment, [&](const Vec3& p) { return detail::hit_piece(q, p).inside; });
  }
  for (const auto& b : geo.balls) {
    ++done;
    const Vec3 lo{b.c.x - b.r, b.c.y - b.r, b.c.z - b.r}, hi{b.c.x + b.r, b.c.y + b.r, b.c.z + b.r};
    visit_box(lo, hi, b.segment, [&](const Vec3& p) {
      return (p.x - b.c.x) * (p.x - b.c.x) + (p.y - b.c.y) * (p.y - b.c.y) + (p.z - b.c.z) * (p.z - b.c.z) <= b.r * b.r;
    });
  }

  out.fluid_fraction.resize(n);
  out.type.resize(n);
  const double samples = static_cast<double>(k_sub * k_sub * sub_z);
  for (int z = 0; z < grid.nz; ++z)
    for (int y = 0; y < grid.ny; ++y)
      for (int x = 0; x < grid.nx; ++x) {
        const std::size_t i = grid.index(x, y, z);
        const float f = static_cast<float>(std::popcount(mask[i]) / samples);
        out.fluid_fraction[i] = f;
        CellType t = CellType::Fluid;
        if (f < 0.5f) t = (!in_tissue || in_tissue(grid.centre(x, y, z))) ? CellType::Stationary : CellType::Background;
        out.type[i] = static_cast<std::uint8_t>(t);
      }
  if (progress) progress(1.0, "discretise");
  return out;
}

}  // namespace mrwb
