// Divergence-free face fluxes (face_flux.hpp): a least-change projection of the cell velocities, solved
// matrix-free by Jacobi-preconditioned conjugate gradients on the fluid cells.
#include "mrwb/flow/face_flux.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mrwb/base/parallel_ranges.hpp"

namespace mrwb {
namespace {

constexpr std::int32_t k_open = -1;  // face to the outside: carries the cell's own velocity
constexpr std::int32_t k_wall = -2;  // face to a non-fluid cell: carries nothing

// The fluid cells and their faces: rank order is cell order; nb[r·6 + 2a + s] is the rank of the fluid
// neighbour of rank r along axis a on side s (0: upper, 1: lower), or k_open / k_wall.
struct FluidFaces {
  int axes = 2;
  std::vector<std::size_t> cell;
  std::vector<std::int32_t> nb;
  std::vector<std::uint8_t> fixed;  // [r·3 + a]: 1 where the component is held (an inflow face along a)
};

FluidFaces fluid_faces(const CellPhantom& ph) {
  FluidFaces F;
  F.axes = ph.nz > 1 ? 3 : 2;
  const std::size_t n = ph.size();
  std::vector<std::int32_t> rank(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) {
      rank[i] = static_cast<std::int32_t>(F.cell.size());
      F.cell.push_back(i);
    }
  const bool ends = ph.open_end.size() == n;
  const std::vector<float>* u[3] = {&ph.ux, &ph.uy, &ph.uz};
  F.nb.assign(F.cell.size() * 6, k_wall);
  F.fixed.assign(F.cell.size() * 3, 0);
  const long step[3] = {1, ph.nx, static_cast<long>(ph.slice_size())};
  const int extent[3] = {ph.nx, ph.ny, ph.nz};
  for (std::size_t r = 0; r < F.cell.size(); ++r) {
    const std::size_t i = F.cell[r];
    const int c[3] = {static_cast<int>(i % ph.nx), static_cast<int>(i / ph.nx % ph.ny), static_cast<int>(i / ph.slice_size())};
    for (int a = 0; a < F.axes; ++a)
      for (int s = 0; s < 2; ++s) {
        const int side = s == 0 ? 1 : -1;
        const int cj = c[a] + side;
        std::int32_t v;
        if (cj < 0 || cj >= extent[a]) {
          v = k_open;
        } else {
          const std::int32_t j = rank[static_cast<std::size_t>(static_cast<long>(i) + side * step[a])];
          v = j >= 0 ? j : ends && ph.open_end[i] ? k_open : k_wall;
        }
        F.nb[r * 6 + 2 * a + s] = v;
        const float ua = u[a]->size() == n ? (*u[a])[i] : 0.f;
        if (v == k_open && ua * side < 0) F.fixed[r * 3 + a] = 1;  // fresh blood enters here
      }
  }
  return F;
}

// A piece of vessel that the grid cut off from the tree (a few cells at a vessel end or the grid's edge) can
// have blood held entering it and no free face to let it out: no change of its velocities balances that
// inflow, the system has no solution, and CG grew without bound (1e153 cells per step at liver_tree's
// matrix 32). A piece drains when a free component has an open face on one side only (it can carry flow
// out); a piece that cannot has its inflow let go, so that the least change balances it there too.
void release_undrained_inflow(FluidFaces& F) {
  const std::size_t m = F.cell.size();
  std::vector<std::int32_t> piece(m, -1), stack;
  std::vector<std::size_t> members;
  for (std::size_t r0 = 0; r0 < m; ++r0) {
    if (piece[r0] >= 0) continue;
    members.clear();
    stack.assign(1, static_cast<std::int32_t>(r0));
    piece[r0] = static_cast<std::int32_t>(r0);
    bool drains = false;
    while (!stack.empty()) {
      const auto r = static_cast<std::size_t>(stack.back());
      stack.pop_back();
      members.push_back(r);
      for (int a = 0; a < F.axes; ++a) {
        const std::int32_t up = F.nb[r * 6 + 2 * a], lo = F.nb[r * 6 + 2 * a + 1];
        if (!F.fixed[r * 3 + a] && (up == k_open) != (lo == k_open)) drains = true;
        for (const std::int32_t j : {up, lo})
          if (j >= 0 && piece[static_cast<std::size_t>(j)] < 0) {
            piece[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(r0);
            stack.push_back(j);
          }
      }
    }
    if (!drains)
      for (const std::size_t r : members)
        for (int a = 0; a < 3; ++a) F.fixed[r * 3 + a] = 0;
  }
}

// The coefficient of a cell's own velocity in the flux of its face: ½ shared with a fluid neighbour, 1 open,
// 0 wall.
double own(std::int32_t nb) { return nb >= 0 ? 0.5 : nb == k_open ? 1.0 : 0.0; }

// div[r] = Σ_a (flux of the upper face − flux of the lower face), u[r·3 + a].
void divergence(const FluidFaces& F, const std::vector<double>& u, std::vector<double>& div) {
  const std::size_t m = F.cell.size();
  for_each_range(m, range_parts(m), [&](int, std::size_t b, std::size_t e) {
    for (std::size_t r = b; r < e; ++r) {
      double d = 0;
      for (int a = 0; a < F.axes; ++a) {
        const std::int32_t up = F.nb[r * 6 + 2 * a], lo = F.nb[r * 6 + 2 * a + 1];
        const double ur = u[r * 3 + a];
        d += up >= 0 ? 0.5 * (ur + u[static_cast<std::size_t>(up) * 3 + a]) : own(up) * ur;
        d -= lo >= 0 ? 0.5 * (u[static_cast<std::size_t>(lo) * 3 + a] + ur) : own(lo) * ur;
      }
      div[r] = d;
    }
  });
}

// g = M Dᵀ λ: the velocity change λ asks for, zero on held components.
void gradient(const FluidFaces& F, const std::vector<double>& lambda, std::vector<double>& g) {
  const std::size_t m = F.cell.size();
  for_each_range(m, range_parts(m), [&](int, std::size_t b, std::size_t e) {
    for (std::size_t r = b; r < e; ++r)
      for (int a = 0; a < 3; ++a) {
        double v = 0;
        if (a < F.axes && !F.fixed[r * 3 + a]) {
          const std::int32_t up = F.nb[r * 6 + 2 * a], lo = F.nb[r * 6 + 2 * a + 1];
          v = (own(up) - own(lo)) * lambda[r];
          if (up >= 0) v -= 0.5 * lambda[static_cast<std::size_t>(up)];
          if (lo >= 0) v += 0.5 * lambda[static_cast<std::size_t>(lo)];
        }
        g[r * 3 + a] = v;
      }
  });
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size();
  const int parts = range_parts(n);
  std::vector<double> part(parts, 0.0);
  for_each_range(n, parts, [&](int p, std::size_t lo, std::size_t hi) {
    double s = 0;
    for (std::size_t i = lo; i < hi; ++i) s += a[i] * b[i];
    part[p] = s;
  });
  double s = 0;
  for (double v : part) s += v;
  return s;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace

FaceFluxReport make_face_fluxes_divergence_free(CellPhantom& ph, double tolerance, int max_iterations) {
  FaceFluxReport rep;
  const std::size_t n = ph.size();
  if (ph.flow_dt_s <= 0 || ph.ux.size() != n || ph.uy.size() != n) return rep;
  FluidFaces F = fluid_faces(ph);
  release_undrained_inflow(F);
  const std::size_t m = F.cell.size();
  rep.fluid_cells = m;
  if (m == 0) return rep;
  std::vector<float>* comp[3] = {&ph.ux, &ph.uy, &ph.uz};
  std::vector<double> u(m * 3, 0.0);
  for (std::size_t r = 0; r < m; ++r)
    for (int a = 0; a < F.axes; ++a)
      if (comp[a]->size() == n) u[r * 3 + a] = (*comp[a])[F.cell[r]];
  rep.max_speed_before = rep.max_speed_after = max_abs(u);

  std::vector<double> div(m), g(m * 3, 0.0);
  divergence(F, u, div);
  rep.max_divergence_before = rep.max_divergence_after = max_abs(div);
  const double target = tolerance * rep.max_speed_before;
  if (rep.max_divergence_before <= target) return rep;

  // Jacobi preconditioner: diag of D M Dᵀ, the squares of each cell's coefficients on the free components.
  std::vector<double> diag(m, 0.0);
  for (std::size_t r = 0; r < m; ++r)
    for (int a = 0; a < F.axes; ++a) {
      const std::int32_t up = F.nb[r * 6 + 2 * a], lo = F.nb[r * 6 + 2 * a + 1];
      const double c = own(up) - own(lo);
      if (!F.fixed[r * 3 + a]) diag[r] += c * c;
      if (up >= 0 && !F.fixed[static_cast<std::size_t>(up) * 3 + a]) diag[r] += 0.25;
      if (lo >= 0 && !F.fixed[static_cast<std::size_t>(lo) * 3 + a]) diag[r] += 0.25;
    }

  // CG on A λ = b, A = D M Dᵀ, b = −D u0; the residual b − Aλ is −D u, the divergence left.
  std::vector<double> lambda(m, 0.0), res(m), z(m), p(m), Ap(m);
  for (std::size_t r = 0; r < m; ++r) res[r] = -div[r];
  auto precondition = [&] {
    for (std::size_t r = 0; r < m; ++r) z[r] = diag[r] > 0 ? res[r] / diag[r] : 0.0;
  };
  precondition();
  p = z;
  double rz = dot(res, z);
  int it = 0;
  for (; it < max_iterations && max_abs(res) > target; ++it) {
    gradient(F, p, g);
    divergence(F, g, Ap);
    const double pAp = dot(p, Ap);
    if (!(pAp > 0)) break;  // the rest lies in A's null space: nothing more a change can fix
    const double alpha = rz / pAp;
    for (std::size_t r = 0; r < m; ++r) {
      lambda[r] += alpha * p[r];
      res[r] -= alpha * Ap[r];
    }
    precondition();
    const double rz_next = dot(res, z);
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t r = 0; r < m; ++r) p[r] = z[r] + beta * p[r];
  }
  rep.iterations = it;

  gradient(F, lambda, g);
  rep.max_speed_after = 0;
  for (std::size_t r = 0; r < m; ++r)
    for (int a = 0; a < F.axes; ++a) {
      if (comp[a]->size() != n) continue;
      const double v = u[r * 3 + a] + g[r * 3 + a];
      rep.max_change = std::max(rep.max_change, std::abs(g[r * 3 + a]));
      rep.max_speed_after = std::max(rep.max_speed_after, std::abs(v));
      (*comp[a])[F.cell[r]] = static_cast<float>(v);
      u[r * 3 + a] = static_cast<float>(v);  // as stored
    }
  divergence(F, u, div);
  rep.max_divergence_after = max_abs(div);
  return rep;
}

}  // namespace mrwb
