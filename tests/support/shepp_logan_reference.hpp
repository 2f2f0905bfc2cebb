#pragma once
// What the suites compare reconstructions of ismrmrd_generate_cartesian_shepp_logan files against (include
// only from suites that link ISMRMRD).
#include <ismrmrd/dataset.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

namespace mrwb::test {

// Root sum of squares of the generator's coil images [coil][y][x_oversampled], cropped to the recon space
// (the phantom sits in the central recon_nx columns of the oversampled readout).
inline std::vector<float> reference_sos(ISMRMRD::NDArray<std::complex<float>>& coil_images, int recon_nx) {
  const int nxo = static_cast<int>(coil_images.getDims()[0]), ny = static_cast<int>(coil_images.getDims()[1]);
  const int nc = static_cast<int>(coil_images.getDims()[2]);
  const int x0 = (nxo - recon_nx) / 2;
  std::vector<float> sos(static_cast<std::size_t>(recon_nx) * ny, 0.f);
  for (int c = 0; c < nc; ++c)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < recon_nx; ++x)
        sos[static_cast<std::size_t>(y) * recon_nx + x] += std::norm(coil_images(x + x0, y, c));
  for (auto& v : sos) v = std::sqrt(v);
  return sos;
}

}  // namespace mrwb::test
