#pragma once
// Transport of the time-stepped fluid cells as a fixed stencil per cell. The flow is steady,
// so every face's Courant number is a constant c_f (transport_cell_ops.hpp's face expression at scale
// 1) times the step's scale dt/flow_dt, and the donor-cell step of fluid cell i reduces to
//   M_i' = M_i + scale · (Σ_in c_f · M_up(f) − out_i · M_i) + scale · fresh_i · ẑ,
// out_i = Σ of the outflow faces' c_f, the in-faces those whose upwind side is a fluid neighbour, and
// fresh_i = Σ c_f · PD_i over inflow faces that open to the outside (fresh, fully relaxed spins). Built
// once per run, the stencil spares a step the face-by-face decisions, the neighbours' velocity loads
// and the type and bounds checks of the gather: the per-step kernels are bound by their instruction
// count and the dependent loads of a step, not by bandwidth (docs/benchmarks.md). Same faces and the
// same face expressions as donor_cell_gather; only the order of the additions differs (float rounding).
#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb {

// Face codes of every fluid cell against the whole list `fluid` (ascending global indices, all of type
// Fluid), [rank][faces] in the gather's face order +x, −x, +y, −y (+z, −z when nz > 1): ≥ 0 the rank
// (position in `fluid`) of the fluid neighbour; k_face_open a face that exchanges with the outside (grid
// edge, or a vessel end's face to a non-fluid cell: outflow leaves, fresh M = (0, 0, PD) enters);
// k_face_wall no flux. Faces follow transport_cell_ops.hpp exactly (open grid boundary; open_end).
// std::invalid_argument when `fluid` is not ascending, holds a non-fluid cell or misses a fluid one.
constexpr std::int32_t k_face_open = -1;
constexpr std::int32_t k_face_wall = -2;
std::vector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid);

// One upwind fluid neighbour of a cell: its rank and its face's c_f (8 bytes: one load on the device).
// `rank` holds the face too (bits from k_face_shift up, in the gather's order +x, −x, +y, −y, +z, −z),
// which the gradient frame turns by: ranks stay below 2^k_face_shift (build_fluid_stencil checks).
constexpr int k_face_shift = 28;
constexpr std::int32_t k_rank_mask = (std::int32_t{1} << k_face_shift) - 1;
struct alignas(8) FluidInflow {
  std::int32_t rank = -1;  // −1: no more inflow faces (the slots of a cell are filled from 0)
  float coef = 0.f;
};

struct FluidStencil {
  int in_slots = 0;     // slots per cell: the most inflow faces of any cell (≤ 4 in 2-D, ≤ 6 in 3-D)
  std::size_t nf = 0;   // fluid cells (ranks: positions in the ascending fluid list)
  std::vector<float> out;            // [rank] Σ outflow c_f
  std::vector<float> fresh;          // [rank] Σ inflow c_f through open faces, times PD
  std::vector<FluidInflow> inflow;   // [slot · nf + rank]
};

// The stencil of the fluid cells `fluid` (ascending global indices, all of type Fluid) of `ph`, faces as
// fluid_face_ranks decides them (open grid boundary, vessel ends). InputError beyond 2^28 fluid cells.
FluidStencil build_fluid_stencil(const CellPhantom& ph, std::span<const std::uint32_t> fluid);

