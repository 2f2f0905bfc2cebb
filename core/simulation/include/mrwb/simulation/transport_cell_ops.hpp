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
#include <cstdint>

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
template <typename T>
MRWB_HD Mag3<T> donor_cell_gather(int ix, int iy, int iz, int nx, int ny, int nz, const T* Mx, const T* My,
                                  const T* Mz, const float* ux, const float* uy, const float* uz,
                                  const std::uint8_t* type, const float* PD, T scale, bool open_boundary,
                                  const std::uint8_t* open_end = nullptr, T* fresh_z = nullptr) {
  const long slice = static_cast<long>(nx) * ny;
  const long i = iz * slice + static_cast<long>(iy) * nx + ix;
  Mag3<T> m{Mx[i], My[i], Mz[i]};
  if (type[i] != k_fluid) return m;
  Mag3<T> d{T(0), T(0), T(0)};
  // One face towards (jx, jy, jz); `dir` is its outward direction along its axis, u the velocity component
  // along that axis (null: zero).
  auto face = [&](int jx, int jy, int jz, T dir, const float* u) {
    const float ui = u ? u[i] : 0.f;
    bool inside = jx >= 0 && jx < nx && jy >= 0 && jy < ny && jz >= 0 && jz < nz;
    long j = -1;
    T c;
    if (inside) j = jz * slice + static_cast<long>(jy) * nx + jx;
    if (inside && type[j] == k_fluid) {
      const float uj = u ? u[j] : 0.f;
      // Same expression from both sides of the face (i + j commutes), so the fluxes cancel exactly.
      c = static_cast<T>(0.5f * ((dir > 0 ? ui : uj) + (dir > 0 ? uj : ui))) * scale;
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
        d.x += in * Mx[j];
        d.y += in * My[j];
        d.z += in * Mz[j];
      } else {
        d.z += in * static_cast<T>(PD[i]);  // fresh, fully relaxed inflow
        if (fresh_z) *fresh_z += in * static_cast<T>(PD[i]);
      }
    }
  };
  // Faces +x, −x, +y, −y in the 2-D order, then +z, −z in a slab.
  face(ix + 1, iy, iz, T(1), ux);
  face(ix - 1, iy, iz, T(-1), ux);
  face(ix, iy + 1, iz, T(1), uy);
  face(ix, iy - 1, iz, T(-1), uy);
  if (nz > 1) {
    face(ix, iy, iz + 1, T(1), uz);
    face(ix, iy, iz - 1, T(-1), uz);
  }
  return {m.x + d.x, m.y + d.y, m.z + d.z};
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
