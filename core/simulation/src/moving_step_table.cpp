// The step table of the time-stepped fluid path (moving_step_table.hpp), moved here from the CUDA engine so
// the CPU twin and the device read the same records. Same sub-stepping as the CPU engine
// (courant_substeps under courant_dt_s) and the same Courant scale (dt / flow_dt, in double, then float).
#include <cmath>
#include <complex>

#include "mrwb/simulation/internal/moving_step_table.hpp"

#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb {

std::vector<FluidStep> fluid_step_table(const CellPhantom& ph, const SequenceProgram& prog,
                                        std::vector<std::pair<long, int>>& trs_at, bool rf_steps_alone) {
  const std::vector<int> marks = tr_progress_marks(prog);
  const double dt_cfl = courant_dt_s(ph);
  std::vector<FluidStep> table;
  table.reserve(static_cast<std::size_t>(time_step_count(ph, prog)) + 16);
  FluidStep pending{};  // op waiting for the next step
  auto push = [&](double dt, const SeqEvent& e, int k, int sample, bool truth) {
    if (rf_steps_alone && pending.op == 1 && dt > 0) {  // the pulse alone first: no transport, no relaxation
      FluidStep rf = pending;
      rf.sample = -1;
      table.push_back(rf);
      pending = FluidStep{};
    }
    FluidStep s = pending;
    pending = FluidStep{};
    s.dt_s = dt;
    s.dk_x = k ? e.dk_x / k : 0;
    s.dk_y = k ? e.dk_y / k : 0;
    s.dk_z = k ? e.dk_z / k : 0;
    s.scale = static_cast<float>(dt / ph.flow_dt_s);
    s.sample = sample;
    s.truth = truth ? 1 : 0;
    table.push_back(s);
  };
  const std::vector<FrameChange> frame = frame_changes(prog);
  auto set_op = [&](int op, const SeqEvent& e, FrameChange change) {
    if (pending.op != 0) push(0, e, 0, -1, false);  // two instantaneous ops in a row: a zero-length step
    pending.op = op;
    pending.frame = static_cast<std::int16_t>(change);
    pending.ca = static_cast<float>(std::cos(e.flip_rad));
    pending.sa = static_cast<float>(std::sin(e.flip_rad));
    pending.cp = static_cast<float>(std::cos(e.phase_rad));
    pending.sp = static_cast<float>(std::sin(e.phase_rad));
  };
  int readout = 0;
  for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
    const SeqEvent& e = prog.events[ei];
    const int k = courant_substeps(e.dt_s, dt_cfl);
    switch (e.kind) {
      case EventKind::Rf: set_op(1, e, frame[ei]); break;
      case EventKind::Spoil: set_op(2, e, frame[ei]); break;
      case EventKind::Free:
        for (int j = 0; j < k; ++j) push(e.dt_s / k, e, k, -1, false);
        break;
      case EventKind::Readout:
        for (int j = 0; j < e.n_samples; ++j)
          for (int sub = 0; sub < k; ++sub)
            push(e.dt_s / k, e, k, sub == 0 ? readout * prog.nx + j : -1, sub == 0 && j == e.truth_sample);
        ++readout;
        break;
    }
    if (marks[ei] > (trs_at.empty() ? 0 : trs_at.back().second))
      trs_at.emplace_back(static_cast<long>(table.size()), marks[ei]);
  }
  // A trailing op changes no sample: dropped.
  return table;
}

std::vector<FrameChange> frame_changes(const SequenceProgram& prog) {
  const std::vector<SeqEvent>& ev = prog.events;
  std::vector<FrameChange> out(ev.size(), FrameChange::Keep);
  for (std::size_t i = 0; i < ev.size();) {
    if (ev[i].kind == EventKind::Spoil) out[i] = FrameChange::Restart;
    if (ev[i].kind != EventKind::Rf) {
      ++i;
      continue;
    }
    // The run of RF pieces from i: RF events with only Free events between them, none a pulse of its own
    // near 180° (those conjugate alone, as the pairs that rotate the RF phase frame, Bloch 180° pulses).
    const double cos150 = -0.86602540378443865;
    auto piece = [&](std::size_t j) { return ev[j].kind == EventKind::Rf && std::cos(ev[j].flip_rad) > cos150; };
    std::size_t end = i + 1, peak = i, pieces = 1;
    std::complex<double> sum = std::polar(ev[i].flip_rad, ev[i].phase_rad);
    for (std::size_t j = i + 1; piece(i) && j < ev.size() && (piece(j) || ev[j].kind == EventKind::Free); ++j) {
      if (ev[j].kind != EventKind::Rf) continue;
      sum += std::polar(ev[j].flip_rad, ev[j].phase_rad);
      if (std::abs(ev[j].flip_rad) > std::abs(ev[peak].flip_rad)) peak = j;
      ++pieces;
      end = j + 1;
    }
    if (pieces == 1)
      out[i] = std::cos(ev[i].flip_rad) <= cos150 ? FrameChange::Conjugate : FrameChange::Keep;
    else
      out[peak] = std::abs(sum) >= 150 * M_PI / 180 ? FrameChange::Conjugate : FrameChange::Restart;
    i = end;
  }
  return out;
}

std::vector<FrameStep> fluid_frame_table(std::span<const FluidStep> table, double cell_size_m) {
  std::vector<FrameStep> out(table.size());
  double k_cell[3] = {0, 0, 0};  // in double: the sum of many small moments
  for (std::size_t j = 0; j < table.size(); ++j) {
    const FluidStep& S = table[j];
    if (S.frame == static_cast<std::int16_t>(FrameChange::Restart)) k_cell[0] = k_cell[1] = k_cell[2] = 0;
    if (S.frame == static_cast<std::int16_t>(FrameChange::Conjugate))
      for (double& k : k_cell) k = -k;
    // The moving cell's turn takes k's mean over the step, the face turns k at its start, where the transported
    // state is.
    double mean_k[3];
    transport::frame_motion_k(k_cell, S.dk_x, S.dk_y, S.dk_z, cell_size_m, mean_k);
    for (int a = 0; a < 3; ++a) out[j].k_cell[a] = static_cast<float>(mean_k[a]);
    transport::frame_face_turns(k_cell, out[j].face_turn);
    k_cell[0] += S.dk_x * cell_size_m;
    k_cell[1] += S.dk_y * cell_size_m;
    k_cell[2] += S.dk_z * cell_size_m;
  }
  return out;
}

}  // namespace mrwb
