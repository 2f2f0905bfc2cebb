#include "mrwb/base/image_volume.hpp"

#include <algorithm>
#include <cmath>

#include <complex>
#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {

std::vector<float> ImageVolume::magnitude() const {
  std::vector<float> m(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) m[i] = std::abs(data[i]);
  return m;
}

std::vector<float> ImageVolume::mip_z() const {
  std::vector<float> mip(plane(), 0.f);
  for (int z = 0; z < nz; ++z)
    for (std::size_t i = 0; i < plane(); ++i) mip[i] = std::max(mip[i], std::abs(data[plane() * z + i]));
  return mip;
}

Image2D ImageVolume::slice(int z) const {
  if (z < 0 || z >= nz) throw InputError("volume: plane " + std::to_string(z) + " (allowed: 0 .. " + std::to_string(nz - 1) + ")");
  Image2D img;
  img.nx = nx;
  img.ny = ny;
  img.fov_x_m = fov_x_m;
  img.fov_y_m = fov_y_m;
  img.data.assign(data.begin() + static_cast<std::ptrdiff_t>(plane() * z),
                  data.begin() + static_cast<std::ptrdiff_t>(plane() * (z + 1)));
  return img;
}

ImageVolume stack_images(const std::vector<Image2D>& planes, double fov_z_m) {
  ImageVolume v;
  if (planes.empty()) return v;
  v.nx = planes.front().nx;
  v.ny = planes.front().ny;
  v.nz = static_cast<int>(planes.size());
  v.fov_x_m = planes.front().fov_x_m;
  v.fov_y_m = planes.front().fov_y_m;
  v.fov_z_m = fov_z_m;
  v.data.reserve(v.plane() * v.nz);
  for (const Image2D& p : planes) {
    if (p.nx != v.nx || p.ny != v.ny || p.data.size() != v.plane())
      throw InputError("volume: planes differ in size (" + std::to_string(p.nx) + "x" + std::to_string(p.ny) + " and " +
                       std::to_string(v.nx) + "x" + std::to_string(v.ny) + ")");
    v.data.insert(v.data.end(), p.data.begin(), p.data.end());
  }
  return v;
}

}  // namespace mrwb
