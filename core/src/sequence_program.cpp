#include "mrwb/sequence_program.hpp"

#include <cmath>

#include "mrwb/errors.hpp"

namespace mrwb {

SequenceProgram build_spoiled_gre(const SequenceSpec& seq) {
  SequenceProgram p;
  p.nx = p.ny = seq.matrix;
  p.fov_m = seq.fov_m;
  p.TR_s = seq.TR_s;
  p.TE_s = seq.TE_s;
  p.flip_angle_deg = seq.flip_angle_deg;
  p.dwell_s = 1.0 / (seq.bandwidth_Hz_per_pixel * seq.matrix);

  const double dk = 1.0 / seq.fov_m;  // k-space step [cycles/m]
  const double flip = seq.flip_angle_deg * M_PI / 180.0;
  const double half_readout = 0.5 * p.nx * p.dwell_s;
  const double prephase_s = seq.TE_s - half_readout;  // RF to first sample
  const double after_s = seq.TR_s - seq.TE_s - half_readout;  // last sample to next RF

  auto rf = [&] {
    SeqEvent e;
    e.kind = EventKind::Rf;
    e.flip_rad = flip;
    p.events.push_back(e);
  };
  auto free = [&](double dt, double dkx, double dky) {
    SeqEvent e;
    e.kind = EventKind::Free;
    e.dt_s = dt;
    e.dk_x = dkx;
    e.dk_y = dky;
    p.events.push_back(e);
  };
  auto spoil = [&] {
    SeqEvent e;
    e.kind = EventKind::Spoil;
    p.events.push_back(e);
  };

  for (int d = 0; d < seq.dummy_scans; ++d) {
    rf();
    free(seq.TR_s, 0, 0);
    spoil();
  }
  for (int line = 0; line < p.ny; ++line) {
    const double ky = (line - p.ny / 2) * dk;
    rf();
    // Prephaser and phase encoding together: k moves to (−nx/2, ky)/FOV by the first sample.
    free(prephase_s, -0.5 * p.nx * dk, ky);
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.dt_s = p.dwell_s;
    ro.dk_x = dk;
    ro.n_samples = p.nx;
    ro.line = line;
    ro.truth_sample = (line == p.ny / 2) ? p.nx / 2 : -1;  // k = 0 exactly at TE
    p.events.push_back(ro);
    spoil();
    free(after_s, 0, 0);
    ++p.readouts;
  }
  p.duration_s = (seq.dummy_scans + p.ny) * seq.TR_s;
  return p;
}

SequenceProgram build_sequence_program(const SequenceSpec& seq) {
  if (seq.type == "spoiled_gre") return build_spoiled_gre(seq);
  throw InputError("sequence.type: '" + seq.type + "' is not available (allowed: spoiled_gre)");
}

}  // namespace mrwb
