#pragma once
// What the phase-graph suites (test_extended_phase_graph, test_epg_cell_ops) play: muscle at 1.5 T
// (docs/tissues.md), the quadratic RF phase of RF spoiling, the sizes of a run to the steady state, and a
// pulsed-gradient spin echo.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "mrwb/simulation/extended_phase_graph.hpp"

namespace mrwb::test {

constexpr double T1_muscle_s = 1.008, T2_muscle_s = 0.044;

inline double deg(double d) { return d * std::numbers::pi / 180.0; }

// RF phase of pulse n of a quadratic (RF-spoiling) scheme, Zur et al. 1991: increments n * inc.
struct QuadraticPhase {
  double increment_rad, phase = 0, step = 0;
  double next() {
    const double p = phase;
    step += increment_rad;
    phase += step;
    return p;
  }
};

// TRs to reach the steady state of a spoiled gradient echo within e^-25, from the slowest of three rates per
// TR: the Ernst recursion's eigenvalue E1 cos alpha (the longitudinal approach) and the transients of a coherent
// isochromat on resonance, E1 sin^2(alpha/2) + E2 cos^2(alpha/2) (Scheffler 2003, Concepts Magn Reson 19A:47),
// and half a cycle off it, where the pulse acts as a 180 - alpha one: E1 cos^2(alpha/2) + E2 sin^2(alpha/2).
// The last is the slow one at small flips (about TR/T1): spoiling by gradients alone averages these spins.
inline int steady_state_TRs(double flip_rad, double TR_s, double T1_s, double T2_s) {
  const double E1 = std::exp(-TR_s / T1_s), E2 = std::exp(-TR_s / T2_s);
  const double s2 = std::sin(flip_rad / 2) * std::sin(flip_rad / 2), c2 = 1 - s2;
  const double slowest = std::max({E1 * std::cos(flip_rad), E1 * s2 + E2 * c2, E1 * c2 + E2 * s2});
  return static_cast<int>(std::ceil(25.0 / -std::log(slowest)));
}

// States (and spins) for a transverse damping of E2 per unit shift: E2^N <= 1e-7.
inline int states_for(double TR_s, double T2_s) {
  return static_cast<int>(std::ceil(7.0 * std::log(10.0) * T2_s / TR_s));
}

// A pulsed-gradient spin echo on a graph (epg::PhaseGraph, or anything with its rf, interval and signal): 90
// (phase 0), lobe, 180 (phase 90 deg), lobe, echo at TE = 2 lead + Delta + delta, each lobe of `pieces` equal
// parts on a grid of q / pieces (pieces > 1 plays the cross term k1 dk of the b-terms); the graph needs
// 2 pieces + 1 states. Returns |F+_0| at TE; q = 0 plays the same timing with no lobes.
template <typename Graph>
double play_pgse(Graph& g, double q_cycles_per_m, double delta_s, double Delta_s, double D_m2_per_s, int pieces,
                 double T1_s, double T2_s) {
  constexpr double pi = std::numbers::pi;
  const double lead_s = 0.005, TE_s = 2 * lead_s + Delta_s + delta_s;
  const epg::KGrid grid{q_cycles_per_m > 0 ? q_cycles_per_m / pieces : 1.0};
  const int shift = q_cycles_per_m > 0 ? 1 : 0;
  auto lobe = [&] {
    for (int p = 0; p < pieces; ++p) g.interval(delta_s / pieces, shift, T1_s, T2_s, grid, D_m2_per_s);
  };
  g.rf(pi / 2, 0);
  g.interval(lead_s, 0, T1_s, T2_s, grid, D_m2_per_s);
  lobe();
  g.interval(TE_s / 2 - lead_s - delta_s, 0, T1_s, T2_s, grid, D_m2_per_s);
  g.rf(pi, pi / 2);
  g.interval(lead_s + Delta_s - TE_s / 2, 0, T1_s, T2_s, grid, D_m2_per_s);
  lobe();
  g.interval(TE_s - lead_s - Delta_s - delta_s, 0, T1_s, T2_s, grid, D_m2_per_s);
  return std::abs(g.signal());
}

}  // namespace mrwb::test
