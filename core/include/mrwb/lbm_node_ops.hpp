#pragma once
// The per-node update of the LBM (pull streaming + halfway bounce-back + boundary + BGK collision),
// shared verbatim by the CPU reference (core) and the CUDA kernels (gpu). Distributions are SoA:
// f[q * N + node]; `f_src` holds post-collision values of the previous step.
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define MRWB_HD __host__ __device__ __forceinline__
#else
#define MRWB_HD inline
#endif

namespace mrwb::lbm {

struct View {
  int nx, ny, nz;
  int periodic_x, periodic_y, periodic_z;
  const std::uint8_t* node;  // LbmNode values: 0 solid, 1 fluid, 2 inlet, 3 outlet
  const float* inlet_u;      // 3 per node
  const float* f_src;
  float* f_dst;
  float omega;               // 1 / tau
  float rho_outlet;
  float *rho, *ux, *uy, *uz;  // written only when non-null (the residual-check steps)
};

// Source coordinate of a pull along -c; false when it leaves a non-periodic domain.
MRWB_HD bool source(int& s, int n, int periodic) {
  if (s >= 0 && s < n) return true;
  if (!periodic) return false;
  s = s < 0 ? s + n : s - n;
  return true;
}

MRWB_HD float feq(float w, float rho, float cu, float uu) { return w * rho * (1.f + 3.f * cu + 4.5f * cu * cu - 1.5f * uu); }

// Shared tail: moments, boundary rule, collision, store. Q, c and w come from the lattice.
// `missing` flags the populations that had no fluid source (walls, the domain's edge, the outside of an
// inlet or outlet).
template <int Q>
MRWB_HD void collide_store(const View& v, std::size_t i, std::size_t N, float (&f)[Q], const int (&cx)[Q],
                           const int (&cy)[Q], const int (&cz)[Q], const float (&w)[Q], unsigned missing) {
  float rho = 0, jx = 0, jy = 0, jz = 0;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    rho += f[q];
    jx += cx[q] * f[q];
    jy += cy[q] * f[q];
    jz += cz[q] * f[q];
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
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      if (missing >> q & 1u)
        share += feq(w[q], 1.f, cx[q] * ux + cy[q] * uy + cz[q] * uz, uu0);
      else
        known += f[q];
    }
    rho = share < 0.9f ? known / (1.f - share) : 1.f;
  } else if (t == 3) {
    rho = v.rho_outlet;
  }
  const float uu = ux * ux + uy * uy + uz * uz;
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const float e = feq(w[q], rho, cx[q] * ux + cy[q] * uy + cz[q] * uz, uu);
    v.f_dst[q * N + i] = boundary ? e : f[q] - v.omega * (f[q] - e);
  }
  if (v.rho) {
    v.rho[i] = rho;
    v.ux[i] = ux;
    v.uy[i] = uy;
    v.uz[i] = uz;
  }
}

MRWB_HD void d2q9_update(const View& v, int x, int y) {
  constexpr int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  constexpr int cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  constexpr int cz[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  constexpr int opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  constexpr float w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
  const std::size_t N = static_cast<std::size_t>(v.nx) * v.ny;
  const std::size_t i = static_cast<std::size_t>(y) * v.nx + x;
  if (v.node[i] == 0) return;
  float f[9];
  unsigned missing = 0;
  const bool outlet = v.node[i] == 3;
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    int sx = x - cx[q], sy = y - cy[q];
    bool ok = source(sx, v.nx, v.periodic_x) && source(sy, v.ny, v.periodic_y);
    std::size_t j = 0;
    if (ok) {
      j = static_cast<std::size_t>(sy) * v.nx + sx;
      ok = v.node[j] != 0;
    }
    // Halfway bounce-back; at an outlet, zero-gradient extrapolation from the node itself.
    f[q] = ok ? v.f_src[q * N + j] : v.f_src[(outlet ? q : opp[q]) * N + i];
    missing |= ok ? 0u : 1u << q;
  }
  collide_store<9>(v, i, N, f, cx, cy, cz, w, missing);
}

MRWB_HD void d3q19_update(const View& v, int x, int y, int z) {
  constexpr int cx[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
  constexpr int cy[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
  constexpr int cz[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
  constexpr int opp[19] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};
  constexpr float a = 1.f / 18, b = 1.f / 36;
  constexpr float w[19] = {1.f / 3, a, a, a, a, a, a, b, b, b, b, b, b, b, b, b, b, b, b};
  const std::size_t N = static_cast<std::size_t>(v.nx) * v.ny * v.nz;
  const std::size_t i = (static_cast<std::size_t>(z) * v.ny + y) * v.nx + x;
  if (v.node[i] == 0) return;
  float f[19];
  unsigned missing = 0;
  const bool outlet = v.node[i] == 3;
#pragma unroll
  for (int q = 0; q < 19; ++q) {
    int sx = x - cx[q], sy = y - cy[q], sz = z - cz[q];
    bool ok = source(sx, v.nx, v.periodic_x) && source(sy, v.ny, v.periodic_y) && source(sz, v.nz, v.periodic_z);
    std::size_t j = 0;
    if (ok) {
      j = (static_cast<std::size_t>(sz) * v.ny + sy) * v.nx + sx;
      ok = v.node[j] != 0;
    }
    f[q] = ok ? v.f_src[q * N + j] : v.f_src[(outlet ? q : opp[q]) * N + i];
    missing |= ok ? 0u : 1u << q;
  }
  collide_store<19>(v, i, N, f, cx, cy, cz, w, missing);
}

// Initial state: equilibrium at rho = 1 with the inlet velocity on inlets, at rest elsewhere; written to
// f_dst.
template <int Q>
MRWB_HD void init_node(const View& v, std::size_t i, std::size_t N, const int (&cx)[Q], const int (&cy)[Q],
                       const int (&cz)[Q], const float (&w)[Q]) {
  float ux = 0, uy = 0, uz = 0;
  if (v.node[i] == 2) {
    ux = v.inlet_u[3 * i];
    uy = v.inlet_u[3 * i + 1];
    uz = v.inlet_u[3 * i + 2];
  }
  const float uu = ux * ux + uy * uy + uz * uz;
#pragma unroll
  for (int q = 0; q < Q; ++q)
    v.f_dst[q * N + i] = v.node[i] == 0 ? 0.f : feq(w[q], 1.f, cx[q] * ux + cy[q] * uy + cz[q] * uz, uu);
}

MRWB_HD void d2q9_init(const View& v, std::size_t i) {
  constexpr int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  constexpr int cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  constexpr int cz[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  constexpr float w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
  init_node<9>(v, i, static_cast<std::size_t>(v.nx) * v.ny, cx, cy, cz, w);
}

MRWB_HD void d3q19_init(const View& v, std::size_t i) {
  constexpr int cx[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
  constexpr int cy[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
  constexpr int cz[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
  constexpr float a = 1.f / 18, b = 1.f / 36;
  constexpr float w[19] = {1.f / 3, a, a, a, a, a, a, b, b, b, b, b, b, b, b, b, b, b, b};
  init_node<19>(v, i, static_cast<std::size_t>(v.nx) * v.ny * v.nz, cx, cy, cz, w);
}

}  // namespace mrwb::lbm
