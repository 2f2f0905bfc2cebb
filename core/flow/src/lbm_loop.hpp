#pragma once
// The CPU reference of the LBM: the per-node code of lbm_node_ops.hpp over every node, stepped by the time
// loop the CUDA twin shares (lbm_time_loop).
#include <utility>
#include <vector>

#include "mrwb/flow/lbm.hpp"
#include "mrwb/flow/lbm_node_ops.hpp"

namespace mrwb::detail {

template <int Q, bool Mrt>
void lbm_sweep_cpu(const lbm::View& v) {
  for (int z = 0; z < v.nz; ++z)
    for (int y = 0; y < v.ny; ++y)
      for (int x = 0; x < v.nx; ++x) lbm::update_lattice<Q, Mrt>(v, x, y, z);
}

// Q = 9: D2Q9; Q = 19: D3Q19.
template <int Q>
LbmResult lbm_run_lattice_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress,
                              const CancelToken& cancel) {
  validate_lbm(d, p, "lbm");
  std::vector<float> fa(d.size() * Q), fb(d.size() * Q);
  lbm::View v = lbm_make_view(d, p, d.node.data(), d.inlet_u.data());
  v.f_dst = fa.data();
  for (std::size_t i = 0; i < d.size(); ++i) lbm::init_lattice<Q>(v, i);
  float* src = fa.data();
  float* dst = fb.data();
  const bool mrt = p.collision == LbmCollision::Mrt;
  const LbmStep step = [&](bool write_macro, LbmResult& r) {
    v.f_src = src;
    v.f_dst = dst;
    v.rho = write_macro ? r.rho.data() : nullptr;
    v.ux = write_macro ? r.ux.data() : nullptr;
    v.uy = write_macro ? r.uy.data() : nullptr;
    v.uz = write_macro ? r.uz.data() : nullptr;
    mrt ? lbm_sweep_cpu<Q, true>(v) : lbm_sweep_cpu<Q, false>(v);
    std::swap(src, dst);
  };
  return lbm_time_loop(d, p, Q, "cpu", step, progress, cancel);
}

}  // namespace mrwb::detail
