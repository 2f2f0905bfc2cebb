#pragma once
// SENSE (Pruessmann et al. 1999, "SENSE: sensitivity encoding for fast MRI", Magn Reson Med 42:952): Cartesian
// unfolding of a regular phase-encode undersampling by R with known coil sensitivities, and its analytic
// g-factor (their eq. 23). The zero-filled coil images alias R rows ny/R apart onto each other; at every
// aliased pixel the C coil values are C equations in those R unknowns, solved by least squares:
//   rho = (E^H E)^-1 E^H a,   E_ck = w_k · S_c(x, y_k),   g_k = sqrt([(E^H E)^-1]_kk · [E^H E]_kk),
// w_k the aliasing weight of row y_k (the point spread function of the sampled comb, magnitude 1/R; it
// leaves g unchanged). The receiver noise is taken as white: prewhiten data and maps first
// (noise_prewhitening.hpp) where the channels correlate.
#include <complex>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/raw_data.hpp"

namespace mrwb {

struct SenseResult {
  Image2D image;                // rho: the object, not weighted by the coils
  std::vector<float> gfactor;   // [y][x]; 0 where no coil sees the pixel
};

// raw: Cartesian, one slice, no readout oversampling; R = raw.accel_R (1 allowed: the coil-combined image
// and g = 1) dividing ny; the lines of the comb k0 + m·R all acquired (lines off the comb, e.g. extra ACS
// lines, are left out: the unfolding needs exact R-fold aliasing). maps: [coil][y][x] on the image grid.
// Throws InputError (one line: what, and the allowed) otherwise.
SenseResult sense_unfold(const RawData& raw, const std::vector<std::complex<float>>& maps);
// Whether sense_unfold applies: one Cartesian slice, R = raw.accel_R in 1 .. coils dividing ny, every line of
// the comb k0 + m·R acquired (other acquired lines, e.g. ACS, it leaves out). The registry's `sense` unfolds
// such data directly and runs CG-SENSE (cg_sense.hpp) on any other line pattern.
bool sense_regular_comb(const RawData& raw);
// What sense_unfold refuses, without its work (recon_check.hpp asks it first).
void check_sense_input(const RawData& raw, const std::vector<std::complex<float>>& maps);
// The registry's "sense/cpu": the unfolded object weighted by the root sum of squares of the maps, the scale
// of every other method's coil-combined image (and of the simulator's truth), so that they compare.
Image2D reconstruct_sense(const RawData& raw, const std::vector<std::complex<float>>& maps);

}  // namespace mrwb
