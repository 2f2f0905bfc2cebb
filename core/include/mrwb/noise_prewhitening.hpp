#pragma once
// Noise prewhitening of multi-coil k-space from a noise-only acquisition (ISMRMRD
// ACQ_IS_NOISE_MEASUREMENT; RawData::noise): decorrelate the coils so that sum-of-squares and GRAPPA
// weight every channel by its true noise (Pruessmann et al. 2001, Appendix; Gadgetron's noise adjust).
#include <complex>
#include <vector>

#include "mrwb/raw_data.hpp"

namespace mrwb {

// Noise covariance Psi[i][j] = <n_i n_j*> over the noise samples, row-major ncoils x ncoils.
std::vector<std::complex<double>> noise_covariance(const RawData& raw);

// Prewhitening matrix W = s · L^{-1} with Psi = L L^H (Cholesky) and s = sqrt(mean_i Psi[i][i]), so
// that whitened noise has covariance s²·I: the image keeps its scale, and W = I for white noise of
// equal power; W = I for a noise scan of exact zeros (noise-free simulation). Row-major ncoils x ncoils.
// Throws InputError when Psi is not positive definite (fewer noise samples than coils, a dead channel).
std::vector<std::complex<double>> prewhitening_matrix(const RawData& raw);

// k-space and noise multiplied by W (coil dimension). A copy of raw when it has no noise samples or one coil.
RawData prewhitened(const RawData& raw);

}  // namespace mrwb
