#pragma once
// Noise prewhitening of multi-coil k-space from a noise-only acquisition (ISMRMRD
// ACQ_IS_NOISE_MEASUREMENT; RawData::noise): decorrelate the coils so that sum-of-squares and GRAPPA
// weight every channel by its true noise (Pruessmann et al. 2001, Appendix; Gadgetron's noise adjust).
#include <complex>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb {

// Noise covariance Psi[i][j] = <n_i n_j*> over the noise samples, row-major ncoils x ncoils.
std::vector<std::complex<double>> noise_covariance(const RawData& raw);

// How whitened data is scaled. keep_image_scale: W = s · L^{-1} with Psi = L L^H (Cholesky) and
// s = sqrt(mean_i Psi[i][i]), so that whitened noise has covariance s²·I: the image keeps its scale, and
// W = I for white noise of equal power. snr_units: W = sqrt(2) · L^{-1}, so that the real and the
// imaginary part of whitened noise have unit variance (Kellman & McVeigh 2005; Gadgetron's noise adjust):
// the only scaling in which the noise scan's bandwidth (see refer_noise_to_data_bandwidth) matters.
enum class WhiteningScale { keep_image_scale, snr_units };

// Prewhitening matrix, row-major ncoils x ncoils, lower triangular; W = I for a noise scan of exact zeros
// (noise-free simulation). Throws InputError when Psi is not positive definite (fewer noise samples than
// coils, a dead channel).
std::vector<std::complex<double>> prewhitening_matrix(const RawData& raw,
                                                      WhiteningScale scale = WhiteningScale::keep_image_scale);

// k-space and noise multiplied by W (coil dimension). A copy of raw when it has no noise samples or one coil.
RawData prewhitened(const RawData& raw, WhiteningScale scale = WhiteningScale::keep_image_scale);

// Noise-bandwidth correction. Noise power per sample grows with the sampling bandwidth 1/dwell, and a
// noise scan sees only the fraction rnbw (ISMRMRD relativeReceiverNoiseBandwidth, e.g. 0.79) of the
// nominal band's noise power that image pixels see (receiver filter roll-off), so the data's noise
// covariance is Psi_scan · (dwell_noise / dwell_data) / rnbw. Returns the amplitude factor
// sqrt(dwell_noise / dwell_data / rnbw) that refers noise-scan samples to the data's bandwidth; a dwell
// of 0 (unknown) counts as equal dwells, rnbw <= 0 as 1. Gadgetron applies the same factor to W.
double noise_bandwidth_scale(double noise_dwell_s, double data_dwell_s, double relative_receiver_noise_bandwidth);

}  // namespace mrwb
