// TV compressed sensing on the device (twin of admm_tv in core's compressed_sensing.cpp): scaled-form,
// over-relaxed ADMM (Boyd et al. 2011, sec. 3.1.1, 3.4.3 and 6.3) with z = D x; the x-update is at most
// cg_iterations CG steps on E^H E + rho D^H D warm-started at x, ended at ||r|| < cg_tolerance ||rhs||, its
// scalars on the device (sparse_cg.cu). After each x-update the host reads the CG steps taken and the
// residual norms (one wait per outer iteration): `iterations` bounds the CG steps in all and the residual
// test of sec. 3.3.1 may end the solve earlier, both as on the CPU.
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
  DeviceBuffer<float2> z(2 * n), u(2 * n), dz(2 * n), rhs(n), r(n), d(n), q(n);
  DeviceBuffer<double> part(kReduceBlocks), rhs_part(kReduceBlocks), res_part(5 * kReduceBlocks);
  DeviceBuffer<CgState> st(1);
  cuda_check(cudaMemset(x, 0, n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(z.get(), 0, 2 * n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(u.get(), 0, 2 * n * sizeof(float2)), "memset");
  // (E^H E + rho D^H D) in, with Re<in, out> into the partials.
  auto apply = [&](const float2* in, float2* out) {
    E.normal(in, out);
    tv_normal_add(in, rho, nx, ny, out, part.get());
  };
  for (int it = 0; rep.cg_steps <= p.iterations; ++it) {
    cancel.throw_if_cancelled();
    tv_rhs(b, z.get(), u.get(), rho, nx, ny, rhs.get(), rhs_part.get());
    apply(x, q.get());
    cg_start(n, rhs.get(), q.get(), r.get(), d.get(), st.get(), part.get());
    cg_reference_norm(rhs_part.get(), st.get());
    for (int k = 0; k < p.cg_iterations; ++k) {
      apply(d.get(), q.get());
      cg_alpha(part.get(), st.get());
      cg_update(n, x, r.get(), d.get(), q.get(), st.get(), part.get(), nullptr, k, p.cg_tolerance);
      cg_direction(n, d.get(), r.get(), st.get());
    }
    tv_zu_update(x, tau, alpha, nx, ny, z.get(), u.get(), dz.get());
    CgState s;
    st.download(&s);
    rep.iterations = it + 1;
    rep.cg_steps += std::max(s.iterations, 1);
    if (progress) progress(std::min(1.0, double(rep.cg_steps) / p.iterations), "compressed-sensing");
    if (!test_residuals) continue;
    const AdmmResiduals a = tv_admm_residuals(x, z.get(), u.get(), dz.get(), nx, ny, res_part.get());
    const double eps_pri = std::sqrt(4.0 * n) * p.admm_abstol + p.admm_reltol * std::sqrt(std::max(a.grad, a.z));
    const double eps_dual = std::sqrt(2.0 * n) * p.admm_abstol + p.admm_reltol * p.admm_rho * std::sqrt(a.adjoint_u);
    if (std::sqrt(a.primal) < eps_pri && p.admm_rho * std::sqrt(a.adjoint_dz) < eps_dual) {
      rep.converged = true;
      if (progress) progress(1.0, "compressed-sensing");
      break;
    }
  }
  cuda_check(cudaGetLastError(), "admm kernels");
  tv_norm(x, nx, ny, part.get());
  const double tv = partials_to_host(part.get());
  rep.objective = data_term(E, x, b, dd) + p.lambda * tv;
}

}  // namespace mrwb::gpu::sparse
