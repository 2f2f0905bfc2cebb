#include "mrwb/recon_fft.hpp"

#include <fftw3.h>

#include <cmath>
#include <mutex>
#include <stdexcept>

#include "mrwb/errors.hpp"

namespace mrwb {
namespace {

// FFTW's planner is not thread-safe; execution is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

// Centred inverse DFT of one coil: k index s <-> k = (s − n/2)/FOV, image index i <-> x = (i − n/2)·dx.
// The centring is an index roll on both sides (ifftshift before, fftshift after).
std::vector<std::complex<float>> centred_ifft2(const std::complex<float>* k, int nx, int ny) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  auto* buf = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * n));
  if (!buf) throw std::runtime_error("fft: out of memory");
  fftwf_plan plan;
  {
    std::lock_guard lock(planner_mutex());
    plan = fftwf_plan_dft_2d(ny, nx, buf, buf, FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const auto v = k[static_cast<std::size_t>((y + ny / 2) % ny) * nx + (x + nx / 2) % nx];
      buf[static_cast<std::size_t>(y) * nx + x][0] = v.real();
      buf[static_cast<std::size_t>(y) * nx + x][1] = v.imag();
    }
  fftwf_execute(plan);
  std::vector<std::complex<float>> img(n);
  const float norm = 1.0f / static_cast<float>(n);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const auto* v = buf[static_cast<std::size_t>((y + ny / 2) % ny) * nx + (x + nx / 2) % nx];
      img[static_cast<std::size_t>(y) * nx + x] = {v[0] * norm, v[1] * norm};
    }
  {
    std::lock_guard lock(planner_mutex());
    fftwf_destroy_plan(plan);
  }
  fftwf_free(buf);
  return img;
}

Image2D reconstruct_fft(const RawData& raw) {
  if (raw.nx <= 0 || raw.ny <= 0 || raw.ncoils <= 0 ||
      raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError("recon: k-space size does not match its header");
  Image2D img;
  img.nx = raw.nx;
  img.ny = raw.ny;
  img.fov_x_m = raw.fov_x_m;
  img.fov_y_m = raw.fov_y_m;
  if (raw.ncoils == 1) {
    img.data = centred_ifft2(raw.kspace.data(), raw.nx, raw.ny);
    return img;
  }
  std::vector<float> sos(img.size(), 0.f);
  for (int c = 0; c < raw.ncoils; ++c) {
    const auto coil = centred_ifft2(&raw.kspace[raw.index(c, 0, 0)], raw.nx, raw.ny);
    for (std::size_t i = 0; i < sos.size(); ++i) sos[i] += std::norm(coil[i]);
  }
  img.data.resize(img.size());
  for (std::size_t i = 0; i < sos.size(); ++i) img.data[i] = std::sqrt(sos[i]);
  return img;
}

Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                    const CancelToken& cancel) {
  cancel.throw_if_cancelled();
  return make_reconstructor(options.method, options.backend)->reconstruct(raw, options, progress, cancel);
}

}  // namespace mrwb
