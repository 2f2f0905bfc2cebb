// TV compressed sensing on the device (twin of admm_tv in core's compressed_sensing.cpp): scaled-form,
// over-relaxed ADMM (Boyd et al. 2011, sec. 3.1.1, 3.4.3 and 6.3) with z = D x; the x-update is at most
// cg_iterations steps of core's one CG (iter/conjugate_gradient.hpp, over DeviceVectorOps) on
// E^H E + rho D^H D warm-started at x, ended at ||r|| / ||rhs|| < cg_tolerance. `iterations` bounds the CG
// steps in all and the residual test of sec. 3.3.1 may end the solve earlier, both as on the CPU.
#include <algorithm>
#include <cmath>

#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {

void admm_tv(const DeviceSense& E, const float2* b, double dd, const CsParams& p, float2* x, CsReport& rep,
             const ProgressFn& progress, const CancelToken& cancel) {
  const int nx = E.nx, ny = E.ny;
  const std::size_t n = E.n;
  const float rho = static_cast<float>(p.admm_rho), tau = static_cast<float>(p.lambda / p.admm_rho);
  const float alpha = static_cast<float>(p.admm_alpha);
  const bool test_residuals = p.admm_abstol > 0 || p.admm_reltol > 0;
  DeviceBuffer<float2> z(2 * n), u(2 * n), dz(2 * n);
  DeviceBuffer<double> part(kReduceBlocks), rhs_part(kReduceBlocks), res_part(5 * kReduceBlocks);
  const DeviceVectorOps ops(n);
  DeviceBuffer<float2> xv = ops.make(), rhs = ops.make();
  cuda_check(cudaMemset(xv.get(), 0, n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(z.get(), 0, 2 * n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(u.get(), 0, 2 * n * sizeof(float2)), "memset");
  // (E^H E + rho D^H D) in (tv_normal_add's partials of Re<in, out> go unused: the CG takes its own dot).
  auto apply = [&](const DeviceBuffer<float2>& in, DeviceBuffer<float2>& out) {
    E.normal(in.get(), out.get());
    tv_normal_add(in.get(), rho, nx, ny, out.get(), part.get());
  };
  // x-update: warm-started, ended at ||r|| / ||rhs|| < cg_tolerance, !(Re<d, q> > 0) or r = 0.
  iter::CgConfig cg;
  cg.max_iterations = p.cg_iterations;
  cg.tolerance = p.cg_tolerance;
  cg.warm_start = true;
  cg.nan_curvature_stops = true;
  cg.residual_stops = true;
  for (int it = 0; rep.cg_steps <= p.iterations; ++it) {
    cancel.throw_if_cancelled();
    tv_rhs(b, z.get(), u.get(), rho, nx, ny, rhs.get(), rhs_part.get());
    const int steps = iter::conjugate_gradient(ops, apply, rhs, xv, cg).iterations;
    tv_zu_update(xv.get(), tau, alpha, nx, ny, z.get(), u.get(), dz.get());
    rep.iterations = it + 1;
    rep.cg_steps += std::max(steps, 1);
    if (progress) progress(std::min(1.0, double(rep.cg_steps) / p.iterations), "compressed-sensing");
    if (!test_residuals) continue;
    const AdmmResiduals a = tv_admm_residuals(xv.get(), z.get(), u.get(), dz.get(), nx, ny, res_part.get());
    const double eps_pri = std::sqrt(4.0 * n) * p.admm_abstol + p.admm_reltol * std::sqrt(std::max(a.grad, a.z));
    const double eps_dual = std::sqrt(2.0 * n) * p.admm_abstol + p.admm_reltol * p.admm_rho * std::sqrt(a.adjoint_u);
    if (std::sqrt(a.primal) < eps_pri && p.admm_rho * std::sqrt(a.adjoint_dz) < eps_dual) {
      rep.converged = true;
      if (progress) progress(1.0, "compressed-sensing");
      break;
    }
  }
  cuda_check(cudaMemcpy(x, xv.get(), n * sizeof(float2), cudaMemcpyDeviceToDevice), "x");
  cuda_check(cudaGetLastError(), "admm kernels");
  tv_norm(x, nx, ny, part.get());
  const double tv = partials_to_host(part.get());
  rep.objective = data_term(E, x, b, dd) + p.lambda * tv;
}

}  // namespace mrwb::gpu::sparse
