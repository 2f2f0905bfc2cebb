#pragma once
// Flux-limited second-order transport on top of the donor cell (transport_cell_ops.hpp), in the gradient frame:
// each face between two fluid cells adds the anti-diffusive flux of the Lax-Wendroff scheme, limited so that
// no new extremum appears (Sweby 1984):
//   F = c·M_U + A,   A = c·(1 − c)/2 · φ(r) · (M_D − M_U),   r = (M_U − M_UU) / (M_D − M_U),
// c the face Courant number of this step, U the upwind cell, D the downwind one, UU the cell upwind of U on
// the same axis. φ = 0 is the donor cell, φ = 1 Lax-Wendroff; the monotonized-central limiter (van Leer 1977)
// is 0 at an extremum (r <= 0), at most 2r and 2, which keeps a 1-D step total-variation diminishing for
// c <= 1 (Sweby's region), and 1 where the profile is smooth (r = 1): second order there.
// The transverse magnetization in the frame is one complex number: r is the projection of its upwind
// difference on its downwind one (Re(ΔU·conj ΔD) / |ΔD|²), so the limiter does not depend on the frame's
// phase; Mz is limited on its own. Both cells of a face compute A from the same three values in the same
// expression, so what one loses the other gains: mass stays conserved as in the donor cell.
// Where U's upwind neighbour is missing: a face open to fresh inflow stands for fully relaxed spins
// M = (0, 0, PD) (the inflow front stays sharp at the inlet); a wall or an outflow gives no correction
// (the donor cell, φ(0) = 0).
// A step reads two cells along each axis (the donor cell one): ranks hold two halo planes
// (rank_decomposition.hpp: transport_halo_planes).
// docs/flow_transport.md derives the scheme and what it measured. Shared by the CPU engine's grid gather,
// the stencil's CPU twin and the CUDA kernel.
#include <cstdint>

#include "mrwb/flow/face_flux.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb::transport {

// The monotonized-central limiter of van Leer 1977, φ(r) = max(0, min(2r, (1 + r) / 2, 2)), for r = ab / bb;
// 0 when there is no downwind difference (bb = 0: nothing to correct). Measured against van Leer's smooth
// limiter, minmod and superbee on the presets and the inflow scenario (docs/flow_transport.md): within 0.05 %
// of each other on the presets, sharper than van Leer and minmod at the inflow front, less compressive than
// superbee.
template <typename T>
MRWB_HD T monotonized_central(T ab, T bb) {
  if (!(bb > T(0))) return T(0);
  const T r = ab / bb;
  T phi = T(2) * r;
  const T central = (T(1) + r) * T(0.5);
  if (central < phi) phi = central;
  if (T(2) < phi) phi = T(2);
  return phi > T(0) ? phi : T(0);
}

// The limited anti-diffusive flux A of a face with Courant number c (> 0, from U to D), from the three values
// UU, U, D (the frame's transverse magnetization turned into one cell's frame, and Mz).
template <typename T>
MRWB_HD Mag3<T> limited_face_correction(const Mag3<T>& uu, const Mag3<T>& u, const Mag3<T>& d, T c) {
  const T w = c * (T(1) - c) * T(0.5);
  const T dx = d.x - u.x, dy = d.y - u.y, dz = d.z - u.z;
  const T ux = u.x - uu.x, uy = u.y - uu.y, uz = u.z - uu.z;
  const T phi_xy = monotonized_central(ux * dx + uy * dy, dx * dx + dy * dy);
  const T phi_z = monotonized_central(uz * dz, dz * dz);
  return {w * phi_xy * dx, w * phi_xy * dy, w * phi_z * dz};
}

// M turned by the frame's turn (cos tc, sin ts).
template <typename T>
MRWB_HD Mag3<T> turned(const Mag3<T>& m, T tc, T ts) {
  return {m.x * tc - m.y * ts, m.x * ts + m.y * tc, m.z};
}

