#pragma once
// What the user asks of the pulse sequence (the scenario's "sequence" section): the builders' input.
#include <string>
#include <vector>

namespace mrwb {

struct SequenceSpec {
  std::string type = "spoiled_gre";  // "spoiled_gre" (ideal spoiling) | "spin_echo" (90°-180°), Cartesian
                                     // | "bssfp" (TE = TR/2) | "tof" (simulated through the block model)
  double TR_s = 0.01;
  double TE_s = 0.004;
  double flip_angle_deg = 20;
  double fov_m = 0.128;              // square field of view [m]
  int matrix = 64;                   // square image matrix (readout x phase encode)
  double bandwidth_Hz_per_pixel = 500;
  int dummy_scans = 300;             // TRs played before the first line, to reach the steady state
  int acceleration = 1;              // phase-encode acceleration R: lines with (ky index − matrix/2) % R == 0
  int acs_lines = 0;                 // fully sampled calibration lines at the k-space centre (GRAPPA)
  std::string acs_mode = "integrated";  // "integrated": ACS lines among the imaging lines; "separate": a
                                        // fully sampled calibration block before the imaging scan
  // spoiled_gre k-space trajectory (sequence_noncart_gre.hpp): cartesian | radial | golden_radial | spiral |
  // stack_of_spirals (3-D: the spiral at `matrix` partitions kz, for a phantom.slab_thickness_m slab)
  std::string trajectory = "cartesian";
  int spokes = 0;       // radial: spokes of `matrix` samples; 0 = ceil(pi/2 · matrix) (Nyquist)
  int interleaves = 0;  // spiral: Archimedean interleaves; 0 = 16
  int design_interleaves = 0;  // spiral: interleaves the readout is designed for at Nyquist (0 = interleaves);
                               // acquiring fewer undersamples by design_interleaves / interleaves
  // type "phase_contrast" only (JSON fields allowed with that type alone): velocity giving a phase
  // difference of pi, and the encoded directions ("x" readout, "y" phase encode, "z" through plane).
  double venc_m_per_s = 1.0;
  std::vector<std::string> venc_directions = {"x"};
  // type "tof" only (JSON field allowed with that type alone): first gradient moment nulled at TE on the
  // readout and slice axes (sequence_blocks.hpp build_tof_blocks).
  bool flow_compensation = true;
  // Multi-slice 2-D (spoiled_gre, tof) and 3-D tof (multislice.hpp): slices excited in turn per TR, centred
  // on z = 0, slice_thickness_m + slice_gap_m apart; or one slab of slice_thickness_m in `partitions` kz
  // partitions. Either needs a phantom slab (phantom.slab_thickness_m > 0). JSON: written when not default.
  int slices = 1;                    // 1 .. 64
  double slice_gap_m = 0;            // 0 .. 0.1
  int partitions = 1;                // 1 .. 256 (above 1: tof with slices = 1)
  double slice_thickness_m = 5e-3;   // slice (2-D) or slab (3-D) thickness, 0.5 .. 50 mm
};

}  // namespace mrwb
