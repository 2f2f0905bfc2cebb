#include "mrwb/recon/compressed_sensing.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/iter/conjugate_gradient.hpp"
#include "mrwb/recon/iter/host_vector_ops.hpp"
#include "mrwb/recon/total_variation.hpp"
#include "mrwb/recon/wavelet.hpp"

namespace mrwb {
namespace {

using cfloat = std::complex<float>;
using cvec = std::vector<cfloat>;

// 1/2||E x − d||² from E^H E x, E^H d and ||d||²: 1/2(<x, E^H E x> − 2 Re<x, E^H d> + ||d||²).
double data_term(const CartesianSenseOperator& E, const cvec& x, const cvec& b, double dd) {
  cvec q;
  E.normal(x, q);
  return 0.5 * (iter::dot_re(x, q) - 2 * iter::dot_re(x, b) + dd);
}

// Largest eigenvalue of E^H E by power iteration from a seeded random start.
double power_iteration(const CartesianSenseOperator& E, int iterations, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> gauss;
  cvec x(E.plane()), q;
  for (auto& v : x) v = {gauss(rng), gauss(rng)};
  double lambda = 0;
  for (int it = 0; it < iterations; ++it) {
    const double nx = std::sqrt(iter::dot_re(x, x));
    if (nx == 0) return 0;
    for (auto& v : x) v /= static_cast<float>(nx);
    E.normal(x, q);
    lambda = std::sqrt(iter::dot_re(q, q));
    std::swap(x, q);
  }
  return lambda;
}

void circshift(const cvec& in, cvec& out, int nx, int ny, int sx, int sy) {
  out.resize(in.size());
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      out[static_cast<std::size_t>((y + sy) % ny) * nx + (x + sx) % nx] = in[static_cast<std::size_t>(y) * nx + x];
}

void soft_threshold(cvec& c, float tau) {
  for (auto& v : c) {
    const float m = std::abs(v);
    v = m > tau ? v * (1.0f - tau / m) : cfloat{};
  }
}

double l1(const cvec& c) {
  double s = 0;
  for (const auto& v : c) s += std::abs(v);
  return s;
}

int cs_levels(const CsParams& p, int nx, int ny) {
  const int most = max_wavelet_levels(nx, ny, p.wavelet_taps);
  if (p.wavelet_levels > 0) return p.wavelet_levels;  // Wavelet2D refuses more than `most`
  int l = 0;
  while (l < most && (nx >> (l + 1)) >= 16 && (ny >> (l + 1)) >= 16) ++l;
  return l;
}

cvec fista_l1_wavelet(const CartesianSenseOperator& E, const cvec& b, double dd, const CsParams& p, CsReport& rep,
                      const ProgressFn& progress, const CancelToken& cancel) {
  const int nx = E.nx(), ny = E.ny();
  const std::size_t n = E.plane();
  const Wavelet2D W(nx, ny, p.wavelet_taps, cs_levels(p, nx, ny));
  rep.wavelet_levels = W.levels();
  const double L = power_iteration(E, p.power_iterations, p.seed);
  rep.lipschitz = L;
  if (!(L > 0)) return cvec(n);
  const float step = static_cast<float>(1.0 / L), tau = static_cast<float>(p.lambda / L);
  std::mt19937 rng(p.seed);
  std::uniform_int_distribution<int> shift(0, 1 << W.levels());
  cvec x(n), y(n), q, v(n), s;
  double t = 1;
  for (int it = 0; it < p.iterations; ++it) {
    cancel.throw_if_cancelled();
    // Gradient step on the data term, then the prox of lambda/L ||W x||_1 on a randomly shifted grid.
    E.normal(y, q);
    for (std::size_t i = 0; i < n; ++i) v[i] = y[i] - step * (q[i] - b[i]);
    const int sx = p.cycle_spinning ? shift(rng) % nx : 0, sy = p.cycle_spinning ? shift(rng) % ny : 0;
    circshift(v, s, nx, ny, sx, sy);
    W.forward(s);
    soft_threshold(s, tau);
    W.inverse(s);
    circshift(s, v, nx, ny, nx - sx, ny - sy);
    // Beck & Teboulle's momentum: t' = (1 + sqrt(1 + 4t²))/2, y = x' + (t − 1)/t' (x' − x).
    const double t_next = 0.5 * (1 + std::sqrt(1 + 4 * t * t));
    const float mom = static_cast<float>((t - 1) / t_next);
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = v[i] + mom * (v[i] - x[i]);
      x[i] = v[i];
    }
    t = t_next;
    rep.iterations = it + 1;
    if (progress) progress(double(it + 1) / p.iterations, "compressed-sensing");
  }
  cvec c = x;
  W.forward(c);
  rep.objective = data_term(E, x, b, dd) + p.lambda * l1(c);
  return x;
}

cvec admm_tv(const CartesianSenseOperator& E, const cvec& b, double dd, const CsParams& p, CsReport& rep,
             const ProgressFn& progress, const CancelToken& cancel) {
  const int nx = E.nx(), ny = E.ny();
  const std::size_t n = E.plane();
  const float rho = static_cast<float>(p.admm_rho), alpha = static_cast<float>(p.admm_alpha);
  const bool test_residuals = p.admm_abstol > 0 || p.admm_reltol > 0;
  cvec x(n), z(2 * n), u(2 * n), rhs(n), w(2 * n), dz(2 * n);
  auto apply = [&](const cvec& in, cvec& out) {  // (E^H E + rho D^H D) in
    E.normal(in, out);
    const cvec dd2 = tv_gradient_adjoint(tv_gradient(in, nx, ny), nx, ny);
    for (std::size_t i = 0; i < n; ++i) out[i] += rho * dd2[i];
  };
  auto l2_norm = [](const cvec& v) { return std::sqrt(iter::squared_norm(v)); };
  // x-update: CG warm-started at the current x, ended early at ||r|| < cg_tolerance ||rhs|| (BART's rule).
  iter::CgConfig cg;
  cg.max_iterations = p.cg_iterations;
  cg.tolerance = p.cg_tolerance;
  cg.stop = iter::CgStop::residual_norm;
  cg.warm_start = true;
  cg.residual_stops = true;
  const iter::HostVectorOps ops{n};
  iter::CgWorkspace<cvec> work = iter::cg_workspace(ops);  // one for every x-update
  // `iterations` bounds the work as BART's pics -i does for ADMM: the CG steps over all x-updates; ADMM stops
  // after the x-update in which they exceed it (an x-update that needs no step counts one).
  for (int it = 0; rep.cg_steps <= p.iterations; ++it) {
    cancel.throw_if_cancelled();
    for (std::size_t i = 0; i < 2 * n; ++i) w[i] = z[i] - u[i];
    const cvec dw = tv_gradient_adjoint(w, nx, ny);
    for (std::size_t i = 0; i < n; ++i) rhs[i] = b[i] + rho * dw[i];
    const int steps = iter::conjugate_gradient(ops, apply, rhs, x, cg, {}, &work).iterations;
    // Over-relaxed z- and u-updates; dz = z − z_old and the residual norms for the stopping test.
    const cvec g = tv_gradient(x, nx, ny);
    double gg = 0, zz = 0, rr_primal = 0;
    for (std::size_t i = 0; i < 2 * n; ++i) {
      const cfloat xh = alpha * g[i] + (1.0f - alpha) * z[i];
      dz[i] = z[i];
      w[i] = xh;
      z[i] = xh + u[i];
    }
    shrink_isotropic(z, nx, ny, static_cast<float>(p.lambda / p.admm_rho));
    for (std::size_t i = 0; i < 2 * n; ++i) {
      u[i] += w[i] - z[i];
      dz[i] = z[i] - dz[i];
      gg += std::norm(std::complex<double>(g[i]));
      zz += std::norm(std::complex<double>(z[i]));
      rr_primal += std::norm(std::complex<double>(g[i]) - std::complex<double>(z[i]));
    }
    rep.iterations = it + 1;
    rep.cg_steps += std::max(steps, 1);
    if (progress) progress(std::min(1.0, double(rep.cg_steps) / p.iterations), "compressed-sensing");
    if (!test_residuals) continue;
    const double s_norm = p.admm_rho * l2_norm(tv_gradient_adjoint(dz, nx, ny));
    const double eps_pri = std::sqrt(4.0 * n) * p.admm_abstol + p.admm_reltol * std::sqrt(std::max(gg, zz));
    const double eps_dual =
        std::sqrt(2.0 * n) * p.admm_abstol + p.admm_reltol * p.admm_rho * l2_norm(tv_gradient_adjoint(u, nx, ny));
    if (std::sqrt(rr_primal) < eps_pri && s_norm < eps_dual) {
      rep.converged = true;
      if (progress) progress(1.0, "compressed-sensing");
      break;
    }
  }
  rep.objective = data_term(E, x, b, dd) + p.lambda * tv_norm(x, nx, ny);
  return x;
}

}  // namespace

