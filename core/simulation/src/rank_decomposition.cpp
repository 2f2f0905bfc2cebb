#include "mrwb/simulation/rank_decomposition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/courant.hpp"

namespace mrwb {

int SlabSplit::begin(int r) const {
  if (!first.empty()) return first[static_cast<std::size_t>(r)];
  return static_cast<int>(range_begin(static_cast<std::size_t>(planes), ranks, r));
}

std::optional<SplitAxis> parse_split_axis(std::string_view text) {
  if (text == "auto") return SplitAxis::Auto;
  if (text == "y") return SplitAxis::Y;
  if (text == "z") return SplitAxis::Z;
  return std::nullopt;
}

namespace {
// slab_work of planes [a, b) in O(1): the own planes' prefix sums, and the stepped halo planes below a slab
// starting at a (below[a]) and above one ending at b (above[b]).
struct SlabWorkTable {
  std::vector<double> before, below, above;
  SlabWorkTable(const PlaneWork& w, int planes, int H)
      : before(static_cast<std::size_t>(planes) + 1, 0.0),
        below(static_cast<std::size_t>(planes) + 1, 0.0),
        above(static_cast<std::size_t>(planes) + 1, 0.0) {
    for (int p = 0; p < planes; ++p) before[p + 1] = before[p] + w.own[p];
    for (int e = 0; e <= planes; ++e)
      for (int d = 1; d < H; ++d) {
        const double share = static_cast<double>(H - d) / H;
        if (e > 0 && e - d >= 0) below[e] += share * w.halo[e - d];
        if (e < planes && e - 1 + d < planes) above[e] += share * w.halo[e - 1 + d];
      }
  }
  double operator()(int a, int b) const { return before[b] - before[a] + below[a] + above[b]; }
};

// `planes` planes of `plane_cells` cells along `axis` over `ranks`, balanced by `work` (null: equal slabs);
// nullopt where a slab would be thinner than its halo.
std::optional<SlabSplit> split_along(int axis, bool rows_of_3d, int planes, std::size_t plane_cells, int ranks,
                                     const std::function<int(int)>& halo, const PlaneWork* work) {
  SlabSplit s;
  s.axis = axis;
  s.rows_of_3d = rows_of_3d;
  s.planes = planes;
  s.plane_cells = plane_cells;
  s.ranks = ranks;
  const int h = ranks > 1 ? halo(planes) : 0;
  s.halo = h;
  // A slab at least as thick as the halo, so the halo comes from the next rank alone.
  if (ranks < 1 || ranks > planes / std::max(1, h)) return std::nullopt;
  if (ranks > 1 && work) balance_slabs(s, *work);
  return s;
}

double busiest(const SlabSplit& s, const PlaneWork& w) {
  const SlabWorkTable work(w, s.planes, s.halo);
  double most = 0;
  for (int r = 0; r < s.ranks; ++r) most = std::max(most, work(s.begin(r), s.end(r)));
  return most;
}

// The most ranks `planes` planes take, each slab at least as thick as its halo.
int most_ranks(int planes, const std::function<int(int)>& halo) {
  int m = 0;
  while (m + 1 <= planes && split_along(2, false, planes, 1, m + 1, halo, nullptr)) ++m;
  return m;
}

[[noreturn]] void refuse_ranks(int ranks, const std::string& planes, int most) {
  throw InputError("--ranks: " + std::to_string(ranks) + " ranks for a phantom of " + planes + " (allowed: 1 to " +
                   std::to_string(std::max(1, most)) + ")");
}
}  // namespace

SlabSplit choose_slab_split(int nx, int ny, int nz, int ranks, const std::function<int(int)>& halo, SplitAxis along,
                            const PlaneWork* z_work, const PlaneWork* y_work) {
  const std::size_t x = static_cast<std::size_t>(nx);
  const auto z = along == SplitAxis::Y ? std::nullopt : split_along(2, false, nz, x * ny, ranks, halo, z_work);
  const auto y = along == SplitAxis::Z ? std::nullopt : split_along(1, true, ny, x * nz, ranks, halo, y_work);
  if (z && y) {
    // Auto: the busiest rank's work, halo included, decides; at rest (no work) the z planes.
    if (!z_work || !y_work) return *z;
    return busiest(*y, *y_work) < busiest(*z, *z_work) ? *y : *z;
  }
  if (z) return *z;
  if (y) return *y;
  if (along == SplitAxis::Z) refuse_ranks(ranks, std::to_string(nz) + " z planes", most_ranks(nz, halo));
  if (along == SplitAxis::Y) refuse_ranks(ranks, std::to_string(ny) + " y rows", most_ranks(ny, halo));
  refuse_ranks(ranks, std::to_string(nz) + " z planes and " + std::to_string(ny) + " y rows",
               std::max(most_ranks(nz, halo), most_ranks(ny, halo)));
}

SlabSplit slab_split(const CellPhantom& ph, int ranks, const std::function<int(int)>& halo, SplitAxis along) {
  const bool moves = ranks > 1 && phantom_moves(ph);
  if (ph.nz <= 1) {
    if (along == SplitAxis::Z)
      throw InputError("--split-axis: z for a 2-D phantom (one z plane; allowed: auto, y)");
    const PlaneWork w = moves ? plane_work(ph, static_cast<std::size_t>(ph.nx)) : PlaneWork{};
    const auto s = split_along(1, false, ph.ny, static_cast<std::size_t>(ph.nx), ranks, halo, moves ? &w : nullptr);
    if (!s) refuse_ranks(ranks, std::to_string(ph.ny) + " y rows (2-D)", most_ranks(ph.ny, halo));
    return *s;
  }
  PlaneWork zw, yw;
  if (moves) {
    if (along != SplitAxis::Y) zw = plane_work(ph, ph.slice_size());
    if (along != SplitAxis::Z) yw = row_work(ph);
  }
  return choose_slab_split(ph.nx, ph.ny, ph.nz, ranks, halo, along, moves && along != SplitAxis::Y ? &zw : nullptr,
                           moves && along != SplitAxis::Z ? &yw : nullptr);
}

SlabSplit slab_split(const CellPhantom& ph, int ranks, int halo, SplitAxis along) {
  return slab_split(ph, ranks, [halo](int) { return halo; }, along);
}

SlabSplit played_split(SlabSplit split) {
  if (split.rows_of_3d) split.axis = 2;
  return split;
}

PlaneWork row_work(const CellPhantom& ph, double stepped_work) {
  PlaneWork w{std::vector<double>(static_cast<std::size_t>(ph.ny), static_cast<double>(ph.nx) * ph.nz),
              std::vector<double>(static_cast<std::size_t>(ph.ny), 0.0)};
  if (ph.type.size() != ph.size()) return w;
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      const std::size_t y = (i / static_cast<std::size_t>(ph.nx)) % static_cast<std::size_t>(ph.ny);
      w.own[y] += stepped_work;
      w.halo[y] += stepped_work;
    }
  return w;
}

