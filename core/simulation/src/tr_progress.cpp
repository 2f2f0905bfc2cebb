// Progress marks per TR shared by the engines (simulation_engine.hpp).
#include <cmath>

#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/tr_progress.hpp"

namespace mrwb {

std::vector<int> tr_progress_marks(const SequenceProgram& prog) {
  std::vector<int> marks(prog.events.size());
  double t = 0;
  int readouts = 0;
  for (std::size_t e = 0; e < prog.events.size(); ++e) {
    const SeqEvent& ev = prog.events[e];
    if (ev.kind == EventKind::Free) t += ev.dt_s;
    if (ev.kind == EventKind::Readout) {
      t += ev.dt_s * ev.n_samples;
      ++readouts;
    }
    // A TR ends within rounding of k·TR: 1e-6 of a TR absorbs the sum of the event durations' errors.
    marks[e] = prog.TR_s > 0 ? static_cast<int>(std::floor(t / prog.TR_s + 1e-6)) : readouts;
  }
  // The end of the program is the last mark (a final partial TR counts as one).
  if (!marks.empty() && prog.TR_s > 0 && t / prog.TR_s - marks.back() > 1e-6) ++marks.back();
  return marks;
}

}  // namespace mrwb