void check_cs_params(const CsParams& p) {
  const std::string src = "compressed-sensing: ";
  if (p.regularizer != "l1-wavelet" && p.regularizer != "tv")
    throw InputError(src + "regularizer \"" + p.regularizer + "\" (allowed: l1-wavelet, tv)");
  if (!(p.lambda >= 0)) throw InputError(src + "lambda = " + fixed_number_text(p.lambda) + " (allowed: >= 0)");
  if (p.iterations < 1) throw InputError(src + "iterations = " + std::to_string(p.iterations) + " (allowed: >= 1)");
  if (!(p.admm_rho > 0)) throw InputError(src + "admm_rho = " + fixed_number_text(p.admm_rho) + " (allowed: > 0)");
  if (p.cg_iterations < 1)
    throw InputError(src + "cg_iterations = " + std::to_string(p.cg_iterations) + " (allowed: >= 1)");
  if (!(p.cg_tolerance >= 0))
    throw InputError(src + "cg_tolerance = " + fixed_number_text(p.cg_tolerance) + " (allowed: >= 0)");
  if (!(p.admm_alpha > 0 && p.admm_alpha < 2))
    throw InputError(src + "admm_alpha = " + fixed_number_text(p.admm_alpha) + " (allowed: 0 < alpha < 2)");
  if (!(p.admm_abstol >= 0) || !(p.admm_reltol >= 0))
    throw InputError(src + "admm_abstol = " + fixed_number_text(p.admm_abstol) +
                     ", admm_reltol = " + fixed_number_text(p.admm_reltol) + " (allowed: >= 0)");
  if (p.wavelet_taps != 2 && p.wavelet_taps != 4 && p.wavelet_taps != 8)
    throw InputError(src + "wavelet_taps = " + std::to_string(p.wavelet_taps) + " (allowed: 2, 4 or 8)");
  if (p.wavelet_levels < 0)
    throw InputError(src + "wavelet_levels = " + std::to_string(p.wavelet_levels) + " (allowed: >= 0)");
  if (p.power_iterations < 1)
    throw InputError(src + "power_iterations = " + std::to_string(p.power_iterations) + " (allowed: >= 1)");
}

