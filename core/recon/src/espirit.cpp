// ESPIRiT from raw data: the calibration block around k = 0, the refusals, the maps on the FFT's image grid.
#include "mrwb/recon/espirit.hpp"

#include <algorithm>
#include <string>

#include "espirit_stages.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/recon/fft_layout.hpp"

namespace mrwb {
namespace {

void check_params(const EspiritParams& p) {
  if (!(p.crop >= 0 && p.crop <= 1))
    throw InputError("espirit: crop " + number_text(p.crop) + " outside the allowed [0, 1]");
  if (!(p.svd_threshold >= 0 && p.svd_threshold <= 1))
    throw InputError("espirit: svd_threshold " + number_text(p.svd_threshold) + " outside the allowed [0, 1]");
  if (p.kernel_size < 2 || p.kernel_size > p.calib_size)
    throw InputError("espirit: kernel_size " + std::to_string(p.kernel_size) + " outside the allowed [2, calib_size = " +
                     std::to_string(p.calib_size) + "]");
}

// The largest n <= cap with the centred run [k0 − n/2, k0 − n/2 + n) inside [lo, hi] (0 when k0 is outside).
int centred_run(int k0, int lo, int hi, int cap) {
  int n = std::min(cap, hi - lo + 1);
  while (n > 0 && (k0 - n / 2 < lo || k0 - n / 2 + n - 1 > hi)) --n;
  return n;
}

// Fully acquired lines around k0: the contiguous run of acquired lines holding it.
int calibration_lines(const RawData& raw, int cap) {
  const int k0 = raw.k0_line();
  if (k0 < 0 || k0 >= raw.ny || !(raw.flags(k0) & kLineAcquired)) return 0;
  int lo = k0, hi = k0;
  while (lo > 0 && (raw.flags(lo - 1) & kLineAcquired)) --lo;
  while (hi + 1 < raw.ny && (raw.flags(hi + 1) & kLineAcquired)) ++hi;
  return centred_run(k0, lo, hi, cap);
}

int calibration_samples(const RawData& raw, int cap) { return centred_run(raw.k0_sample(), 0, raw.nx - 1, cap); }

}  // namespace

void check_espirit_input(const RawData& raw, const EspiritParams& p) {
  if (!raw.cartesian())
    throw InputError("espirit: the data are non-Cartesian (they have a trajectory) (allowed: Cartesian raw data; "
                     "espirit_maps_noncart for a trajectory)");
  if (raw.volume())
    throw InputError("espirit: " + std::to_string(raw.slices) + " slices x " + std::to_string(raw.partitions) +
                     " partitions (allowed: one 2-D slice; extract_slice first)");
  check_raw_layout(raw);
  check_params(p);
  const int matrix = std::min(raw.nx, raw.ny);
  if (p.calib_size < p.kernel_size || p.calib_size > matrix)
    throw InputError("espirit: calib_size " + std::to_string(p.calib_size) + " outside the allowed [kernel_size = " +
                     std::to_string(p.kernel_size) + ", min(nx, ny) = " + std::to_string(matrix) + "]");
  const int need = p.kernel_size + 1;
  const int lines = calibration_lines(raw, raw.ny), samples = calibration_samples(raw, raw.nx);
  if (lines < need)
    throw InputError("espirit: ESPIRiT needs a fully sampled calibration region of at least " + std::to_string(need) +
                     " lines around k = 0 (got " + std::to_string(lines) +
                     "; allowed: >= kernel_size + 1 acquired lines, e.g. ACS lines)");
  if (samples < need)
    throw InputError("espirit: ESPIRiT needs a calibration region of at least " + std::to_string(need) +
                     " samples around k = 0 along the readout (got " + std::to_string(samples) +
                     "; allowed: >= kernel_size + 1)");
}

void check_espirit_calibration(const EspiritBlock& b, int nx, int ny, const EspiritParams& p) {
  check_params(p);
  if (nx < 1 || ny < 1)
    throw InputError("espirit: image grid " + std::to_string(nx) + " x " + std::to_string(ny) + " (allowed: >= 1 x 1)");
  const int k = p.kernel_size;
  if (b.cx < k || b.cy < k)
    throw InputError("espirit: kernel_size " + std::to_string(k) + " with a " + std::to_string(b.cx) + " x " +
                     std::to_string(b.cy) + " calibration block (allowed: 2 .. the block's size)");
  if (b.coils < 1 || b.data.size() != static_cast<std::size_t>(b.cx) * b.cy * b.coils)
    throw InputError("espirit: calibration block of " + std::to_string(b.data.size()) + " values (allowed: coils x cy x cx = " +
                     std::to_string(static_cast<std::size_t>(b.cx) * b.cy * b.coils) + ")");
}

EspiritMaps espirit_from_calibration(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils, int nx,
                                     int ny, const EspiritParams& p) {
  check_espirit_calibration(EspiritBlock{calib, cx, cy, coils}, nx, ny, p);
  return espirit::eigenmaps(espirit::calibrate(calib, cx, cy, coils, p), nx, ny, p.crop);
}

EspiritBlock espirit_calibration_block(const RawData& raw, const EspiritParams& p) {
  check_espirit_input(raw, p);
  EspiritBlock b;
  b.cy = calibration_lines(raw, p.calib_size);
  b.cx = calibration_samples(raw, p.calib_size);
  b.coils = raw.ncoils;
  const int y0 = raw.k0_line() - b.cy / 2, x0 = raw.k0_sample() - b.cx / 2;
  b.data.resize(static_cast<std::size_t>(b.coils) * b.cy * b.cx);
  for (int c = 0; c < b.coils; ++c)
    for (int y = 0; y < b.cy; ++y)
      for (int x = 0; x < b.cx; ++x)
        b.data[(static_cast<std::size_t>(c) * b.cy + y) * b.cx + x] = raw.at(c, y0 + y, x0 + x);
  return b;
}

EspiritMaps espirit_crop_to_image(const RawData& raw, EspiritMaps m) {
  const FftLayout l = fft_layout(raw);
  if (l.kx == l.Nx && l.ky == l.Ny) return m;
  // Readout oversampling: the central kx x ky pixels, as reconstruct_fft keeps them.
  const int C = m.coils;
  EspiritMaps cropped = m;
  cropped.nx = l.kx;
  cropped.ny = l.ky;
  const std::size_t plane = static_cast<std::size_t>(l.kx) * l.ky, big = static_cast<std::size_t>(l.Nx) * l.Ny;
  cropped.maps.assign(plane * C, {});
  cropped.eigenvalue.assign(plane, 0.f);
  for (int y = 0; y < l.ky; ++y)
    for (int x = 0; x < l.kx; ++x) {
      const std::size_t to = static_cast<std::size_t>(y) * l.kx + x,
                        from = static_cast<std::size_t>(y + l.y0) * l.Nx + x + l.x0;
      cropped.eigenvalue[to] = m.eigenvalue[from];
      for (int c = 0; c < C; ++c) cropped.maps[c * plane + to] = m.maps[c * big + from];
    }
  return cropped;
}

EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p) {
  const EspiritBlock b = espirit_calibration_block(raw, p);
  const FftLayout l = fft_layout(raw);
  return espirit_crop_to_image(raw, espirit_from_calibration(b.data, b.cx, b.cy, b.coils, l.Nx, l.Ny, p));
}

}  // namespace mrwb
