#include "mrwb/simulation/rank_decomposition.hpp"

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/courant.hpp"

namespace mrwb {

int SlabSplit::begin(int r) const { return static_cast<int>(range_begin(static_cast<std::size_t>(planes), ranks, r)); }

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
  return s;
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
