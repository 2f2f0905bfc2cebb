#pragma once
// The configuration states of one chunk of cells on the CPU engine's still path (cell_state_plan.hpp). Order 0
// lives in the chunk's magnetizations, advanced event by event exactly as without states, so the readout and
// the truth read it as before. Orders >= 1 are advanced only where they matter: at a shift, an RF pulse or an
// ideal spoil they catch up at once with the time and the summed moment since their last catch-up (turns about
// z commute, relaxation composes: exact), so a readout costs what it costs without states.
#include <cstddef>
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
    if (on()) rec_.assign((end - begin) * static_cast<std::size_t>(epg::cell::record_floats(N_)), 0.f);
  }
  bool on() const { return N_ > 1; }
  // The time and moment of a Free or Readout event, owed to orders >= 1 until their next catch-up.
  void played(const SeqEvent& e) {
    const double times = e.kind == EventKind::Readout ? e.n_samples : e.kind == EventKind::Free ? 1 : 0;
    pending_t_ += e.dt_s * times;
    pending_k_[0] += e.dk_x * times;
    pending_k_[1] += e.dk_y * times;
    pending_k_[2] += e.dk_z * times;
  }
  // The moments since the last shift, on the states of every cell (Weigel 2015's shift).
  void catch_up_and_shift(std::vector<bloch::Mag>& m, int shift) {
    catch_up(m);
    for (std::size_t k = 0; k < m.size(); ++k) {
      const epg::cell::CellStates s = states(k);
      epg::cell::shift_states(s, shift);
      m[k] = epg::cell::to_mag(s);
    }
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

 private:
  epg::cell::CellStates states(std::size_t k) {
    return {rec_.data() + k * static_cast<std::size_t>(epg::cell::record_floats(N_)), N_, 1};
  }
  // Orders >= 1 brought to now; order 0 of each record set to the cell's magnetization.
  void catch_up(const std::vector<bloch::Mag>& m) {
    const bool owed = pending_t_ != 0 || pending_k_[0] != 0 || pending_k_[1] != 0 || pending_k_[2] != 0;
    if (owed) compute_event_factors(ph_, pending_t_, pending_k_[0], pending_k_[1], pending_k_[2], begin_, end_, f_);
    for (std::size_t k = 0; k < m.size(); ++k) {
      const epg::cell::CellStates s = states(k);
      if (owed)
        epg::cell::precess_relax(s, ph_.PD[begin_ + k], 1.f - f_.omE1[k], f_.omE1[k], f_.E2[k], f_.c[k], f_.s[k]);
      s.at(0) = m[k].Mx;
      s.at(1) = m[k].My;
      s.z0() = m[k].Mz;
    }
    pending_t_ = pending_k_[0] = pending_k_[1] = pending_k_[2] = 0;
  }

  const CellPhantom& ph_;
  std::size_t begin_, end_;
  int N_;
  std::vector<float> rec_;  // per cell one record of N_ states (epg_cell_ops.hpp)
  double pending_t_ = 0, pending_k_[3] = {0, 0, 0};
  EventFactors f_;
};

}  // namespace mrwb
