#pragma once
// Multi-coil Cartesian k-space and the acquisition facts needed to reconstruct it; ISMRMRD on disk.
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace mrwb {

struct RawData {
  int nx = 0;      // samples per readout
  int ny = 0;      // phase-encode lines
  int ncoils = 1;
  double fov_x_m = 0, fov_y_m = 0;
  double TR_s = 0, TE_s = 0, flip_angle_deg = 0, dwell_s = 0;
  double field_T = 1.5;
  std::string scenario_name;
  std::vector<std::complex<float>> kspace;  // [coil][line][sample], sample nx/2 and line ny/2 are k = 0

  std::size_t index(int coil, int line, int sample) const {
    return (static_cast<std::size_t>(coil) * ny + line) * nx + sample;
  }
  std::complex<float>& at(int coil, int line, int sample) { return kspace[index(coil, line, sample)]; }
  const std::complex<float>& at(int coil, int line, int sample) const {
    return kspace[index(coil, line, sample)];
  }
};

}  // namespace mrwb
