// The samples and the grid of the non-Cartesian reconstruction: checks, raw data to samples, image helpers.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

std::size_t Grid::voxels() const {
  std::size_t v = 1;
  for (int d = 0; d < dims; ++d) v *= static_cast<std::size_t>(n);
  return v;
}

double Grid::phi() const { return 1.0 / static_cast<double>(voxels()); }

void validate_samples(const Grid& g, const Samples& s, const std::string& where) {
  if (g.dims != 2 && g.dims != 3) throw InputError(where + ": trajectory dims " + std::to_string(g.dims) + " (allowed: 2, 3)");
  if (g.n < 2 || g.n % 2) throw InputError(where + ": --matrix " + std::to_string(g.n) + " (allowed: even, >= 2)");
  if (s.dims != g.dims || s.k.size() % s.dims) throw InputError(where + ": trajectory array size is not a multiple of its dims");
  const std::size_t M = s.count();
  if (M == 0) throw InputError(where + ": no samples");
  if (s.d.size() != M * static_cast<std::size_t>(s.coils))
    throw InputError(where + ": sample count mismatch: " + std::to_string(s.d.size()) + " values for " +
                     std::to_string(M) + " trajectory points x " + std::to_string(s.coils) + " coils");
  const double band = g.n / 2.0 * (1 + 1e-5);
  for (std::size_t m = 0; m < M; ++m)
    for (int d = 0; d < s.dims; ++d) {
      const float v = s.k[m * s.dims + d];
      if (!std::isfinite(v)) throw InputError(where + ": trajectory point " + std::to_string(m) + " is not finite");
      if (std::abs(v) > band) {
        std::ostringstream os;
        os << where << ": trajectory point " << m << " k[" << d << "] = " << v << " cycles/FOV is outside the band of a "
           << g.n << " matrix (allowed: -" << g.n / 2 << " .. " << g.n / 2 << ")";
        throw InputError(os.str());
      }
    }
  for (std::size_t i = 0; i < s.d.size(); ++i)
    if (!std::isfinite(s.d[i].real()) || !std::isfinite(s.d[i].imag()))
      throw InputError(where + ": sample " + std::to_string(i % M) + " of coil " + std::to_string(i / M) +
                       " is NaN or infinite (allowed: finite values)");
}

int default_matrix(const Samples& s) {
  double kmax = 0;
  for (float v : s.k) kmax = std::max(kmax, static_cast<double>(std::abs(v)));
  return std::max(2, 2 * static_cast<int>(std::ceil(kmax - 1e-4)));
}

Samples samples_from_raw(const RawData& raw) {
  if (raw.cartesian())
    throw InputError("trajectory: the data are Cartesian; gridding and cg need a non-Cartesian trajectory "
                     "(allowed: ISMRMRD radial/spiral data or BART k-space with --traj; Cartesian data: --method fft or grappa)");
  if (raw.traj_dims != 2 && raw.traj_dims != 3)
    throw InputError("recon: trajectory dims " + std::to_string(raw.traj_dims) + " (allowed: 2, 3)");
  const std::size_t M = static_cast<std::size_t>(raw.nx) * raw.ny;
  if (raw.traj.size() != M * raw.traj_dims)
    throw InputError("recon: sample count mismatch: trajectory has " + std::to_string(raw.traj.size() / raw.traj_dims) +
                     " points, k-space " + std::to_string(M) + " samples per coil");
  if (raw.kspace.size() != M * static_cast<std::size_t>(raw.ncoils))
    throw InputError("recon: sample count mismatch: k-space has " + std::to_string(raw.kspace.size()) + " values, header " +
                     std::to_string(M) + " x " + std::to_string(raw.ncoils) + " coils");
  Samples s;
  bool flat = true;
  if (raw.traj_dims == 3)
    for (std::size_t m = 0; m < M; ++m) flat &= raw.traj[m * 3 + 2] == 0.0f;
  s.dims = raw.traj_dims == 3 && !flat ? 3 : 2;
  s.k.resize(M * s.dims);
  for (std::size_t m = 0; m < M; ++m)
    for (int d = 0; d < s.dims; ++d) s.k[m * s.dims + d] = raw.traj[m * raw.traj_dims + d];
  s.d = raw.kspace;
  s.coils = raw.ncoils;
  return s;
}

Image2D to_image2d(const Grid& g, const std::vector<cdouble>& v, double fov_m) {
  Image2D img;
  img.nx = img.ny = g.n;
  img.fov_x_m = img.fov_y_m = fov_m;
  img.data.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) img.data[i] = cfloat(v[i]);
  return img;
}

ImageVolume to_image_volume(const Grid& g, const std::vector<cdouble>& v, double fov_m) {
  ImageVolume vol;
  vol.nx = vol.ny = g.n;
  vol.nz = g.dims == 3 ? g.n : 1;
  vol.fov_x_m = vol.fov_y_m = fov_m;
  vol.fov_z_m = g.dims == 3 ? fov_m : fov_m / g.n;
  vol.data.assign(v.begin(), v.end());
  return vol;
}

double magnitude_scale(const std::vector<float>& img, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < img.size(); ++i) num += static_cast<double>(img[i]) * ref[i], den += static_cast<double>(img[i]) * img[i];
  return den > 0 ? num / den : 1.0;
}

}  // namespace mrwb::noncart
