#include "mrwb/recon/cg_sense.hpp"

#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"

namespace mrwb {
namespace {

using cfloat = std::complex<float>;

double norm2(const std::vector<cfloat>& v) {
  double s = 0;
  for (const auto& a : v) s += std::norm(std::complex<double>(a));
  return s;
}

}  // namespace

std::vector<cfloat> cg_sense_solve(const CartesianSenseOperator& E, const std::vector<cfloat>& k,
                                   const CgSenseParams& p, CgSenseReport* report, const ProgressFn& progress,
                                   const CancelToken& cancel) {
  const std::size_t n = E.plane();
  std::vector<cfloat> x(n), r = E.adjoint(k), d = r, q;
  const double bnorm = std::sqrt(norm2(r));
  double rr = norm2(r);
  CgSenseReport rep;
  for (int it = 0; it < p.iterations && bnorm > 0; ++it) {
    cancel.throw_if_cancelled();
    E.normal(d, q);
    double dq = 0;
    for (std::size_t i = 0; i < n; ++i) {
      q[i] += static_cast<float>(p.lambda) * d[i];
      dq += (std::conj(std::complex<double>(d[i])) * std::complex<double>(q[i])).real();
    }
    if (dq <= 0) break;
    const float alpha = static_cast<float>(rr / dq);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * d[i];
      r[i] -= alpha * q[i];
    }
    const double rr_new = norm2(r);
    rep.iterations = it + 1;
    rep.relative_residual = std::sqrt(rr_new) / bnorm;
    rep.residuals.push_back(rep.relative_residual);
    if (progress) progress(double(it + 1) / p.iterations, "cg-sense");
    if (rep.relative_residual < p.tolerance) break;
    const float beta = static_cast<float>(rr_new / rr);
    rr = rr_new;
    for (std::size_t i = 0; i < n; ++i) d[i] = r[i] + beta * d[i];
  }
  if (report) *report = std::move(rep);
  return x;
}

void check_cg_sense_input(const RawData& raw, const std::vector<cfloat>& maps, const CgSenseParams& p) {
  check_cartesian_slice("cg-sense", raw, maps);
  if (p.iterations < 1)
    throw InputError("cg-sense: iterations = " + std::to_string(p.iterations) + " (allowed: >= 1)");
  if (!(p.lambda >= 0)) throw InputError("cg-sense: lambda = " + fixed_number_text(p.lambda) + " (allowed: >= 0)");
  if (!(p.tolerance >= 0))
    throw InputError("cg-sense: tolerance = " + fixed_number_text(p.tolerance) + " (allowed: >= 0)");
}

Image2D cg_sense(const RawData& raw, const std::vector<cfloat>& maps, const CgSenseParams& p, CgSenseReport* report,
                 const ProgressFn& progress, const CancelToken& cancel) {
  check_cg_sense_input(raw, maps, p);
  const CartesianSenseOperator E(raw.nx, raw.ny, raw.ncoils, maps, line_mask(raw));
  Image2D out;
  out.nx = raw.nx;
  out.ny = raw.ny;
  out.fov_x_m = raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m;
  out.fov_y_m = raw.recon_fov_y_m > 0 ? raw.recon_fov_y_m : raw.fov_y_m;
  out.data = cg_sense_solve(E, unitary_kspace(raw), p, report, progress, cancel);
  return out;
}

void weight_by_coil_rss(Image2D& image, const std::vector<cfloat>& maps, int coils) {
  const std::size_t plane = image.size();
  for (std::size_t i = 0; i < plane; ++i) {
    double ss = 0;
    for (int c = 0; c < coils; ++c) ss += std::norm(maps[c * plane + i]);
    image.data[i] *= static_cast<float>(std::sqrt(ss));
  }
}

Image2D reconstruct_cg_sense(const RawData& raw, const std::vector<cfloat>& maps, const CgSenseParams& p,
                             const ProgressFn& progress, const CancelToken& cancel) {
  Image2D im = cg_sense(raw, maps, p, nullptr, progress, cancel);
  weight_by_coil_rss(im, maps, raw.ncoils);
  return im;
}

}  // namespace mrwb
