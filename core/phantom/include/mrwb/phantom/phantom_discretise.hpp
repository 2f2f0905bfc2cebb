#pragma once
// Discretisation of a vessel tree into the simulator's cells (Jurczuk et al. 2016's cubic elements, tens to
// hundreds of um): fluid fraction (partial volume at the walls, 4 sub-samples per axis), the segment
// each cell belongs to, and the cell type. The memory needed is known before anything is allocated;
// grids that do not fit are refused with the numbers.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {

struct CellGrid {
  int nx = 1, ny = 1, nz = 1;  // nz = 1: a 2-D slice at z = origin_m.z
  double cell_m = 1e-4;        // edge of a cubic (square) cell
  Vec3 origin_m;               // centre of cell (0, 0, 0)
  std::size_t size() const { return static_cast<std::size_t>(nx) * ny * nz; }
  std::size_t index(int x, int y, int z) const { return (static_cast<std::size_t>(z) * ny + y) * nx + x; }
  Vec3 centre(int x, int y, int z) const {
    return {origin_m.x + x * cell_m, origin_m.y + y * cell_m, origin_m.z + z * cell_m};
  }
  bool operator==(const CellGrid&) const = default;
};

// A grid of cubic cells of `cell_m` holding the tree's bounding box plus `margin_m` on every side; 2-D
// trees get nz = 1.
CellGrid grid_around_tree(const VesselTree& tree, double cell_m, double margin_m);

struct VesselCells {
  CellGrid grid;
  std::vector<float> fluid_fraction;  // 0..1: share of the cell inside the lumen
  std::vector<std::int32_t> segment;  // segment owning the cell centre (or a sub-sample), -1: none
  std::vector<std::uint8_t> type;     // CellType: Fluid where fraction >= 0.5, else Stationary where
                                      // in_tissue (or no predicate), else Background
};

// Bytes discretise_vessels needs for `grid` (fraction, segment, type and a 64-bit sub-sample mask).
std::size_t discretise_memory_bytes(const CellGrid& grid);
// Default ceiling of the flow builders (4 GiB).
constexpr std::size_t k_flow_memory_limit_bytes = std::size_t{4} << 30;

// Throws InputError (naming `where`, the grid size, the bytes and the limit) if the grid does not fit in
// `memory_limit_bytes`; warns through `warn` when the cell is larger than the smallest radius. The grid's rows
// are split over the hardware threads; `in_tissue`, `warn` and `progress` are called from the calling thread.
VesselCells discretise_vessels(const VesselTree& tree, const CellGrid& grid, const std::string& where,
                               std::size_t memory_limit_bytes = k_flow_memory_limit_bytes,
                               const std::function<bool(const Vec3&)>& in_tissue = {},
                               const std::function<void(const std::string&)>& warn = {},
                               const ProgressFn& progress = {}, const CancelToken& cancel = {});

// "256 x 256 x 1 cells of 500 um: 12.5 MiB" (for the estimate shown before building).
std::string describe_grid_memory(const CellGrid& grid, std::size_t bytes);

}  // namespace mrwb
