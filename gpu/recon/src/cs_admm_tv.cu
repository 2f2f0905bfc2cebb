// TV compressed sensing on the device (twin of admm_tv in core's compressed_sensing.cpp): scaled-form ADMM
// (Boyd et al. 2011, sec. 3.1.1 and 6.3) with z = D x; the x-update is cg_iterations CG steps on
// E^H E + rho D^H D warm-started at x, its scalars on the device (sparse_cg.cu), so an ADMM iteration
// queues without a host round trip.
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {

void admm_tv(const DeviceSense& E, const float2* b, double dd, const CsParams& p, float2* x, CsReport& rep,
             const ProgressFn& progress, const CancelToken& cancel) {
  const int nx = E.nx, ny = E.ny;
  const std::size_t n = E.n;
  const float rho = static_cast<float>(p.admm_rho), tau = static_cast<float>(p.lambda / p.admm_rho);
  DeviceBuffer<float2> z(2 * n), u(2 * n), rhs(n), r(n), d(n), q(n);
  DeviceBuffer<double> part(kReduceBlocks);
  DeviceBuffer<CgState> st(1);
  cuda_check(cudaMemset(x, 0, n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(z.get(), 0, 2 * n * sizeof(float2)), "memset");
  cuda_check(cudaMemset(u.get(), 0, 2 * n * sizeof(float2)), "memset");
  // (E^H E + rho D^H D) in, with Re<in, out> into the partials.
  auto apply = [&](const float2* in, float2* out) {
    E.normal(in, out);
    tv_normal_add(in, rho, nx, ny, out, part.get());
  };
  Pacer pacer;
  for (int it = 0; it < p.iterations; ++it) {
    cancel.throw_if_cancelled();
    tv_rhs(b, z.get(), u.get(), rho, nx, ny, rhs.get());
    apply(x, q.get());
    cg_start(n, rhs.get(), q.get(), r.get(), d.get(), st.get(), part.get());
    for (int k = 0; k < p.cg_iterations; ++k) {
      apply(d.get(), q.get());
      cg_alpha(part.get(), st.get());
      cg_update(n, x, r.get(), d.get(), q.get(), st.get(), part.get(), nullptr, k, 0.0);
      cg_direction(n, d.get(), r.get(), st.get());
    }
    tv_zu_update(x, tau, nx, ny, z.get(), u.get());
    pacer.queued(it);
    rep.iterations = it + 1;
    if (it > 0 && progress) progress(double(it) / p.iterations, "compressed-sensing");
  }
  pacer.drain();
  cuda_check(cudaGetLastError(), "admm kernels");
  if (progress) progress(1.0, "compressed-sensing");
  tv_norm(x, nx, ny, part.get());
  const double tv = partials_to_host(part.get());
  rep.objective = data_term(E, x, b, dd) + p.lambda * tv;
}

}  // namespace mrwb::gpu::sparse
