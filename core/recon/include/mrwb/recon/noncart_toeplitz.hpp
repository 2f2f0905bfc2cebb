#pragma once
// F^H F by Toeplitz embedding on the 2n grid (Stone et al. 2008), and the preconditioners built on its
// kernel Q. W^H W (identity, finite differences, anatomical) and the diagonal preconditioner:
// noncart_regularizer.hpp.
#include <memory>
#include <vector>

#include "mrwb/recon/noncart_types.hpp"

namespace mrwb::noncart {

// F^H F applied through Q: pad to 2n, FFT, multiply by FFT(Q), inverse FFT, crop (FFTW, double).
class ToeplitzNormal {
 public:
  ToeplitzNormal(const Grid& g, const std::vector<cdouble>& q);
  ~ToeplitzNormal();
  ToeplitzNormal(const ToeplitzNormal&) = delete;
  ToeplitzNormal& operator=(const ToeplitzNormal&) = delete;
  void apply(const cdouble* in, cdouble* out) const;  // n^D -> n^D
  // Eigenvalues of T. Chan's optimal circulant approximation on the n grid (for the PCG preconditioner).
  std::vector<double> circulant_eigenvalues() const;
  const Grid& grid() const { return g_; }

 private:
  struct Impl;
  Grid g_;
  std::unique_ptr<Impl> impl_;
  std::vector<cdouble> q_;
};

// T. Chan's optimal circulant approximation of the Toeplitz operator whose kernel is Q (2n grid): its
// eigenvalues on the n grid (ToeplitzNormal::circulant_eigenvalues; the CUDA CG calls it on its Q).
std::vector<double> chan_circulant_eigenvalues(const Grid& g, const std::vector<cdouble>& q);
// The circulant preconditioner's inverse eigenvalues, 1 / (mean_coil_power eig_Q + lambda eig_W), floored
// at 1e-6 of the largest, and divided by n^D so that IFFT(inv * FFT(r)) needs no further scaling (FFTW's
// and cuFFT's unnormalised transforms). Shared by the CPU and CUDA solvers.
std::vector<double> circulant_preconditioner_inverse(const Grid& g, const std::vector<double>& q_eig,
                                                     double mean_coil_power, double lambda, bool finite_difference);

// Sum over coils of |S_c|^2 per voxel (sens [coil][n^D]; empty: 1 everywhere, one uniform coil). The
// preconditioners scale Q by it (CPU and CUDA solvers).
std::vector<double> coil_power(const Grid& g, const std::vector<cfloat>& sens, int coils);

}  // namespace mrwb::noncart
