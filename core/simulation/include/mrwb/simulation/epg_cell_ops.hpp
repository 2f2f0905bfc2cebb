#pragma once
// Per-cell configuration-state operators (Weigel 2015, J Magn Reson Imaging 41:266; diffusion: Weigel, Schwenk,
// Kiselev, Scheffler, Hennig 2010, J Magn Reson 205:276) in float, shared verbatim by the CPU engine (core) and
// the CUDA kernels (gpu) like the one-magnetization operators of bloch_cell_ops.hpp. Each is the float twin of
// one operation of the double-precision reference epg::PhaseGraph (extended_phase_graph.hpp), with its
// conventions: precession turns Mxy by exp(-i theta), an RF pulse of phase p turns M clockwise about
// (cos p, sin p, 0) (Weigel 2015's T with alpha -> -alpha), a positive shift raises the index of F+, and F+_0 is
// the complex Mx + i My a cell of the engines holds.
//
// Record of one cell with N >= 1 states: 6N - 3 floats, the real degrees of freedom of the graph
// (F-_0 = conj(F+_0) and Z_0 is real, so neither is stored twice):
//   component  0 .. 2N-1      F+_0 .. F+_{N-1}   (re, im of each)
//   component 2N .. 4N-3      F-_1 .. F-_{N-1}   (re, im of each)
//   component 4N-2            Z_0                (real)
//   component 4N-1 .. 6N-4    Z_1 .. Z_{N-1}     (re, im of each)
// 4 (6N - 3) bytes: N = 1 is (Mx, My, Mz), the engines' cell today; N = 16 is 372 B. Component j of a cell lies
// at base[j * stride]: stride 1 for a record of its own (an array of records), stride = the number of cells for
// planes of one component each (the engines' layout of Mx, My, Mz, coalesced on the GPU).
// No allocation, exceptions or virtuals: the operators are usable in CUDA kernels. Complex numbers are pairs of
// floats, as bloch_cell_ops.hpp holds Mx and My.

#include <cmath>

#include "mrwb/base/host_device.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"

