// ESPIRiT from non-Cartesian data: the k-space centre gridded onto a Cartesian calibration block, then the
// Cartesian ESPIRiT (Uecker et al. 2014) onto the non-Cartesian reconstruction's image grid.
#include <algorithm>
#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/recon/espirit.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb {
namespace {

// Cells gridded beyond each edge of the block: the gridded centre is the samples' sinc interpolation (the
// Dirichlet kernel of the small grid), whose error from the data cut at the grid's edge falls off with the
// distance to it; the margin keeps that edge away from the block.
constexpr int k_margin = 4;

// The calib x calib block [coil][cy][cx] (k = 0 at calib/2) of the samples: those with max |k_j| < ng/2 on
// an ng = calib + 2·margin grid, gridded (density-compensated adjoint) to its image, centred DFT, centre cut.
std::vector<std::complex<float>> gridded_centre(const noncart::Samples& s, int calib) {
  const int ng = calib + 2 * k_margin;
  const double edge = ng / 2.0;
  const std::size_t M = s.count();
  noncart::Samples c;
  c.dims = 2;
  c.coils = s.coils;
  std::vector<std::size_t> keep;
  for (std::size_t m = 0; m < M; ++m)
    if (std::abs(s.k[2 * m]) < edge && std::abs(s.k[2 * m + 1]) < edge) keep.push_back(m);
  if (keep.empty())
    throw InputError("espirit: no sample within the " + std::to_string(calib) + " x " + std::to_string(calib) +
                     " calibration region around k = 0 (allowed: trajectories through the k-space centre)");
  for (std::size_t m : keep) c.k.insert(c.k.end(), {s.k[2 * m], s.k[2 * m + 1]});
  c.d.assign(keep.size(), {1.f, 0.f});
  const noncart::Grid g{2, ng};
  const noncart::GriddingParams gp;  // Kaiser-Bessel, W = 4, alpha = 2, Pipe-Menon: the recon paths' defaults
  const std::vector<float> w = noncart::density_pipe_menon(g, c, gp);
  const noncart::Gridder gridder(g, gp);
  std::vector<std::complex<float>> block(static_cast<std::size_t>(s.coils) * calib * calib);
  std::vector<std::complex<float>> d(keep.size()), img(static_cast<std::size_t>(ng) * ng);
  for (int coil = 0; coil < s.coils; ++coil) {
    for (std::size_t i = 0; i < keep.size(); ++i) d[i] = s.d[static_cast<std::size_t>(coil) * M + keep[i]];
    const std::vector<noncart::cdouble> x = gridder.adjoint(c.k.data(), d.data(), w.data(), keep.size());
    std::transform(x.begin(), x.end(), img.begin(), [](noncart::cdouble v) { return std::complex<float>(v); });
    const std::vector<std::complex<float>> k = centred_fft2(img.data(), ng, ng);
    // k index j <-> ng/2 + kk; block index b <-> calib/2 + kk: j = b + ng/2 − calib/2.
    const int off = ng / 2 - calib / 2;
    for (int y = 0; y < calib; ++y)
      for (int x0 = 0; x0 < calib; ++x0)
        block[(static_cast<std::size_t>(coil) * calib + y) * calib + x0] =
            k[static_cast<std::size_t>(y + off) * ng + x0 + off];
  }
  return block;
}

}  // namespace

EspiritNoncartCalibration espirit_noncart_calibration(const RawData& raw, int matrix, const EspiritParams& p) {
  if (raw.cartesian())
    throw InputError("espirit: the data are Cartesian (allowed here: a 2-D trajectory; espirit_maps for Cartesian data)");
  if (raw.volume())
    throw InputError("espirit: " + std::to_string(raw.slices) + " slices x " + std::to_string(raw.partitions) +
                     " partitions (allowed: one 2-D slice)");
  const noncart::Samples s = noncart::samples_from_raw(raw);
  if (s.dims != 2) throw InputError("espirit: a 3-D trajectory (allowed: 2-D trajectories)");
  const int n = matrix > 0 ? matrix : noncart::default_matrix(s);
  if (p.kernel_size < 2 || p.calib_size < p.kernel_size || p.calib_size > n)
    throw InputError("espirit: calib_size " + std::to_string(p.calib_size) + " with kernel_size " +
                     std::to_string(p.kernel_size) + " on a " + std::to_string(n) +
                     "^2 matrix (allowed: 2 <= kernel_size <= calib_size <= matrix)");
  return {EspiritBlock{gridded_centre(s, p.calib_size), p.calib_size, p.calib_size, s.coils}, n};
}

EspiritMaps espirit_maps_noncart(const RawData& raw, int matrix, const EspiritParams& p) {
  const EspiritNoncartCalibration c = espirit_noncart_calibration(raw, matrix, p);
  return espirit_from_calibration(c.block.data, c.block.cx, c.block.cy, c.block.coils, c.matrix, c.matrix, p);
}

}  // namespace mrwb
