// Pieces of the LBM shared by D2Q9, D3Q19 and the CUDA twin: validation, memory, the per-node view,
// residual, and the time loop.
#include <cmath>
#include <limits>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb/flow/lbm_node_ops.hpp"

namespace mrwb {

void lbm_mrt_rates(int q, const LbmParams& p, double (&rates)[5]) {
  // s_e, s_eps, (s_q: magic), s_pi, s_m. D2Q9 has no pi or m moments (their entries are unused).
  const double published[2][5] = {{1.64, 1.54, 0, 0, 0},       // Lallemand & Luo, PRE 61:6546 (2000)
                                  {1.19, 1.4, 0, 1.4, 1.98}};  // d'Humieres et al. 2002
  const double s_nu = 1 / p.tau;
  const double s_q_magic = 1 / (0.5 + (3.0 / 16.0) / (1 / s_nu - 0.5));
  for (int k = 0; k < 5; ++k)
    rates[k] = p.mrt_rates[k] > 0 ? p.mrt_rates[k] : k == 2 ? s_q_magic : published[q == 19 ? 1 : 0][k];
}

lbm::View lbm_make_view(const LbmDomain& d, const LbmParams& p, const std::uint8_t* node, const float* inlet_u) {
  lbm::View v{d.nx, d.ny, d.nz, d.periodic[0], d.periodic[1], d.periodic[2], node, inlet_u, nullptr, nullptr,
              static_cast<float>(1.0 / p.tau), static_cast<float>(p.rho_outlet), nullptr, nullptr, nullptr, nullptr};
  double rates[5];
  lbm_mrt_rates(d.q(), p, rates);
  for (int k = 0; k < 5; ++k) v.mrt_s[k] = static_cast<float>(rates[k]);
  return v;
}

std::string lbm_collision_name(LbmCollision c) { return c == LbmCollision::Mrt ? "mrt" : "bgk"; }

std::size_t lbm_memory_bytes(const LbmDomain& d) {
  // two f buffers + node flags + inlet velocity + rho, u (4) + previous u snapshot (3)
  return d.size() * (2 * d.q() * sizeof(float) + 1 + 3 * sizeof(float) + 7 * sizeof(float));
}

void validate_lbm(const LbmDomain& d, const LbmParams& p, const std::string& where) {
  auto fail = [&](const std::string& what) { throw InputError(where + ": " + what); };
  if (d.nx < 1 || d.ny < 1 || d.nz < 1) fail("LBM grid must have at least 1 node per axis");
  if (d.node.size() != d.size()) fail("LBM node flags: " + std::to_string(d.node.size()) + " values for " + std::to_string(d.size()) + " nodes");
  if (d.inlet_u.size() != 3 * d.size()) fail("LBM inlet velocity: 3 values per node required");
  bool inlet = false, outlet = false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d.node[i] > 3) fail("LBM node flag " + std::to_string(d.node[i]) + " out of range [0, 3]");
    inlet |= d.node[i] == 2;
    outlet |= d.node[i] == 3;
    if (d.node[i] == 2) {
      const double u = std::hypot(d.inlet_u[3 * i], d.inlet_u[3 * i + 1], d.inlet_u[3 * i + 2]);
      if (!(u <= 0.3)) {
        std::ostringstream os;
        os << "LBM inlet speed " << u << " cells/step breaks the low-Mach limit (allowed <= 0.3)";
        fail(os.str());
      }
    }
  }
  (void)inlet;
  (void)outlet;
  if (!(p.tau >= 0.51 && p.tau <= 2.0)) fail("LBM tau = " + std::to_string(p.tau) + " is out of range [0.51, 2]");
  for (double s : p.mrt_rates)
    if (!(s >= 0 && s < 2)) fail("LBM MRT rate " + std::to_string(s) + " is out of range (0, 2) (0: the default)");
  if (p.max_steps < 1 || p.max_steps > 10000000) fail("LBM max_steps = " + std::to_string(p.max_steps) + " is out of range [1, 1e7]");
  if (!(p.tolerance > 0)) fail("LBM tolerance must be > 0");
  if (p.check_every < 1) fail("LBM check_every must be >= 1");
  if (!(p.rho_outlet > 0.5 && p.rho_outlet < 1.5)) fail("LBM rho_outlet out of range (0.5, 1.5)");
}

double lbm_relative_change(const LbmDomain& d, const std::vector<float>* prev, const std::vector<float>* cur) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d.node[i] == 0) continue;
    for (int k = 0; k < 3; ++k) {
      const double a = cur[k][i], b = prev[k][i];
      num += (a - b) * (a - b);
      den += a * a;
    }
  }
  if (!std::isfinite(num) || !std::isfinite(den)) return std::numeric_limits<double>::infinity();  // diverged
  return den > 0 ? std::sqrt(num / den) : (num > 0 ? 1.0 : 0.0);
}

void lbm_check_diverged(double residual, int steps, double tau) {
  if (std::isinf(residual))
    throw InputError("lbm: the flow diverged (non-finite velocity) by step " + std::to_string(steps) + " at tau " +
                     std::to_string(tau) + " (lower flow.lbm_u_max or flow.inlet_flow_m3_per_s)");
}

LbmResult lbm_time_loop(const LbmDomain& d, const LbmParams& p, int q, const std::string& backend, const LbmStep& step,
                        const ProgressFn& progress, const CancelToken& cancel) {
  const char* stage = q == 19 ? "lbm d3q19" : "lbm d2q9";
  LbmResult r;
  r.backend = backend;
  r.rho.assign(d.size(), 0.f);
  r.ux.assign(d.size(), 0.f);
  r.uy.assign(d.size(), 0.f);
  r.uz.assign(d.size(), 0.f);
  std::vector<float> prev[3] = {r.ux, r.uy, r.uz};
  r.residual = 1;
  while (r.steps < p.max_steps || r.steps % p.check_every != 0) {
    const bool check = (r.steps + 1) % p.check_every == 0;
    step(check, r);
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

LbmResult lbm_run_cpu(const LbmDomain& d, const LbmParams& p, const ProgressFn& progress, const CancelToken& cancel) {
  return d.nz > 1 ? lbm_d3q19_cpu(d, p, progress, cancel) : lbm_d2q9_cpu(d, p, progress, cancel);
}

}  // namespace mrwb
