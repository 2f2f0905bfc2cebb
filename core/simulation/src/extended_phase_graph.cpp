#include "mrwb/simulation/extended_phase_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"

namespace mrwb::epg {

int KGrid::shift_for(double moment_cycles_per_m) const {
  if (!(dk_cycles_per_m > 0))
    throw InputError("extended phase graph: the k-space grid needs dk_cycles_per_m > 0, got " +
                     number_text(dk_cycles_per_m));
  const double units = moment_cycles_per_m / dk_cycles_per_m;
  const double whole = std::round(units);
  if (std::abs(units - whole) > 1e-9 || std::abs(whole) > 1e9)
    throw InputError("extended phase graph: moment " + number_text(moment_cycles_per_m) +
                     " cycles/m is not a whole multiple of the grid's dk " + number_text(dk_cycles_per_m) +
                     " cycles/m (choose dk as the moments' common divisor)");
  return static_cast<int>(whole);
}

double KGrid::k_rad_per_m(int n) const { return 2.0 * std::numbers::pi * dk_cycles_per_m * n; }

double b_transverse_s_per_m2(double k1_rad_per_m, double dk_rad_per_m, double tau_s) {
  return tau_s * (k1_rad_per_m * k1_rad_per_m + k1_rad_per_m * dk_rad_per_m + dk_rad_per_m * dk_rad_per_m / 3.0);
}

double b_longitudinal_s_per_m2(double k1_rad_per_m, double tau_s) { return tau_s * k1_rad_per_m * k1_rad_per_m; }

PhaseGraph::PhaseGraph(int states, double M0) : M0_(M0) {
  if (states < 1) throw InputError("extended phase graph: states must be >= 1, got " + std::to_string(states));
  Fp_.assign(static_cast<std::size_t>(states), State{});
  Fm_.assign(static_cast<std::size_t>(states), State{});
  Z_.assign(static_cast<std::size_t>(states), State{});
  Z_[0] = M0;
}

State PhaseGraph::F_plus(int n) const {
  const int N = states();
  if (n >= N || n <= -N) return {};
  return n >= 0 ? Fp_[static_cast<std::size_t>(n)] : std::conj(Fm_[static_cast<std::size_t>(-n)]);
}

State PhaseGraph::F_minus(int n) const { return std::conj(F_plus(-n)); }

State PhaseGraph::Z(int n) const {
  const int N = states();
  if (n >= N || n <= -N) return {};
  return n >= 0 ? Z_[static_cast<std::size_t>(n)] : std::conj(Z_[static_cast<std::size_t>(-n)]);
}

void PhaseGraph::rf(double flip_rad, double phase_rad) {
  // Weigel 2015's T(alpha, phi) for a clockwise turn: alpha -> -alpha flips the sign of its sin(alpha) terms.
  const double c2 = std::cos(flip_rad / 2) * std::cos(flip_rad / 2);
  const double s2 = std::sin(flip_rad / 2) * std::sin(flip_rad / 2);
  const double sa = std::sin(flip_rad), ca = std::cos(flip_rad);
  const State i(0.0, 1.0);
  const State e1 = std::polar(1.0, phase_rad), e2 = std::polar(1.0, 2.0 * phase_rad);
  const State pz = i * e1 * sa, mz = -i * std::conj(e1) * sa;      // Z into F+, F-
  const State zp = 0.5 * i * std::conj(e1) * sa, zm = -0.5 * i * e1 * sa;  // F+, F- into Z
  for (std::size_t n = 0; n < Fp_.size(); ++n) {
    const State fp = Fp_[n], fm = Fm_[n], z = Z_[n];
    Fp_[n] = c2 * fp + e2 * s2 * fm + pz * z;
    Fm_[n] = std::conj(e2) * s2 * fp + c2 * fm + mz * z;
    Z_[n] = zp * fp + zm * fm + ca * z;
  }
  // Order 0 is one real vector: keep F-_0 = conj(F+_0) and Z_0 real against rounding.
  Fm_[0] = std::conj(Fp_[0]);
  Z_[0] = Z_[0].real();
}

void PhaseGraph::relax(double interval_s, double T1_s, double T2_s) {
  if (interval_s < 0 || !(T1_s > 0) || !(T2_s > 0))
    throw InputError("extended phase graph: relaxation needs interval_s >= 0, T1_s > 0 and T2_s > 0");
  const double E2 = std::exp(-interval_s / T2_s), E1 = std::exp(-interval_s / T1_s);
  const double one_minus_E1 = -std::expm1(-interval_s / T1_s);
  for (std::size_t n = 0; n < Fp_.size(); ++n) {
    Fp_[n] *= E2;
    Fm_[n] *= E2;
    Z_[n] *= E1;
  }
  Z_[0] += M0_ * one_minus_E1;
}

void PhaseGraph::shift_states(int shift) {
  if (shift == 0) return;
  // F+ over orders -(N-1) .. N-1 (the negative ones are conj(F-)), moved by `shift`, read back; what moves
  // past |n| = N-1 is dropped and its norm kept for the truncation bound.
  const int N = states();
  std::vector<State> line(static_cast<std::size_t>(2 * N - 1));
  for (int n = -(N - 1); n < N; ++n) line[static_cast<std::size_t>(n + N - 1)] = F_plus(n);
  double dropped2 = 0;
  for (int n = -(N - 1); n < N; ++n) {
    const int to = n + shift;
    if (to >= N || to <= -N) dropped2 += std::norm(line[static_cast<std::size_t>(n + N - 1)]);
  }
  for (int n = 0; n < N; ++n) {
    const int from_p = n - shift, from_m = -n - shift;
    Fp_[static_cast<std::size_t>(n)] =
        (from_p >= N || from_p <= -N) ? State{} : line[static_cast<std::size_t>(from_p + N - 1)];
    Fm_[static_cast<std::size_t>(n)] =
        (from_m >= N || from_m <= -N) ? State{} : std::conj(line[static_cast<std::size_t>(from_m + N - 1)]);
  }
  dropped_norm_ += std::sqrt(dropped2);
}

void PhaseGraph::dephase(int shift) {
  if (shift != 0) damping_per_shift_ = 1.0;  // no relaxation known with this shift
  shift_states(shift);
}

void PhaseGraph::precess(double angle_rad) {
  const State turn = std::polar(1.0, -angle_rad);
  for (std::size_t n = 0; n < Fp_.size(); ++n) {
    Fp_[n] *= turn;
    Fm_[n] *= std::conj(turn);
  }
}

void PhaseGraph::spoil() {
  std::fill(Fp_.begin(), Fp_.end(), State{});
  std::fill(Fm_.begin(), Fm_.end(), State{});
}

void PhaseGraph::diffuse(double tau_s, int shift, const KGrid& grid, double D_m2_per_s) {
  if (D_m2_per_s == 0 || tau_s == 0) return;
  if (D_m2_per_s < 0 || tau_s < 0 || !(grid.dk_cycles_per_m > 0))
    throw InputError("extended phase graph: diffusion needs D_m2_per_s >= 0, tau_s >= 0 and a k-space grid");
  const double dk = grid.k_rad_per_m(shift);
  for (int n = 0; n < states(); ++n) {
    // F+_n is the pattern of wave number +n dk, F-_n that of -n dk (it is conj(F+_-n)).
    const double k = grid.k_rad_per_m(n);
    Fp_[static_cast<std::size_t>(n)] *= std::exp(-D_m2_per_s * b_transverse_s_per_m2(k, dk, tau_s));
    Fm_[static_cast<std::size_t>(n)] *= std::exp(-D_m2_per_s * b_transverse_s_per_m2(-k, dk, tau_s));
    Z_[static_cast<std::size_t>(n)] *= std::exp(-D_m2_per_s * b_longitudinal_s_per_m2(k, tau_s));
  }
}

void PhaseGraph::interval(double tau_s, int shift, double T1_s, double T2_s, const KGrid& grid, double D_m2_per_s) {
  diffuse(tau_s, shift, grid, D_m2_per_s);
  relax(tau_s, T1_s, T2_s);
  if (shift != 0)
    damping_per_shift_ = std::max(damping_per_shift_, std::exp(-tau_s / (T2_s * std::abs(shift))));
  shift_states(shift);
}

double PhaseGraph::truncation_error_bound() const {
  if (dropped_norm_ == 0) return 0;
  return dropped_norm_ * std::pow(damping_per_shift_, states());
}

}  // namespace mrwb::epg
