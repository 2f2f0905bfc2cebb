#pragma once
// The per-node update of the LBM (pull streaming + halfway bounce-back + boundary + BGK or MRT collision),
// shared verbatim by the CPU reference (core) and the CUDA kernels (gpu). Distributions are SoA:
// f[q * N + node]; `f_src` holds post-collision values of the previous step.
#include <cstddef>
#include <cstdint>


#include "mrwb/base/host_device.hpp"

namespace mrwb::lbm {

struct View {
  int nx, ny, nz;
  int periodic_x, periodic_y, periodic_z;
  const std::uint8_t* node;  // LbmNode values: 0 solid, 1 fluid, 2 inlet, 3 outlet
  const float* inlet_u;      // 3 per node
  const float* f_src;
  float* f_dst;
  float omega;               // 1 / tau: BGK rate, and the MRT rate of the stress moments (viscosity)
  float rho_outlet;
  float *rho, *ux, *uy, *uz;  // written only when non-null (the residual-check steps)
  // MRT rates of the non-hydrodynamic moments, indexed by MrtRate - 1: e, eps, q, pi, m (set by
  // lbm_configure_view; unused by BGK).
  float mrt_s[5] = {0, 0, 0, 0, 0};
};

template <int Q>
struct Velocities {
  int cx[Q], cy[Q], cz[Q];
  float w[Q];
  int opp[Q];
};

constexpr Velocities<9> d2q9_velocities() {
  return {{0, 1, 0, -1, 0, 1, -1, -1, 1},
          {0, 0, 1, 0, -1, 1, 1, -1, -1},
          {0, 0, 0, 0, 0, 0, 0, 0, 0},
          {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36},
          {0, 3, 4, 1, 2, 7, 8, 5, 6}};
}

constexpr Velocities<19> d3q19_velocities() {
  constexpr float a = 1.f / 18, b = 1.f / 36;
  return {{0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0},
          {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1},
          {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1},
          {1.f / 3, a, a, a, a, a, a, b, b, b, b, b, b, b, b, b, b, b, b},
          {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17}};
}

// MRT (d'Humieres et al. 2002): the collision relaxes the moments m = M f towards M f_eq with one rate
// per moment. Rows of M are orthogonal, so M^-1 = M^T diag(1 / |row|^2).
enum MrtRate : int { Conserved = -1, Viscous = 0, Energy = 1, EnergySquare = 2, HeatFlux = 3, Pi = 4, Ghost = 5 };

template <int Q>
struct MrtBasis {
  float m[Q][Q];       // m[k][q]: moment k of population q
  float inv_norm[Q];   // 1 / sum_q m[k][q]^2
  int rate[Q];         // MrtRate of moment k
};

// Moment k of a population with velocity c: D2Q9 as Lallemand & Luo, PRE 61:6546 (2000), eq. 9;
// D3Q19 as d'Humieres et al., Phil Trans R Soc A 360:437 (2002), appendix A.
constexpr float mrt_moment(int Q, int k, int cx, int cy, int cz, int& rate) {
  const int c2 = cx * cx + cy * cy + cz * cz;
  if (Q == 9) {
    constexpr int rates[9] = {Conserved, Energy, EnergySquare, Conserved, HeatFlux, Conserved, HeatFlux, Viscous, Viscous};
    rate = rates[k];
    switch (k) {
      case 0: return 1;
      case 1: return -4 + 3 * c2;
      case 2: return 4 - 10.5f * c2 + 4.5f * c2 * c2;
      case 3: return cx;
      case 4: return (-5 + 3 * c2) * cx;
      case 5: return cy;
      case 6: return (-5 + 3 * c2) * cy;
      case 7: return cx * cx - cy * cy;
      default: return cx * cy;
    }
  }
  constexpr int rates[19] = {Conserved, Energy, EnergySquare, Conserved, HeatFlux, Conserved, HeatFlux,
                             Conserved, HeatFlux, Viscous,  Pi,           Viscous,   Pi,       Viscous,
                             Viscous,   Viscous, Ghost,     Ghost,        Ghost};
  rate = rates[k];
  switch (k) {
    case 0: return 1;
    case 1: return 19 * c2 - 30;
    case 2: return (21 * c2 * c2 - 53 * c2 + 24) / 2.f;
    case 3: return cx;
    case 4: return (5 * c2 - 9) * cx;
    case 5: return cy;
    case 6: return (5 * c2 - 9) * cy;
    case 7: return cz;
    case 8: return (5 * c2 - 9) * cz;
    case 9: return 3 * cx * cx - c2;
    case 10: return (3 * c2 - 5) * (3 * cx * cx - c2);
    case 11: return cy * cy - cz * cz;
    case 12: return (3 * c2 - 5) * (cy * cy - cz * cz);
    case 13: return cx * cy;
    case 14: return cy * cz;
    case 15: return cx * cz;
    case 16: return (cy * cy - cz * cz) * cx;
    case 17: return (cz * cz - cx * cx) * cy;
    default: return (cx * cx - cy * cy) * cz;
  }
}

template <int Q>
constexpr MrtBasis<Q> mrt_basis(Velocities<Q> c) {
  MrtBasis<Q> b{};
  for (int k = 0; k < Q; ++k) {
    float n = 0;
    for (int q = 0; q < Q; ++q) {
      b.m[k][q] = mrt_moment(Q, k, c.cx[q], c.cy[q], c.cz[q], b.rate[k]);
      n += b.m[k][q] * b.m[k][q];
    }
    b.inv_norm[k] = 1 / n;
  }
  return b;
}

template <int Q>
constexpr MrtBasis<Q> lattice_mrt_basis() {
  if constexpr (Q == 9)
    return mrt_basis(d2q9_velocities());
  else
    return mrt_basis(d3q19_velocities());
}

// Source coordinate of a pull along -c; false when it leaves a non-periodic domain.
MRWB_HD bool source(int& s, int n, int periodic) {
  if (s >= 0 && s < n) return true;
  if (!periodic) return false;
  s = s < 0 ? s + n : s - n;
  return true;
}

MRWB_HD float feq(float w, float rho, float cu, float uu) { return w * rho * (1.f + 3.f * cu + 4.5f * cu * cu - 1.5f * uu); }

// f <- f - M^-1 S (M f - M f_eq), the moments' rates from `v`.
template <int Q>
MRWB_HD void mrt_relax(const View& v, float (&f)[Q], const float (&e)[Q]) {
  constexpr MrtBasis<Q> B = lattice_mrt_basis<Q>();
  float fneq[Q];
MRWB_UNROLL
  for (int q = 0; q < Q; ++q) fneq[q] = f[q] - e[q];
MRWB_UNROLL
  for (int k = 0; k < Q; ++k) {
    if (B.rate[k] == Conserved) continue;
    const float s = B.rate[k] == Viscous ? v.omega : v.mrt_s[B.rate[k] - 1];
    float dm = 0;
MRWB_UNROLL
    for (int q = 0; q < Q; ++q) dm += B.m[k][q] * fneq[q];
    const float a = s * dm * B.inv_norm[k];
MRWB_UNROLL
    for (int q = 0; q < Q; ++q) f[q] -= a * B.m[k][q];
  }
}

// Shared tail: moments, boundary rule, collision, store. `missing` flags the populations that had no
// fluid source (walls, the domain's edge, the outside of an inlet or outlet).
template <int Q, bool Mrt>
MRWB_HD void collide_store(const View& v, std::size_t i, std::size_t N, float (&f)[Q], const Velocities<Q>& c,
                           unsigned missing) {
  float rho = 0, jx = 0, jy = 0, jz = 0;
MRWB_UNROLL
  for (int q = 0; q < Q; ++q) {
    rho += f[q];
    jx += c.cx[q] * f[q];
    jy += c.cy[q] * f[q];
    jz += c.cz[q] * f[q];
  }
  float ux = jx / rho, uy = jy / rho, uz = jz / rho;
  const std::uint8_t t = v.node[i];
  // Inlet: prescribed velocity; the density is the one for which the known populations plus the
  // missing ones taken at equilibrium sum to rho: rho = rho_known / (1 - sum_missing feq(1, u)).
  // Outlet: prescribed density, velocity from the arriving populations (missing ones extrapolated from
  // the node itself). Both then leave at equilibrium.
  const bool boundary = t == 2 || t == 3;
  if (t == 2) {
    ux = v.inlet_u[3 * i];
    uy = v.inlet_u[3 * i + 1];
    uz = v.inlet_u[3 * i + 2];
    const float uu0 = ux * ux + uy * uy + uz * uz;
    float known = 0, share = 0;
MRWB_UNROLL
    for (int q = 0; q < Q; ++q) {
      if (missing >> q & 1u)
        share += feq(c.w[q], 1.f, c.cx[q] * ux + c.cy[q] * uy + c.cz[q] * uz, uu0);
      else
        known += f[q];
    }
    rho = share < 0.9f ? known / (1.f - share) : 1.f;
  } else if (t == 3) {
    rho = v.rho_outlet;
  }
  const float uu = ux * ux + uy * uy + uz * uz;
  if constexpr (Mrt) {
    if (!boundary) {
      float e[Q];
MRWB_UNROLL
      for (int q = 0; q < Q; ++q) e[q] = feq(c.w[q], rho, c.cx[q] * ux + c.cy[q] * uy + c.cz[q] * uz, uu);
      mrt_relax<Q>(v, f, e);
    }
  }
  // BGK (and the equilibrium of boundary nodes) computed per population as stored: fewer registers.
MRWB_UNROLL
  for (int q = 0; q < Q; ++q) {
    const float e = feq(c.w[q], rho, c.cx[q] * ux + c.cy[q] * uy + c.cz[q] * uz, uu);
    v.f_dst[q * N + i] = boundary ? e : Mrt ? f[q] : f[q] - v.omega * (f[q] - e);
  }
  if (v.rho) {
    v.rho[i] = rho;
    v.ux[i] = ux;
    v.uy[i] = uy;
    v.uz[i] = uz;
  }
}

// Pull of every population into node (x, y, z), then collision. Halfway bounce-back at walls; at an
// outlet, zero-gradient extrapolation from the node itself.
template <int Q, bool Mrt>
MRWB_HD void update(const View& v, int x, int y, int z, const Velocities<Q>& c) {
  const std::size_t N = static_cast<std::size_t>(v.nx) * v.ny * v.nz;
  const std::size_t i = (static_cast<std::size_t>(z) * v.ny + y) * v.nx + x;
  if (v.node[i] == 0) return;
  float f[Q];
  unsigned missing = 0;
  const bool outlet = v.node[i] == 3;
MRWB_UNROLL
  for (int q = 0; q < Q; ++q) {
    int sx = x - c.cx[q], sy = y - c.cy[q], sz = z - c.cz[q];
    bool ok = source(sx, v.nx, v.periodic_x) && source(sy, v.ny, v.periodic_y) && source(sz, v.nz, v.periodic_z);
    std::size_t j = 0;
    if (ok) {
      j = (static_cast<std::size_t>(sz) * v.ny + sy) * v.nx + sx;
      ok = v.node[j] != 0;
    }
    f[q] = ok ? v.f_src[q * N + j] : v.f_src[(outlet ? q : c.opp[q]) * N + i];
    missing |= ok ? 0u : 1u << q;
  }
  collide_store<Q, Mrt>(v, i, N, f, c, missing);
}

template <bool Mrt = false>
MRWB_HD void d2q9_update(const View& v, int x, int y) {
  constexpr Velocities<9> c = d2q9_velocities();
  update<9, Mrt>(v, x, y, 0, c);
}

template <bool Mrt = false>
MRWB_HD void d3q19_update(const View& v, int x, int y, int z) {
  constexpr Velocities<19> c = d3q19_velocities();
  update<19, Mrt>(v, x, y, z, c);
}

// Initial state: equilibrium at rho = 1 with the inlet velocity on inlets, at rest elsewhere; written to
// f_dst.
template <int Q>
MRWB_HD void init_node(const View& v, std::size_t i, const Velocities<Q>& c) {
  const std::size_t N = static_cast<std::size_t>(v.nx) * v.ny * v.nz;
  float ux = 0, uy = 0, uz = 0;
  if (v.node[i] == 2) {
    ux = v.inlet_u[3 * i];
    uy = v.inlet_u[3 * i + 1];
    uz = v.inlet_u[3 * i + 2];
  }
  const float uu = ux * ux + uy * uy + uz * uz;
MRWB_UNROLL
  for (int q = 0; q < Q; ++q)
    v.f_dst[q * N + i] = v.node[i] == 0 ? 0.f : feq(c.w[q], 1.f, c.cx[q] * ux + c.cy[q] * uy + c.cz[q] * uz, uu);
}

MRWB_HD void d2q9_init(const View& v, std::size_t i) {
  constexpr Velocities<9> c = d2q9_velocities();
  init_node<9>(v, i, c);
}

MRWB_HD void d3q19_init(const View& v, std::size_t i) {
  constexpr Velocities<19> c = d3q19_velocities();
  init_node<19>(v, i, c);
}

// The lattice by its velocity count Q (9: D2Q9, z ignored; 19: D3Q19), so one template serves the CPU
// loop and the CUDA kernels.
template <int Q, bool Mrt>
MRWB_HD void update_lattice(const View& v, int x, int y, int z) {
  static_assert(Q == 9 || Q == 19, "D2Q9 or D3Q19");
  if constexpr (Q == 19)
    d3q19_update<Mrt>(v, x, y, z);
  else
    d2q9_update<Mrt>(v, x, y);
}

template <int Q>
MRWB_HD void init_lattice(const View& v, std::size_t i) {
  static_assert(Q == 9 || Q == 19, "D2Q9 or D3Q19");
  if constexpr (Q == 19)
    d3q19_init(v, i);
  else
    d2q9_init(v, i);
}

}  // namespace mrwb::lbm
