// Face codes of the fluid cells (transport_stencil.hpp: fluid_face_ranks). Everything works on fluid ranks
// (positions in the ascending fluid list, so rank order is global-index order): the face adjacency is
// found by one merge sweep of the sorted list per face offset, with no grid-sized lookup array.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb {
namespace {

constexpr std::int32_t k_adj_edge = -1;   // face across the grid edge
constexpr std::int32_t k_adj_solid = -2;  // face to a non-fluid cell inside the grid

// What a part of the pass found wrong with the list (the first of it, in rank order within the part).
struct ListFault {
  enum { None, NotAscending, NotFluid, Missing } kind = None;
  long cell = 0;
};

}  // namespace

UninitialisedVector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int parts) {
  if (ph.size() > 0xffffffffu) throw std::invalid_argument("fluid_face_ranks: more than 2^32 cells");
  const int faces = ph.nz > 1 ? 6 : 4;
  const std::size_t nf = fluid.size();
  if (parts <= 0) parts = range_parts(nf);
  // A cell's coordinate along an axis, computed where needed (arrays of them would cost their page faults).
  const std::uint32_t nx = static_cast<std::uint32_t>(ph.nx), ny = static_cast<std::uint32_t>(ph.ny);
  auto coord = [&](int axis, std::uint32_t i) {
    return static_cast<int>(axis == 0 ? i % nx : axis == 1 ? i / nx % ny : i / nx / ny);
  };
  const long slice = static_cast<long>(ph.nx) * ph.ny;
  const long offset[6] = {1, -1, ph.nx, -ph.nx, slice, -slice};
  const int extent[3] = {ph.nx, ph.ny, ph.nz};
  const bool ends = ph.open_end.size() == ph.size();
  // out[rank·faces + f]: first the rank of the fluid neighbour through face f (+x, −x, +y, −y, +z, −z), or
  // k_adj_edge / k_adj_solid, then (in place, per part) the face code. Global index j = i + offset grows with
  // i, so one pointer sweeps the sorted list per face; a part starts it by a binary search. The parts write
  // their own ranks' entries, each page first touched by the thread that fills it.
  UninitialisedVector<std::int32_t> out(nf * faces);
  std::vector<ListFault> fault(static_cast<std::size_t>(std::max(parts, 1)));
  for_each_range(nf, parts, [&](int p, std::size_t begin, std::size_t end) {
    ListFault& bad = fault[static_cast<std::size_t>(p)];
    for (std::size_t r = begin; r < end; ++r) {
      const std::uint32_t i = fluid[r];
      if (r > 0 && i <= fluid[r - 1]) {
        bad = {ListFault::NotAscending, i};
        return;
      }
      if (i >= ph.size() || ph.type[i] != transport::k_fluid) {
        bad = {ListFault::NotFluid, i};
        return;
      }
    }
    for (int f = 0; f < faces; ++f) {
      const int axis = f / 2;
      const bool up = (f & 1) == 0;
      const long first = begin < end ? static_cast<long>(fluid[begin]) + offset[f] : 0;
      std::size_t q = static_cast<std::size_t>(
          std::lower_bound(fluid.begin(), fluid.end(), first, [](std::uint32_t c, long j) { return static_cast<long>(c) < j; }) -
          fluid.begin());
      for (std::size_t r = begin; r < end; ++r) {
        const int c = coord(axis, fluid[r]);
        std::int32_t& a = out[r * faces + f];
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
          if (ph.type[static_cast<std::size_t>(j)] == transport::k_fluid) {
            bad = {ListFault::Missing, j};
            return;
          }
          a = k_adj_solid;
        }
      }
    }
    // The neighbour's rank, or open / wall as the gather decides (grid edge: open boundary; a non-fluid
    // neighbour: open only at a vessel end).
    for (std::size_t k = begin * faces; k < end * faces; ++k) {
      const std::int32_t a = out[k];
      const bool open = a == k_adj_edge || (a == k_adj_solid && ends && ph.open_end[fluid[k / faces]] != 0);
      out[k] = a >= 0 ? a : (open ? k_face_open : k_face_wall);
    }
  });
  for (const ListFault& bad : fault) switch (bad.kind) {
      case ListFault::None:
        continue;
      case ListFault::NotAscending:
        throw std::invalid_argument("fluid_face_ranks: fluid list not ascending");
      case ListFault::NotFluid:
        throw std::invalid_argument("fluid_face_ranks: fluid list holds a cell that is not fluid");
      case ListFault::Missing:
        throw std::invalid_argument("fluid_face_ranks: fluid list misses fluid cell " + std::to_string(bad.cell));
    }
  return out;
}

}  // namespace mrwb
