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
  // Multi-slice 2-D (ISMRMRD idx.slice) and 3-D encoding (kz partitions, idx.kspace_encode_step_2). With
  // 1 and 1 the k-space is one 2-D [coil][line][sample] as before; see multislice.hpp for the helpers.
  int slices = 1;
  int partitions = 1;
  double fov_x_m = 0, fov_y_m = 0;  // encoded-space field of view
  double fov_z_m = 0;               // slice thickness (2-D) or slab thickness (3-D); 0: unknown
  double slice_spacing_m = 0;       // multi-slice: centre-to-centre distance (thickness + gap); 0: fov_z_m
  int center_partition = -1;        // kz = 0 partition (-1: partitions/2)
  int recon_nx = 0, recon_ny = 0;   // recon-space matrix (0: same as encoded); crop after the readout iFFT
  double recon_fov_x_m = 0, recon_fov_y_m = 0;
  int center_sample = -1;           // k = 0 sample in a readout (-1: nx/2)
  int center_line = -1;             // k = 0 line (-1: ny/2)
  int accel_R = 1;                  // phase-encode acceleration (1: fully sampled)
  double TR_s = 0, TE_s = 0, flip_angle_deg = 0, dwell_s = 0;
  double field_T = 1.5;
  std::string scenario_name;
  std::vector<std::complex<float>> kspace;  // [coil][slice][partition][line][sample]
  std::vector<std::uint8_t> line_flags;     // [line] LineFlag bits (the same in every slice / partition);
                                            // empty: every line acquired imaging
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
  // Multi-slice / 3-D: the same with slice and partition (== index(coil, line, sample) when both are 1).
  std::size_t index(int coil, int slice, int partition, int line, int sample) const {
    return (((static_cast<std::size_t>(coil) * slices + slice) * partitions + partition) * ny + line) * nx + sample;
  }
  std::size_t kspace_size() const { return static_cast<std::size_t>(ncoils) * slices * partitions * ny * nx; }
  bool volume() const { return slices > 1 || partitions > 1; }
  std::complex<float>& at(int coil, int line, int sample) { return kspace[index(coil, line, sample)]; }
  const std::complex<float>& at(int coil, int line, int sample) const {
    return kspace[index(coil, line, sample)];
  }
  std::uint8_t flags(int line) const {
    return line_flags.empty() ? static_cast<std::uint8_t>(kLineAcquired | kLineImaging) : line_flags[line];
  }
  int k0_sample() const { return center_sample >= 0 ? center_sample : nx / 2; }
  int k0_line() const { return center_line >= 0 ? center_line : ny / 2; }
  int k0_partition() const { return center_partition >= 0 ? center_partition : partitions / 2; }
  bool cartesian() const { return traj.empty(); }
};

// InputError (one line: samples held against the header's coils x slices x partitions x lines x samples)
// when the k-space does not match the header.
void check_raw_layout(const RawData& raw);
// One slice / partition as a 2-D RawData (same header, noise scan and line flags; slices = partitions = 1).
// For 3-D data pass hybrid_space(raw) (recon/multislice.hpp) first: in k-space a partition is one kz, not
// one z.
RawData extract_slice(const RawData& raw, int slice, int partition = 0);

}  // namespace mrwb
