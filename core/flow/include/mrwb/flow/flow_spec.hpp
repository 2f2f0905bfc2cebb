#pragma once
// What the user asks of the blood flow (the scenario's "flow" section).
#include <string>

namespace mrwb {

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

}  // namespace mrwb
