#pragma once
// CG-SENSE (Pruessmann et al. 2001, "Advances in sensitivity encoding with arbitrary k-space trajectories",
// MRM 46:638): conjugate gradients on the normal equations (their eq. 7 with Tikhonov damping)
//   (E^H E + lambda I) rho = E^H d,
// E the Cartesian SENSE operator of cartesian_sense_operator.hpp (unitary DFT, so lambda means what it
// means in BART's `pics -l2 -r lambda` run with `-w 1`), started from rho = 0. Any line pattern: the
// acquired lines of raw.line_flags; the regular comb gives the least-squares solution sense_unfold finds.
#include <complex>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/iter/conjugate_gradient.hpp"

namespace mrwb {

struct CgSenseParams {
  int iterations = 30;     // at most this many CG iterations (>= 1)
  double lambda = 0.0;     // Tikhonov weight (>= 0)
  double tolerance = 0.0;  // stop when ||r|| / ||E^H d|| < tolerance (0: run every iteration)
};
// iterations, relative_residual and per iteration residuals, ||r|| / ||E^H d||.
using CgSenseReport = iter::CgReport;

// The solver on an operator and data already on its unitary scale (k [coil][ky][kx]); returns rho [y][x].
// progress(fraction, "cg-sense") after every iteration; throws Cancelled when cancel is set.
std::vector<std::complex<float>> cg_sense_solve(const CartesianSenseOperator& E, const std::vector<std::complex<float>>& k,
                                                const CgSenseParams& params, CgSenseReport* report = nullptr,
                                                const ProgressFn& progress = {}, const CancelToken& cancel = {});

// raw: one Cartesian slice, no readout oversampling; maps [coil][y][x]. Returns rho, the object, on the
// scale of the image multicoil_raw was made from (not weighted by the coils). Throws InputError (one line:
// what, and the allowed) for bad input, including iterations < 1, lambda < 0, tolerance < 0.
Image2D cg_sense(const RawData& raw, const std::vector<std::complex<float>>& maps, const CgSenseParams& params,
                 CgSenseReport* report = nullptr, const ProgressFn& progress = {}, const CancelToken& cancel = {});
// What cg_sense refuses, without its work.
void check_cg_sense_input(const RawData& raw, const std::vector<std::complex<float>>& maps, const CgSenseParams& params);
// rho weighted by the root sum of squares of the maps, the scale of reconstruct_sense (sense.hpp) and of
// every other coil-combined image, so that the methods compare.
Image2D reconstruct_cg_sense(const RawData& raw, const std::vector<std::complex<float>>& maps,
                             const CgSenseParams& params, const ProgressFn& progress = {},
                             const CancelToken& cancel = {});
// image ·= sqrt(sum_c |S_c|^2) per pixel (maps [coil][y][x]).
void weight_by_coil_rss(Image2D& image, const std::vector<std::complex<float>>& maps, int coils);

}  // namespace mrwb
