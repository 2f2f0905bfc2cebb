// GRAPPA synthesis, CPU reference: for every group of R−1 missing lines, the source vectors of all
// columns form a matrix A_syn (rows_a x nx) and the missing samples are [W_0; ..; W_nseg-1]·A_syn
// (the same product the GPU runs as one CGEMM); basic weights blend linearly between segment centres.
#include <Eigen/Dense>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"

namespace mrwb {

std::vector<std::complex<float>> grappa_synthesize(const RawData& raw, const GrappaWeights& weights) {
  using MatF = Eigen::Matrix<std::complex<float>, Eigen::Dynamic, Eigen::Dynamic>;
  const GrappaGeometry& g = weights.geo;
  if (raw.ncoils != g.ncoils)
    throw InputError("grappa: coil count mismatch: weights calibrated for " + std::to_string(g.ncoils) +
                     " coils, raw data has " + std::to_string(raw.ncoils));
  if (raw.nx != g.nx || raw.ny != g.ny || raw.accel_R != g.R ||
      raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError("grappa: raw data size or accel_R differs from the calibration (nx, ny, R must match)");
  const int na = g.rows_a(), nb = g.rows_b(), nx = g.nx;
  MatF Wstack(g.nseg * nb, na);
  for (int s = 0; s < g.nseg; ++s)
    for (int q = 0; q < nb; ++q)
      for (int r = 0; r < na; ++r)
        Wstack(s * nb + q, r) = std::complex<float>(weights.w[s * weights.size_per_segment() + static_cast<std::size_t>(q) * na + r]);
  auto missing = [&](int y) { return y >= 0 && y < g.ny && !(raw.flags(y) & kLineAcquired); };
  auto acquired = [&](int y) { return y >= 0 && y < g.ny && (raw.flags(y) & kLineAcquired); };

  std::vector<std::complex<float>> out = raw.kspace;
  MatF As(na, nx), Y;
  for (int t = 0; t < g.syn_groups; ++t) {
    const int base = grappa_group_base(g, t);
    bool any = false;
    for (int m = 1; m < g.R; ++m) any |= missing(base + m);
    if (!any) continue;
    const int y0 = base - g.delta_pe;
    As.setZero();
    for (int r = 0; r < na; ++r) {
      int c, dy, dx;
      grappa_row_source(g, nb + r, c, dy, dx);
      if (!acquired(y0 + dy)) continue;
      for (int x = 0; x < nx; ++x) {
        const int xs = x - g.delta_ro + dx;
        if (xs >= 0 && xs < nx) As(r, x) = raw.at(c, y0 + dy, xs);
      }
    }
    Y.noalias() = Wstack * As;
    for (int q = 0; q < nb; ++q) {
      const int c = q / (g.R - 1), y = base + q % (g.R - 1) + 1;
      if (!missing(y)) continue;
      for (int x = 0; x < nx; ++x) {
        int s0, s1;
        float w;
        grappa_segment_blend(g, x, s0, s1, w);
        out[raw.index(c, y, x)] = (1.f - w) * Y(s0 * nb + q, x) + w * Y(s1 * nb + q, x);
      }
    }
  }
  return out;
}

}  // namespace mrwb