namespace mrwb::epg::cell {

// Floats in one cell's record of N states.
MRWB_HD constexpr int record_floats(int N) { return 6 * N - 3; }

struct Complexf {
  float re, im;
};

MRWB_HD Complexf cmul(Complexf a, Complexf b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
MRWB_HD Complexf conj(Complexf a) { return {a.re, -a.im}; }
MRWB_HD float norm2(Complexf a) { return a.re * a.re + a.im * a.im; }
// exp(-x) in float: the device's expf (2 ulp), the host's std::exp.
MRWB_HD float exp_minus(float x) {
#if defined(__CUDA_ARCH__)
  return expf(-x);
#else
  return std::exp(-x);
#endif
}

// One cell's states: N of each kind, component j at v[j * stride] (layout above).
struct CellStates {
  float* v;
  int N;
  long stride;

  MRWB_HD float& at(int j) const { return v[static_cast<long>(j) * stride]; }
  // F+_n, 0 <= n < N.
  MRWB_HD Complexf fp(int n) const { return {at(2 * n), at(2 * n + 1)}; }
  MRWB_HD void set_fp(int n, Complexf c) const {
    at(2 * n) = c.re;
    at(2 * n + 1) = c.im;
  }
  // F-_n, 0 <= n < N (F-_0 = conj(F+_0)).
  MRWB_HD Complexf fm(int n) const {
    return n == 0 ? conj(fp(0)) : Complexf{at(2 * N + 2 * n - 2), at(2 * N + 2 * n - 1)};
  }
  MRWB_HD void set_fm(int n, Complexf c) const {  // n >= 1
    at(2 * N + 2 * n - 2) = c.re;
    at(2 * N + 2 * n - 1) = c.im;
  }
  // Z_n, 0 <= n < N (Z_0 real).
  MRWB_HD Complexf z(int n) const {
    return n == 0 ? Complexf{at(4 * N - 2), 0.f} : Complexf{at(4 * N + 2 * n - 3), at(4 * N + 2 * n - 2)};
  }
  MRWB_HD float& z0() const { return at(4 * N - 2); }
  MRWB_HD void set_z(int n, Complexf c) const {  // n >= 1
    at(4 * N + 2 * n - 3) = c.re;
    at(4 * N + 2 * n - 2) = c.im;
  }
  // F+ on the line of orders -(N-1) .. N-1 (F+_-n = conj(F-_n)), the reference's F_plus(n).
  MRWB_HD Complexf line(int n) const { return n >= 0 ? fp(n) : conj(fm(-n)); }
};

// The magnetization m in order 0, every dephased state 0 (N = 1: the cell is m).
MRWB_HD void from_mag(CellStates s, const bloch::Mag& m) {
  for (int j = 0; j < record_floats(s.N); ++j) s.at(j) = 0.f;
  s.at(0) = m.Mx;
  s.at(1) = m.My;
  s.z0() = m.Mz;
}

// Order 0 as a magnetization: the cell's mean (Re F+_0, Im F+_0, Z_0); for N = 1 the whole cell.
MRWB_HD bloch::Mag to_mag(CellStates s) { return {s.at(0), s.at(1), s.z0()}; }

// The signal: F+_0 = the cell's mean Mx + i My.
MRWB_HD Complexf signal(CellStates s) { return s.fp(0); }

// Equilibrium: Z_0 = M0, all else 0 (PhaseGraph's constructor).
MRWB_HD void equilibrium(CellStates s, float M0) { from_mag(s, bloch::Mag{0.f, 0.f, M0}); }

// Weigel 2015's RF transition matrix T(alpha, phi) for the simulator's clockwise turn, alpha ->
// -alpha: with c2 = cos^2(alpha/2), s2 = sin^2(alpha/2), e = exp(i phi),
//   F+' = c2 F+ + e^2 s2 F- + i e sin(alpha) Z
//   F-' = conj(e)^2 s2 F+ + c2 F- - i conj(e) sin(alpha) Z
//   Z'  = (i/2) conj(e) sin(alpha) F+ - (i/2) e sin(alpha) F- + cos(alpha) Z
// The same for every cell of a pulse: built once, applied per cell.
struct RfTransition {
  float c2, s2, ca;
  Complexf e2s2, e2s2_conj, pz, mz, zp, zm;
};

// From the cosines and sines of flip and phase, the arguments of bloch::rf_rotate.
MRWB_HD RfTransition rf_transition(float cos_alpha, float sin_alpha, float cos_phi, float sin_phi) {
  RfTransition t;
  t.c2 = 0.5f * (1.f + cos_alpha);
  t.s2 = 0.5f * (1.f - cos_alpha);
  t.ca = cos_alpha;
  const Complexf e2{cos_phi * cos_phi - sin_phi * sin_phi, 2.f * cos_phi * sin_phi};
  t.e2s2 = {e2.re * t.s2, e2.im * t.s2};
  t.e2s2_conj = conj(t.e2s2);
  t.pz = {-sin_phi * sin_alpha, cos_phi * sin_alpha};          // i e sin(alpha)
  t.mz = {-sin_phi * sin_alpha, -cos_phi * sin_alpha};         // -i conj(e) sin(alpha)
  t.zp = {0.5f * sin_phi * sin_alpha, 0.5f * cos_phi * sin_alpha};   // (i/2) conj(e) sin(alpha)
  t.zm = {0.5f * sin_phi * sin_alpha, -0.5f * cos_phi * sin_alpha};  // -(i/2) e sin(alpha)
  return t;
}

// Hard RF pulse on every order (Weigel 2015's T with alpha -> -alpha). Order 0 is one real vector: F-_0 is
// conj(F+_0) and Z_0 stays real (Z_0' = 2 Re(zp F+_0) + cos(alpha) Z_0), as the reference enforces.
MRWB_HD void rf_rotate(CellStates s, const RfTransition& t) {
  {
    const Complexf fp = s.fp(0), fm = conj(fp);
    const float z = s.z0();
    const Complexf a = cmul(t.e2s2, fm), b = cmul(t.zp, fp);
    s.set_fp(0, {t.c2 * fp.re + a.re + t.pz.re * z, t.c2 * fp.im + a.im + t.pz.im * z});
    s.z0() = 2.f * b.re + t.ca * z;
  }
  for (int n = 1; n < s.N; ++n) {
    const Complexf fp = s.fp(n), fm = s.fm(n), z = s.z(n);
    const Complexf p1 = cmul(t.e2s2, fm), p2 = cmul(t.pz, z);
    const Complexf m1 = cmul(t.e2s2_conj, fp), m2 = cmul(t.mz, z);
    const Complexf z1 = cmul(t.zp, fp), z2 = cmul(t.zm, fm);
    s.set_fp(n, {t.c2 * fp.re + p1.re + p2.re, t.c2 * fp.im + p1.im + p2.im});
    s.set_fm(n, {m1.re + t.c2 * fm.re + m2.re, m1.im + t.c2 * fm.im + m2.im});
    s.set_z(n, {z1.re + z2.re + t.ca * z.re, z1.im + z2.im + t.ca * z.im});
  }
}

MRWB_HD void rf_rotate(CellStates s, float cos_alpha, float sin_alpha, float cos_phi, float sin_phi) {
  rf_rotate(s, rf_transition(cos_alpha, sin_alpha, cos_phi, sin_phi));
}

// Relaxation over an interval (Weigel 2015): F *= E2, Z_n *= E1 (n >= 1), Z_0 recovers towards M0. As in
// bloch::precess_relax, Z_0' = Z_0 + (1 - E1)(M0 - Z_0) with (1 - E1) = -expm1(-dt/T1) passed in, and E1 given
// separately for the dephased Z_n (which do not recover).
MRWB_HD void relax(CellStates s, float M0, float E1, float one_minus_E1, float E2) {
  for (int n = 0; n < s.N; ++n) {
    s.at(2 * n) *= E2;
    s.at(2 * n + 1) *= E2;
  }
  for (int j = 2 * s.N; j < 4 * s.N - 2; ++j) s.at(j) *= E2;
  s.z0() = s.z0() + one_minus_E1 * (M0 - s.z0());
  for (int j = 4 * s.N - 1; j < record_floats(s.N); ++j) s.at(j) *= E1;
}

// A turn common to the whole cell (off-resonance, B0, the gradient frame's phase): F+_n *= exp(-i theta),
// F-_n *= exp(+i theta); Z untouched. On order 0 it is bloch::precess_relax's rotation.
MRWB_HD void precess(CellStates s, float cos_theta, float sin_theta) {
  for (int n = 0; n < s.N; ++n) {
    const Complexf f = s.fp(n);
    s.set_fp(n, {f.re * cos_theta + f.im * sin_theta, f.im * cos_theta - f.re * sin_theta});
  }
  for (int n = 1; n < s.N; ++n) {
    const Complexf f = s.fm(n);
    s.set_fm(n, {f.re * cos_theta - f.im * sin_theta, f.im * cos_theta + f.re * sin_theta});
  }
}

// The turn, then relaxation: bloch::precess_relax on every order.
MRWB_HD void precess_relax(CellStates s, float M0, float E1, float one_minus_E1, float E2, float cos_theta,
                           float sin_theta) {
  precess(s, cos_theta, sin_theta);
  relax(s, M0, E1, one_minus_E1, E2);
}

// Ideal spoiling (the simulator's switch, PhaseGraph::spoil): every transverse state 0, Z kept.
MRWB_HD void spoil(CellStates s) {
  for (int j = 0; j < 4 * s.N - 2; ++j) s.at(j) = 0.f;
}

// A gradient of `shift` grid moments (any sign; Weigel 2015's shift of the states): on the line of F+ over
// orders -(N-1) .. N-1, F+_n -> F+_{n+shift}; F+_0 receives F-_{shift} (conjugated) when shift > 0, and
// F-_1 crosses into F+_0 at shift 1 as in the reference. What moves past |n| = N-1 is dropped (the truncation);
// the return value is its summed squared magnitude, whose square root the reference adds to its dropped norm.
// In place, in an order that reads every state before it is overwritten; Z is untouched.
MRWB_HD float shift_states(CellStates s, int shift) {
  const int N = s.N;
  if (shift == 0) return 0.f;
  float dropped2 = 0.f;
  if (shift > 0) {
    // Orders n >= N - shift of the line leave the graph.
    for (int n = (N - shift > -(N - 1) ? N - shift : -(N - 1)); n < N; ++n) dropped2 += norm2(s.line(n));
    for (int n = N - 1; n >= 0 && n >= shift; --n) s.set_fp(n, s.fp(n - shift));  // F+_n <- F+_{n-shift}
    for (int n = (shift < N ? shift : N) - 1; n >= 0; --n) {                       // F+_n <- conj(F-_{shift-n})
      const int from = shift - n;
      s.set_fp(n, from < N ? conj(s.fm(from)) : Complexf{0.f, 0.f});
    }
    for (int n = 1; n < N; ++n) {  // F-_n <- F-_{n+shift}
      const int from = n + shift;
      s.set_fm(n, from < N ? s.fm(from) : Complexf{0.f, 0.f});
    }
  } else {
    const int d = -shift;
    for (int n = -(N - 1); n < N && n <= -N + d; ++n) dropped2 += norm2(s.line(n));
    for (int n = N - 1; n > d; --n) s.set_fm(n, s.fm(n - d));  // F-_n <- F-_{n-d}
    for (int n = (d < N - 1 ? d : N - 1); n >= 1; --n) {       // F-_n <- conj(F+_{d-n})
      const int from = d - n;
      s.set_fm(n, from < N ? conj(s.fp(from)) : Complexf{0.f, 0.f});
    }
    for (int n = 0; n < N; ++n) {  // F+_n <- F+_{n+d}
      const int from = n + d;
      s.set_fp(n, from < N ? s.fp(from) : Complexf{0.f, 0.f});
    }
  }
  return dropped2;
}

// Diffusion attenuation of every state over an interval tau in which the gradient plays a moment kappa(t)
// since the interval's start (Weigel et al. 2010, their b-terms, as integrals): a state of order n has the wave
// number (n + kappa(t)) dk, so F+_n decays by exp(-D dk^2 (tau n^2 + 2 n mu1 + mu2)), F-_n (order -n) by
// exp(-D dk^2 (tau n^2 - 2 n mu1 + mu2)), Z_n (which the gradient does not move) by exp(-D dk^2 tau n^2), with
// mu1 = integral of kappa dt along the order and mu2 = integral of |kappa|^2 dt, in orders (and orders^2) times
// seconds. `D_dk2` = D (2 pi dk_cycles_per_m)^2, per cell (D is the tissue's).
MRWB_HD void diffuse(CellStates s, float D_dk2, float tau, float mu1, float mu2) {
  if (D_dk2 == 0.f) return;
  for (int n = 0; n < s.N; ++n) {
    const float k = static_cast<float>(n), k2 = tau * k * k, cross = 2.f * k * mu1;
    const float ap = exp_minus(D_dk2 * (k2 + cross + mu2));
    s.at(2 * n) *= ap;
    s.at(2 * n + 1) *= ap;
    if (n == 0) continue;  // Z_0 has wave number 0
    const float am = exp_minus(D_dk2 * (k2 - cross + mu2)), al = exp_minus(D_dk2 * k2);
    s.at(2 * s.N + 2 * n - 2) *= am;
    s.at(2 * s.N + 2 * n - 1) *= am;
    s.at(4 * s.N + 2 * n - 3) *= al;
    s.at(4 * s.N + 2 * n - 2) *= al;
  }
}

// The same for one constant gradient of `shift` grid moments over the interval (kappa = shift t / tau: mu1 =
// tau shift / 2, mu2 = tau shift^2 / 3), Weigel et al. 2010's closed form: F+_n decays by
// exp(-D tau dk^2 (n^2 + n shift + shift^2/3)), F-_n by exp(-D tau dk^2 (n^2 - n shift + shift^2/3)), Z_n by
// exp(-D tau dk^2 n^2). `D_tau_dk2` = D tau (2 pi dk_cycles_per_m)^2; shift 0 is an interval at rest.
MRWB_HD void diffuse(CellStates s, float D_tau_dk2, int shift) {
  const float sh = static_cast<float>(shift);
  diffuse(s, D_tau_dk2, 1.f, 0.5f * sh, sh * sh * (1.f / 3.f));
}

// One interval as a scanner plays it (PhaseGraph::interval): diffusion, relaxation, then the gradient's shift.
// Returns the squared magnitude the shift dropped.
MRWB_HD float interval(CellStates s, int shift, float M0, float E1, float one_minus_E1, float E2,
                       float D_tau_dk2 = 0.f) {
  diffuse(s, D_tau_dk2, shift);
  relax(s, M0, E1, one_minus_E1, E2);
  return shift_states(s, shift);
}

}  // namespace mrwb::epg::cell
