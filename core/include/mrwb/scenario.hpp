#pragma once
// The whole experiment: phantom, sequence, coils, backend. Saved and loaded as JSON by CLI and GUI alike.
// Format: {"format": "mrwb-scenario", "version": 1, ...}; units are SI and named in the keys; unknown
// fields are errors.
#include <string>
#include <vector>

namespace mrwb {

struct PhantomSpec {
  // "straight_vessel": one straight vessel of `vessel_tissue` crossing a disc of `background_tissue`.
  // "uniform_disc": a disc of `background_tissue` only (used by tests and teaching).
  std::string preset = "straight_vessel";
  int cells_per_voxel = 2;          // cells per image voxel along each axis (isochromats per voxel);
                                    // the cell grid spans the sequence FOV
  double disc_radius_m = 0.05;      // radius of the tissue disc [m]
  std::string background_tissue = "muscle";
  std::string vessel_tissue = "blood";
  double vessel_radius_m = 0.008;   // [m]
  double vessel_angle_deg = 0;      // angle of the vessel axis to x [deg]
  double vessel_offset_m = 0;       // signed distance of the vessel axis from the centre [m]
};

struct SequenceSpec {
  std::string type = "spoiled_gre";  // Cartesian spoiled gradient echo (ideal spoiling)
  double TR_s = 0.01;
  double TE_s = 0.004;
  double flip_angle_deg = 20;
  double fov_m = 0.128;              // square field of view [m]
  int matrix = 64;                   // square image matrix (readout x phase encode)
  double bandwidth_Hz_per_pixel = 500;
  int dummy_scans = 300;             // TRs played before the first line, to reach the steady state
};

struct CoilSpec {
  int count = 1;  // receive channels; this version models one uniform coil
};

struct Scenario {
  std::string name = "untitled";
  std::string description;
  PhantomSpec phantom;
  SequenceSpec sequence;
  CoilSpec coils;
  std::string backend = "auto";  // auto | cpu | cuda

  // Readout timing derived from the sequence.
  double dwell_s() const { return 1.0 / (sequence.bandwidth_Hz_per_pixel * sequence.matrix); }
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
