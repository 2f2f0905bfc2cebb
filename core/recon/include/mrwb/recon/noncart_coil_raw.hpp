#pragma once
// Multi-coil non-Cartesian raw data of a known image, the twin of multicoil_raw (phantom/coil_sensitivity.hpp) for
// a 2-D trajectory (k: [readouts][samples][2] cycles/FOV, as sequence/trajectory.hpp builds it): each coil image
// s_c · image (n x n, [coil][y][x]) sampled at those points by the Kaiser-Bessel forward gridder at W = 6 (error
// ~1e-5), with the voxel basis phi of the cg's model (noncart_types.hpp), so the cg reconstructs the image. For
// tests and benchmarks of ESPIRiT and the cg.
#include <complex>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb::noncart {

RawData multicoil_raw_noncart(const std::vector<std::complex<float>>& image, const std::vector<std::complex<float>>& sens,
                              int n, int coils, const std::vector<float>& k, int readouts, int samples,
                              double fov_m);

}  // namespace mrwb::noncart
