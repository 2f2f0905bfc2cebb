#pragma once
// The coil maps `sense` and `cs` reconstruct a scenario's raw data with (recon.maps): the simulator's own
// coils ("true") or ESPIRiT maps estimated from the data's calibration lines ("espirit", Uecker et al. 2014).
#include <complex>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// [coil][y][x] on raw's image grid. A multi-slice / 3-D raw (hybrid space for 3-D: recon/multislice.hpp):
// ESPIRiT estimates from its central plane, every plane reconstructs with those maps (the loop coils'
// fields vary little over a slab). ESPIRiT runs on `backend` (recon/espirit_backend.hpp; auto: CUDA when a
// device is there). Throws InputError when ESPIRiT has no calibration region.
std::vector<std::complex<float>> recon_coil_maps(const Scenario& scenario, const RawData& raw,
                                                 Backend backend = Backend::Auto);

}  // namespace mrwb
