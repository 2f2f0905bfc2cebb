#pragma once
// Temporal blocking of the time-stepped fluid cells. One time step of transport + Bloch
// reads only face neighbours, so K steps of a compact group of fluid cells (a "part") need the cells
// up to K face hops away and nothing else: each part's region = its interior cells (hop 0) followed by
// its halo sorted by hop distance 1 … K through fluid faces. A GPU block loads its region into shared
// memory once, plays K steps there — at step s (1 … K) it updates the entries of hop ≤ K − s, whose
// neighbours (hop ≤ K − s + 1) were still valid after step s − 1 — and writes back the interior: one
// pass over memory per K steps instead of K. Halo cells are updated redundantly by every part that
// holds them (the cost of the scheme, reported by `redundancy()`).
// The same tables drive the CPU twin (run_fluid_blocks_cpu), which must reproduce the plain
// time-stepped reference.
#include <complex>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

// One time step of the time-stepped path: every sub-step of every Free interval and ADC sample, each
// RF / spoil folded into the step after it (a zero-length step when two come in a row). Shared by the
// CUDA engine (copied to the device as is) and the CPU twin.
struct FluidStep {
  double dt_s, dk_x, dk_y, dk_z;  // interval and gradient moment of this step [s, cycles/m]
  float scale;                    // dt / flow_dt: the Courant scale of the transport
  int sample;                     // coil-0 k-space index of the state before the step (after `op`), or −1
  int truth;                      // 1: record cell Mxy of that state
  int op;                         // instantaneous operator before the step: 0 none, 1 RF, 2 spoil
  float ca, sa, cp, sp;           // RF: cos/sin of flip and phase
};

// The step table of `prog` over `ph` (sub-steps under courant_dt_s(ph)); trs_at gets (steps queued,
// TRs completed by then) at every TR boundary (tr_progress_marks). A trailing op changes no sample and
// is dropped.
std::vector<FluidStep> fluid_step_table(const CellPhantom& ph, const SequenceProgram& prog,
                                        std::vector<std::pair<long, int>>& trs_at);

// Face codes of a region entry, in the gather's face order +x, −x, +y, −y (+z, −z when nz > 1):
// ≥ 0 the region-local index of the fluid neighbour; k_face_open a face that exchanges with the outside
// (grid edge, or a vessel end's face to a non-fluid cell: outflow leaves, fresh M = (0, 0, PD) enters);
// k_face_wall no flux (wall, or — for the outermost halo only — a neighbour outside the region).
constexpr std::int16_t k_face_open = -1;
constexpr std::int16_t k_face_wall = -2;

struct FluidBlocks {
  int steps = 1;  // K: time steps per pass = halo depth in face hops
  int faces = 4;  // 4 (nz == 1) or 6
  std::vector<std::uint32_t> region_begin;  // [part + 1]: offsets of each part's entries
  std::vector<std::uint32_t> hop_end;       // [part][K + 1]: entries of hop ≤ h (counted from region_begin)
  std::vector<std::uint32_t> cell;          // [entry] global cell index (iz·ny + iy)·nx + ix
  std::vector<std::int16_t> face;           // [entry][faces] face codes (above)
  std::size_t max_region = 0;               // largest region [entries]

  std::size_t parts() const { return region_begin.empty() ? 0 : region_begin.size() - 1; }
  std::uint32_t interior(std::size_t p) const { return hop_end[p * (steps + 1)]; }
  // Cell updates per step over all parts (each entry of hop h is updated K − h times in K steps),
  // divided by the fluid cells: ≥ 1.
  double redundancy() const;
};

// Splits `fluid` (global indices of the fluid cells, ascending; all with type Fluid) into parts by
// recursive coordinate bisection (the longest extent halved at the median) until every part has at most
// `max_interior` cells and a region (interior + K-hop halo) of at most `max_region` entries, and builds
// the region tables. Faces follow transport_cell_ops.hpp exactly (open grid boundary; open_end). Throws
// std::invalid_argument when a single cell's region exceeds max_region (K too large for the cap) or
// max_region > 32767 (local indices are int16).
FluidBlocks build_fluid_blocks(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int K,
                               std::size_t max_interior, std::size_t max_region);

// Face codes of every fluid cell against the whole list `fluid` ([rank][faces], faces as in FluidBlocks):
// ≥ 0 the rank (position in `fluid`) of the fluid neighbour, k_face_open or k_face_wall — the table of a
// per-step kernel over the compact fluid state. Equal to the codes of build_fluid_blocks with one part
// holding every fluid cell.
std::vector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid);

// CPU twin of the CUDA engine's blocked kernel: plays `table` over the fluid cells of `ph` with the
// region tables of `blocks` (per part: load the region from the state, K steps with the per-cell
// operators of fluid_block_ops.hpp, write back the interior). state: Mx, My, Mz of every cell (only
// fluid entries are read or written); samples[c·per_coil + sample] += Σ interior C_c·Mxy (fluid cells
// only); cell_truth[i] set for fluid cells at truth steps. Single-threaded, deterministic.
void run_fluid_blocks_cpu(const CellPhantom& ph, const FluidBlocks& blocks, std::span<const FluidStep> table,
                          std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t per_coil,
                          std::span<float> Mx, std::span<float> My, std::span<float> Mz,
                          std::span<std::complex<double>> samples, std::span<std::complex<float>> cell_truth);

}  // namespace mrwb
