#pragma once
// The configuration states of one chunk of cells on the CPU engine's still path (cell_state_plan.hpp). Order 0
// lives in the chunk's magnetizations, advanced event by event exactly as without states, so the readout and
// the truth read it as before. Orders >= 1 are advanced only where they matter: at a shift, an RF pulse or an
// ideal spoil they catch up at once with the time and the summed moment since their last catch-up (turns about
// z commute, relaxation composes: exact), so a readout costs what it costs without states.
//
// Diffusion (Weigel et al. 2010) with the cell's ADC, at every catch-up, on every order, order 0 included: a
// state of order n has the wave vector n q + K(t), q the order's (CellStatePlan::order_rad_per_m) and K the
// moment played since the last shift point along the axes of the state direction, so its b over the interval
// is the integral of |n q + K|^2 (epg::cell::diffuse with mu1, mu2). Each event of the program is taken as one
// constant gradient (its moment growing linearly over its time; Weigel 2010's closed form is the one-event
// case): exact for flat gradients, which the conversion cuts at their corners when it plays states; a ramp of
// eps read as constant loses (gamma G)^2 (delta eps^2 / 3 - 2 eps^3 / 15) of a trapezoid pair's b. An event
// that merged a lobe of length delta with a gap (T - delta) would be read as one lobe over T: from K = 0, b
// would miss (2/3)(T - delta)|dK|^2 when the lobe leads and gain (1/3)(T - delta)|dK|^2 when it trails. Order 0
// also catches up before each readout, so a sample misses only the b of the readout itself up to it (at the
// echo T_ro |dK_ro|^2 / 24 along the direction; 0 where the readout axis is in the frame). Moments on axes not
// in the direction (the frame: readout and phase encoding, an axis in the frame only) do not diffuse.
#include <algorithm>
#include <cstddef>
#include <numbers>
#include <vector>

#include "event_factors.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/epg_cell_ops.hpp"

namespace mrwb {

class CellStateChunk {
 public:
  // Cells [begin, end) of `ph`, from equilibrium; no states (on() false) when the plan is inactive.
  CellStateChunk(const CellStatePlan& plan, const CellPhantom& ph, std::size_t begin, std::size_t end)
      : ph_(ph), begin_(begin), end_(end), N_(plan.active ? plan.states : 1) {
    if (!on()) return;
    rec_.assign((end - begin) * static_cast<std::size_t>(epg::cell::record_floats(N_)), 0.f);
    for (int a = 0; a < 3; ++a) {
      q_[a] = plan.order_rad_per_m[a];
      q2_ += q_[a] * q_[a];
    }
    centres_marked_ = plan.centres_marked;
    if (!plan.diffusion || q2_ == 0 || ph.ADC_m2_per_s.size() != ph.size()) return;
    D_q2_.resize(end - begin);
    for (std::size_t k = 0; k < D_q2_.size(); ++k) D_q2_[k] = static_cast<float>(ph.ADC_m2_per_s[begin + k] * q2_);
    if (std::all_of(D_q2_.begin(), D_q2_.end(), [](float d) { return d == 0.f; })) D_q2_.clear();
  }
  bool on() const { return N_ > 1; }
  bool diffuses() const { return !D_q2_.empty(); }
  // The time and moment of a Free or Readout event, owed to orders >= 1 until their next catch-up, and the
  // b-terms of its moment owed to every order.
  void played(const SeqEvent& e) {
    const double times = e.kind == EventKind::Readout ? e.n_samples : e.kind == EventKind::Free ? 1 : 0;
    pending_t_ += e.dt_s * times;
    pending_k_[0] += e.dk_x * times;
    pending_k_[1] += e.dk_y * times;
    pending_k_[2] += e.dk_z * times;
    if (!diffuses()) return;
    // At each shift point of the plan K restarts from 0: the states' orders are on the grid there (the plan's
    // carry of an off-grid moment, and a joined axis's residual within 1e-3, are not diffused).
    if (e.kind == EventKind::Readout) {
      const int middle = shift_sample(e);
      lobe(e, e.dt_s * middle, middle);
      K_[0] = K_[1] = K_[2] = 0;
      lobe(e, e.dt_s * (e.n_samples - middle), e.n_samples - middle);
    } else if (e.rf_centre || (e.kind == EventKind::Rf && !centres_marked_)) {
      K_[0] = K_[1] = K_[2] = 0;
    } else if (e.kind == EventKind::Free) {
      lobe(e, e.dt_s, 1);
    }
  }
  // The moments since the last shift, on the states of every cell (Weigel 2015's shift).
  void catch_up_and_shift(std::vector<bloch::Mag>& m, int shift) {
    catch_up(m);
    for (std::size_t k = 0; k < m.size(); ++k) {
      const epg::cell::CellStates s = states(k);
      epg::cell::shift_states(s, shift);
      m[k] = epg::cell::to_mag(s);
    }
    // Order n + shift at K - shift q is the same wave vector (a readout's shift comes before its first sample,
    // its shift point at shift_sample).
    for (int a = 0; a < 3; ++a) K_[a] -= shift * q_[a];
  }
  // An RF pulse on every order.
  void rotate(std::vector<bloch::Mag>& m, const epg::cell::RfTransition& t) {
    catch_up(m);
    for (std::size_t k = 0; k < m.size(); ++k) {
      const epg::cell::CellStates s = states(k);
      epg::cell::rf_rotate(s, t);
      m[k] = epg::cell::to_mag(s);
    }
  }
  // Ideal spoiling of every order (m already spoiled by the caller).
  void spoil(std::vector<bloch::Mag>& m) {
    catch_up(m);
    for (std::size_t k = 0; k < m.size(); ++k) epg::cell::spoil(states(k));
  }
  // Orders >= 1 brought to now, order 0 of each record set to the cell's magnetization, and every order
  // diffused over the interval (m's transverse part with order 0's b).
  void catch_up(std::vector<bloch::Mag>& m) {
    const bool owed = pending_t_ != 0 || pending_k_[0] != 0 || pending_k_[1] != 0 || pending_k_[2] != 0;
    if (owed) compute_event_factors(ph_, pending_t_, pending_k_[0], pending_k_[1], pending_k_[2], begin_, end_, f_);
    const bool diffused = diffuses() && pending_t_ > 0;
    for (std::size_t k = 0; k < m.size(); ++k) {
      const epg::cell::CellStates s = states(k);
      if (owed)
        epg::cell::precess_relax(s, ph_.PD[begin_ + k], 1.f - f_.omE1[k], f_.omE1[k], f_.E2[k], f_.c[k], f_.s[k]);
      s.at(0) = m[k].Mx;
      s.at(1) = m[k].My;
      s.z0() = m[k].Mz;
      if (diffused && D_q2_[k] != 0.f) {
        epg::cell::diffuse(s, D_q2_[k], static_cast<float>(pending_t_), static_cast<float>(mu1_),
                           static_cast<float>(mu2_));
        m[k].Mx = s.at(0);
        m[k].My = s.at(1);
      }
    }
    pending_t_ = pending_k_[0] = pending_k_[1] = pending_k_[2] = 0;
    mu1_ = mu2_ = 0;
  }

