#include "mrwb/simulation/rank_decomposition.hpp"

#include <algorithm>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/courant.hpp"

namespace mrwb {

int SlabSplit::begin(int r) const {
  if (!first.empty()) return first[static_cast<std::size_t>(r)];
  return static_cast<int>(range_begin(static_cast<std::size_t>(planes), ranks, r));
}

SlabSplit slab_split(const CellPhantom& ph, int ranks, int halo) {
  SlabSplit s;
  s.axis = ph.nz > 1 ? 2 : 1;
  s.planes = s.axis == 2 ? ph.nz : ph.ny;
  s.plane_cells = s.axis == 2 ? ph.slice_size() : static_cast<std::size_t>(ph.nx);
  s.halo = ranks > 1 ? halo : 0;
  s.ranks = ranks;
  // A slab at least as thick as the halo, so the halo comes from the next rank alone.
  const int most = s.planes / (halo > 1 ? halo : 1);
  if (ranks < 1 || ranks > most)
    throw InputError("--ranks: " + std::to_string(ranks) + " ranks for a phantom of " + std::to_string(s.planes) + " " +
                     (s.axis == 2 ? "z planes" : "y rows (2-D)") + " (allowed: 1 to " + std::to_string(most) + ")");
  if (ranks > 1 && phantom_moves(ph)) balance_slabs(s, plane_work(ph, s.plane_cells));
  return s;
}

std::vector<double> plane_work(const CellPhantom& ph, std::size_t plane_cells) {
  std::vector<double> work(plane_cells > 0 ? ph.size() / plane_cells : 0, static_cast<double>(plane_cells));
  if (ph.type.size() != ph.size()) return work;
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) work[i / plane_cells] += k_stepped_cell_work;
  return work;
}

void balance_slabs(SlabSplit& s, const std::vector<double>& work) {
  s.first.clear();
  if (s.ranks < 2 || work.size() != static_cast<std::size_t>(s.planes)) return;
  std::vector<double> before(work.size() + 1, 0.0);  // before[p]: the work of planes [0, p)
  for (std::size_t p = 0; p < work.size(); ++p) before[p + 1] = before[p] + work[p];
  if (!(before.back() > 0)) return;
  const int thin = s.halo > 1 ? s.halo : 1;
  std::vector<int> first(static_cast<std::size_t>(s.ranks) + 1, 0);
  first.back() = s.planes;
  for (int r = 1; r < s.ranks; ++r) {
    // The bound nearest the r-th share of the work, then kept `thin` planes from its neighbours.
    const double target = before.back() * r / s.ranks;
    int b = static_cast<int>(std::lower_bound(before.begin(), before.end(), target) - before.begin());
    if (b > 0 && target - before[b - 1] < before[b] - target) --b;
    b = std::max(b, first[r - 1] + thin);
    b = std::min(b, s.planes - (s.ranks - r) * thin);
    first[r] = b;
  }
  s.first = std::move(first);
}

CellPhantom slab_phantom(const CellPhantom& ph, const SlabSplit& split, int rank) {
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
  std::string t = "ranks " + std::to_string(s.ranks) + ": " + (s.axis == 2 ? "z planes" : "y rows");
  for (int r = 0; r < s.ranks; ++r) t += " [" + std::to_string(s.begin(r)) + "," + std::to_string(s.end(r)) + ")";
  return t + ", halo " + std::to_string(s.halo);
}

}  // namespace mrwb