cvec cs_solve(const CartesianSenseOperator& E, const cvec& k, const CsParams& p, CsReport* report,
              const ProgressFn& progress, const CancelToken& cancel) {
  check_cs_params(p);
  const cvec b = E.adjoint(k);
  // ||M d||²: the data term's constant (samples outside the mask are not data).
  double dd = 0;
  const std::size_t n = E.plane();
  for (int c = 0; c < E.coils(); ++c)
    for (std::size_t i = 0; i < n; ++i) dd += std::norm(std::complex<double>(k[c * n + i])) * E.mask()[i] * E.mask()[i];
  CsReport rep;
  cvec x = p.regularizer == "tv" ? admm_tv(E, b, dd, p, rep, progress, cancel)
                                 : fista_l1_wavelet(E, b, dd, p, rep, progress, cancel);
  if (report) *report = rep;
  return x;
}

double cs_data_scale(const std::vector<cfloat>& k, const std::vector<float>& mask, int nx, int ny, int coils) {
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  if (k.size() != plane * coils || mask.size() != plane)
    throw InputError("compressed-sensing: data scale of " + std::to_string(k.size()) + " samples and a mask of " +
                     std::to_string(mask.size()) + " (allowed: coils x ny x nx and ny x nx)");
  // BART's calibration region (calib_geom within extract_calib, at most 32 per axis): the readout whole and the
  // central min(32, ny) lines first; in there a centred block grown from 1 x 1, one sample per axis in turn (x,
  // then y), while every sample of it is acquired; then moved along the readout to where its energy is greatest.
  constexpr int cap = 32;
  const int ty = std::min(cap, ny), ty0 = (ny - ty) / 2;
  int size[2] = {1, 1};
  const int extent[2] = {nx, ty};
  bool stop[2] = {false, false};
  auto acquired = [&](int cx, int cy) {
    const int x0 = (nx - cx) / 2, y0 = ty0 + (ty - cy) / 2;
    for (int y = y0; y < y0 + cy; ++y)
      for (int x = x0; x < x0 + cx; ++x)
        if (!(mask[static_cast<std::size_t>(y) * nx + x] > 0)) return false;
    return true;
  };
  while (!(stop[0] && stop[1]))
    for (int i = 0; i < 2; ++i) {
      if (size[i] == extent[i] || size[i] >= cap) stop[i] = true;
      if (stop[i]) continue;
      ++size[i];
      if (!acquired(size[0], size[1])) {
        --size[i];
        stop[i] = true;
      }
    }
  const int cx = size[0], cy = size[1], y0 = ty0 + (ty - cy) / 2;
  auto at = [&](int c, int y, int x) { return k[c * plane + static_cast<std::size_t>(y) * nx + x]; };
  int x0 = 0;
  double most = 0;
  for (int r = 0; r + cx <= nx; ++r) {
    double e = 0;
    for (int c = 0; c < coils; ++c)
      for (int y = y0; y < y0 + cy; ++y)
        for (int x = r; x < r + cx; ++x) e += std::norm(std::complex<double>(at(c, y, x)));
    if (e > most) most = e, x0 = r;
  }
  // The block's unitary inverse DFT, root sum of squares over the coils, each value divided by
  // sqrt(nx/cx · ny/cy) to the full image's scale; its median, 90th percentile and maximum.
  const std::size_t m = static_cast<std::size_t>(cx) * cy;
  std::vector<cfloat> block(m);
  std::vector<double> rss2(m, 0.0);
  const double unitary = std::sqrt(static_cast<double>(m));  // centred_ifft2 divides by cx·cy
  for (int c = 0; c < coils; ++c) {
    for (int y = 0; y < cy; ++y)
      for (int x = 0; x < cx; ++x) block[static_cast<std::size_t>(y) * cx + x] = at(c, y0 + y, x0 + x);
    const std::vector<cfloat> im = centred_ifft2(block.data(), cx, cy);
    for (std::size_t i = 0; i < m; ++i) rss2[i] += std::norm(std::complex<double>(im[i]) * unitary);
  }
  std::sort(rss2.begin(), rss2.end());
  const double rescale = std::sqrt(static_cast<double>(nx) / cx) * std::sqrt(static_cast<double>(ny) / cy);
  const double median = std::sqrt(rss2[m / 2]) / rescale,
               p90 = std::sqrt(rss2[static_cast<std::size_t>(std::trunc(0.9 * static_cast<double>(m)))]) / rescale,
               max = std::sqrt(rss2.back()) / rescale;
  const double scale = (max - p90) < 2 * (p90 - median) ? p90 : max;
  return scale > 0 ? scale : 1.0;
}

