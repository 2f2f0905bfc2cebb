#pragma once
// The coil maps a scenario's raw data are reconstructed with (recon.maps), for sense and cs on Cartesian data and
// for the cg on a 2-D trajectory: the simulator's own coils ("true") or ESPIRiT maps (Uecker et al. 2014)
// estimated from the data ("espirit": the calibration lines, or the trajectory's gridded k-space centre).
#include <complex>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// [coil][y][x] on raw's image grid.
// Cartesian: recon.maps unset is "true". A multi-slice / 3-D raw (hybrid space for 3-D: recon/multislice.hpp):
// ESPIRiT estimates from its central plane, every plane reconstructs with those maps (the loop coils' fields
// vary little over a slab).
// Non-Cartesian (2-D trajectory): the matrix x matrix grid of the cg (matrix 0: the trajectory's default_matrix);
// recon.maps unset gives no maps (empty: the cg estimates its own, noncart_recon.hpp); the true maps are
// normalised to a root sum of squares of 1 as that estimate and ESPIRiT's are, so the image keeps the scale of
// the other methods and of the truth.
// ESPIRiT runs on `backend` (recon/espirit_backend.hpp; auto: CUDA when a device is there). Throws InputError
// when ESPIRiT has no calibration region.
std::vector<std::complex<float>> recon_coil_maps(const Scenario& scenario, const RawData& raw,
                                                 Backend backend = Backend::Auto, int matrix = 0);

}  // namespace mrwb
