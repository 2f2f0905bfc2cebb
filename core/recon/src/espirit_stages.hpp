#pragma once
// The two stages of ESPIRiT (recon/espirit.hpp) shared by its sources: the calibration (kernels and their
// image-space Gram matrix on a small grid) and the per-voxel eigen-decomposition on the image grid.
#include <complex>
#include <vector>

#include "mrwb/recon/espirit.hpp"

namespace mrwb::espirit {

// G(x) of Uecker et al. 2014 eq. 16 sampled on an S x S grid, S = 2·kernel_size, at u_j = (j − S/2) / S
// (x / FOV): exact samples of a trigonometric polynomial of frequencies |dp| <= kernel_size − 1.
struct SmallGrid {
  int S = 0, coils = 0, kernel_size = 0, kernels = 0;
  std::vector<std::complex<double>> gram;       // [jy][jx] of C x C column-major matrices
  std::vector<std::complex<double>> principal;  // C: the calibration data's first principal coil component
};

// Calibration matrix, its signal space (svd_threshold) and G on the small grid. calib [coil][cy][cx].
SmallGrid calibrate(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils, const EspiritParams& p);

// G interpolated onto the nx x ny image grid (pixel i <-> u = (i − n/2) / n), its top eigenvector and eigenvalue
// per voxel, phase fixed to the principal component, cropped.
EspiritMaps eigenmaps(const SmallGrid& g, int nx, int ny, double crop);

}  // namespace mrwb::espirit
