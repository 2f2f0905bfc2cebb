#include "mrwb/simulation/rank_decomposition.hpp"

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"

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

std::string decomposition_text(const SlabSplit& s) {
  std::string t = "ranks " + std::to_string(s.ranks) + ": " + (s.axis == 2 ? "z planes" : "y rows");
  for (int r = 0; r < s.ranks; ++r) t += " [" + std::to_string(s.begin(r)) + "," + std::to_string(s.end(r)) + ")";
  return t + ", halo " + std::to_string(s.halo);
}

}  // namespace mrwb
