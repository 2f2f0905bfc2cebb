#pragma once
// The extended phase graph (Weigel 2015, J Magn Reson Imaging 41:266; diffusion: Weigel, Schwenk, Kiselev,
// Scheffler, Hennig 2010, J Magn Reson 205:276): the magnetization of one cell as Fourier coefficients of its
// phase along a gradient. The reference the simulator's within-cell dephasing is tested against, and a tool
// for teaching (echo trains, RF spoiling, stimulated echoes, diffusion weighting) without a phantom.
//
// States. Let phi(x) be the phase that a gradient of one grid moment dk writes across the cell (phi = 2 pi dk x).
// The cell's magnetization is
//   Mxy(x) = sum_n F+_n exp(-i n phi(x)),   conj(Mxy(x)) = sum_n F-_n exp(-i n phi(x)),
//   Mz(x)  = sum_n Z_n exp(-i n phi(x)),    n = ..., -1, 0, 1, ...
// so F-_n = conj(F+_-n) and Z_-n = conj(Z_n); the graph keeps n = 0 .. N-1 of F+, F- and Z (the states of
// Weigel 2015), and F+_0 is the cell's mean Mx + i My: the signal.
//
// Rotation sense: that of the simulator's cells (bloch_cell_ops.hpp, Jurczuk et al. 2016 Eq. 7): precession
// turns Mxy by exp(-i theta), an RF pulse of phase p turns M clockwise about (cos p, sin p, 0). Weigel's
// matrices are written for the opposite (counter-clockwise) sense; here flip alpha enters as -alpha (Weigel
// 2015's RF transition matrix T with alpha -> -alpha), so a graph and a cell given the same pulses give the
// same complex Mxy. A gradient of positive moment raises the index of F+ (F+_n -> F+_n+1) and lowers F-'s.
//
// Truncation. With N states a unit shift drops F+_N (a negative one F-_N). That is exact while fewer than N
// unit shifts separate every state from the last excitation that made it. Beyond, a dropped state reaches
// F+_0 only through at least N more unit shifts as transverse magnetization: the weighted sum
// sum_n |state_n|^2 q^(2|n|) grows under no operation (RF and shifts are unitary per order, relaxation and
// diffusion contract) when every unit shift is damped by at least q = exp(-tau / (T2 |shift|)), so the error
// of F+_0 is at most q^N times the summed norm of what was dropped. `truncation_error_bound` returns that
// bound for the run so far (q = 1 for shifts played by `dephase` alone, whose damping the graph is not told).
#include <complex>
#include <vector>

namespace mrwb::epg {

using State = std::complex<double>;

// A k-space grid for gradients of any moments: state n has the wave number n * dk. A moment that is a
// multiple of dk is an integer shift; choose dk as the largest common divisor of the moments played.
struct KGrid {
  double dk_cycles_per_m = 0;
  // The shift of a moment [cycles/m]; InputError unless it is a whole multiple of dk (to 1e-9 of dk).
  int shift_for(double moment_cycles_per_m) const;
  // Wave number of order n [rad/m].
  double k_rad_per_m(int n) const;
};

// Weigel et al. 2010 (their b-terms): attenuation exp(-b D) of a transverse state of wave number
// k1 [rad/m] under a constant gradient that adds dk [rad/m] over tau: b = tau (k1^2 + k1 dk + dk^2 / 3), the
// integral of k(t)^2 over the interval; a longitudinal state keeps its k: b = tau k1^2. b in s/m^2.
double b_transverse_s_per_m2(double k1_rad_per_m, double dk_rad_per_m, double tau_s);
double b_longitudinal_s_per_m2(double k1_rad_per_m, double tau_s);

class PhaseGraph {
 public:
  // N >= 1 states of each kind, at equilibrium: Z_0 = M0, all else 0.
  explicit PhaseGraph(int states, double M0 = 1.0);

  int states() const { return static_cast<int>(Fp_.size()); }
  double M0() const { return M0_; }
  // F+_n for |n| < N (F+_-n = conj(F-_n)), F-_n likewise, Z_n (Z_-n = conj(Z_n)); 0 beyond the truncation.
  State F_plus(int n) const;
  State F_minus(int n) const;
  State Z(int n) const;
  // F+_0: the cell's mean transverse magnetization Mx + i My.
  State signal() const { return Fp_[0]; }

  // Hard RF pulse: flip [rad] about (cos phase, sin phase, 0), clockwise (Weigel 2015's T, alpha -> -alpha).
  void rf(double flip_rad, double phase_rad);
  // Relaxation over an interval (Weigel 2015): F *= E2, Z_n *= E1, Z_0 += M0 (1 - E1).
  void relax(double interval_s, double T1_s, double T2_s);
  // A gradient of `shift` grid moments (any sign): F+_n -> F+_n+shift, F-_n -> F-_n-shift.
  void dephase(int shift);
  // A turn common to the whole cell (off-resonance, B0): Mxy *= exp(-i angle).
  void precess(double angle_rad);
  // Ideal spoiling (the simulator's switch): every transverse state set to 0, Z kept.
  void spoil();
  // Diffusion attenuation of every state for a constant gradient of `shift` grid moments over tau, applied
  // with the wave numbers before the shift (Weigel et al. 2010); shift 0 is an interval at rest.
  void diffuse(double tau_s, int shift, const KGrid& grid, double D_m2_per_s);
  // One interval as a scanner plays it: diffusion, relaxation, then the gradient's shift; the shift's
  // damping enters the truncation bound.
  void interval(double tau_s, int shift, double T1_s, double T2_s, const KGrid& grid = {}, double D_m2_per_s = 0);

  // Bound on the error of F+_0 from the states dropped so far (see the header's note), and the summed norm
  // of those states.
  double truncation_error_bound() const;
  double dropped_norm() const { return dropped_norm_; }

 private:
  std::vector<State> Fp_, Fm_, Z_;
  double M0_;
  double dropped_norm_ = 0;
  double damping_per_shift_ = 0;  // the largest damping of one unit shift seen (1 when unknown)
  void shift_states(int shift);
};

}  // namespace mrwb::epg
