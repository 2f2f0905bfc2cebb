#pragma once
// The whole experiment: phantom, sequence, coils, backend, simulation model. Saved and loaded as JSON by CLI
// and GUI alike.
// Format: {"format": "mrwb-scenario", "version": 1, ...}; units are SI and named in the keys; unknown
// fields are errors.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/simulation_model.hpp"
#include "mrwb/base/enum_names.hpp"
#include "mrwb/base/recon_method.hpp"
#include "mrwb/flow/flow_spec.hpp"
#include "mrwb/phantom/coil_spec.hpp"
#include "mrwb/phantom/phantom_spec.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_spec.hpp"

namespace mrwb {

// How the pipeline (GUI, scripts/run) reconstructs the simulated data.
struct ReconSpec {
  ReconMethod method = ReconMethod::Fft;  // fft (zero-filled when undersampled) | grappa; non-Cartesian: gridding | cg
  int grappa_kernel_pe = 4;    // GRAPPA improved-approach kernel K_PE × K_RO
  int grappa_kernel_ro = 5;
  double grappa_lambda = 1e-4; // Tikhonov chi
  std::string grappa_approach = "improved";  // "improved" (2-D kernel) | "basic" (N_b blocks, segments)
  double grappa_eta = 1.0;     // basic: normalisation Psi = p^(−eta/2)
  double grappa_clip = 0.0;    // improved: fraction kappa of the strongest equations dropped
  // cg (Stone et al. 2008: (F^H F + lambda W^H W) rho = F^H d solved by conjugate gradients, W = I here).
  // Also CG-SENSE's (sense on any line pattern other than the regular comb; Pruessmann et al. 2001).
  int cg_iterations = 20;
  double cg_lambda = 0.0;      // Tikhonov weight lambda
  // The coil maps of sense, cs and the non-Cartesian cg: "true" (the simulator's coils) or "espirit" (Uecker et
  // al. 2014: from the calibration lines, or the gridded k-space centre of a trajectory). Unset: sense and cs take
  // the simulator's coils, cg its own low-resolution estimate (recon_coil_maps.hpp).
  std::optional<std::string> maps;
  // cs (Lustig et al. 2007): min 1/2||E x - d||^2 + lambda R(x), R = "l1-wavelet" (FISTA) or "tv" (ADMM).
  std::string cs_regularizer = "l1-wavelet";
  double cs_lambda = 1e-3;     // on the unitary data scale (compressed_sensing.hpp)
  int cs_iterations = 100;     // l1-wavelet: FISTA iterations; tv: CG steps over all ADMM x-updates (BART's -i)
};

// How the scenario is simulated: "simulation": {"model", "flow_transport"} (base/simulation_model.hpp).
struct SimulationSpec {
  SimulationModel model = SimulationModel::Eulerian;
  // Eulerian only; kept (and written) with a Lagrangian model too, so switching back restores it.
  FlowTransport flow_transport = FlowTransport::GradientFrame;
  // Lagrangian only (kept with an Eulerian model alike): spins per fluid cell along each axis, 1..16.
  int spins_per_axis = k_default_spins_per_axis;
  bool operator==(const SimulationSpec&) const = default;
};

struct Scenario {
  std::string name = "untitled";
  std::string description;
  PhantomSpec phantom;
  FlowSpec flow;
  SequenceSpec sequence;
  CoilSpec coils;
  ReconSpec recon;
  Backend backend = Backend::Auto;
  SimulationSpec simulation;
  // The file it was read from (not saved): the later steps that refuse it (its flow, its phantom) name it.
  // Empty for a scenario built in memory.
  std::string source;

  // Readout timing derived from the sequence.
  double dwell_s() const { return 1.0 / (sequence.bandwidth_Hz_per_pixel * sequence.matrix); }
  // Time step of CellPhantom.ux/uy (cells per step): flow.time_step_s, or the readout dwell when 0.
  double flow_time_step_s() const { return flow.time_step_s > 0 ? flow.time_step_s : dwell_s(); }
};

// Parse and validate. `source` names the file in error messages. Throws InputError with one line
// naming source, field and allowed range.
// With `built`, the sequence's blocks as validated_sequence builds them come back too (a run that loads its
// scenario builds the sequence once).
Scenario scenario_from_json_text(const std::string& text, const std::string& source, seq::BuiltSequence* built = nullptr);
Scenario load_scenario(const std::string& path, seq::BuiltSequence* built = nullptr);
std::string scenario_to_json_text(const Scenario& s);
// Atomic: written to a temporary file beside `path`, then renamed.
void save_scenario(const Scenario& s, const std::string& path);
// Validates all ranges and the timing (TE, readout and TR must fit). Throws InputError.
void validate_scenario(const Scenario& s, const std::string& source);
// The same, and the scenario's sequence as the blocks those checks built (scenario_blocks): the one build
// of a run, which the simulation plays, the raw data's header describes and `mrwb sequence` exports.
seq::BuiltSequence validated_sequence(const Scenario& s, const std::string& source);

// Shipped presets for `mrwb phantom --preset NAME`.
std::vector<std::string> scenario_preset_names();
Scenario scenario_preset(const std::string& name);

}  // namespace mrwb
