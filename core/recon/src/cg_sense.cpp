#include "mrwb/recon/cg_sense.hpp"

#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/recon/iter/conjugate_gradient.hpp"
#include "mrwb/recon/iter/host_vector_ops.hpp"

namespace mrwb {
namespace {

using cfloat = std::complex<float>;

}  // namespace

std::vector<cfloat> cg_sense_solve(const CartesianSenseOperator& E, const std::vector<cfloat>& k,
                                   const CgSenseParams& p, CgSenseReport* report, const ProgressFn& progress,
                                   const CancelToken& cancel) {
  const iter::HostVectorOps ops{E.plane()};
  auto normal = [&](const std::vector<cfloat>& d, std::vector<cfloat>& q) {  // (E^H E + lambda I) d
    E.normal(d, q);
    ops.axpy(p.lambda, d, q);
  };
  iter::CgConfig cfg;
  cfg.max_iterations = p.iterations;
  cfg.tolerance = p.tolerance;
  cfg.stage = "cg-sense";
  cfg.progress = progress;
  cfg.cancel = &cancel;
  std::vector<cfloat> x(E.plane());
  CgSenseReport rep = iter::conjugate_gradient(ops, normal, E.adjoint(k), x, cfg);
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
