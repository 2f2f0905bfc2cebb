#include "mrwb/phantom/phantom_discretise.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/vessel_geometry.hpp"

namespace mrwb {
namespace {
constexpr int k_sub = 4;  // sub-samples per axis for the partial volume
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
    throw InputError(where + ": cell size " + number_text(grid.cell_m) + " m and grid " + number_text(grid.nx) + " x " +
                     number_text(grid.ny) + " x " + number_text(grid.nz) +
                     " are out of range (cell > 0, at least 1 cell per axis)");
  const std::size_t bytes = discretise_memory_bytes(grid);
  if (bytes > memory_limit_bytes)
    throw InputError(where + ": " + describe_grid_memory(grid, bytes) + " needed, more than the " +
                     number_text(memory_limit_bytes / (1024.0 * 1024.0)) +
                     " MiB allowed (use larger cells or a smaller region)");
  if (warn && grid.cell_m > tree.min_radius_m())
    warn(where + ": cells of " + number_text(grid.cell_m * 1e6) + " um are larger than the smallest vessel radius, " +
         number_text(tree.min_radius_m() * 1e6) + " um: that vessel is resolved by less than one cell");

  VesselCells out;
  out.grid = grid;
  const std::size_t n = grid.size();
  std::vector<std::uint64_t> mask(n, 0);
  out.segment.assign(n, -1);
  const bool is3 = grid.nz > 1;
  const int sub_z = is3 ? k_sub : 1;
  const double h = grid.cell_m;
  const auto geo = detail::vessel_geometry(tree);