PlaneWork plane_work(const CellPhantom& ph, std::size_t plane_cells, double stepped_work) {
  const std::size_t planes = plane_cells > 0 ? ph.size() / plane_cells : 0;
  PlaneWork w{std::vector<double>(planes, static_cast<double>(plane_cells)), std::vector<double>(planes, 0.0)};
  if (ph.type.size() != ph.size()) return w;
  for (std::size_t i = 0; i < planes * plane_cells; ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      w.own[i / plane_cells] += stepped_work;
      w.halo[i / plane_cells] += stepped_work;
    }
  return w;
}

PlaneWork periodic_plane_work(const PlaneWork& period, int planes, int offset) {
  PlaneWork w;
  const std::size_t T = period.own.size();
  if (T == 0 || period.halo.size() != T || planes < 0 || offset < 0) return w;
  for (int z = 0; z < planes; ++z) {
    const std::size_t q = (static_cast<std::size_t>(offset) + static_cast<std::size_t>(z)) % T;
    w.own.push_back(period.own[q]);
    w.halo.push_back(period.halo[q]);
  }
  return w;
}


double slab_work(const SlabSplit& s, const PlaneWork& w, int r) {
  return SlabWorkTable(w, s.planes, s.halo)(s.begin(r), s.end(r));
}

void balance_slabs(SlabSplit& s, const PlaneWork& w) {
  s.first.clear();
  const int P = s.planes, R = s.ranks;
  if (R < 2 || w.own.size() != static_cast<std::size_t>(P) || w.halo.size() != static_cast<std::size_t>(P)) return;
  const SlabWorkTable work(w, P, s.halo);
  if (!(work.before.back() > 0)) return;
  const int thin = s.halo > 1 ? s.halo : 1;
  std::vector<int> first(static_cast<std::size_t>(R) + 1, 0);
  first.back() = P;
  if (s.halo <= 1) {
    // No halo term: each bound at the plane nearest its share of the work (within a plane's work of the
    // mean, every slab), then kept `thin` planes from its neighbours.
    for (int r = 1; r < R; ++r) {
      const double target = work.before.back() * r / R;
      int b = static_cast<int>(std::lower_bound(work.before.begin(), work.before.end(), target) - work.before.begin());
      if (b > 0 && target - work.before[b - 1] < work.before[b] - target) --b;
      first[r] = std::min(std::max(b, first[r - 1] + thin), P - (R - r) * thin);
    }
  } else {
    // A slab's halo work depends on the planes beside it, so the largest work is not monotone in a bound:
    // dynamic programming over (rank, bound), O(ranks · planes²) (a deep halo is the GPU ranks', a few).
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> best(static_cast<std::size_t>(R), std::vector<double>(P + 1, inf));
    std::vector<std::vector<int>> from(static_cast<std::size_t>(R), std::vector<int>(P + 1, 0));
    for (int b = thin; b <= P; ++b) best[0][b] = work(0, b);
    for (int r = 1; r < R; ++r)
      for (int b = (r + 1) * thin; b <= P - (R - 1 - r) * thin; ++b)
        for (int a = r * thin; a <= b - thin; ++a) {
          const double m = std::max(best[r - 1][a], work(a, b));
          if (m < best[r][b]) best[r][b] = m, from[r][b] = a;
        }
    for (int r = R - 1; r > 0; --r) first[r] = from[r][first[r + 1]];
  }
  s.first = std::move(first);
}

