#pragma once
// Shepp-Logan-type phantoms of ellipses (2-D) and ellipsoids (3-D) with their analytic Fourier transforms,
// so k-space is sampled exactly at trajectory points (no inverse crime: the recon's discrete model is not
// used to make its data). Coordinates in FOV units (object within [-1/2, 1/2]^D), k in cycles/FOV.
#include <complex>
#include <vector>

namespace mrwb::noncart {

struct Ellipsoid {
  double value;           // additive intensity
  double a, b, c;         // semi-axes [FOV] (c unused in 2-D)
  double x0, y0, z0;      // centre [FOV]
  double phi_rad;         // rotation about z
};

struct AnalyticPhantom {
  int dims = 2;
  std::vector<Ellipsoid> parts;
  // Modified Shepp-Logan (Toft), scaled into the FOV; 3-D uses ellipsoids (Koay et al. style).
  static AnalyticPhantom shepp_logan(int dims);
  // The same ellipsoids in another contrast (other intensities, every region boundary kept): a reference
  // scan for the anatomically constrained CG (noncart_regularizer.hpp) that shares the anatomy, not the values.
  static AnalyticPhantom shepp_logan_other_contrast(int dims);
  // Continuous Fourier transform F(k) = int f(x) e^{-i 2 pi k.x} dx, k in cycles/FOV.
  std::complex<double> ft(const double* k) const;
  double value(const double* x) const;
  // Samples of F at the points k [M][dims].
  std::vector<std::complex<float>> kspace(const std::vector<float>& k) const;
  // Truth image on n^D voxels: the mean of sub^D sub-samples per voxel (x fastest).
  std::vector<float> image(int n, int sub = 4) const;
};

}  // namespace mrwb::noncart