// The limited correction of cell (ix, iy, iz) for one step on the grid, added to donor_cell_gather's result
// (same arguments; `face_turn` the frame's as there, null: the lab frame). Reads up to two cells along each
// axis; faces to the outside or to walls carry no correction (first order there).
template <typename T>
MRWB_HD Mag3<T> limited_gather_correction(int ix, int iy, int iz, int nx, int ny, int nz, const T* Mx, const T* My,
                                          const T* Mz, const float* ux, const float* uy, const float* uz,
                                          const std::uint8_t* type, const float* PD, T scale, bool open_boundary,
                                          const std::uint8_t* open_end = nullptr, const T* face_turn = nullptr) {
  const long slice = static_cast<long>(nx) * ny;
  const long i = iz * slice + static_cast<long>(iy) * nx + ix;
  Mag3<T> acc{T(0), T(0), T(0)};
  if (type[i] != k_fluid) return acc;
  const int at[3] = {ix, iy, iz}, extent[3] = {nx, ny, nz};
  const long stride[3] = {1, nx, slice};
  const float* u_axis[3] = {ux, uy, uz};
  auto value = [&](long j) { return Mag3<T>{Mx[j], My[j], Mz[j]}; };
  // The cell `steps` cells from i along axis a (steps = ±1, ±2): its index, −1 outside the grid, −2 a wall
  // or vessel end inside it.
  auto cell_at = [&](int a, int steps) -> long {
    const int c = at[a] + steps;
    if (c < 0 || c >= extent[a]) return -1;
    const long j = i + steps * stride[a];
    return type[j] == k_fluid ? j : -2;
  };
  // Whether the face of fluid cell j on side `dir` of axis a (j is i or its neighbour) is open and brings fresh
  // spins in (the donor cell's rule: grid edge with an open boundary, or a vessel end's face to a wall).
  auto fresh_through = [&](long j, long beyond, int a, int dir) {
    const float uj = u_axis[a] ? u_axis[a][j] : 0.f;
    const bool open = beyond == -1 ? open_boundary : (open_end && open_end[j]);
    return open && uj * static_cast<float>(dir) < 0.f;
  };
  for (int a = 0; a < (nz > 1 ? 3 : 2); ++a) {
    const float* u = u_axis[a];
    for (int dir = 1; dir >= -1; dir -= 2) {
      const long j = cell_at(a, dir);
      if (j < 0) continue;  // the donor cell's open face or a wall: no correction
      const float ui = u ? u[i] : 0.f, uj = u ? u[j] : 0.f;
      const T c = static_cast<T>(face_velocity(dir > 0 ? ui : uj, dir > 0 ? uj : ui)) * scale;
      const T out = c * static_cast<T>(dir);  // > 0: i is upwind
      if (out == T(0)) continue;
      const int f = 2 * a + (dir > 0 ? 0 : 1);  // face towards j
      T tc = T(1), ts = T(0);
      if (face_turn) {
        tc = face_turn[2 * f];
        ts = face_turn[2 * f + 1];
      }
      const Mag3<T> mi = value(i), mj = turned(value(j), tc, ts);
      if (out > T(0)) {
        // U = i, D = j, UU = i's neighbour on the other side.
        const long b = cell_at(a, -dir);
        Mag3<T> uu = mi;
        if (b >= 0) {
          const int g = f ^ 1;
          uu = face_turn ? turned(value(b), face_turn[2 * g], face_turn[2 * g + 1]) : value(b);
        } else if (fresh_through(i, b, a, -dir)) {
          uu = {T(0), T(0), static_cast<T>(PD[i])};
        }
        const Mag3<T> A = limited_face_correction(uu, mi, mj, out);
        acc.x -= A.x;
        acc.y -= A.y;
        acc.z -= A.z;
      } else {
        // U = j, D = i, UU = j's neighbour beyond it (two cells from i: the face's turn twice).
        const long b = cell_at(a, 2 * dir);
        Mag3<T> uu = mj;
        if (b >= 0) {
          uu = face_turn ? turned(value(b), tc * tc - ts * ts, T(2) * tc * ts) : value(b);
        } else if (fresh_through(j, b, a, dir)) {
          uu = {T(0), T(0), static_cast<T>(PD[j])};
        }
        const Mag3<T> A = limited_face_correction(uu, mj, mi, -out);
        acc.x += A.x;
        acc.y += A.y;
        acc.z += A.z;
      }
    }
  }
  return acc;
}

}  // namespace mrwb::transport