CellPhantom slab_phantom(const CellPhantom& ph, const SlabSplit& split, int rank) {
  if (split.axis == 1 && split.rows_of_3d)
    throw std::logic_error("slab_phantom: y rows of a 3-D grid are played on swap_y_z's grid (played_split)");
  const int b = split.held_begin(rank), e = split.held_end(rank);
  CellPhantom s = split.axis == 2 ? crop_phantom(ph, 0, 0, b, ph.nx, ph.ny, e - b) : crop_phantom(ph, 0, b, 0, ph.nx, e - b, 1);
  if (phantom_moves(ph)) s.whole_courant_speed = max_courant_speed(ph);
  empty_halo_cells(s, split, rank);
  return s;
}

void empty_halo_cells(CellPhantom& s, const SlabSplit& split, int rank) {
  const int b = split.held_begin(rank), e = split.held_end(rank);
  auto empty_plane = [&](int held_plane) {
    const std::size_t first = static_cast<std::size_t>(held_plane) * split.plane_cells;
    for (std::size_t i = first; i < first + split.plane_cells; ++i)
      if (s.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) s.PD[i] = 0.f;
  };
  for (int p = b; p < split.begin(rank); ++p) empty_plane(p - b);
  for (int p = split.end(rank); p < e; ++p) empty_plane(p - b);
}

std::string decomposition_text(const SlabSplit& s) {
  std::string t = "ranks " + std::to_string(s.ranks) + ": " + (s.axis == 2 && !s.rows_of_3d ? "z planes" : "y rows");
  for (int r = 0; r < s.ranks; ++r) t += " [" + std::to_string(s.begin(r)) + "," + std::to_string(s.end(r)) + ")";
  return t + ", halo " + std::to_string(s.halo);
}

}  // namespace mrwb
