// GRAPPA coil combination, CPU reference: per-coil centred iFFT (FFTW), readout-oversampling crop, then
// root sum of squares or a sensitivity-weighted sum sum_c conj(s_c)·I_c with s_c = L_c / sqrt(sum |L|^2 + eps^2),
// L_c the low-resolution coil image of the Hann-windowed ACS lines; eps = 1e-3·max sqrt(sum |L|^2) fades the
// sensitivities where no coil sees signal (background), where L/|L| would be rounding noise.
#include <algorithm>
#include <cmath>

#include "mrwb/base/fft.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/recon_fft.hpp"

namespace mrwb {

// Same rule as reconstruct_fft: the recon FOV when both FOVs are known, else recon_nx pixels.
void grappa_crop(const RawData& raw, int& x_first, int& width) {
  width = raw.nx;
  if (raw.fov_x_m > 0 && raw.recon_fov_x_m > 0 && raw.recon_fov_x_m < raw.fov_x_m)
    width = static_cast<int>(std::lround(raw.nx * raw.recon_fov_x_m / raw.fov_x_m));
  else if (!(raw.fov_x_m > 0 && raw.recon_fov_x_m > 0) && raw.recon_nx > 0 && raw.recon_nx < raw.nx)
    width = raw.recon_nx;
  width = std::clamp(width, 1, raw.nx);
  x_first = raw.nx / 2 - width / 2;  // keeps x = 0 at index width/2
}

float grappa_sensitivity_floor2(const std::vector<float>& norm2) {
  const float peak = norm2.empty() ? 0.f : *std::max_element(norm2.begin(), norm2.end());
  return 1e-6f * peak;  // (1e-3 · max rss)^2
}

Image2D grappa_combine(const RawData& raw, const GrappaGeometry& g, const std::vector<std::complex<float>>& kspace,
                       const std::string& combine) {
  int x_first, width;
  grappa_crop(raw, x_first, width);
  const int nx = raw.nx, ny = raw.ny;
  Image2D img;
  img.nx = width;
  img.ny = ny;
  img.fov_x_m = raw.fov_x_m * width / nx;
  img.fov_y_m = raw.fov_y_m;
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  auto crop_at = [&](int y, int x) { return static_cast<std::size_t>(y) * nx + x_first + x; };

  if (combine == "sensitivity") {
    std::vector<std::complex<float>> sum(img.size()), low_k(plane);
    std::vector<float> norm2(img.size(), 0.f);
    std::vector<std::vector<std::complex<float>>> low(raw.ncoils);
    const auto win = grappa_acs_window(g.acs_lines);
    for (int c = 0; c < raw.ncoils; ++c) {
      std::fill(low_k.begin(), low_k.end(), std::complex<float>());
      for (int l = 0; l < g.acs_lines; ++l)
        for (int x = 0; x < nx; ++x)
          low_k[static_cast<std::size_t>(g.acs_first + l) * nx + x] =
              win[l] * kspace[c * plane + static_cast<std::size_t>(g.acs_first + l) * nx + x];
      low[c] = centred_ifft2(low_k.data(), nx, ny);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < width; ++x) norm2[static_cast<std::size_t>(y) * width + x] += std::norm(low[c][crop_at(y, x)]);
    }
    const float eps2 = grappa_sensitivity_floor2(norm2);
    for (int c = 0; c < raw.ncoils; ++c) {
      const auto coil = centred_ifft2(&kspace[c * plane], nx, ny);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < width; ++x) {
          const std::size_t o = static_cast<std::size_t>(y) * width + x;
          const float n = std::sqrt(norm2[o] + eps2);
          if (n > 0) sum[o] += std::conj(low[c][crop_at(y, x)] / n) * coil[crop_at(y, x)];
        }
    }
    img.data = std::move(sum);
    return img;
  }
  std::vector<float> sos(img.size(), 0.f);
  for (int c = 0; c < raw.ncoils; ++c) {
    const auto coil = centred_ifft2(&kspace[c * plane], nx, ny);
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < width; ++x) sos[static_cast<std::size_t>(y) * width + x] += std::norm(coil[crop_at(y, x)]);
  }
  img.data.resize(img.size());
  for (std::size_t i = 0; i < sos.size(); ++i) img.data[i] = std::sqrt(sos[i]);
  return img;
}

}  // namespace mrwb
