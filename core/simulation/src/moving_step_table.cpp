// The step table of the time-stepped fluid path (moving_step_table.hpp), moved here from the CUDA engine so
// the CPU twin and the device read the same records. Same sub-stepping as the CPU engine
// (courant_substeps under courant_dt_s) and the same Courant scale (dt / flow_dt, in double, then float).
#include <cmath>

#include "mrwb/simulation/internal/moving_step_table.hpp"

#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"

namespace mrwb {

std::vector<FluidStep> fluid_step_table(const CellPhantom& ph, const SequenceProgram& prog,
                                        std::vector<std::pair<long, int>>& trs_at) {
  const std::vector<int> marks = tr_progress_marks(prog);
  const double dt_cfl = courant_dt_s(ph);
  std::vector<FluidStep> table;
  table.reserve(static_cast<std::size_t>(time_step_count(ph, prog)) + 16);
  FluidStep pending{};  // op waiting for the next step
  auto push = [&](double dt, const SeqEvent& e, int k, int sample, bool truth) {
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
  auto set_op = [&](int op, const SeqEvent& e) {
    if (pending.op != 0) push(0, e, 0, -1, false);  // two instantaneous ops in a row: a zero-length step
    pending.op = op;
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
      case EventKind::Rf: set_op(1, e); break;
      case EventKind::Spoil: set_op(2, e); break;
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

}  // namespace mrwb
