#pragma once
// The cell grid split over ranks (processes) in slabs of whole planes: z planes or y rows of a 3-D grid, y rows
// of a 2-D one (nz = 1). Each rank advances the cells of its slab and reads `halo` planes of each neighbour's
// slab, which the rank communicator (rank_comm.hpp) refreshes before every step. The engines play slabs along
// the grid's outermost axis; a 3-D grid split into y rows is played with its y and z axes exchanged (swap_y_z),
// so that its rows are whole planes and x stays the readout axis.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mrwb/base/simulation_model.hpp"
#include "mrwb/phantom/phantom.hpp"

namespace mrwb {

// Planes one side of a slab that the time-stepped transport reads from the neighbour: the donor-cell
// gather (transport_cell_ops.hpp) reads the face neighbours only, and the gradient frame's face turns
// are the same for every face of an axis, so one plane in either; the limited second-order correction
// (transport_limited_ops.hpp) reads two cells along each axis, so two planes.
constexpr int k_transport_halo_planes = 1;
constexpr int transport_halo_planes(FlowTransport t) { return second_order(t) ? 2 : k_transport_halo_planes; }

// Which axis a 3-D grid is split along: the one whose balanced slabs leave the busiest rank the least work
// (a thin slab's vessel tree lies in a few of its z planes but spreads over its y rows), or one named.
enum class SplitAxis { Auto, Y, Z };
std::optional<SplitAxis> parse_split_axis(std::string_view text);  // "auto", "y", "z"

// What each plane along the split axis adds to a slab's work: `own` as one of the slab's planes (its cells,
// its fluid cells k_stepped_cell_work times more), `halo` as a halo plane (its fluid cells only: a halo's
// other cells are emptied), for a stepped halo plane.
struct PlaneWork {
  std::vector<double> own, halo;
};

struct SlabSplit {
  int axis = 2;        // 2: z planes (of the grid played); 1: y rows
  // y rows of a 3-D grid: played as the z planes of swap_y_z's grid (axis 2 there; plane_cells nx·nz either way).
  bool rows_of_3d = false;
  int planes = 1;      // along `axis`
  int ranks = 1;
  int halo = 0;        // planes read from each neighbour
  std::size_t plane_cells = 0;  // cells per plane (nx·ny along z; along y nx·nz, nx in 2-D)
  std::vector<int> first;       // ranks + 1 slab bounds (balance_slabs); empty: slabs of equal thickness
  // Rank r owns planes [begin(r), end(r)): first[r] .. first[r + 1], or with `first` empty equal slabs, the
  // first planes % ranks one plane thicker.
  int begin(int r) const;
  int end(int r) const { return begin(r + 1); }
  // Planes rank r holds: its own and the halo planes beside them (clipped to the grid).
  int held_begin(int r) const { return begin(r) - halo < 0 ? 0 : begin(r) - halo; }
  int held_end(int r) const { return end(r) + halo > planes ? planes : end(r) + halo; }
};

// Rank r's held planes of `ph` (its slab and the halo planes beside it) as a phantom of their own, for an
// engine that plays a grid as given (the CUDA engine): the whole phantom's Courant speed pinned, so every
// rank takes the same time steps (courant.hpp), and the halo planes' non-fluid cells emptied (PD = 0):
// transport reads fluid cells only, and nothing of the halo may add to this rank's signal. (The halo's
// fluid cells the engine refreshes from the neighbours after every step and leaves out of the signal.)
CellPhantom slab_phantom(const CellPhantom& ph, const SlabSplit& split, int rank);
// The halo planes' non-fluid cells of rank r's held planes `held` emptied (PD = 0), as slab_phantom does; for
// ranks that built only their held planes.
void empty_halo_cells(CellPhantom& held, const SlabSplit& split, int rank);
// The split of `ph` over `ranks`: slabs of about equal work (balance_slabs over plane_work) when the phantom
// moves, else of equal thickness; a 3-D grid along `along` (Auto: the axis whose balanced slabs give the
// smaller largest slab_work, z on a tie and for a phantom at rest). `halo(planes)`: the planes read from each
// neighbour when `planes` planes are split (the engine's rank_halo_planes). InputError naming --ranks and the
// allowed range when a rank would get fewer planes than the halo (or none), naming --split-axis for z on a
// 2-D grid.
SlabSplit slab_split(const CellPhantom& ph, int ranks, const std::function<int(int)>& halo, SplitAxis along = SplitAxis::Auto);
SlabSplit slab_split(const CellPhantom& ph, int ranks, int halo = k_transport_halo_planes, SplitAxis along = SplitAxis::Auto);
// The split of a 3-D grid of nx × ny × nz cells (nz > 1) given its z planes' and y rows' work (null: the phantom
// is at rest, equal slabs), for ranks that each built only part of the grid; as slab_split.
SlabSplit choose_slab_split(int nx, int ny, int nz, int ranks, const std::function<int(int)>& halo, SplitAxis along,
                            const PlaneWork* z_work, const PlaneWork* y_work);
// `split` (rows_of_3d) as the engines play it: the z planes of swap_y_z's grid.
SlabSplit played_split(SlabSplit split);
// A time-stepped cell costs a run far more than a closed-form one (every flow step against every readout
// pass). On the GPU, a rank's kernel time on the 2000 x 2000 x 140 liver slab (76,801 steps, H100) fits
// 3.62 s per million stepped cells (halo planes by their stepped share) + 1.91 ms per million closed-form
// cells + 0.66 s, within 0.09 s of four ranks' times with the exchange left out and of one GPU's
// (docs/benchmarks.md): about 1900 times as much. The split counts it k_stepped_cell_work times. (On 4 H200s in
// y rows with the exchange, 950 and 1400 were slower and 2800 within the runs' spread: the busiest rank's step time
// grew much faster than its stepped cells. A GPU step runs in rounds of resident blocks, and its time jumps where a
// rank's cells need one more cell a thread: on an H200 past 709,632 fluid cells, 1.6 % more cells cost 8.7 % more.)
// The fit predates the closed-form passes that leave out the Mxy spoiling drops (10 bytes a cell a pass instead of
// 26): alone on one H200 the strong case's outer and middle ranks now take 2.75 and 2.74 s at this weight (with
// their set-up, which is per cell, once the closed-form tissue is built beside the steps: 2.84 and 2.70-2.79 s), so
// it stays until a 4-GPU run with the exchange says otherwise.
constexpr double k_stepped_cell_work = 1900.0;
// The planes of `ph` of `plane_cells` cells each, in grid order (a rank's part of a grid too), a fluid cell counted
// `stepped_work` times.
PlaneWork plane_work(const CellPhantom& ph, std::size_t plane_cells, double stepped_work = k_stepped_cell_work);
// The y rows of a 3-D `ph` (each row's nx·nz cells; a rank's z planes give its part of every row's work).
PlaneWork row_work(const CellPhantom& ph, double stepped_work = k_stepped_cell_work);
// The work of `planes` planes that repeat `period` (a stack of copies of one slab, organ_slab_stack_planes),
// starting `offset` planes into it: plane z works as period's plane (offset + z) mod its length. A rank
// weighs a stack from one copy instead of building planes it will not hold.
PlaneWork periodic_plane_work(const PlaneWork& period, int planes, int offset);
// Rank r's work under `split`: its own planes, and the halo planes its engine steps. With a halo of H planes
// refreshed every H steps (the GPU ranks' deep halo), the plane d deep is stepped in H − d of every H steps
// (d = 1 .. H − 1: what the own planes read before the next exchange); with H = 1 none is.
double slab_work(const SlabSplit& split, const PlaneWork& work, int r);
// Sets split.first, every slab at least max(1, halo) planes thick: with a deep halo (halo > 1) so that the
// largest slab_work is as small as whole planes allow (dynamic programming over ranks and bounds); with
// halo <= 1 (no halo term) each bound at the plane nearest its share of the work. Equal slabs for ranks = 1
// or no work. The halo term matters where a thin slab sits in the dense part of a vessel tree: its halo planes
// are as dense as its own.
void balance_slabs(SlabSplit& split, const PlaneWork& work);
// "ranks 3: z planes [0,24) [24,47) [47,70), halo 1": the line `mrwb simulate` prints for a decomposed run.
std::string decomposition_text(const SlabSplit& split);

}  // namespace mrwb