namespace fluid {

// Inflow slots a step reads before it waits for the previous step (static data, see the CUDA kernel):
// enough for most cells (a straight vessel has one inflow face, a bend or a branch two or three).
constexpr int k_preloaded_inflows = 2;

// One transport step of a cell from its stencil: `first` holds its first k_preloaded_inflows slots,
// `more` points at its slot k_preloaded_inflows (stride nf), read only while its n_slots go on. Returns
// the new M, and in *fresh_z the fresh inflow's Mz (scale · fresh), so that a caller can apply an
// instantaneous operator to the transported old state alone (transport is linear), as
// donor_cell_gather's fresh_z. `face_turn` (null: none) is the gradient frame's turn per face (FrameStep),
// as donor_cell_gather's.
MRWB_HD transport::Mag3<float> stencil_transport(const transport::Mag3<float>& m, float out, float fresh,
                                                        const FluidInflow (&first)[k_preloaded_inflows],
                                                        const FluidInflow* more, std::size_t nf, int n_slots,
                                                        const float* Mx, const float* My, const float* Mz,
                                                        float scale, float* fresh_z,
                                                        const float* face_turn = nullptr) {
  float dx = -out * m.x, dy = -out * m.y, dz = fresh - out * m.z;
  *fresh_z = scale * fresh;
  auto add = [&](const FluidInflow& in) {
    const std::int32_t j = in.rank & k_rank_mask;
    bloch::Mag v{Mx[j], My[j], Mz[j]};
    if (face_turn) {
      const int f = in.rank >> k_face_shift;
      const float tc = face_turn[2 * f], ts = face_turn[2 * f + 1];
      const float x = v.Mx * tc - v.My * ts;
      v.My = v.Mx * ts + v.My * tc;
      v.Mx = x;
    }
    dx += in.coef * v.Mx;
    dy += in.coef * v.My;
    dz += in.coef * v.Mz;
  };
  bool going = true;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int s = 0; s < k_preloaded_inflows; ++s) {
    going = going && s < n_slots && first[s].rank >= 0;
    if (going) add(first[s]);
  }
  for (int s = k_preloaded_inflows; going && s < n_slots; ++s) {
    const FluidInflow in = more[(s - k_preloaded_inflows) * nf];
    going = in.rank >= 0;
    if (going) add(in);
  }
  return {m.x + scale * dx, m.y + scale * dy, m.z + scale * dz};
}

// The stencil step of rank r read straight from the tables (the CPU twin and tests; host only).
inline transport::Mag3<float> stencil_transport(const FluidStencil& s, std::size_t r, const float* Mx,
                                                        const float* My, const float* Mz, float scale, float* fresh_z,
                                                        const float* face_turn = nullptr) {
  FluidInflow first[k_preloaded_inflows];
  for (int k = 0; k < k_preloaded_inflows; ++k) first[k] = k < s.in_slots ? s.inflow[k * s.nf + r] : FluidInflow{};
  const FluidInflow* more = s.in_slots > k_preloaded_inflows ? s.inflow.data() + k_preloaded_inflows * s.nf + r : nullptr;
  return stencil_transport(transport::Mag3<float>{Mx[r], My[r], Mz[r]}, s.out[r], s.fresh[r], first, more, s.nf,
                           s.in_slots, Mx, My, Mz, scale, fresh_z, face_turn);
}

}  // namespace fluid

// CPU twin of the CUDA engine's per-step stencil kernel: plays `table` over the fluid cells `fluid` of
// `ph` with `stencil`, in compact arrays like the device, one step at a time: the step's RF / spoiling,
// the signal and truth of that state, then transport (stencil_transport; in the gradient frame of
// `frames`, fluid_frame_table, unless empty) and the Bloch operator (fluid_bloch) into the other buffer. samples[c·per_coil + sample] += Σ C_c·Mxy over the fluid cells;
// cell_truth[i] set for fluid cells at truth steps; Mx, My, Mz (every cell of the grid) receive the fluid
// cells' final state. Single-threaded, deterministic.
void run_fluid_stencil_cpu(const CellPhantom& ph, std::span<const std::uint32_t> fluid, const FluidStencil& stencil,
                           std::span<const FluidStep> table, std::span<const FrameStep> frames,
                           std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t per_coil,
                           std::span<float> Mx, std::span<float> My, std::span<float> Mz,
                           std::span<std::complex<double>> samples, std::span<std::complex<float>> cell_truth);

}  // namespace mrwb
