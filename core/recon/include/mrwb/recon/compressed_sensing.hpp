#pragma once
// Compressed sensing with the SENSE forward model (Lustig et al. 2007, "Sparse MRI", MRM 58:1182, eq. 3 in
// its Lagrangian form):
//   minimise 1/2 ||E x − d||² + lambda R(x),
// E the Cartesian SENSE operator (cartesian_sense_operator.hpp: unitary DFT, as BART's pics). lambda is BART's
// `pics -r` lambda: compressed_sensing() divides the data by BART's brightness (cs_data_scale, scale_data) as
// pics does by default; cs_solve() takes the data as they are, as `pics -w 1` does.
//   R = ||W x||_1, W the orthonormal Daubechies wavelet (wavelet.hpp; every band thresholded, the coarse one
//     too, as BART does): FISTA (Beck & Teboulle 2009, SIAM J Imaging Sci 2:183, their eq. 4.1-4.3) with step
//     1/L, L the largest eigenvalue of E^H E by power iteration, and complex soft thresholding
//     x·max(0, 1 − lambda/(L|x|)) of the coefficients. Cycle spinning (a random circular shift of the
//     wavelet grid at every iteration, 0 .. 2^levels pixels per axis, as BART's pics unless `-n`) is on by
//     default.
//   R = isotropic TV (total_variation.hpp): scaled-form ADMM (Boyd et al. 2011, "Distributed optimization and
//     statistical learning via ADMM", sec. 3.1.1 and 6.3) with the split z = D x:
//       x ← argmin 1/2||Ex − d||² + rho/2||Dx − z + u||²   (cg_iterations CG steps on E^H E + rho D^H D,
//                                                           warm-started),
//       z ← shrink_isotropic(x̂ + u, lambda/rho),   u ← u + x̂ − z,   x̂ = alpha D x + (1 − alpha) z_old
//     (over-relaxation, sec. 3.4.3; alpha = 1.6 as BART's ADMM). The x-update's CG ends early once
//     ||r|| < cg_tolerance ||rhs||. As in BART, `iterations` bounds ADMM's work in CG steps over all
//     x-updates (ADMM stops after the x-update in which they exceed it), not its outer iterations. With
//     admm_abstol or admm_reltol > 0 ADMM also stops when both residuals of sec. 3.3.1 (eq. 3.12) are small:
//       ||D x − z|| <= sqrt(4n) abstol + reltol max(||D x||, ||z||)        (primal; 4n reals in z)
//       rho ||D^H (z − z_old)|| <= sqrt(2n) abstol + reltol rho ||D^H u||  (dual; 2n reals in x);
//     off by default, as in BART's pics (which sets its ADMM's tolerances, 1e-4 and 1e-3 elsewhere, to 0).
//     BART's `pics -R T:3:0:lambda` is this isotropic TV too: its prox thresholds each pixel's gradient vector
//     jointly (the gradient's direction axis is always among the thresholded-together axes).
// Both start from x = 0, as BART does.
#include <complex>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/cartesian_sense_operator.hpp"

namespace mrwb {

struct CsParams {
  std::string regularizer = "l1-wavelet";  // "l1-wavelet" (FISTA) | "tv" (ADMM)
  double lambda = 1e-3;                    // >= 0, on the unitary data scale (see above)
  int iterations = 100;                    // >= 1: FISTA iterations; ADMM: its CG steps in all (BART's pics -i)
  double admm_rho = 0.5;                   // ADMM penalty (> 0; BART's pics -u default)
  int cg_iterations = 10;                  // CG steps per ADMM x-update (>= 1; BART's pics -C default)
  double cg_tolerance = 1e-3;              // x-update CG stops at ||r|| < cg_tolerance ||rhs|| (>= 0; BART's)
  double admm_alpha = 1.6;                 // over-relaxation, (0, 2) (BART's; 1: plain ADMM)
  double admm_abstol = 0;                  // residual tolerances (>= 0); both 0 (BART's pics): no residual test;
  double admm_reltol = 0;                  //   1e-4 and 1e-3 are BART's ADMM's own (Boyd et al.'s) values
  int wavelet_taps = 4;                    // 2 (Haar) | 4 (D4, BART's dau2) | 8 (D8)
  int wavelet_levels = 0;                  // 0: down to a coarse band of >= 16 pixels (BART's minimum size),
                                           // within what the size allows (max_wavelet_levels); else exactly
  bool cycle_spinning = true;              // l1-wavelet: random wavelet shift per iteration
  unsigned seed = 1;                       // of the shifts and of the power iteration's start
  int power_iterations = 30;               // for L (BART's pics -e uses 30)
  // Divide the data by cs_data_scale before the solve and multiply the image back, so that lambda is relative
  // to the image's brightness as BART's pics makes it by default (off: BART's `-w 1`, lambda on the data's scale).
  bool scale_data = true;
};

struct CsReport {
  double lipschitz = 0;   // l1-wavelet: L, the largest eigenvalue of E^H E
  int wavelet_levels = 0;
  double objective = 0;   // 1/2||Ex − d||² + lambda R(x) at the end
  double data_scale = 1;  // what the data were divided by (scale_data)
  int iterations = 0;      // FISTA iterations; tv: ADMM's outer iterations
  bool converged = false;  // tv: stopped by the residual test before the CG budget
  int cg_steps = 0;        // tv: CG steps over all x-updates
};

// The brightness the data are divided by (scale_data), by BART's pics rule (estimate_scaling): the calibration
// region (a block grown from the k-space centre, one sample per axis in turn, while every sample of it is
// acquired, at most 32 x 32, then moved along the readout to where its energy is greatest); the root sum of
// squares over the coils of its unitary inverse DFT, divided by sqrt(nx/cx · ny/cy) to the full image's scale;
// of that, the 90th percentile, or the maximum where that is less than twice as far above the 90th percentile
// as the 90th above the median; 1 for data without signal. k: [coil][ny][nx] on the unitary scale; mask: the
// operator's [ky][kx] sampling (acquired where > 0). Throws InputError for sizes that do not match.
double cs_data_scale(const std::vector<std::complex<float>>& k, const std::vector<float>& mask, int nx, int ny,
                     int coils);
// Throws InputError (one line: the field and the allowed) for bad parameters.
void check_cs_params(const CsParams& params);
// The solver on an operator and data on its unitary scale (k [coil][ky][kx]); returns x [y][x].
// progress(fraction, "compressed-sensing") after every iteration; throws Cancelled when cancel is set.
std::vector<std::complex<float>> cs_solve(const CartesianSenseOperator& E, const std::vector<std::complex<float>>& k,
                                          const CsParams& params, CsReport* report = nullptr,
                                          const ProgressFn& progress = {}, const CancelToken& cancel = {});
// raw: one Cartesian slice (the acquired lines of raw.line_flags), maps [coil][y][x]. Returns rho, the
// object, on the scale of the image multicoil_raw was made from. Throws InputError for bad input: maps of
// the wrong size (naming the maps and the expected coils x ny x nx), lambda < 0, ...
Image2D compressed_sensing(const RawData& raw, const std::vector<std::complex<float>>& maps, const CsParams& params,
                           CsReport* report = nullptr, const ProgressFn& progress = {},
                           const CancelToken& cancel = {});
// rho weighted by the maps' root sum of squares (the scale of reconstruct_sense / reconstruct_cg_sense).
Image2D reconstruct_compressed_sensing(const RawData& raw, const std::vector<std::complex<float>>& maps,
                                       const CsParams& params, const ProgressFn& progress = {},
                                       const CancelToken& cancel = {});

}  // namespace mrwb
