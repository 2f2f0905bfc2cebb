#include "mrwb/metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

// Mean SSIM (Wang et al. 2004) with a uniform window over the valid interior, as scikit-image's default
// (7 voxels per axis; a volume of fewer than 7 planes: 7×7 windows in each plane), sample covariance (N − 1).
double mean_ssim(const std::vector<float>& a, const std::vector<float>& b, int nx, int ny, int nz, double L) {
  constexpr int w = 7;
  const int wz = nz >= w ? w : 1;
  if (nx < w || ny < w || L <= 0) return a == b ? 1.0 : 0.0;
  const double C1 = (0.01 * L) * (0.01 * L), C2 = (0.03 * L) * (0.03 * L);
  const double N = static_cast<double>(w) * w * wz;
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  double total = 0;
  std::size_t count = 0;
  for (int z0 = 0; z0 + wz <= nz; ++z0) {
    for (int y0 = 0; y0 + w <= ny; ++y0) {
      for (int x0 = 0; x0 + w <= nx; ++x0) {
        double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
        for (int z = z0; z < z0 + wz; ++z)
          for (int y = y0; y < y0 + w; ++y)
            for (int x = x0; x < x0 + w; ++x) {
              const std::size_t i = z * plane + static_cast<std::size_t>(y) * nx + x;
              const double va = a[i], vb = b[i];
              sa += va;
              sb += vb;
              saa += va * va;
              sbb += vb * vb;
              sab += va * vb;
            }
        const double ma = sa / N, mb = sb / N;
        const double va = (saa - N * ma * ma) / (N - 1), vb = (sbb - N * mb * mb) / (N - 1);
        const double cab = (sab - N * ma * mb) / (N - 1);
        total += ((2 * ma * mb + C1) * (2 * cab + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
        ++count;
      }
    }
  }
  return total / static_cast<double>(count);
}

}  // namespace

Metrics compare_images(const std::vector<float>& image, const std::vector<float>& reference, int nx, int ny) {
  return compare_volumes(image, reference, nx, ny, 1);
}

Metrics compare_volumes(const std::vector<float>& image, const std::vector<float>& reference, int nx, int ny, int nz) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny * nz;
  if (image.size() != n || reference.size() != n)
    throw InputError("compare: image is " + std::to_string(image.size()) + " pixels, reference " +
                     std::to_string(reference.size()) + "; they must have the same size");
  double se = 0, sr = 0;
  float rmax = -std::numeric_limits<float>::infinity(), rmin = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(image[i]) - reference[i];
    se += d * d;
    sr += static_cast<double>(reference[i]) * reference[i];
    rmax = std::max(rmax, std::abs(reference[i]));
    rmin = std::min(rmin, reference[i]);
  }
  Metrics m;
  const double mse = se / n;
  const double rms_err = std::sqrt(mse);
  const double range = static_cast<double>(rmax) - rmin;
  // Each figure divides by the reference (its peak, RMS or range): against a reference that has none, an
  // image that differs has no figure (NaN, never a flattering 0), one that equals it is perfect.
  const double undefined = std::numeric_limits<double>::quiet_NaN();
  m.psnr_db = mse == 0 ? std::numeric_limits<double>::infinity() : rmax > 0 ? 20.0 * std::log10(rmax / rms_err) : undefined;
  m.percent_error = se == 0 ? 0.0 : sr > 0 ? 100.0 * std::sqrt(se / sr) : undefined;
  m.nrmse = se == 0 ? 0.0 : range > 0 ? rms_err / range : undefined;
  m.ssim = mean_ssim(image, reference, nx, ny, nz, range);
  return m;
}

std::vector<float> error_map(const std::vector<float>& image, const std::vector<float>& reference) {
  if (image.size() != reference.size()) throw InputError("error map: image and reference differ in size");
  std::vector<float> e(image.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = image[i] - reference[i];
  return e;
}

}  // namespace mrwb
