#pragma once
// Multi-coil k-space and the acquisition facts needed to reconstruct it; ISMRMRD on disk.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mrwb {

// Per phase-encode line (Cartesian) or per readout (non-Cartesian).
enum LineFlag : std::uint8_t {
  kLineAcquired = 1,     // holds data; unacquired lines are zero
  kLineCalibration = 2,  // ACS line (ISMRMRD ACQ_IS_PARALLEL_CALIBRATION[_AND_IMAGING])
  kLineImaging = 4,      // used for the image (plain imaging, or calibration-and-imaging)
};

struct RawData {
  int nx = 0;      // samples per readout (encoded space: includes readout oversampling)
  int ny = 0;      // phase-encode lines (Cartesian) or readouts (non-Cartesian)
  int ncoils = 1;
  double fov_x_m = 0, fov_y_m = 0;  // encoded-space field of view
  int recon_nx = 0, recon_ny = 0;   // recon-space matrix (0: same as encoded); crop after the readout iFFT
  double recon_fov_x_m = 0, recon_fov_y_m = 0;
  int center_sample = -1;           // k = 0 sample in a readout (-1: nx/2)
  int center_line = -1;             // k = 0 line (-1: ny/2)
  int accel_R = 1;                  // phase-encode acceleration (1: fully sampled)
  double TR_s = 0, TE_s = 0, flip_angle_deg = 0, dwell_s = 0;
  double field_T = 1.5;
  std::string scenario_name;
  std::vector<std::complex<float>> kspace;  // [coil][line][sample]
  std::vector<std::uint8_t> line_flags;     // [line] LineFlag bits; empty: every line acquired imaging
  // Noise-only samples [coil][sample] (ISMRMRD ACQ_IS_NOISE_MEASUREMENT), for prewhitening; never image data.
  std::vector<std::complex<float>> noise;
  int noise_samples = 0;
  // Non-Cartesian: k-space position of every sample, BART convention (cycles per FOV, i.e. k·FOV),
  // [line][sample][traj_dims]; empty for Cartesian.
  int traj_dims = 0;
  std::vector<float> traj;
  // ISMRMRD trajectory type of non-Cartesian data ("radial", "spiral", "goldenangle", "epi"; empty: "other").
  std::string trajectory_type;

  std::size_t index(int coil, int line, int sample) const {
    return (static_cast<std::size_t>(coil) * ny + line) * nx + sample;
  }
  std::complex<float>& at(int coil, int line, int sample) { return kspace[index(coil, line, sample)]; }
  const std::complex<float>& at(int coil, int line, int sample) const {
    return kspace[index(coil, line, sample)];
  }
  std::uint8_t flags(int line) const {
    return line_flags.empty() ? static_cast<std::uint8_t>(kLineAcquired | kLineImaging) : line_flags[line];
  }
  int k0_sample() const { return center_sample >= 0 ? center_sample : nx / 2; }
  int k0_line() const { return center_line >= 0 ? center_line : ny / 2; }
  bool cartesian() const { return traj.empty(); }
};

}  // namespace mrwb
