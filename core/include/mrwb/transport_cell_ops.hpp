#pragma once
// Magnetization transport by the flow (seed 004 Eq. 1, ΔM_F), in the conservative donor-cell (upwind
// flux) form that the seed's errata call for: every face between two fluid cells carries the flux
// c·M_donor, with c the face Courant number (face velocity × dt / cell) and the donor the upwind cell;
// what one cell loses through a face its neighbour gains, so total magnetization is conserved exactly
// (up to rounding). Faces touching a stationary or background cell carry nothing (walls). A fluid cell
// on the grid edge exchanges with the outside when the boundary is open: outflow leaves the grid,
// inflow brings fully relaxed spins M = (0, 0, PD).
// Written as a gather (each cell reads its four neighbours) so CPU threads and CUDA threads write only
// their own cell; shared verbatim by both engines. Stable when Σ outgoing c <= 1 per cell; callers keep
// (|ux| + |uy|)·dt/flow_dt <= 1.
#include <cstdint>

#include "mrwb/bloch_cell_ops.hpp"

namespace mrwb::transport {

constexpr std::uint8_t k_fluid = 2;  // CellType::Fluid

template <typename T>
struct Mag3 {
  T x, y, z;
};

// New magnetization of cell (ix, iy) after one transport step; `scale` = dt / flow_dt.
template <typename T>
MRWB_HD Mag3<T> donor_cell_gather(int ix, int iy, int nx, int ny, const T* Mx, const T* My, const T* Mz,
                                  const float* ux, const float* uy, const std::uint8_t* type, const float* PD,
                                  T scale, bool open_boundary) {
  const long i = static_cast<long>(iy) * nx + ix;
  Mag3<T> m{Mx[i], My[i], Mz[i]};
  if (type[i] != k_fluid) return m;
  Mag3<T> d{T(0), T(0), T(0)};
  // Four faces: +x, −x, +y, −y. `dir` is the outward direction of the face along its axis.
  const int fx[4] = {1, -1, 0, 0};
  const int fy[4] = {0, 0, 1, -1};
  for (int f = 0; f < 4; ++f) {
    const int jx = ix + fx[f], jy = iy + fy[f];
    const bool along_x = fx[f] != 0;
    const T dir = static_cast<T>(along_x ? fx[f] : fy[f]);
    const float ui = along_x ? ux[i] : uy[i];
    const bool inside = jx >= 0 && jx < nx && jy >= 0 && jy < ny;
    long j = -1;
    T c;
    if (inside) {
      j = static_cast<long>(jy) * nx + jx;
      if (type[j] != k_fluid) continue;  // wall
      const float uj = along_x ? ux[j] : uy[j];
      // Same expression from both sides of the face (i + j commutes), so the fluxes cancel exactly.
      c = static_cast<T>(0.5f * ((dir > 0 ? ui : uj) + (dir > 0 ? uj : ui))) * scale;
    } else {
      if (!open_boundary) continue;
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
        d.x += in * Mx[j];
        d.y += in * My[j];
        d.z += in * Mz[j];
      } else {
        d.z += in * static_cast<T>(PD[i]);  // fresh, fully relaxed inflow
      }
    }
  }
  return {m.x + d.x, m.y + d.y, m.z + d.z};
}

}  // namespace mrwb::transport
