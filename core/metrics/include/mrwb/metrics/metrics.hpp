#pragma once
// Image quality against a reference, on magnitudes, as in seeds 001/002.
#include <vector>

namespace mrwb {

struct Metrics {
  double psnr_db = 0;        // 20·log10(max|I0| / sqrt(MSE))
  double percent_error = 0;  // 100 · RMS(I − I0) / RMS(I0)
  double nrmse = 0;          // RMS(I − I0) / (max I0 − min I0)
  double ssim = 0;           // mean SSIM, 7×7 (volumes of 7 planes or more: 7×7×7) uniform window,
                             // K1 = 0.01, K2 = 0.03, L = max I0 − min I0
};

// image and reference: nx*ny magnitudes, row-major. Throws InputError if the sizes differ. A figure whose
// divisor the reference lacks (an all-zero reference: no peak, RMS or range; a constant one: no range) is
// NaN unless the image equals the reference.
Metrics compare_images(const std::vector<float>& image, const std::vector<float>& reference, int nx, int ny);
// The same on nx*ny*nz magnitudes, x fastest: PSNR, % error and NRMSE over every voxel; SSIM over 7×7×7
// windows when nz >= 7 (as scikit-image on a 3-D array), else the mean over every slice's 7×7 windows.
Metrics compare_volumes(const std::vector<float>& image, const std::vector<float>& reference, int nx, int ny, int nz);
// Signed error map I − I0.
std::vector<float> error_map(const std::vector<float>& image, const std::vector<float>& reference);

}  // namespace mrwb
