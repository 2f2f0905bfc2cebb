#pragma once
// The one conjugate-gradient loop of the reconstruction (Hestenes & Stiefel 1952; preconditioned as in Saad
// 2003, "Iterative methods for sparse linear systems", Alg. 9.1) for A x = b, A Hermitian positive
// (semi)definite, e.g. the normal operator E^H E + lambda R. Written once over
//   normal(p, q)   q = A p (p is not changed, but may be gathered in place where A needs the whole vector),
//   ops            a vector type and its operations, as BART's conjugate_gradient over its vec_iter_s
//                  (src/iter/italgos.c) or Gadgetron's cgSolver<ARRAY>:
//                    vector make()                          a zero vector of the problem's size
//                    double dot(a, b)                       Re<a, b>, summed in double
//                    double squared_norm(a)                 ||a||^2 = dot(a, a)
//                    void copy(src, dst)                    dst = src
//                    void axpy(double alpha, x, y)          y += alpha x
//                    void xpay(x, double beta, y)           y = x + beta y (the new search direction)
//                  The scalars are double; an ops type over float vectors rounds them to float, as the loops
//                  it replaced did.
//   precondition   z = M^{-1} r (may gather r in place); empty: none, z is r.
// CPU: CG-SENSE (cg_sense.cpp), the non-Cartesian (P)CG (noncart_cg.cpp) and ADMM's x-update
// (compressed_sensing.cpp) instantiate it; docs/architecture.md, "The one conjugate gradient".
#include <cmath>
#include <functional>
#include <string_view>
#include <vector>

#include "mrwb/base/progress.hpp"

namespace mrwb::iter {

// The residual test after each step; the two differ only in rounding.
enum class CgStop {
  relative_residual,  // ||r|| / ||b|| < tolerance (Pruessmann et al. 2001; the non-Cartesian CG)
  residual_norm,      // ||r|| < tolerance ||b|| (BART's ADMM x-update; the CUDA non-Cartesian CG)
};

struct CgConfig {
  int max_iterations = 1;
  double tolerance = 0;  // 0: every iteration runs (neither test can hold)
  CgStop stop = CgStop::relative_residual;
  bool warm_start = false;  // x holds the start and r = b - A x; else x is zero on entry and r = b
  // What ends the loop besides the budget and the residual test; they differ only where a residual or a
  // curvature <p, A p> is zero or NaN. Default: <p, A p> <= 0.
  bool nan_curvature_stops = false;  // !(<p, A p> > 0): a NaN curvature ends it too
  bool residual_stops = false;       // before each step, ||r||^2 no longer > 0 ends it
  std::string_view stage;            // progress(k / max_iterations, stage) after step k, where progress is set
  ProgressFn progress;
  const CancelToken* cancel = nullptr;  // polled before each step
};

struct CgReport {
  int iterations = 0;              // steps taken
  double relative_residual = 0;    // ||r|| / ||b|| after the last
  std::vector<double> residuals;   // after each, ||r|| / ||b||
};

template <class Vector>
using Preconditioner = std::function<void(Vector& r, Vector& z)>;

// The loop's vectors: r, the direction p, q = A p (and z = M^{-1} r with a preconditioner). A caller that solves
// many times (ADMM's x-updates) keeps one, so that no solve allocates them.
template <class Vector>
struct CgWorkspace {
  Vector r, p, q, z;
};
template <class Ops>
CgWorkspace<typename Ops::vector> cg_workspace(const Ops& ops) {
  return {ops.make(), ops.make(), ops.make(), {}};
}

// x: the solution on return (and the start, with warm_start). Nothing runs for ||r_0|| = 0 (or NaN).
// work: from cg_workspace(ops), or null for the solve's own.
template <class Ops, class Normal>
CgReport conjugate_gradient(const Ops& ops, Normal&& normal, const typename Ops::vector& b,
                            typename Ops::vector& x, const CgConfig& cfg,
                            const Preconditioner<typename Ops::vector>& precondition = {},
                            CgWorkspace<typename Ops::vector>* work = nullptr) {
  using V = typename Ops::vector;
  if (!work) {
    CgWorkspace<V> own = cg_workspace(ops);
    return conjugate_gradient(ops, normal, b, x, cfg, precondition, &own);
  }
  V &r = work->r, &p = work->p, &q = work->q, &z = work->z;
  CgReport rep;
  const double bb = ops.squared_norm(b), bnorm = std::sqrt(bb);
  double rr = bb;
  if (cfg.warm_start) {
    normal(x, q);
    ops.copy(b, r);
    ops.axpy(-1.0, q, r);
    rr = ops.squared_norm(r);
  } else {
    ops.copy(b, r);
  }
  if (!(rr > 0)) return rep;
  if (precondition && z.size() != r.size()) z = ops.make();
  const V& zr = precondition ? z : r;  // M^{-1} r
  if (precondition) precondition(r, z);
  ops.copy(zr, p);
  double rz = precondition ? ops.dot(r, z) : rr;
  for (int it = 0; it < cfg.max_iterations; ++it) {
    if (cfg.cancel) cfg.cancel->throw_if_cancelled();
    if (cfg.residual_stops && !(rr > 0)) break;
    normal(p, q);
    const double pq = ops.dot(p, q);
    if (cfg.nan_curvature_stops ? !(pq > 0) : pq <= 0) break;  // converged to round-off or A singular along p
    const double alpha = rz / pq;
    ops.axpy(alpha, p, x);
    ops.axpy(-alpha, q, r);
    const double rr_new = ops.squared_norm(r), rnorm = std::sqrt(rr_new);
    rep.iterations = it + 1;
    rep.relative_residual = rnorm / bnorm;
    rep.residuals.push_back(rep.relative_residual);
    if (cfg.progress) cfg.progress(static_cast<double>(it + 1) / cfg.max_iterations, cfg.stage);
    if (cfg.stop == CgStop::relative_residual ? rep.relative_residual < cfg.tolerance
                                              : rnorm < cfg.tolerance * bnorm)
      break;
    rr = rr_new;
    if (precondition) precondition(r, z);
    const double rz_new = precondition ? ops.dot(r, z) : rr_new;
    const double beta = rz_new / rz;
    rz = rz_new;
    ops.xpay(zr, beta, p);
  }
  return rep;
}

}  // namespace mrwb::iter