 private:
  epg::cell::CellStates states(std::size_t k) {
    return {rec_.data() + k * static_cast<std::size_t>(epg::cell::record_floats(N_)), N_, 1};
  }
  // `times` of the event's moment over T as one constant gradient: K runs linearly from K to K + dK, which adds
  // the integrals of q.K / |q|^2 and |K|^2 / |q|^2 over T to mu1 and mu2.
  void lobe(const SeqEvent& e, double T, double times) {
    const double dk[3] = {e.dk_x, e.dk_y, e.dk_z};
    double qK = 0, qdK = 0, KK = 0, KdK = 0, dKdK = 0;
    for (int a = 0; a < 3; ++a) {
      if (q_[a] == 0) continue;  // not in the state direction: the frame's, not diffused
      const double dK = 2 * std::numbers::pi * dk[a] * times;
      qK += q_[a] * K_[a];
      qdK += q_[a] * dK;
      KK += K_[a] * K_[a];
      KdK += K_[a] * dK;
      dKdK += dK * dK;
      K_[a] += dK;
    }
    mu1_ += T * (qK + 0.5 * qdK) / q2_;
    mu2_ += T * (KK + KdK + dKdK / 3) / q2_;
  }
  const CellPhantom& ph_;
  std::size_t begin_, end_;
  int N_;
  std::vector<float> rec_;  // per cell one record of N_ states (epg_cell_ops.hpp)
  double pending_t_ = 0, pending_k_[3] = {0, 0, 0};
  EventFactors f_;
  // Diffusion: one order's wave vector q [rad/m] and |q|^2, D |q|^2 per cell (empty: none diffuses), the moment
  // K [rad/m] since the last shift along the direction's axes, and the b-integrals mu1, mu2 [orders (squared)
  // times s] owed since the last catch-up.
  double q_[3] = {0, 0, 0}, q2_ = 0, K_[3] = {0, 0, 0}, mu1_ = 0, mu2_ = 0;
  std::vector<float> D_q2_;
  bool centres_marked_ = false;
};

}  // namespace mrwb
