#include "mrwb/sequence/sequence_program.hpp"

#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

#include <algorithm>

namespace mrwb {

namespace {

// Appends events to a program; one place for the event shapes both builders use.
struct ProgramWriter {
  SequenceProgram& p;
  void rf(double flip_rad, double phase_rad = 0) {
    SeqEvent e;
    e.kind = EventKind::Rf;
    e.flip_rad = flip_rad;
    e.phase_rad = phase_rad;
    p.events.push_back(e);
  }
  void free(double dt_s, double dk_x = 0, double dk_y = 0) {
    SeqEvent e;
    e.kind = EventKind::Free;
    e.dt_s = dt_s;
    e.dk_x = dk_x;
    e.dk_y = dk_y;
    p.events.push_back(e);
  }
  void spoil() {
    SeqEvent e;
    e.kind = EventKind::Spoil;
    p.events.push_back(e);
  }
  // nx samples from k = −nx/2 along x, k = 0 (sample nx/2) recorded as truth on the centre line (in its
  // imaging acquisition: with a separate ACS block it is played twice).
  void readout(int line, double dk, bool imaging = true) {
    SeqEvent ro;
    ro.kind = EventKind::Readout;
    ro.dt_s = p.dwell_s;
    ro.dk_x = dk;
    ro.n_samples = p.nx;
    ro.line = line;
    ro.truth_sample = (line == p.ny / 2 && imaging) ? p.nx / 2 : -1;
    p.events.push_back(ro);
    ++p.readouts;
  }
};

// First ACS line (they run to acs_first + acs_lines).
int acs_first(const SequenceSpec& seq) { return seq.matrix / 2 - seq.acs_lines / 2; }

// Cartesian sampling: lines on the lattice (line − ny/2) % R == 0 are acquired for imaging; the central
// acs_lines are acquired too and flagged as calibration (calibration-and-imaging where both).
std::vector<std::uint8_t> cartesian_line_flags(const SequenceSpec& seq) {
  const int ny = seq.matrix, R = std::max(1, seq.acceleration);
  const int acs0 = acs_first(seq), acs1 = acs0 + seq.acs_lines;
  std::vector<std::uint8_t> flags(ny, 0);
  for (int line = 0; line < ny; ++line) {
    const bool imaging = (line - ny / 2) % R == 0;
    const bool calibration = line >= acs0 && line < acs1;
    if (imaging) flags[line] |= kLineAcquired | kLineImaging;
    if (calibration) flags[line] |= kLineAcquired | kLineCalibration;
  }
  return flags;
}

// Phase-encode lines in the order played. acs_mode "separate": the calibration block first (every ACS
// line, not imaging), then the imaging lattice, so lattice lines inside the ACS block are played twice
// (the raw data keeps the imaging one; flags as for integrated ACS). Otherwise every acquired line once.
struct Acquisition {
  int line;
  bool imaging;
};
std::vector<Acquisition> acquisition_order(const SequenceSpec& seq, const std::vector<std::uint8_t>& flags) {
  std::vector<Acquisition> out;
  const bool separate = seq.acs_mode == "separate";
  if (separate)
    for (int l = acs_first(seq); l < acs_first(seq) + seq.acs_lines; ++l) out.push_back({l, false});
  for (int l = 0; l < static_cast<int>(flags.size()); ++l)
    if (separate ? (flags[l] & kLineImaging) != 0 : (flags[l] & kLineAcquired) != 0) out.push_back({l, true});
  return out;
}

SequenceProgram program_header(const SequenceSpec& seq, double flip_deg) {
  SequenceProgram p;
  p.nx = p.ny = seq.matrix;
  p.fov_m = seq.fov_m;
  p.TR_s = seq.TR_s;
  p.TE_s = seq.TE_s;
  p.flip_angle_deg = flip_deg;
  p.dwell_s = 1.0 / (seq.bandwidth_Hz_per_pixel * seq.matrix);
  p.accel_R = std::max(1, seq.acceleration);
  p.line_flags = cartesian_line_flags(seq);
  p.duration_s = (seq.dummy_scans + acquisition_order(seq, p.line_flags).size()) * seq.TR_s;
  return p;
}

}  // namespace

SequenceProgram build_spoiled_gre(const SequenceSpec& seq) {
  SequenceProgram p = program_header(seq, seq.flip_angle_deg);
  ProgramWriter w{p};
  const double dk = 1.0 / seq.fov_m;  // k-space step [cycles/m]
  const double flip = seq.flip_angle_deg * M_PI / 180.0;
  const double half_readout = 0.5 * p.nx * p.dwell_s;
  for (int d = 0; d < seq.dummy_scans; ++d) {
    w.rf(flip);
    w.free(seq.TR_s);
    w.spoil();
  }
  for (const auto [line, imaging] : acquisition_order(seq, p.line_flags)) {  // unacquired lines are not played
    w.rf(flip);
    // Prephaser and phase encoding together: k moves to (−nx/2, ky)/FOV by the first sample.
    w.free(seq.TE_s - half_readout, -0.5 * p.nx * dk, (line - p.ny / 2) * dk);
    w.readout(line, dk, imaging);
    w.spoil();
    w.free(seq.TR_s - seq.TE_s - half_readout);
  }
  return p;
}

SequenceProgram build_spin_echo(const SequenceSpec& seq) {
  SequenceProgram p = program_header(seq, 90);
  ProgramWriter w{p};
  const double dk = 1.0 / seq.fov_m;
  const double half_readout = 0.5 * p.nx * p.dwell_s;
  auto tr = [&](int line, bool acquire, bool imaging) {
    w.rf(M_PI / 2);
    // Before the 180°, which negates the accumulated phase: the prephaser carries the opposite sign.
    w.free(0.5 * seq.TE_s, acquire ? 0.5 * p.nx * dk : 0, acquire ? -(line - p.ny / 2) * dk : 0);
    w.rf(M_PI, M_PI / 2);
    w.free(0.5 * seq.TE_s - half_readout);
    if (acquire)
      w.readout(line, dk, imaging);
    else
      w.free(2 * half_readout);
    w.spoil();
    w.free(seq.TR_s - seq.TE_s - half_readout);
  };
  for (int d = 0; d < seq.dummy_scans; ++d) tr(0, false, false);
  for (const auto [line, imaging] : acquisition_order(seq, p.line_flags)) tr(line, true, imaging);
  return p;
}

SequenceProgram build_sequence_program(const SequenceSpec& seq) {
  if (seq.type == SequenceType::SpoiledGre) return build_spoiled_gre(seq);
  if (seq.type == SequenceType::SpinEcho) return build_spin_echo(seq);
  if (seq.type == SequenceType::Bssfp || seq.type == SequenceType::Tof) return seq::block_sequence_program(seq);
  throw InputError("sequence.type: '" + name_of(seq.type) +
                   "' is not available (allowed: spoiled_gre, spin_echo, bssfp, tof)");
}

}  // namespace mrwb
