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

#include "mrwb/base/uninitialised_allocator.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/internal/moving_step_table.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"
#include "mrwb/simulation/transport_limited_ops.hpp"

namespace mrwb {

// Face codes of every fluid cell against the whole list `fluid` (ascending global indices, all of type
// Fluid), [rank][faces] in the gather's face order +x, −x, +y, −y (+z, −z when nz > 1): ≥ 0 the rank
// (position in `fluid`) of the fluid neighbour; k_face_open a face that exchanges with the outside (grid
// edge, or a vessel end's face to a non-fluid cell: outflow leaves, fresh M = (0, 0, PD) enters);
// k_face_wall no flux. Faces follow transport_cell_ops.hpp exactly (open grid boundary; open_end).
// std::invalid_argument when `fluid` is not ascending, holds a non-fluid cell or misses a fluid one. Built in
// `parts` ranges of ranks on threads (0: range_parts; the result does not depend on it).
constexpr std::int32_t k_face_open = -1;
constexpr std::int32_t k_face_wall = -2;
UninitialisedVector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int parts = 0);

// One upwind fluid neighbour of a cell: its rank and its face's c_f (8 bytes: one load on the device).
// `rank` holds the face too (bits from k_face_shift up, in the gather's order +x, −x, +y, −y, +z, −z),
// which the gradient frame turns by: ranks stay below 2^k_face_shift (build_fluid_stencil checks).
constexpr int k_face_shift = 28;
constexpr std::int32_t k_rank_mask = (std::int32_t{1} << k_face_shift) - 1;
struct alignas(8) FluidInflow {
  std::int32_t rank = -1;  // −1: no more inflow faces (the slots of a cell are filled from 0)
  float coef = 0.f;
};

// One face of a fluid cell to a fluid neighbour for the limited second-order correction
// (transport_limited_ops.hpp), 16 bytes (one load on the device). The face's upwind cell U, downwind D and
// the cell UU upwind of U: with coef > 0 the flow leaves the cell through the face (U the cell, D `near`,
// UU `far` across the cell's opposite face, turned by that face), with coef < 0 it enters (U `near`, D the
// cell, UU `far` beyond the neighbour, turned by the face twice). Faces whose UU is a wall or an outflow
// get no correction (φ(0) = 0) and are not listed.
constexpr std::int32_t k_far_fresh = -2;  // UU stands for fresh, fully relaxed spins (0, 0, ghost_pd)
struct alignas(16) LimitedFace {
  std::int32_t near = -1;  // rank | face << k_face_shift; −1: no more faces (filled from slot 0)
  std::int32_t far = k_far_fresh;  // rank of UU, or k_far_fresh
  float coef = 0.f;        // face Courant number at scale 1, signed as above
  float ghost_pd = 0.f;    // far == k_far_fresh: the fresh spins' Mz
};

struct FluidStencil {
  int in_slots = 0;     // slots per cell: the most inflow faces of any cell (≤ 4 in 2-D, ≤ 6 in 3-D)
  std::size_t nf = 0;   // fluid cells (ranks: positions in the ascending fluid list)
  UninitialisedVector<float> out;           // [rank] Σ outflow c_f
  UninitialisedVector<float> fresh;         // [rank] Σ inflow c_f through open faces, times PD
  UninitialisedVector<FluidInflow> inflow;  // [slot · nf + rank]
  // The limited second-order correction (empty: the donor cell alone): the most listed faces of a cell, and
  // the faces [slot · nf + rank].
  int limited_slots = 0;
  std::vector<LimitedFace> limited;
};

// The stencil of the fluid cells `fluid` (ascending global indices, all of type Fluid) of `ph`, faces as
// fluid_face_ranks decides them (open grid boundary, vessel ends). InputError beyond 2^28 fluid cells.
// `second_order`: with the limited correction's faces (transport_limited_ops.hpp). Built in `parts` ranges of
// ranks on threads (0: range_parts; the stencil does not depend on it).
FluidStencil build_fluid_stencil(const CellPhantom& ph, std::span<const std::uint32_t> fluid, bool second_order = false,
                                 int parts = 0);

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

