#include "mrwb/scenario/scenario_ranges.hpp"

#include <array>
#include <sstream>
#include <stdexcept>

#include "mrwb/base/simulation_model.hpp"
#include "mrwb/sequence/pulseq_limits.hpp"

namespace mrwb {

namespace {

constexpr seq::ParamRange closed(double lo, double hi, const char* unit = "") { return {lo, false, hi, false, unit}; }
constexpr seq::ParamRange open_low(double lo, double hi, const char* unit = "") { return {lo, true, hi, false, unit}; }

// Ordered as the scenario file is: simulation, sequence, recon, phantom, flow, coils.
constexpr std::array k_fields{
    FieldRange{"simulation.spins_per_axis", closed(1, k_max_spins_per_axis), "used by the Lagrangian model", true},
    FieldRange{"sequence.TR_s", open_low(0, 10, "s"), "at least TE + half the readout"},
    FieldRange{"sequence.TE_s", open_low(0, 10, "s"), "below TR_s, above half the readout (spin echo: TE/2 above it)"},
    FieldRange{"sequence.flip_angle_deg", seq::limits::flip_angle_deg, ""},
    FieldRange{"sequence.fov_m", seq::limits::fov_m, ""},
    FieldRange{"sequence.matrix", seq::limits::matrix, "even", true},
    FieldRange{"sequence.bandwidth_Hz_per_pixel", seq::limits::bandwidth_Hz_per_pixel, ""},
    FieldRange{"sequence.dummy_scans", seq::limits::dummy_scans, "", true},
    FieldRange{"sequence.venc_m_per_s", closed(0.01, 10, "m/s"), "checked for phase_contrast"},
    FieldRange{"sequence.acceleration", closed(1, 8), "", true},
    FieldRange{"sequence.acs_lines", closed(0, seq::limits::matrix.hi), "up to sequence.matrix", true},
    FieldRange{"sequence.slices", closed(1, 64), "", true},
    FieldRange{"sequence.slice_gap_m", closed(0, 0.1, "m"), ""},
    FieldRange{"sequence.partitions", closed(1, 256), "", true},
    FieldRange{"sequence.slice_thickness_m", closed(5e-4, 0.05, "m"), ""},
    FieldRange{"sequence.max_grad_mT_per_m", closed(5, 100, "mT/m"), "or 0: the default"},
    FieldRange{"sequence.max_slew_T_per_m_per_s", closed(10, 300, "T/m/s"), "or 0: the default"},
    FieldRange{"sequence.partial_fourier", closed(0.5, 1), "fraction of the phase-encode lines"},
    FieldRange{"recon.grappa_kernel_pe", closed(2, 16), "", true},
    FieldRange{"recon.grappa_kernel_ro", closed(1, 31), "", true},
    FieldRange{"recon.grappa_lambda", closed(0, 1), ""},
    FieldRange{"recon.grappa_eta", closed(0, 4), ""},
    FieldRange{"recon.grappa_clip", {0, false, 1, true, ""}, ""},
    FieldRange{"recon.cg_iterations", closed(1, 10000), "", true},
    FieldRange{"recon.cg_lambda", closed(0, 1), ""},
    FieldRange{"recon.cs_lambda", closed(0, 1), "on the unitary data scale"},
    FieldRange{"recon.cs_iterations", closed(1, 10000), "", true},
    FieldRange{"sequence.undersampling_seed", closed(0, 1000000), "", true},
    FieldRange{"phantom.cells_per_voxel", closed(1, 16), "", true},
    FieldRange{"phantom.disc_radius_m", open_low(0, 0.5, "m"), "up to sequence.fov_m / 2"},
    FieldRange{"phantom.vessel_radius_m", open_low(0, 0.5, "m"), "up to sequence.fov_m / 2"},
    FieldRange{"phantom.vessel_angle_deg", closed(-180, 180, "deg"), ""},
    FieldRange{"phantom.vessel_offset_m", closed(-0.5, 0.5, "m"), "within sequence.fov_m / 2 of the centre"},
    FieldRange{"phantom.slab_thickness_m", closed(0, 1, "m"),
               "0: a 2-D slice; else from one cell, fov_m / (matrix x cells_per_voxel), to fov_m"},
    FieldRange{"phantom.tree.organ_semi_axes_m", open_low(0, 0.5, "m"), "each up to sequence.fov_m / 2"},
    FieldRange{"flow.inlet_flow_m3_per_s", closed(0, 1e-3, "m^3/s"), ""},
    FieldRange{"flow.period_s", closed(0.1, 10, "s"), ""},
    FieldRange{"flow.pulsatility", closed(0, 2), ""},
    FieldRange{"flow.time_s", closed(0, 1e3, "s"), ""},
    FieldRange{"flow.viscosity_Pa_s", closed(1e-4, 1, "Pa s"), ""},
    FieldRange{"flow.density_kg_per_m3", closed(500, 2000, "kg/m^3"), ""},
    FieldRange{"flow.time_step_s", closed(0, 1e-2, "s"), "0: the readout dwell"},
    FieldRange{"flow.lbm_max_steps", closed(200, 1e7), "", true},
    FieldRange{"flow.lbm_tolerance", open_low(0, 1e-2), ""},
    FieldRange{"flow.lbm_u_max", open_low(0, 0.2, "cells/step"), "low-Mach limit"},
    FieldRange{"coils.count", closed(1, 128), "", true},
    FieldRange{"coils.noise_std", closed(0, 1e3), "signal units; 0: no noise"},
    FieldRange{"coils.noise_correlation", closed(0, 0.95), ""},
};

}  // namespace

std::span<const FieldRange> scenario_field_ranges() { return k_fields; }

const FieldRange& scenario_field_range(std::string_view field) {
  for (const FieldRange& f : k_fields)
    if (f.field == field) return f;
  throw std::logic_error("scenario_field_range: no range stated for " + std::string(field));
}

std::string input_limits_markdown() {
  std::ostringstream os;
  os << "### Scenario fields (`mrwb simulate`, `mrwb sequence --scenario`, `mrwb flow`, the GUI's Open)\n\n"
     << "| field | allowed | also |\n| --- | --- | --- |\n";
  for (const FieldRange& f : k_fields)
    os << "| `" << f.field << "` | " << (f.integer ? "integer " : "") << seq::text(f.range) << " | " << f.also << " |\n";
  os << "\n### Pulseq files (`mrwb sequence --in`, `mrwb simulate --seq`)\n\n"
     << "| what | allowed | why |\n| --- | --- | --- |\n";
  for (const seq::PulseqLimit& l : seq::pulseq_limit_rows()) os << "| " << l.what << " | " << l.allowed << " | " << l.why << " |\n";
  return os.str();
}

}  // namespace mrwb
