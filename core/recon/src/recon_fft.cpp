#include "mrwb/recon/recon_fft.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/recon/fft_layout.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"

namespace mrwb {
namespace {

// Symmetric grid length that holds n samples with k = 0 at index c, k = 0 landing on index N/2 (the
// centring of centred_ifft2); N = n when c is already n/2 (asymmetric echo / partial Fourier: zero-fill).
int symmetric_length(int n, int c) { return c == n / 2 ? n : 2 * std::max(c, n - c); }

// Pixels kept of an n-pixel axis spanning fov_m, for a recon FOV recon_fov_m (or recon_n pixels when the
// FOV is not known): readout oversampling is cropped after the inverse FFT.
int kept_pixels(int n, double fov_m, double recon_fov_m, int recon_n) {
  int keep = n;
  if (fov_m > 0 && recon_fov_m > 0 && recon_fov_m < fov_m) keep = static_cast<int>(std::lround(n * recon_fov_m / fov_m));
  else if (!(fov_m > 0 && recon_fov_m > 0) && recon_n > 0 && recon_n < n) keep = recon_n;
  return std::clamp(keep, 1, n);
}

}  // namespace

FftLayout fft_layout(const RawData& raw) {
  if (raw.nx <= 0 || raw.ny <= 0 || raw.ncoils <= 0 ||
      raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError("recon: k-space size does not match its header");
  if (!raw.cartesian())
    throw InputError("recon --method fft: the data are non-Cartesian (they have a trajectory); use --method gridding or cg");
  const int cs = raw.k0_sample(), cl = raw.k0_line();
  if (cs < 0 || cs >= raw.nx || cl < 0 || cl >= raw.ny)
    throw InputError("recon: k-space centre (sample " + std::to_string(cs) + ", line " + std::to_string(cl) +
                     ") lies outside the " + std::to_string(raw.nx) + " x " + std::to_string(raw.ny) + " data");
  FftLayout l;
  l.Nx = symmetric_length(raw.nx, cs);
  l.Ny = symmetric_length(raw.ny, cl);
  l.ox = l.Nx / 2 - cs;
  l.oy = l.Ny / 2 - cl;
  l.kx = kept_pixels(l.Nx, raw.fov_x_m, raw.recon_fov_x_m, raw.recon_nx);
  l.ky = kept_pixels(l.Ny, raw.fov_y_m, raw.recon_fov_y_m, raw.recon_ny);
  l.x0 = l.Nx / 2 - l.kx / 2;
  l.y0 = l.Ny / 2 - l.ky / 2;
  return l;
}

Image2D fft_image(const RawData& raw, const FftLayout& l) {
  Image2D img;
  img.nx = l.kx;
  img.ny = l.ky;
  img.fov_x_m = raw.fov_x_m * l.kx / l.Nx;
  img.fov_y_m = raw.fov_y_m * l.ky / l.Ny;
  img.data.assign(img.size(), {});
  return img;
}

Image2D reconstruct_fft(const RawData& raw_in) {
  const FftLayout l = fft_layout(raw_in);
  // Noise prewhitening (multi-coil data with a noise scan); scale-preserving, see noise_prewhitening.hpp.
  const RawData white = raw_in.noise.empty() || raw_in.ncoils < 2 ? RawData{} : prewhitened(raw_in);
  const RawData& raw = raw_in.noise.empty() || raw_in.ncoils < 2 ? raw_in : white;
  const int Nx = l.Nx, Ny = l.Ny, kx = l.kx, ky = l.ky;
  Image2D img = fft_image(raw, l);
  std::vector<std::complex<float>> grid;
  std::vector<float> sos(raw.ncoils > 1 ? img.size() : 0, 0.f);
  for (int c = 0; c < raw.ncoils; ++c) {
    const std::complex<float>* k = &raw.kspace[raw.index(c, 0, 0)];
    if (Nx != raw.nx || Ny != raw.ny) {
      grid.assign(static_cast<std::size_t>(Nx) * Ny, {});
      for (int y = 0; y < raw.ny; ++y)
        std::copy_n(k + static_cast<std::size_t>(y) * raw.nx, raw.nx,
                    grid.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y + l.oy) * Nx + l.ox));
      k = grid.data();
    }
    const auto coil = centred_ifft2(k, Nx, Ny);
    for (int y = 0; y < ky; ++y)
      for (int x = 0; x < kx; ++x) {
        const auto v = coil[static_cast<std::size_t>(y + l.y0) * Nx + x + l.x0];
        if (raw.ncoils == 1) img.data[static_cast<std::size_t>(y) * kx + x] = v;
        else sos[static_cast<std::size_t>(y) * kx + x] += std::norm(v);
      }
  }
  if (raw.ncoils > 1)
    for (std::size_t i = 0; i < sos.size(); ++i) img.data[i] = std::sqrt(sos[i]);
  return img;
}

Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                    const CancelToken& cancel) {
  cancel.throw_if_cancelled();
  return make_reconstructor(options.method, options.backend)->reconstruct(raw, options, progress, cancel);
}

}  // namespace mrwb
