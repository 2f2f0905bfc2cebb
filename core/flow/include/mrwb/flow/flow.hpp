#pragma once
// Flow fields on the phantom's cells: (a) analytic Poiseuille per segment with the inflow split at each
// bifurcation by Poiseuille resistance, (b) lattice Boltzmann (lbm.hpp) on the discretised lumen.
// Velocities are in m/s here; the simulator gets them in cells per step through CellPhantom.ux/uy
// (u_cells = u_m_per_s * Scenario::flow_time_step_s() / cell_m, |u| <= 1 enforced).
// Pulsatile flow is quasi-steady: the field at time t is the steady field of Q(t) = Q_mean * w(t)
// (Womersley effects neglected; valid for small Womersley numbers).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mrwb/flow/flow_spec.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {

struct SegmentFlow {
  double flow_m3_per_s = 0;            // volumetric flow through the segment
  double resistance_Pa_s_per_m3 = 0;   // R = integral 8 mu / (pi r^4) dl along the segment
  double pressure_drop_Pa = 0;         // R * Q
};

// Poiseuille resistance of segment s (radius varying linearly between centreline points).
double segment_resistance_Pa_s_per_m3(const VesselTree& tree, int s, double viscosity_Pa_s);
// Flow in every segment for `inlet_flow_m3_per_s` entering the root, all outlets at one pressure: at each
// bifurcation the flow divides in inverse proportion to the children's subtree resistances.
std::vector<SegmentFlow> poiseuille_split(const VesselTree& tree, double inlet_flow_m3_per_s, double viscosity_Pa_s);

// Q(t) / Q_mean: constant 1; sinusoid 1 + p sin(2 pi t / T); cardiac: a synthetic systolic peak and
// dicrotic notch (4 harmonics, mean 1, peak 1 + p). p = pulsatility, T = period_s.
double waveform_factor(const FlowSpec& spec, double t_s);

struct FlowField {
  CellGrid grid;
  std::vector<float> ux_m_per_s, uy_m_per_s, uz_m_per_s;
  std::vector<float> fluid_fraction;
  std::vector<std::uint8_t> type;  // CellType
  std::string solver;              // "poiseuille" or "lbm d2q9" / "lbm d3q19"
  std::string backend = "cpu";
  // LBM only:
  int steps = 0;
  double residual = 0;
  bool converged = true;
  double tau = 0;
  std::string collision;  // "bgk" or "mrt"
  // Re of the inlet (peak speed, diameter): physical from the blood's viscosity, lattice from tau. They
  // agree only when the matching tau lies above the collision's floor; otherwise Re_lattice is lower.
  double reynolds_physical = 0, reynolds_lattice = 0;
  double lattice_dt_s = 0;  // physical time of one lattice step
  double max_speed_m_per_s() const;
};

// Analytic field: u = 2 Q / (pi r^2) (1 - d^2 / r^2) along the local axis (the mid-plane profile of a
// pipe for 2-D slices), Q from poiseuille_split at spec.time_s. Sacs hold no through flow (u = 0).
FlowField poiseuille_flow_field(const VesselTree& tree, const VesselCells& cells, const FlowSpec& spec);

// The LBM domain of the discretised lumen: fluid where fraction >= 0.5, inlet nodes in the first 1.5 cells
// of the root with a parabolic profile of peak `u_peak_lattice` along its axis, outlet nodes in the last
// 1.5 cells of every leaf; where a vessel crosses the grid's edge, the edge nodes are the inlet (root
// flowing in) or an outlet (flow leaving).
LbmDomain lbm_domain_from_cells(const VesselTree& tree, const VesselCells& cells, double u_peak_lattice);
// Smallest tau used for Reynolds matching, measured on the presets (D2Q9, 256^2 cells of 0.5 mm,
// u = 0.05, runs of 4000 steps): BGK and MRT at 0.55 ran without diverging on stenosis_75; MRT diverged
// there at tau 0.52, 0.53 and 0.535 (and on liver_tree at 0.51, CUDA). MRT therefore buys no smaller tau
// on the presets (its jet through the 75 % throat sets the limit) and both collisions share the floor.
constexpr double k_lbm_tau_min_bgk = 0.55;
constexpr double k_lbm_tau_min_mrt = 0.55;
// A flow slower than the lattice reaches at lbm_u_max and the smallest tau runs as creeping flow: at this tau
// and k_lbm_creeping_fraction x lbm_u_max (the same nu u, so the same pressure drop per unit length), its
// field scaled to the inlet's speed.
constexpr double k_lbm_tau_slow_flow = 1.0;
constexpr double k_lbm_creeping_fraction = 0.1;
// Runs `runner` (lbm_run_cpu, or the CUDA twin) on the lumen with spec.lbm_collision, matching the
// physical Reynolds number of the inlet where tau allows ([k_lbm_tau_min_*, then creeping flow, above];
// otherwise lower, reported as reynolds_lattice), and scales the lattice velocity to m/s by the inlet's peak
// speed (a flow of 0 gives a field at rest).
FlowField lbm_flow_field(const VesselTree& tree, const VesselCells& cells, const FlowSpec& spec,
                         const LbmRunner& runner, const ProgressFn& progress = {}, const CancelToken& cancel = {});

}  // namespace mrwb
