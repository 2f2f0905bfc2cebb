// Face codes of the fluid cells (transport_stencil.hpp: fluid_face_ranks). Everything works on fluid ranks
// (positions in the ascending fluid list, so rank order is global-index order): the face adjacency is
// found by one merge sweep of the sorted list per face offset, with no grid-sized lookup array.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mrwb/simulation/internal/transport_stencil.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb {
namespace {

constexpr std::int32_t k_adj_edge = -1;   // face across the grid edge
constexpr std::int32_t k_adj_solid = -2;  // face to a non-fluid cell inside the grid

// adj[rank·faces + f]: rank of the fluid neighbour through face f (+x, −x, +y, −y, +z, −z), or
// k_adj_edge / k_adj_solid. Global index j = i + offset grows with i, so one pointer sweeps the sorted
// list per face.
std::vector<std::int32_t> face_adjacency(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int faces) {
  std::vector<std::int32_t> adj;
  const std::size_t nf = fluid.size();
  for (std::size_t r = 0; r < nf; ++r) {
    const std::uint32_t i = fluid[r];
    if (r > 0 && i <= fluid[r - 1]) throw std::invalid_argument("fluid_face_ranks: fluid list not ascending");
    if (i >= ph.size() || ph.type[i] != transport::k_fluid)
      throw std::invalid_argument("fluid_face_ranks: fluid list holds a cell that is not fluid");
  }
  // A cell's coordinate along an axis, computed where needed (arrays of them would cost their page faults).
  const std::uint32_t nx = static_cast<std::uint32_t>(ph.nx), ny = static_cast<std::uint32_t>(ph.ny);
  auto coord = [&](int axis, std::uint32_t i) {
    return static_cast<int>(axis == 0 ? i % nx : axis == 1 ? i / nx % ny : i / nx / ny);
  };
  const long slice = static_cast<long>(ph.nx) * ph.ny;
  const long offset[6] = {1, -1, ph.nx, -ph.nx, slice, -slice};
  const int extent[3] = {ph.nx, ph.ny, ph.nz};
  adj.resize(nf * faces);
  for (int f = 0; f < faces; ++f) {
    const int axis = f / 2;
    const bool up = (f & 1) == 0;
    std::size_t q = 0;
    for (std::size_t r = 0; r < nf; ++r) {
      const int c = coord(axis, fluid[r]);
      std::int32_t& a = adj[r * faces + f];
      if (up ? c + 1 >= extent[axis] : c == 0) {
        a = k_adj_edge;
        continue;
      }
      const long j = static_cast<long>(fluid[r]) + offset[f];
      while (q < nf && static_cast<long>(fluid[q]) < j) ++q;
      if (q < nf && static_cast<long>(fluid[q]) == j) {
        a = static_cast<std::int32_t>(q);
      } else {
        // Every fluid cell must be in the list: the gather would read a neighbour the tables lack.
        if (ph.type[static_cast<std::size_t>(j)] == transport::k_fluid)
          throw std::invalid_argument("fluid_face_ranks: fluid list misses fluid cell " + std::to_string(j));
        a = k_adj_solid;
      }
    }
  }
  return adj;
}

}  // namespace

std::vector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid) {
  if (ph.size() > 0xffffffffu) throw std::invalid_argument("fluid_face_ranks: more than 2^32 cells");
  const int faces = ph.nz > 1 ? 6 : 4;
  std::vector<std::int32_t> out = face_adjacency(ph, fluid, faces);
  // The neighbour's rank, or open / wall as the gather decides (grid edge: open boundary; a non-fluid
  // neighbour: open only at a vessel end). In place: a fresh array is paid in page faults (a GPU rank's 2.7 M
  // fluid cells: 65 MB).
  const bool ends = ph.open_end.size() == ph.size();
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int32_t a = out[k];
    const bool open = a == k_adj_edge || (a == k_adj_solid && ends && ph.open_end[fluid[k / faces]] != 0);
    out[k] = a >= 0 ? a : (open ? k_face_open : k_face_wall);
  }
  return out;
}

}  // namespace mrwb
