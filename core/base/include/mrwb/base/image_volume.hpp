#pragma once
// Complex image volumes: every volume is an ImageVolume (nx × ny × nz planes, a FOV per axis, x fastest):
// multi-slice and kz-partition data, and the 3-D non-Cartesian reconstruction (a cube of n voxels per axis).
#include <complex>
#include <vector>

#include "mrwb/base/image.hpp"

namespace mrwb {

// nx × ny × nz complex voxels, x fastest; z is the slice (2-D multi-slice, slice 0 first = lowest z) or
// the partition (3-D: partition i at z = (i − nz/2)·fov_z/nz, the centring of the in-plane axes).
struct ImageVolume {
  int nx = 0, ny = 0, nz = 0;
  double fov_x_m = 0, fov_y_m = 0, fov_z_m = 0;  // fov_z_m: nz · slice spacing (2-D) or slab (3-D)
  std::vector<std::complex<float>> data;

  std::size_t plane() const { return static_cast<std::size_t>(nx) * ny; }
  Image2D slice(int z) const;  // one z plane as a 2-D image
  std::vector<float> magnitude() const;  // |voxel|, in the order of data
  // Maximum intensity projection of |voxel| along z (nx*ny, row-major): the view of time-of-flight angiography.
  std::vector<float> mip_z() const;
};
// 2-D images of one size stacked along z. Throws InputError when they differ in size.
ImageVolume stack_images(const std::vector<Image2D>& planes, double fov_z_m);

}  // namespace mrwb
