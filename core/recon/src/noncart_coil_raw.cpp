#include "mrwb/recon/noncart_coil_raw.hpp"

#include "mrwb/recon/gridding.hpp"

namespace mrwb::noncart {

RawData multicoil_raw_noncart(const std::vector<std::complex<float>>& image, const std::vector<std::complex<float>>& sens,
                              int n, int coils, const std::vector<float>& k, int readouts, int samples,
                              double fov_m) {
  const Grid g{2, n};
  GriddingParams gp;
  gp.width = 6;
  const Gridder forward(g, gp);
  RawData raw;
  raw.nx = samples;
  raw.ny = readouts;
  raw.ncoils = coils;
  raw.fov_x_m = raw.fov_y_m = fov_m;
  raw.traj_dims = 2;
  raw.traj = k;
  const std::size_t plane = static_cast<std::size_t>(n) * n, M = static_cast<std::size_t>(readouts) * samples;
  raw.kspace.reserve(M * coils);
  std::vector<cdouble> img(plane);
  for (int c = 0; c < coils; ++c) {
    for (std::size_t i = 0; i < plane; ++i) img[i] = cdouble(sens[c * plane + i]) * cdouble(image[i]);
    const std::vector<cfloat> d = forward.forward(k.data(), img.data(), M);
    for (const cfloat v : d) raw.kspace.push_back(v * static_cast<float>(g.phi()));
  }
  return raw;
}

}  // namespace mrwb::noncart
