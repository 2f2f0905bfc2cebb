#include "mrwb/base/fft.hpp"

#include <fftw3.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace mrwb {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

void fftw_plan_threads_locked(std::size_t points) {
  static const bool ready = fftw_init_threads() != 0;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  if (ready) fftw_plan_with_nthreads(points >= k_fft_threaded_points ? static_cast<int>(hw) : 1);
}

// Centred inverse DFT of one coil: k index s <-> k = (s − n/2)/FOV, image index i <-> x = (i − n/2)·dx
// (n/2 rounded down, also for odd n). The centring is an index roll on both sides.
std::vector<std::complex<float>> centred_ifft2(const std::complex<float>* k, int nx, int ny) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  auto* buf = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * n));
  if (!buf) throw std::runtime_error("fft: out of memory");
  fftwf_plan plan;
  {
    std::lock_guard lock(fftw_planner_mutex());
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
      // x = i − n/2 sits at DFT index (i − n/2) mod n (the same as i + n/2 for even n; odd n: kz partitions).
      const auto* v = buf[static_cast<std::size_t>((y + ny - ny / 2) % ny) * nx + (x + nx - nx / 2) % nx];
      img[static_cast<std::size_t>(y) * nx + x] = {v[0] * norm, v[1] * norm};
    }
  {
    std::lock_guard lock(fftw_planner_mutex());
    fftwf_destroy_plan(plan);
  }
  fftwf_free(buf);
  return img;
}

std::vector<std::complex<float>> centred_fft2(const std::complex<float>* image, int nx, int ny) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  std::vector<std::complex<float>> conj_image(image, image + n);
  for (auto& v : conj_image) v = std::conj(v);
  std::vector<std::complex<float>> k = centred_ifft2(conj_image.data(), nx, ny);
  for (auto& v : k) v = std::conj(v) * static_cast<float>(n);
  return k;
}

}  // namespace mrwb
