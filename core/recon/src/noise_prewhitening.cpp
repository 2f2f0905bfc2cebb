#include "mrwb/recon/noise_prewhitening.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <cmath>
#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {
using cd = std::complex<double>;
}

std::vector<cd> noise_covariance(const RawData& raw) {
  const int nc = raw.ncoils, ns = raw.noise_samples;
  if (ns <= 0 || raw.noise.size() != static_cast<std::size_t>(ns) * nc)
    throw InputError("noise: " + std::to_string(raw.noise.size()) + " values for " + std::to_string(ns) +
                     " samples x " + std::to_string(nc) + " coils");
  std::vector<cd> psi(static_cast<std::size_t>(nc) * nc, 0.0);
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j <= i; ++j) {
      cd acc = 0;
      const auto* a = &raw.noise[static_cast<std::size_t>(i) * ns];
      const auto* b = &raw.noise[static_cast<std::size_t>(j) * ns];
      for (int s = 0; s < ns; ++s) acc += cd(a[s]) * std::conj(cd(b[s]));
      psi[static_cast<std::size_t>(i) * nc + j] = acc / static_cast<double>(ns);
      psi[static_cast<std::size_t>(j) * nc + i] = std::conj(acc / static_cast<double>(ns));
    }
  return psi;
}

std::vector<cd> prewhitening_matrix(const RawData& raw, WhiteningScale scale) {
  const int nc = raw.ncoils;
  const auto psi = noise_covariance(raw);
  if (raw.noise_samples < nc)
    throw InputError("noise: " + std::to_string(raw.noise_samples) + " noise samples for " + std::to_string(nc) +
                     " coils (need at least as many samples as coils to prewhiten)");
  using Mat = Eigen::Matrix<cd, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Mat P = Eigen::Map<const Mat>(psi.data(), nc, nc);
  std::vector<cd> out(static_cast<std::size_t>(nc) * nc, 0.0);
  // A noise scan of exact zeros (noise-free simulation) carries no noise to whiten: W = I.
  if (P.diagonal().real().maxCoeff() == 0.0) {
    for (int i = 0; i < nc; ++i) out[static_cast<std::size_t>(i) * nc + i] = 1.0;
    return out;
  }
  const Eigen::LLT<Mat> llt(P);
  if (llt.info() != Eigen::Success)
    throw InputError("noise: covariance of the " + std::to_string(nc) +
                     " coils is not positive definite (a channel without noise, or channels that copy each other)");
  const double s = scale == WhiteningScale::snr_units ? std::sqrt(2.0) : std::sqrt(P.diagonal().real().mean());
  // W = s · L^{-1}: lower triangular.
  const Mat W = llt.matrixL().solve(Mat::Identity(nc, nc) * cd(s));
  Eigen::Map<Mat>(out.data(), nc, nc) = W;
  return out;
}

RawData prewhitened(const RawData& raw, WhiteningScale scale) {
  RawData out = raw;
  if (raw.ncoils < 2 || raw.noise_samples <= 0 || raw.noise.empty()) return out;
  const int nc = raw.ncoils;
  const auto W = prewhitening_matrix(raw, scale);
  auto apply = [&](const std::vector<std::complex<float>>& in, std::vector<std::complex<float>>& res, std::size_t per_coil) {
    std::vector<cd> v(static_cast<std::size_t>(nc));
    for (std::size_t p = 0; p < per_coil; ++p) {
      for (int c = 0; c < nc; ++c) v[static_cast<std::size_t>(c)] = in[static_cast<std::size_t>(c) * per_coil + p];
      for (int i = 0; i < nc; ++i) {
        cd acc = 0;
        for (int k = 0; k <= i; ++k) acc += W[static_cast<std::size_t>(i) * nc + k] * v[static_cast<std::size_t>(k)];
        res[static_cast<std::size_t>(i) * per_coil + p] = std::complex<float>(acc);
      }
    }
  };
  apply(raw.kspace, out.kspace, static_cast<std::size_t>(raw.nx) * raw.ny);
  apply(raw.noise, out.noise, static_cast<std::size_t>(raw.noise_samples));
  return out;
}

double noise_bandwidth_scale(double noise_dwell_s, double data_dwell_s, double relative_receiver_noise_bandwidth) {
  const double dwell_ratio = noise_dwell_s > 0 && data_dwell_s > 0 ? noise_dwell_s / data_dwell_s : 1.0;
  const double rnbw = relative_receiver_noise_bandwidth > 0 ? relative_receiver_noise_bandwidth : 1.0;
  return std::sqrt(dwell_ratio / rnbw);
}

}  // namespace mrwb
