#pragma once
// Magnetization transport by the flow (Jurczuk et al. 2016 Eq. 1, ΔM_F), in the conservative donor-cell (upwind
// flux) form that the errata to the paper call for: every face between two fluid cells carries the flux
// c·M_donor, with c the face Courant number (face velocity × dt / cell) and the donor the upwind cell;
// what one cell loses through a face its neighbour gains, so total magnetization is conserved exactly
// (up to rounding). Faces touching a stationary or background cell carry nothing (walls). A fluid cell
// on the grid edge exchanges with the outside when the boundary is open: outflow leaves the grid,
// inflow brings fully relaxed spins M = (0, 0, PD). A vessel end inside the grid (an inlet or outlet
// cell, `open_end[i] != 0`) treats its faces to non-fluid neighbours the same way: fresh spins enter
// where its velocity points into the vessel, magnetization leaves where it points out. Every other face
// stays conservative, so Σ M changes only by inflow − outflow through open faces.
// Written as a gather (each cell reads its four, in 3-D six, neighbours) so CPU threads and CUDA threads
// write only their own cell; shared verbatim by both engines.
#include <cmath>
#include <cstdint>

#include "mrwb/flow/face_flux.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"

namespace mrwb::transport {

constexpr std::uint8_t k_fluid = 2;  // CellType::Fluid

template <typename T>
struct Mag3 {
  T x, y, z;
};

// New magnetization of cell (ix, iy, iz) after one transport step; `scale` = dt / flow_dt. Cells are
// indexed (iz·ny + iy)·nx + ix. With nz > 1 the gather reads six faces (±x, ±y, ±z); with nz = 1 only the
// four in-plane faces, in the same order and with the same expressions as the 2-D form, so a 2-D slice
// gives bit-identical results. `uz` may be null (no through-plane velocity). `fresh_z`, when given
// (initialised by the caller), accumulates the fresh inflow's Mz, so a caller can apply a uniform
// instantaneous operator (RF, spoiling) to the transported old state alone: transport is linear.
// Stable when Σ outgoing c <= 1 per cell; callers keep (|ux| + |uy| + |uz|)·scale <= 1.
// SIGNATURE FINAL (A1)
//
// `face_turn` (null: none) moves the transport into the gradient frame: 12 values, cos and sin of the turn
// applied to the transverse magnetization entering through each face in the order +x, −x, +y, −y, +z, −z.
// For the stored lab-frame M = m·exp(−i 2π k·x), with k the gradient moment the transverse magnetization
// has seen, the turn exp(+i 2π k·(x_j − x_i)) makes the neighbour's M the cell's own frame's before the
// flux is taken, so the donor cell transports m, which gradients leave smooth, instead of the phase pattern
// they write (whose upwind averaging is the numerical diffusion of (k·cell)²). The caller adds the turn
// exp(+i 2π k·u dt) a moving spin gathers in that frame (frame_turn_by_motion).
template <typename T>
MRWB_HD Mag3<T> donor_cell_gather(int ix, int iy, int iz, int nx, int ny, int nz, const T* Mx, const T* My,
                                  const T* Mz, const float* ux, const float* uy, const float* uz,
                                  const std::uint8_t* type, const float* PD, T scale, bool open_boundary,
                                  const std::uint8_t* open_end = nullptr, T* fresh_z = nullptr,
                                  const T* face_turn = nullptr) {
  const long slice = static_cast<long>(nx) * ny;
  const long i = iz * slice + static_cast<long>(iy) * nx + ix;
  Mag3<T> m{Mx[i], My[i], Mz[i]};
  if (type[i] != k_fluid) return m;
  Mag3<T> d{T(0), T(0), T(0)};
  // One face towards (jx, jy, jz); `dir` is its outward direction along its axis, u the velocity component
  // along that axis (null: zero).
  auto face = [&](int jx, int jy, int jz, T dir, const float* u, int f) {
    const float ui = u ? u[i] : 0.f;
    bool inside = jx >= 0 && jx < nx && jy >= 0 && jy < ny && jz >= 0 && jz < nz;
    long j = -1;
    T c;
    if (inside) j = jz * slice + static_cast<long>(jy) * nx + jx;
    if (inside && type[j] == k_fluid) {
      const float uj = u ? u[j] : 0.f;
      c = static_cast<T>(face_velocity(dir > 0 ? ui : uj, dir > 0 ? uj : ui)) * scale;
    } else {
      // Grid edge (open when the boundary is) or a wall (open only at a vessel end).
      if (inside ? !(open_end && open_end[i]) : !open_boundary) return;
      inside = false;
      c = static_cast<T>(ui) * scale;
    }
    const T out = c * dir;  // > 0: leaves cell i through this face; < 0: enters it
    if (out > T(0)) {
      d.x -= out * m.x;
      d.y -= out * m.y;
      d.z -= out * m.z;
    } else if (out < T(0)) {
      const T in = -out;
      if (inside) {
        if (face_turn) {
          const T tc = face_turn[2 * f], ts = face_turn[2 * f + 1];
          d.x += in * (Mx[j] * tc - My[j] * ts);
          d.y += in * (Mx[j] * ts + My[j] * tc);
        } else {
          d.x += in * Mx[j];
          d.y += in * My[j];
        }
        d.z += in * Mz[j];
      } else {
        d.z += in * static_cast<T>(PD[i]);  // fresh, fully relaxed inflow
        if (fresh_z) *fresh_z += in * static_cast<T>(PD[i]);
      }
    }
  };
  // Faces +x, −x, +y, −y in the 2-D order, then +z, −z in a slab.
  face(ix + 1, iy, iz, T(1), ux, 0);
  face(ix - 1, iy, iz, T(-1), ux, 1);
  face(ix, iy + 1, iz, T(1), uy, 2);
  face(ix, iy - 1, iz, T(-1), uy, 3);
  if (nz > 1) {
    face(ix, iy, iz + 1, T(1), uz, 4);
    face(ix, iy, iz - 1, T(-1), uz, 5);
  }
  return {m.x + d.x, m.y + d.y, m.z + d.z};
}

// The gradient frame's face turns for donor_cell_gather: k_cell = k · cell size [cycles per cell] per axis;
// the neighbour across face +a lies one cell further along a, so its turn is exp(+i 2π k_cell,a), across
// face −a exp(−i 2π k_cell,a).
template <typename T>
MRWB_HD void frame_face_turns(const double (&k_cell)[3], T (&face_turn)[12]) {
  for (int a = 0; a < 3; ++a) {
    const double angle = 2.0 * 3.14159265358979323846 * (k_cell[a] - static_cast<double>(static_cast<long long>(k_cell[a])));
    face_turn[4 * a] = static_cast<T>(cos(angle));
    face_turn[4 * a + 1] = static_cast<T>(sin(angle));
    face_turn[4 * a + 2] = static_cast<T>(cos(angle));
    face_turn[4 * a + 3] = static_cast<T>(-sin(angle));
  }
}

// The k a moving cell's turn takes over a step that adds the moment (dkx, dky, dkz) [cycles/m]: k's mean over the
// step, k at its start (k_cell, cycles per cell) plus half the step's moment, since the program spreads an
// interval's moment evenly over its steps. The CPU grid path and the step tables (fluid_frame_table) both take it.
MRWB_HD void frame_motion_k(const double (&k_cell)[3], double dkx, double dky, double dkz, double cell_m,
                            double (&mean_k_cell)[3]) {
  mean_k_cell[0] = k_cell[0] + 0.5 * dkx * cell_m;
  mean_k_cell[1] = k_cell[1] + 0.5 * dky * cell_m;
  mean_k_cell[2] = k_cell[2] + 0.5 * dkz * cell_m;
}

// What a spin gathers in the gradient frame by moving: m = M·exp(+i 2π k·x) turns by exp(+i 2π k·δ) when
// the spin moves by δ (u·scale cells along each axis), since d m / dt = i 2π (k·v) m along its path: k_cell is
// k's mean over the step (k at its start plus half its moment), which makes the turn exact for a constant
// velocity. Applied to a fluid cell's transverse magnetization after donor_cell_gather with the frame's face
// turns (those at the step's start).
template <typename T>
MRWB_HD void frame_turn_by_motion(Mag3<T>& m, const double (&k_cell)[3], float ux, float uy, float uz, double scale) {
  const double cycles = (k_cell[0] * ux + k_cell[1] * uy + k_cell[2] * uz) * scale;
  const double angle = 2.0 * 3.14159265358979323846 * (cycles - static_cast<double>(static_cast<long long>(cycles)));
  const T c = static_cast<T>(cos(angle)), s = static_cast<T>(sin(angle));
  const T x = m.x * c - m.y * s, y = m.x * s + m.y * c;
  m.x = x;
  m.y = y;
}

// The 2-D form (one slice, nz = 1): kept for callers that predate the 3-D engine.
template <typename T>
MRWB_HD Mag3<T> donor_cell_gather(int ix, int iy, int nx, int ny, const T* Mx, const T* My, const T* Mz,
                                  const float* ux, const float* uy, const std::uint8_t* type, const float* PD,
                                  T scale, bool open_boundary, const std::uint8_t* open_end = nullptr,
                                  T* fresh_z = nullptr) {
  return donor_cell_gather<T>(ix, iy, 0, nx, ny, 1, Mx, My, Mz, ux, uy, nullptr, type, PD, scale, open_boundary,
                              open_end, fresh_z);
}

}  // namespace mrwb::transport
