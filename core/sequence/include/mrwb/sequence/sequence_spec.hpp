#pragma once
// What the user asks of the pulse sequence (the scenario's "sequence" section): the builders' input.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mrwb/base/enum_names.hpp"
#include "mrwb/sequence/sequence_fidelity.hpp"

namespace mrwb {

// sequence.type. The table's order is that of the scenario's "allowed: ..." message.
enum class SequenceType { SpoiledGre, SpinEcho, Bssfp, PhaseContrast, Tof };

inline constexpr EnumNames<SequenceType, 5> k_sequence_type_names{{
    {SequenceType::SpoiledGre, "spoiled_gre"},
    {SequenceType::SpinEcho, "spin_echo"},
    {SequenceType::PhaseContrast, "phase_contrast"},
    {SequenceType::Bssfp, "bssfp"},
    {SequenceType::Tof, "tof"},
}};

constexpr std::string_view to_string(SequenceType t) { return enum_name(k_sequence_type_names, t); }
constexpr std::optional<SequenceType> parse_sequence_type(std::string_view name) {
  return enum_from_name(k_sequence_type_names, name);
}

// sequence.trajectory (the k-space path; RawData::trajectory_type spells it as the file formats do).
enum class Trajectory { Cartesian, Radial, GoldenRadial, Spiral, StackOfSpirals };

inline constexpr EnumNames<Trajectory, 5> k_trajectory_names{{
    {Trajectory::Cartesian, "cartesian"},
    {Trajectory::Radial, "radial"},
    {Trajectory::GoldenRadial, "golden_radial"},
    {Trajectory::Spiral, "spiral"},
    {Trajectory::StackOfSpirals, "stack_of_spirals"},
}};

constexpr std::string_view to_string(Trajectory t) { return enum_name(k_trajectory_names, t); }
constexpr std::optional<Trajectory> parse_trajectory(std::string_view name) {
  return enum_from_name(k_trajectory_names, name);
}

struct SequenceSpec {
  SequenceType type = SequenceType::SpoiledGre;  // spoiled_gre (ideal spoiling) | spin_echo (90°-180°), Cartesian
                                                 // | bssfp (TE = TR/2) | tof (simulated through the block model)
  double TR_s = 0.01;
  double TE_s = 0.004;
  double flip_angle_deg = 20;
  double fov_m = 0.128;              // square field of view [m]
  int matrix = 64;                   // square image matrix (readout x phase encode)
  double bandwidth_Hz_per_pixel = 500;
  int dummy_scans = 300;             // TRs played before the first line, to reach the steady state
  int acceleration = 1;              // phase-encode acceleration R: lines with (ky index − matrix/2) % R == 0
  int acs_lines = 0;                 // fully sampled calibration lines at the k-space centre (GRAPPA)
  // Which phase-encode lines: "regular" (every R-th), or variable density "random" / "poisson_disc"
  // (undersampling_pattern.hpp: round(matrix / R) lines, the acs_lines among them), drawn with
  // undersampling_seed; the incoherent sampling compressed sensing needs (Lustig et al. 2007).
  std::string undersampling = "regular";
  int undersampling_seed = 1;
  std::string acs_mode = "integrated";  // "integrated": ACS lines among the imaging lines; "separate": a
                                        // fully sampled calibration block before the imaging scan
  // spoiled_gre k-space trajectory (noncart_design.hpp): cartesian | radial | golden_radial | spiral |
  // stack_of_spirals (3-D: the spiral at `matrix` partitions kz, for a phantom.slab_thickness_m slab)
  Trajectory trajectory = Trajectory::Cartesian;
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
  // Gradient hardware the builders design within (minimum TE / TR, ramps, the spiral's design): 0 = the
  // defaults, 32 mT/m and 130 T/m/s (spiral and stack of spirals: their design's 40 mT/m, 150 T/m/s).
  // JSON: written when set.
  double max_grad_mT_per_m = 0;       // 0, or 5 .. 100
  double max_slew_T_per_m_per_s = 0;  // 0, or 10 .. 300
  // Cartesian partial Fourier: the fraction of phase-encode lines acquired, 0.5 .. 1 (the lowest lines
  // skipped; the reconstruction zero-fills them). JSON: written when not 1.
  double partial_fourier = 1;
  // How the simulator plays the sequence's blocks (sequence_fidelity.hpp). JSON: written when not default.
  SequenceFidelity fidelity;
};

}  // namespace mrwb
