#include "mrwb/recon/velocity.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/recon_fft.hpp"

namespace mrwb {
namespace {

using cplx = std::complex<float>;

// One coil's complex image of a segment through the FFT reconstruction (readout crop and partial Fourier
// handled there).
Image2D coil_image(const RawData& raw, int coil) {
  RawData one = raw;
  one.ncoils = 1;
  const std::size_t n = static_cast<std::size_t>(raw.ny) * raw.nx;
  one.kspace.assign(raw.kspace.begin() + coil * n, raw.kspace.begin() + (coil + 1) * n);
  one.noise.clear();
  one.noise_samples = 0;
  return reconstruct_fft(one);
}

}  // namespace

VelocityMap velocity_map(const std::vector<RawData>& segments, const std::vector<int>& axes, double venc_m_per_s,
                         VencEncoding encoding, double mask_fraction) {
  const std::size_t need = encoding == VencEncoding::Referenced ? 1 + axes.size() : 2 * axes.size();
  if (axes.empty() || axes.size() > 3 || segments.size() != need)
    throw InputError("phase contrast: " + std::to_string(segments.size()) + " segments for " + std::to_string(axes.size()) +
                     " encoded axes (allowed: 1 to 3 axes, " + std::to_string(need) + " segments)");
  if (!(venc_m_per_s > 0)) throw InputError("phase contrast: venc_m_per_s must be > 0");
  const RawData& first = segments.front();
  for (const RawData& r : segments)
    if (r.nx != first.nx || r.ny != first.ny || r.ncoils != first.ncoils || !r.cartesian())
      throw InputError("phase contrast: segments differ in matrix or coils, or are not Cartesian (allowed: one Cartesian grid)");

  // [segment][coil] complex images.
  std::vector<std::vector<Image2D>> img(segments.size());
  for (std::size_t s = 0; s < segments.size(); ++s)
    for (int c = 0; c < first.ncoils; ++c) img[s].push_back(coil_image(segments[s], c));
  const Image2D& grid = img[0][0];
  VelocityMap m;
  m.nx = grid.nx;
  m.ny = grid.ny;
  m.fov_x_m = grid.fov_x_m;
  m.fov_y_m = grid.fov_y_m;
  m.venc_m_per_s = venc_m_per_s;
  m.axes = axes;
  const std::size_t n = grid.size();
  m.magnitude.assign(n, 0.f);
  for (const Image2D& c : img[0])
    for (std::size_t i = 0; i < n; ++i) m.magnitude[i] += std::norm(c.data[i]);
  for (float& v : m.magnitude) v = std::sqrt(v);
  const float peak = *std::max_element(m.magnitude.begin(), m.magnitude.end());
  m.mask.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) m.mask[i] = peak > 0 && m.magnitude[i] >= mask_fraction * peak;

  for (std::size_t a = 0; a < axes.size(); ++a) {
    const std::size_t plus = encoding == VencEncoding::Referenced ? 1 + a : 2 * a;
    const std::size_t minus = encoding == VencEncoding::Referenced ? 0 : 2 * a + 1;
    std::vector<float> v(n, 0.f);
    for (std::size_t i = 0; i < n; ++i) {
      if (!m.mask[i]) continue;
      std::complex<double> z{};
      for (int c = 0; c < first.ncoils; ++c) z += std::complex<double>(img[plus][c].data[i] * std::conj(img[minus][c].data[i]));
      v[i] = static_cast<float>(-std::arg(z) / M_PI * venc_m_per_s);
    }
    m.v_m_per_s.push_back(std::move(v));
  }
  return m;
}

}  // namespace mrwb
