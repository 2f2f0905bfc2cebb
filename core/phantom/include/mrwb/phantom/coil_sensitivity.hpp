#pragma once
// Receive-coil sensitivities on the image grid, and the multi-coil k-space of an image seen by them.
//   loop coils: N circular loops on a cylinder around the FOV (rings along z), sensitivity of coil c =
//   B_x − i·B_y of a unit current from Biot–Savart in the quasi-static limit (receive field B1^-, up to
//   a constant), at the imaging plane z = 0; normalised so that max sqrt(sum_c |s_c|^2) = 1.
//   uniform: every coil 1/sqrt(N) (root sum of squares 1 everywhere).
// Layout of every sensitivity array: [coil][y][x], pixel (i, j) at ((i − nx/2)·dx, (j − ny/2)·dy).
#include <complex>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb {

struct LoopCoilOptions {
  double array_radius_m = 0;   // loop centres' distance from the axis (0: 0.6·fov)
  double loop_radius_m = 0;    // 0: loops of one ring just overlap, at most 0.3·fov
  int coils_per_ring = 0;      // 0: max(8, ceil(ncoils / 4))
  double ring_spacing_m = 0;   // along z (0: 1.8·loop radius); rings centred on z = 0
  int wire_segments = 64;      // Biot–Savart discretisation of each loop
};

// [coil][y][x]. Throws InputError for ncoils < 1, a non-positive size or FOV.
std::vector<std::complex<float>> loop_coil_sensitivities(int ncoils, int nx, int ny, double fov_m,
                                                         const LoopCoilOptions& options = {});
std::vector<std::complex<float>> uniform_coil_sensitivities(int ncoils, int nx, int ny);

// Fully sampled Cartesian raw data of `image` ([y][x]) seen by the coils: k_c = centred DFT(s_c · image),
// the inverse of centred_ifft2 (recon_fft.hpp). Every line acquired for imaging.
// Receiver noise covariance Psi [ncoils][ncoils] (row-major) of unit variance per channel and correlation
// rho^|i − j| between channels i and j (neighbouring loops share flux and sample: 0 <= rho < 1).
std::vector<std::complex<double>> coil_noise_covariance(int ncoils, double rho);
// Adds complex Gaussian noise n = sigma·L·z (Psi = L·L^H, z i.i.d. with E|z|² = 1; Cholesky by Eigen) to
// every acquired sample, and stores a noise-only scan of `noise_samples` samples of the same statistics
// in raw.noise (ISMRMRD noise measurement) for prewhitening. Reproducible for a given seed. Throws
// InputError when Psi is not ncoils² or not positive definite.
void add_correlated_noise(RawData& raw, const std::vector<std::complex<double>>& psi, double sigma, int noise_samples,
                          unsigned seed);
// The simulator's receiver noise (scenario coils.noise_std, coils.noise_correlation): add_correlated_noise
// with Psi = coil_noise_covariance(raw.ncoils, rho), sigma = noise_std, a noise scan of
// k_receiver_noise_samples samples per channel and a fixed seed (the same scenario gives the same data).
// Nothing happens for noise_std = 0.
constexpr int k_receiver_noise_samples = 8192;
void add_receiver_noise(RawData& raw, double noise_std, double rho, unsigned seed = 5);

RawData multicoil_raw(const std::vector<std::complex<float>>& image, const std::vector<std::complex<float>>& sens,
                      int ncoils, int nx, int ny, double fov_x_m, double fov_y_m);

}  // namespace mrwb