  // The grid's rows (y, z) are dealt out to threads in turn (the vessels crowd some rows), each thread visiting
  // every solid in order over its own rows only: every cell sees the solids in the same order as one thread
  // would, so the result does not depend on the threads.
  const int parts = range_parts(n);
  // A sub-sample lies within half a cell's diagonal of its cell's centre: a cell whose centre is farther than
  // that (with a margin for rounding) from every point of a solid has none inside it and is skipped whole.
  const double reach = 0.5 * h * std::sqrt(is3 ? 3.0 : 2.0) * (1 + 1e-9) + 1e-12;
  const std::uint64_t all_samples = sub_z * k_sub * k_sub == 64 ? ~std::uint64_t{0}
                                                                 : (std::uint64_t{1} << (sub_z * k_sub * k_sub)) - 1;
  enum class Reach { None, Some, All };  // a solid's reach into a cell's sub-samples
  std::atomic<bool> stopped{false};
  for_each_range(static_cast<std::size_t>(parts), parts, [&](int part, std::size_t, std::size_t) {
    // Marks the sub-samples of every cell of this thread's rows in [lo, hi] that `inside(p)` accepts.
    // reach_of(c) (the cell's centre): Reach::None rules the whole cell out, Reach::All puts every sub-sample
    // inside (both by the margin above), Reach::Some tests them. row_x(y_m, z_m, xa, xb): false if no centre of
    // that row is reached, else [xa, xb] holds every x of a reached centre (a superset: one cell is added each
    // side, and reach_of() still decides).
    auto visit_box = [&](Vec3 lo, Vec3 hi, int segment, auto&& reach_of, auto&& row_x, auto&& inside) {
      auto span = [&](double a, double b, double o, int count, int& i0, int& i1) {
        i0 = std::max(0, static_cast<int>(std::floor((a - o) / h - 0.5)));
        i1 = std::min(count - 1, static_cast<int>(std::ceil((b - o) / h + 0.5)));
      };
      // Clamped before the cast: a row far from a solid may give an interval far outside the grid.
      auto index = [&](double v) { return static_cast<int>(std::clamp(v, -2.0, grid.nx + 1.0)); };
      int x0, x1, y0, y1, z0 = 0, z1 = 0;
      span(lo.x, hi.x, grid.origin_m.x, grid.nx, x0, x1);
      span(lo.y, hi.y, grid.origin_m.y, grid.ny, y0, y1);
      if (is3) span(lo.z, hi.z, grid.origin_m.z, grid.nz, z0, z1);
      for (int z = z0; z <= z1; ++z)
        for (int y = y0; y <= y1; ++y) {
          if ((static_cast<std::size_t>(z) * grid.ny + y) % static_cast<std::size_t>(parts) != static_cast<std::size_t>(part))
            continue;
          const Vec3 row = grid.centre(0, y, z);
          double xa = 0, xb = 0;
          if (!row_x(row.y, row.z, xa, xb)) continue;
          const int xs = std::max(x0, index(std::floor((xa - grid.origin_m.x) / h) - 1));
          const int xe = std::min(x1, index(std::ceil((xb - grid.origin_m.x) / h) + 1));
          for (int x = xs; x <= xe; ++x) {
            const Vec3 c = grid.centre(x, y, z);
            const Reach r = reach_of(c);
            if (r == Reach::None) continue;
            const std::size_t i = grid.index(x, y, z);
            if (r == Reach::All) {
              if (out.segment[i] < 0 || inside(c)) out.segment[i] = segment;
              mask[i] |= all_samples;
              continue;
            }
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
        }
    };
    const std::size_t total = geo.pieces.size() + geo.balls.size();
    std::size_t done = 0;
    for (const auto& q : geo.pieces) {
      if ((done & 63) == 0) {
        if (part == 0 && cancel.cancelled()) stopped = true;
        if (stopped) return;
        if (part == 0 && progress) progress(static_cast<double>(done) / total, "discretise");
      }
      ++done;
      Vec3 lo, hi;
      detail::piece_box(q, lo, hi);
      const double r_max = std::max(q.ra, q.rb) + reach, r_all = std::min(q.ra, q.rb) - reach;
      visit_box(
          lo, hi, q.segment,
          [&](const Vec3& c) {
            // Some: along the axis within [−reach, L + reach], from it within r_max; All: within [reach, L − reach]
            // and min(ra, rb) − reach.
            const Vec3 v{c.x - q.a.x, c.y - q.a.y, c.z - q.a.z};
            const double s = v.x * q.axis.x + v.y * q.axis.y + v.z * q.axis.z;
            if (s < -reach || s > q.length_m + reach) return Reach::None;
            const double d2 = v.x * v.x + v.y * v.y + v.z * v.z - s * s;
            if (d2 > r_max * r_max) return Reach::None;
            return r_all > 0 && s >= reach && s <= q.length_m - reach && d2 <= r_all * r_all ? Reach::All : Reach::Some;
          },
          [&](double y_m, double z_m, double& xa, double& xb) {
            // Along a row, x = t: v = u + t·ex; the distance² from the axis line is A t² + B t + C' (<= r_max²)
            // and s is linear in t. An axis within a few degrees of x keeps the whole row (A too small to divide by).
            const Vec3 u{-q.a.x, y_m - q.a.y, z_m - q.a.z};
            const double su = u.x * q.axis.x + u.y * q.axis.y + u.z * q.axis.z;
            const double A = 1 - q.axis.x * q.axis.x;
            if (A < 1e-3) {
              xa = lo.x;
              xb = hi.x;
              return true;
            }
            const double B = 2 * (u.x - su * q.axis.x);
            const double C = u.x * u.x + u.y * u.y + u.z * u.z - su * su - r_max * r_max;
            const double disc = B * B - 4 * A * C;
            if (disc < 0) return false;
            xa = (-B - std::sqrt(disc)) / (2 * A);
            xb = (-B + std::sqrt(disc)) / (2 * A);
            if (std::abs(q.axis.x) > 1e-3) {  // s(t) = su + t·axis.x within [−reach, L + reach]
              double ta = (-reach - su) / q.axis.x, tb = (q.length_m + reach - su) / q.axis.x;
              if (ta > tb) std::swap(ta, tb);
              xa = std::max(xa, ta);
              xb = std::min(xb, tb);
            }
            return xa <= xb + 2 * h;
          },
          [&](const Vec3& p) { return detail::hit_piece(q, p).inside; });
    }
    for (const auto& b : geo.balls) {
      ++done;
      const Vec3 lo{b.c.x - b.r, b.c.y - b.r, b.c.z - b.r}, hi{b.c.x + b.r, b.c.y + b.r, b.c.z + b.r};
      auto d2 = [&](const Vec3& p) {
        return (p.x - b.c.x) * (p.x - b.c.x) + (p.y - b.c.y) * (p.y - b.c.y) + (p.z - b.c.z) * (p.z - b.c.z);
      };
      const double r_near = b.r + reach, r_all = b.r - reach;
      visit_box(
          lo, hi, b.segment,
          [&](const Vec3& c) {
            const double d = d2(c);
            return d > r_near * r_near ? Reach::None : r_all > 0 && d <= r_all * r_all ? Reach::All : Reach::Some;
          },
          [&](double y_m, double z_m, double& xa, double& xb) {
            const double w = r_near * r_near - (y_m - b.c.y) * (y_m - b.c.y) - (z_m - b.c.z) * (z_m - b.c.z);
            if (w < 0) return false;
            xa = b.c.x - std::sqrt(w);
            xb = b.c.x + std::sqrt(w);
            return true;
          },
          [&](const Vec3& p) { return d2(p) <= b.r * b.r; });
    }
  });
  if (stopped) cancel.throw_if_cancelled();

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
