#pragma once
// The whole experiment: phantom, sequence, coils, backend. Saved and loaded as JSON by CLI and GUI alike.
// Format: {"format": "mrwb-scenario", "version": 1, ...}; units are SI and named in the keys; unknown
// fields are errors.
#include <string>
#include <vector>

#include "mrwb/vessel_generators.hpp"

namespace mrwb {

struct PhantomSpec {
  // "straight_vessel": one straight vessel of `vessel_tissue` crossing a disc of `background_tissue`.
  // "uniform_disc": a disc of `background_tissue` only (used by tests and teaching).
  // "vessel_tree": the generated tree of `tree` (its 2-D slice z = 0) filled with `vessel_tissue`,
  //   inside the disc of `background_tissue` (organ_tree: inside its organ ellipse instead).
  std::string preset = "straight_vessel";
  int cells_per_voxel = 2;          // cells per image voxel along each axis (isochromats per voxel);
                                    // the cell grid spans the sequence FOV
  double disc_radius_m = 0.05;      // radius of the tissue disc [m]
  std::string background_tissue = "muscle";
  std::string vessel_tissue = "blood";
  double vessel_radius_m = 0.008;   // [m]
  double vessel_angle_deg = 0;      // angle of the vessel axis to x [deg]
  double vessel_offset_m = 0;       // signed distance of the vessel axis from the centre [m]
  double slab_thickness_m = 0;      // 0: a 2-D slice at z = 0; > 0: a 3-D slab of cubic cells (the in-plane
                                    // cell size), nz = round(thickness / cell), centred on z = 0
  VesselTreeSpec tree;              // read and written only for preset "vessel_tree" (JSON "tree")
};

// Optional "flow" section: the velocity field given to the simulator (CellPhantom.ux/uy) and written by
// `mrwb flow`. Absent: no flow (a static phantom), as before.
struct FlowSpec {
  bool enabled = false;                 // true when the scenario has a "flow" section
  std::string solver = "poiseuille";    // poiseuille | lbm
  double inlet_flow_m3_per_s = 2e-6;    // mean volumetric inflow at the root (2 mL/s)
  std::string waveform = "constant";    // constant | sinusoid | cardiac (quasi-steady: Q(t) scales the field)
  double period_s = 1.0;                // waveform period (cardiac cycle)
  double pulsatility = 0.5;             // (peak - mean) / mean of the waveform
  double time_s = 0;                    // instant of the waveform at which the field is taken
  double viscosity_Pa_s = 3.5e-3;       // dynamic viscosity of blood
  double density_kg_per_m3 = 1060;      // blood
  double time_step_s = 0;               // step of the simulator's flow transport: CellPhantom.ux/uy are in
                                        // cells per time_step_s; 0 means the readout dwell (Scenario::dwell_s)
  int lbm_max_steps = 20000;
  double lbm_tolerance = 1e-5;          // on the relative velocity change per 200 steps (float32
                                        // round-off floor ~1e-6)
  double lbm_u_max = 0.05;              // peak inlet speed in lattice units (low-Mach limit)
  std::string lbm_collision = "bgk";    // bgk | mrt (multiple relaxation times: stable at smaller tau,
                                        // so the lattice Reynolds number gets closer to the physical one)
};

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

struct CoilSpec {
  int count = 1;                   // receive channels, 1 .. 128
  std::string arrangement = "loops";  // "loops": loop coils around the FOV (Biot–Savart); "uniform"
                                      // (count = 1 is always one uniform coil)
  double noise_std = 0;            // receiver noise: complex standard deviation per channel, in the
                                   // signal's units (voxel magnetization); 0 = noise-free
  double noise_correlation = 0;    // 0 .. 0.95: correlation rho^|i-j| of channels i and j (neighbours share flux)
};

// How the pipeline (GUI, scripts/run) reconstructs the simulated data.
struct ReconSpec {
  std::string method = "fft";  // "fft" (zero-filled when undersampled) | "grappa"; non-Cartesian: gridding | cg
  int grappa_kernel_pe = 4;    // GRAPPA improved-approach kernel K_PE × K_RO
  int grappa_kernel_ro = 5;
  double grappa_lambda = 1e-4; // Tikhonov chi
  std::string grappa_approach = "improved";  // "improved" (2-D kernel) | "basic" (N_b blocks, segments)
  double grappa_eta = 1.0;     // basic: normalisation Psi = p^(−eta/2)
  double grappa_clip = 0.0;    // improved: fraction kappa of the strongest equations dropped
};

struct Scenario {
  std::string name = "untitled";
  std::string description;
  PhantomSpec phantom;
  FlowSpec flow;
  SequenceSpec sequence;
  CoilSpec coils;
  ReconSpec recon;
  std::string backend = "auto";  // auto | cpu | cuda

  // Readout timing derived from the sequence.
  double dwell_s() const { return 1.0 / (sequence.bandwidth_Hz_per_pixel * sequence.matrix); }
  // Time step of CellPhantom.ux/uy (cells per step): flow.time_step_s, or the readout dwell when 0.
  double flow_time_step_s() const { return flow.time_step_s > 0 ? flow.time_step_s : dwell_s(); }
};

// Parse and validate. `source` names the file in error messages. Throws InputError with one line
// naming source, field and allowed range.
Scenario scenario_from_json_text(const std::string& text, const std::string& source);
Scenario load_scenario(const std::string& path);
std::string scenario_to_json_text(const Scenario& s);
// Atomic: written to a temporary file beside `path`, then renamed.
void save_scenario(const Scenario& s, const std::string& path);
// Validates all ranges and the timing (TE, readout and TR must fit). Throws InputError.
void validate_scenario(const Scenario& s, const std::string& source);

// Shipped presets for `mrwb phantom --preset NAME`.
std::vector<std::string> scenario_preset_names();
Scenario scenario_preset(const std::string& name);

}  // namespace mrwb
