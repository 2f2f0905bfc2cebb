#pragma once
// Phase-contrast velocity mapping: from the raw data of the velocity-encoded segments (segment 0 the
// reference, segment d encoded along one axis), one complex image per segment and the velocity per
// encoded axis, v = Δφ/π · VENC, in m/s.
#include <cstdint>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb {

// Velocity along each encoded axis on the image grid.
struct VelocityMap {
  int nx = 0, ny = 0;
  double fov_x_m = 0, fov_y_m = 0;
  double venc_m_per_s = 0;
  std::vector<int> axes;                       // encoded axes: 0 x (readout), 1 y (phase encode), 2 z
  std::vector<std::vector<float>> v_m_per_s;   // [axis index][voxel]; 0 outside the mask
  std::vector<std::uint8_t> mask;              // 1 where the reference magnitude passes the threshold
  std::vector<float> magnitude;                // reference magnitude
};

// How the segments encode velocity. Referenced (the block builder's): segment 0 has every axis at −M1/2,
// segment 1 + i has axis i at +M1/2. Symmetric (± bipolar pairs): segments 2i and 2i + 1 have axis i at
// +M1/2 and −M1/2. Either way the first-moment step between the two images of an axis is 1/(2·VENC).
enum class VencEncoding { Referenced, Symmetric };

// From the raw data of the segments (same grid and coils): per-coil FFT images (recon_fft), then per
// voxel Δφ = arg Σ_coils I_plus · conj(I_minus), v = −Δφ/π · VENC. The minus sign: the simulator precesses
// as Mxy·exp(−iθ) (one convention everywhere), so a first-moment step of +1/(2·VENC) turns a spin moving
// at +v by Δφ = −π·v/VENC; with it, positive v points along +axis. Mask: root-sum-of-squares magnitude of
// the first segment >= mask_fraction · its maximum. InputError when the segments do not match.
VelocityMap velocity_map(const std::vector<RawData>& segments, const std::vector<int>& axes, double venc_m_per_s,
                         VencEncoding encoding = VencEncoding::Referenced, double mask_fraction = 0.1);

}  // namespace mrwb
