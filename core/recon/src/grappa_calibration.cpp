// GRAPPA autocalibration, CPU reference (Schneider 2008, Algorithms 4.2 and 4.3): build [B; A] from the
// ACS block, normalise per PE position (Psi = p^(-eta/2)), clip the strongest equations (improved),
// U = B A^H and V = A A^H in one product, Tikhonov lambda = chi·trace(V)/rows_a, Cholesky solve.
#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"

namespace mrwb {

void grappa_equation_scales(const GrappaGeometry& g, const std::complex<float>* acs, int seg, double eta, double clip,
                            std::vector<double>& scale) {
  const int neq = g.equations(), nr = g.rows(), nb = g.rows_b(), na = g.rows_a();
  std::vector<double> pcol(neq, 0.0);
  for (int e = 0; e < neq; ++e) {
    int i, x0;
    if (!grappa_equation(g, seg, e, i, x0)) continue;
    double pa = 0, pb = 0;
    for (int r = 0; r < nr; ++r) {
      int c, dy, dx;
      grappa_row_source(g, r, c, dy, dx);
      const double v = std::norm(std::complex<double>(acs[(static_cast<std::size_t>(c) * g.acs_lines + i + dy) * g.nx + x0 + dx]));
      (r < nb ? pb : pa) += v;
    }
    // Algorithm 4.2 weighs by the power of B; 4.3 by |a|^2·rows_b + |b|^2·rows_a.
    pcol[e] = g.basic ? pb : pa * nb + pb * na;
  }
  scale.assign(neq, 1.0);
  for (int i = 0; i < g.shifts_pe; ++i) {
    double p = 0;
    for (int c = 0; c < g.shifts_ro; ++c) p += pcol[i * g.shifts_ro + c];
    const double psi = p > 0 ? std::pow(p, -0.5 * eta) : 1.0;
    for (int c = 0; c < g.shifts_ro; ++c) scale[i * g.shifts_ro + c] = psi;
  }
  const int discard = g.basic ? 0 : static_cast<int>(clip * neq);
  if (discard > 0) {
    // Power clipping: drop the `discard` equations of highest power (ties at the threshold go too).
    std::vector<double> sorted = pcol;
    std::nth_element(sorted.begin(), sorted.begin() + (discard - 1), sorted.end(), std::greater<>());
    const double threshold = sorted[discard - 1];
    for (int e = 0; e < neq; ++e)
      if (pcol[e] >= threshold) scale[e] = 0.0;
  }
}

GrappaWeights grappa_calibrate(const RawData& raw, const GrappaParams& params) {
  using Mat = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic>;
  GrappaWeights out;
  out.geo = grappa_geometry(raw, params);
  const GrappaGeometry& g = out.geo;
  const auto acs = grappa_acs_block(raw, g);
  const int neq = g.equations(), nr = g.rows(), nb = g.rows_b(), na = g.rows_a();
  out.w.resize(out.size_per_segment() * g.nseg);
  out.lambda.resize(g.nseg);
  std::vector<double> scale;
  for (int seg = 0; seg < g.nseg; ++seg) {
    grappa_equation_scales(g, acs.data(), seg, params.eta, params.clip, scale);
    Mat M = Mat::Zero(nr, neq);  // [B; A], one equation per column
    for (int e = 0; e < neq; ++e) {
      int i, x0;
      if (!grappa_equation(g, seg, e, i, x0) || scale[e] == 0.0) continue;
      for (int r = 0; r < nr; ++r) {
        int c, dy, dx;
        grappa_row_source(g, r, c, dy, dx);
        M(r, e) = std::complex<double>(acs[(static_cast<std::size_t>(c) * g.acs_lines + i + dy) * g.nx + x0 + dx]) * scale[e];
      }
    }
    // [U; V] = [B; A]·A^H in one product (thesis Eq. 4.10 layout).
    const Mat C = M * M.bottomRows(na).adjoint();
    Mat V = C.bottomRows(na);
    const double lambda = params.lambda * V.trace().real() / na;
    V.diagonal().array() += lambda;
    Eigen::LLT<Mat> llt(V);
    if (llt.info() != Eigen::Success)
      throw std::runtime_error("grappa: calibration matrix not positive definite (raise --lambda)");
    // W V = U  <=>  V W^H = U^H (V Hermitian).
    const Mat W = llt.solve(C.topRows(nb).adjoint()).adjoint();
    for (int q = 0; q < nb; ++q)
      for (int r = 0; r < na; ++r) out.w[seg * out.size_per_segment() + static_cast<std::size_t>(q) * na + r] = W(q, r);
    out.lambda[seg] = lambda;
  }
  return out;
}

}  // namespace mrwb