Image2D compressed_sensing(const RawData& raw, const std::vector<cfloat>& maps, const CsParams& p, CsReport* report,
                           const ProgressFn& progress, const CancelToken& cancel) {
  check_cartesian_slice("compressed-sensing", raw, maps);
  check_cs_params(p);
  const CartesianSenseOperator E(raw.nx, raw.ny, raw.ncoils, maps, line_mask(raw));
  Image2D out;
  out.nx = raw.nx;
  out.ny = raw.ny;
  out.fov_x_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  out.fov_y_m = raw.recon_fov_y_m > 0 ? raw.recon_fov_y_m : raw.fov_y_m;
  std::vector<cfloat> k = unitary_kspace(raw);
  const double scale = p.scale_data ? cs_data_scale(k, E.mask(), raw.nx, raw.ny, raw.ncoils) : 1.0;
  for (auto& v : k) v /= static_cast<float>(scale);
  out.data = cs_solve(E, k, p, report, progress, cancel);
  for (auto& v : out.data) v *= static_cast<float>(scale);
  if (report) report->data_scale = scale;
  return out;
}

Image2D reconstruct_compressed_sensing(const RawData& raw, const std::vector<cfloat>& maps, const CsParams& p,
                                       const ProgressFn& progress, const CancelToken& cancel) {
  Image2D im = compressed_sensing(raw, maps, p, nullptr, progress, cancel);
  weight_by_coil_rss(im, maps, raw.ncoils);
  return im;
}

}  // namespace mrwb
