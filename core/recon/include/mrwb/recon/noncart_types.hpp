#pragma once
// The samples and the grid of the non-Cartesian reconstruction (Stone et al. 2008): exact F^H d and Q
// (noncart_exact.hpp), F^H F by Toeplitz embedding (noncart_toeplitz.hpp), (P)CG (noncart_cg.hpp), the CPU
// pipelines (noncart_recon.hpp), gridding (gridding.hpp) and 3-D volumes (noncart_volume.hpp).
//
// Conventions (one place, used by CPU and CUDA alike):
//  - Image: cube of n^D voxels (D = 2 or 3), x-fastest; voxel index i <-> x = (i - n/2)/n in FOV units.
//  - k-space: cycles per FOV (BART), band |k_j| <= n/2.
//  - Forward model: d_m = sum_n phi(k_m) rho_n e^{-i 2 pi k_m . x_n}; adjoint with e^{+i ...}.
//  - Voxel basis phi: Dirac voxels weighted by the voxel volume, phi(k) = 1/n^D (FOV units). Then rho_n
//    approximates the object's value at x_n when d is its continuous Fourier transform in FOV units
//    (d(k) = int f(x) e^{-i 2 pi k.x} dx). The paper leaves phi open (SEEDS-DIGEST errata); a box basis
//    would add a sinc roll-off that the CG would have to undo.
//  - Q lives on the 2n grid: index j <-> offset (j - n)/n per dimension.
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/raw_data.hpp"

namespace mrwb::noncart {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

struct Grid {
  int dims = 2;  // 2 or 3
  int n = 0;     // voxels per dimension
  std::size_t voxels() const;
  Grid doubled() const { return {dims, 2 * n}; }
  double phi() const;  // voxel basis phi = 1/n^D
};

// Samples in BART convention: k [M][dims] cycles/FOV, values d [coil][M].
struct Samples {
  int dims = 2;
  std::vector<float> k;
  std::vector<cfloat> d;
  int coils = 1;
  std::size_t count() const { return dims ? k.size() / dims : 0; }
};

enum class Precision { Double, Single };

// Throws InputError (one line) for: dims not 2/3, n < 2, sample count mismatch, NaN/Inf k or d,
// a point outside the band |k_j| <= n/2. `where` names the input in the message.
void validate_samples(const Grid& g, const Samples& s, const std::string& where);

// RawData (non-Cartesian, traj set) -> Samples, validated; dims 2 (kz all zero or traj_dims 2) or 3.
Samples samples_from_raw(const RawData& raw);
// Default matrix: smallest even n with max |k_j| <= n/2.
int default_matrix(const Samples& s);

// Image helpers: the grid's image (dims 2) or volume (dims 3: n^3 voxels, fov_m on every axis; dims 2: one
// plane, fov_m / n thick).
Image2D to_image2d(const Grid& g, const std::vector<cdouble>& v, double fov_m);
ImageVolume to_image_volume(const Grid& g, const std::vector<cdouble>& v, double fov_m);
// Magnitude least-squares scale a minimising || a|img| - |ref| || (the paper rescales gridded images).
double magnitude_scale(const std::vector<float>& img, const std::vector<float>& ref);

}  // namespace mrwb::noncart
