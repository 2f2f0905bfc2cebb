#pragma once
// The CPU time loop of the LBM, templated on the lattice's per-node update and init.
#include <utility>
#include <vector>

#include "mrwb/lbm.hpp"
#include "mrwb/lbm_node_ops.hpp"

namespace mrwb::detail {

// `update(view, x, y, z)` and `init(view, i)` come from lbm_node_ops.hpp (update with the collision of
// params.collision).
template <typename Update, typename Init>
LbmResult lbm_loop_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel,
                       Update update, Init init, const char* stage) {
  validate_lbm(d, p, "lbm");
  const std::size_t N = d.size();
  std::vector<float> fa(N * d.q()), fb(N * d.q());
  LbmResult r;
  r.backend = "cpu";
  r.rho.assign(N, 0.f);
  r.ux.assign(N, 0.f);
  r.uy.assign(N, 0.f);
  r.uz.assign(N, 0.f);
  std::vector<float> prev[3] = {r.ux, r.uy, r.uz};
  lbm::View v{d.nx, d.ny, d.nz, d.periodic[0], d.periodic[1], d.periodic[2], d.node.data(), d.inlet_u.data(),
              fb.data(), fa.data(), static_cast<float>(1.0 / p.tau), static_cast<float>(p.rho_outlet),
              nullptr, nullptr, nullptr, nullptr};
  lbm_configure_view(v, d, p);
  for (std::size_t i = 0; i < N; ++i) init(v, i);
  float* src = fa.data();
  float* dst = fb.data();
  r.residual = 1;
  while (r.steps < p.max_steps || r.steps % p.check_every != 0) {
    const bool check = (r.steps + 1) % p.check_every == 0;
    v.f_src = src;
    v.f_dst = dst;
    v.rho = check ? r.rho.data() : nullptr;
    v.ux = check ? r.ux.data() : nullptr;
    v.uy = check ? r.uy.data() : nullptr;
    v.uz = check ? r.uz.data() : nullptr;
    for (int z = 0; z < d.nz; ++z)
      for (int y = 0; y < d.ny; ++y)
        for (int x = 0; x < d.nx; ++x) update(v, x, y, z);
    std::swap(src, dst);
    ++r.steps;
    if (check) {
      const std::vector<float> cur[3] = {r.ux, r.uy, r.uz};
      r.residual = lbm_relative_change(d, prev, cur);
      lbm_check_diverged(r.residual, r.steps, p.tau);
      for (int k = 0; k < 3; ++k) prev[k] = cur[k];
      cancel.throw_if_cancelled();
      if (progress) progress(static_cast<double>(r.steps) / p.max_steps, stage);
      if (r.residual < p.tolerance) {
        r.converged = true;
        break;
      }
    }
  }
  if (progress) progress(1.0, stage);
  return r;
}

}  // namespace mrwb::detail