// The limited second-order correction of a cell (rank r, magnetization m) from its listed faces `faces`
// (stride nf, n_slots <= k_max_limited_slots of them), added to stencil_transport's result: the same
// expressions as limited_gather_correction on the grid. `face_turn` as stencil_transport's (null: the lab
// frame). One face at a time: holding every face's entry and neighbours in registers first was slower on an
// H200 (tube 0.25-0.33 s against 0.23 s, docs/benchmarks.md).
constexpr int k_max_limited_slots = 6;
MRWB_HD transport::Mag3<float> limited_stencil_correction(const transport::Mag3<float>& m, const LimitedFace* faces,
                                                           std::size_t nf, int n_slots, const float* Mx, const float* My,
                                                           const float* Mz, float scale, const float* face_turn) {
  transport::Mag3<float> acc{0.f, 0.f, 0.f};
  for (int s = 0; s < n_slots; ++s) {
    const LimitedFace F = faces[s * nf];
    if (F.near < 0) break;
    const std::int32_t j = F.near & k_rank_mask;
    const int f = F.near >> k_face_shift;
    float tc = 1.f, ts = 0.f;
    if (face_turn) {
      tc = face_turn[2 * f];
      ts = face_turn[2 * f + 1];
    }
    const transport::Mag3<float> mj = transport::turned(transport::Mag3<float>{Mx[j], My[j], Mz[j]}, tc, ts);
    const float c = F.coef * scale;
    transport::Mag3<float> uu{0.f, 0.f, F.ghost_pd};
    if (F.far >= 0) uu = {Mx[F.far], My[F.far], Mz[F.far]};
    if (c > 0.f) {
      // Outflow: UU across the cell's opposite face.
      if (F.far >= 0 && face_turn) uu = transport::turned(uu, face_turn[2 * (f ^ 1)], face_turn[2 * (f ^ 1) + 1]);
      const transport::Mag3<float> A = transport::limited_face_correction(uu, m, mj, c);
      acc = {acc.x - A.x, acc.y - A.y, acc.z - A.z};
    } else {
      // Inflow: UU beyond the neighbour, two cells along the face.
      if (F.far >= 0 && face_turn) uu = transport::turned(uu, tc * tc - ts * ts, 2.f * tc * ts);
      const transport::Mag3<float> A = transport::limited_face_correction(uu, mj, m, -c);
      acc = {acc.x + A.x, acc.y + A.y, acc.z + A.z};
    }
  }
  return acc;
}

// The stencil step of rank r read straight from the tables (the CPU twin and tests; host only), with the
// limited correction when the stencil has it.
inline transport::Mag3<float> stencil_transport(const FluidStencil& s, std::size_t r, const float* Mx,
                                                        const float* My, const float* Mz, float scale, float* fresh_z,
                                                        const float* face_turn = nullptr) {
  FluidInflow first[k_preloaded_inflows];
  for (int k = 0; k < k_preloaded_inflows; ++k) first[k] = k < s.in_slots ? s.inflow[k * s.nf + r] : FluidInflow{};
  const FluidInflow* more = s.in_slots > k_preloaded_inflows ? s.inflow.data() + k_preloaded_inflows * s.nf + r : nullptr;
  const transport::Mag3<float> m{Mx[r], My[r], Mz[r]};
  transport::Mag3<float> t = stencil_transport(m, s.out[r], s.fresh[r], first, more, s.nf, s.in_slots, Mx, My, Mz, scale,
                                               fresh_z, face_turn);
  if (s.limited_slots > 0) {
    const transport::Mag3<float> A =
        limited_stencil_correction(m, s.limited.data() + r, s.nf, s.limited_slots, Mx, My, Mz, scale, face_turn);
    t = {t.x + A.x, t.y + A.y, t.z + A.z};
  }
  return t;
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
