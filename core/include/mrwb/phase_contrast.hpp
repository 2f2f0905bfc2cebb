#pragma once
// Phase-contrast velocity mapping: simulate the velocity-encoded acquisitions of the block
// builder (segment 0 the reference, segment d velocity-encoded along one axis), reconstruct one complex
// image per segment and map the velocity per encoded axis, v = Δφ/π · VENC, in m/s.
#include <cstdint>
#include <string>
#include <vector>

#include "mrwb/image.hpp"
#include "mrwb/phantom.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_blocks.hpp"
#include "mrwb/simulation_engine.hpp"

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

struct BlockSimulationOptions {
  // Longest Free piece under a gradient (ConversionOptions::max_free_step_s): moving spins see when each
  // gradient acts (a bipolar's first moment, the phase-encode lobe's centre), not only its total.
  double max_step_s = 20e-6;
  // Mxy = 0 before every excitation (Jurczuk et al. 2016; ConversionOptions::ideal_spoiling): the builders' spoiler
  // moment is a whole number of turns per cell for 1 or 2 cells per voxel, so on the cell grid it cannot
  // dephase. false: play the spoiler as built.
  bool ideal_spoiling = true;
};

// Plays a block sequence over `phantom` with `engine`: converted with each RF pulse as one hard pulse at
// its centre (2-D phantom: slice profile not modelled), Free events split at max_step_s, demodulated,
// and split by the SET label into one RawData per segment (lines by LIN). Signal in voxel units (cell area / voxel area).
// `truth` (optional) receives the voxel-averaged Mxy at the k-space centre in the receiver's frame.
std::vector<RawData> simulate_block_sequence(const CellPhantom& phantom, const seq::BlockSequence& s,
                                             SimulationEngine& engine, const CoilMaps& coils, Image2D* truth,
                                             const ProgressFn& progress, const CancelToken& cancel,
                                             const BlockSimulationOptions& options = {});

// The velocity a phase-contrast voxel should read along `axis` (0 x, 1 y, 2 z) [m/s]: the proton-density
// weighted mean of its cells' velocity, still cells counting as 0 (the phase of a voxel is, for small
// phases, the signal-weighted mean of its spins'). On the image grid, cells_per_voxel² cells per voxel.
std::vector<float> velocity_truth_m_per_s(const CellPhantom& phantom, int axis);

struct PhaseContrastResult {
  std::vector<RawData> segments;  // reference, then one per encoded axis
  std::vector<Image2D> images;    // FFT reconstruction of each segment
  VelocityMap velocity;
  std::vector<std::vector<float>> velocity_truth_m_per_s;  // per encoded axis (velocity.axes), on its grid
  Image2D truth;                  // Mxy at the k-space centre of the reference, voxel-averaged
  std::string backend;
  std::string sequence_report;    // TE, TR, VENC, bipolar as built
  double simulate_seconds = 0;
};

// Scenario with sequence.type "phase_contrast": its phantom and flow, the phase-contrast block sequence,
// FFT reconstruction of every segment, velocity map. InputError for a timing the builder cannot meet.
PhaseContrastResult simulate_phase_contrast(const Scenario& scenario, SimulationEngine& engine,
                                            const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
