// Non-Cartesian spoiled GE (radial, golden-angle radial, spiral, 3-D stack of spirals) as simulator events.
#include "mrwb/sequence/sequence_noncart_gre.hpp"

#include <cmath>
#include <complex>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

constexpr double kSpiralRaster_s = 4e-6;  // gradient raster = ADC dwell of the spiral readouts
constexpr int kDefaultInterleaves = 16;

bool is_radial(const SequenceSpec& seq) { return seq.trajectory == Trajectory::Radial || seq.trajectory == Trajectory::GoldenRadial; }
bool is_spiral(const SequenceSpec& seq) { return seq.trajectory == Trajectory::Spiral || seq.trajectory == Trajectory::StackOfSpirals; }

int spokes_of(const SequenceSpec& seq) {
  return seq.spokes > 0 ? seq.spokes : static_cast<int>(std::ceil(M_PI / 2 * seq.matrix));
}

noncart::SpiralLimits spiral_limits(const SequenceSpec& seq) {
  noncart::SpiralLimits lim;
  lim.fov_m = seq.fov_m;
  lim.dt_s = kSpiralRaster_s;
  return lim;
}

// Samples of readout r equally spaced in-plane (a constant gradient during the readout)? kz is constant
// within a readout (stack of spirals: the partition encode is played by the prephaser).
bool equally_spaced(const noncart::Trajectory& t, int r) {
  const int D = t.dims;
  const float* k = t.k.data() + static_cast<std::size_t>(r) * t.samples * D;
  const double dx = k[D] - k[0], dy = k[D + 1] - k[1];
  for (int j = 2; j < t.samples; ++j)
    if (std::abs(k[D * j] - (k[0] + j * dx)) > 1e-3 || std::abs(k[D * j + 1] - (k[1] + j * dy)) > 1e-3) return false;
  return true;
}

bool all_equally_spaced(const noncart::Trajectory& t) {
  for (int r = 0; r < t.readouts; ++r)
    if (!equally_spaced(t, r)) return false;
  return true;
}

SeqEvent event(EventKind kind, double dt_s = 0, double dk_x = 0, double dk_y = 0, double dk_z = 0) {
  SeqEvent e;
  e.kind = kind;
  e.dt_s = dt_s;
  e.dk_x = dk_x;
  e.dk_y = dk_y;
  e.dk_z = dk_z;
  return e;
}

}  // namespace

// `interleaves` copies of the first interleave of a spiral designed for `design` interleaves, rotated by
// 2 pi / interleaves: with design > interleaves each readout keeps its Nyquist-design length while the turn
// spacing at the edge grows to design / interleaves cycles/FOV (angular undersampling R = design / interleaves).
static noncart::Trajectory undersampled_spiral(const SequenceSpec& seq, int interleaves, int design) {
  const noncart::Trajectory d = noncart::spiral_2d(seq.matrix, design, 1.0, spiral_limits(seq));
  noncart::Trajectory t = d;
  t.readouts = interleaves;
  t.k.resize(t.count() * 2);
  for (int il = 0; il < interleaves; ++il) {
    const double c = std::cos(2 * M_PI * il / interleaves), s = std::sin(2 * M_PI * il / interleaves);
    for (int j = 0; j < t.samples; ++j) {
      const std::size_t i = (static_cast<std::size_t>(il) * t.samples + j) * 2;
      t.k[i] = static_cast<float>(c * d.k[2 * j] - s * d.k[2 * j + 1]);
      t.k[i + 1] = static_cast<float>(s * d.k[2 * j] + c * d.k[2 * j + 1]);
    }
  }
  return t;
}

noncart::Trajectory noncart_trajectory(const SequenceSpec& seq) {
  if (is_radial(seq)) return noncart::radial_2d(seq.matrix, spokes_of(seq), seq.matrix, seq.trajectory == Trajectory::GoldenRadial);
  const int interleaves = seq.interleaves > 0 ? seq.interleaves : kDefaultInterleaves;
  if (seq.trajectory == Trajectory::Spiral && seq.design_interleaves > interleaves)
    return undersampled_spiral(seq, interleaves, seq.design_interleaves);
  if (seq.trajectory == Trajectory::Spiral) return noncart::spiral_2d(seq.matrix, interleaves, 1.0, spiral_limits(seq));
  if (seq.trajectory == Trajectory::StackOfSpirals)  // cubic FOV: matrix partitions kz = -matrix/2 .. matrix/2 - 1
    return noncart::stack_of_spirals(seq.matrix, seq.matrix, interleaves, 1.0, spiral_limits(seq));
  throw InputError("sequence.trajectory = '" + name_of(seq.trajectory) +
                   "' is not non-Cartesian (allowed: radial, golden_radial, spiral, stack_of_spirals)");
}

double noncart_dwell_s(const SequenceSpec& seq) {
  return is_spiral(seq) ? kSpiralRaster_s : 1.0 / (seq.bandwidth_Hz_per_pixel * seq.matrix);
}

int noncart_echo_sample(const SequenceSpec& seq) { return is_radial(seq) ? seq.matrix / 2 : 0; }

SequenceProgram build_noncart_gre(const SequenceSpec& seq) {
  const noncart::Trajectory t = noncart_trajectory(seq);
  const bool one_event_per_readout = all_equally_spaced(t);
  SequenceProgram p;
  p.fov_m = seq.fov_m;
  p.TR_s = seq.TR_s;
  p.TE_s = seq.TE_s;
  p.flip_angle_deg = seq.flip_angle_deg;
  p.dwell_s = noncart_dwell_s(seq);
  p.nx = one_event_per_readout ? t.samples : 1;
  p.ny = one_event_per_readout ? t.readouts : static_cast<int>(t.count());
  p.duration_s = (seq.dummy_scans + t.readouts) * seq.TR_s;
  const double flip = seq.flip_angle_deg * M_PI / 180.0;
  const double per_m = 1.0 / seq.fov_m;  // cycles/FOV -> cycles/m
  const int echo = noncart_echo_sample(seq);
  for (int d = 0; d < seq.dummy_scans; ++d) {
    p.events.push_back(event(EventKind::Rf));
    p.events.back().flip_rad = flip;
    p.events.push_back(event(EventKind::Free, seq.TR_s));
    p.events.push_back(event(EventKind::Spoil));
  }
  const int D = t.dims;
  // The truth (Mxy at TE) is recorded on a readout whose echo sample is k = 0: with a stack of spirals the
  // first one of partition kz = 0 (an encoded partition would twist the phase along z within each voxel).
  int truth_readout = 0;
  while (D == 3 && truth_readout + 1 < t.readouts && t.k[(static_cast<std::size_t>(truth_readout) * t.samples + echo) * 3 + 2] != 0.0f)
    ++truth_readout;
  for (int r = 0; r < t.readouts; ++r) {
    const float* k = t.k.data() + static_cast<std::size_t>(r) * t.samples * D;
    p.events.push_back(event(EventKind::Rf));
    p.events.back().flip_rad = flip;
    // Prephaser: k moves to the readout's first point (and partition kz) by the first sample; the echo
    // sample falls on TE.
    p.events.push_back(event(EventKind::Free, seq.TE_s - echo * p.dwell_s, k[0] * per_m, k[1] * per_m, D == 3 ? k[2] * per_m : 0.0));
    if (one_event_per_readout) {
      SeqEvent ro = event(EventKind::Readout, p.dwell_s, (k[D] - k[0]) * per_m, (k[D + 1] - k[1]) * per_m);
      ro.n_samples = t.samples;
      ro.line = r;
      ro.truth_sample = r == truth_readout ? echo : -1;
      p.events.push_back(ro);
      ++p.readouts;
    } else {
      for (int j = 0; j < t.samples; ++j) {
        const bool last = j + 1 == t.samples;
        SeqEvent ro = event(EventKind::Readout, p.dwell_s, last ? 0.0 : (k[D * (j + 1)] - k[D * j]) * per_m,
                            last ? 0.0 : (k[D * (j + 1) + 1] - k[D * j + 1]) * per_m);
        ro.n_samples = 1;
        ro.line = r * t.samples + j;
        ro.truth_sample = r == truth_readout && j == echo ? 0 : -1;
        p.events.push_back(ro);
        ++p.readouts;
      }
    }
    p.events.push_back(event(EventKind::Spoil));
    p.events.push_back(event(EventKind::Free, seq.TR_s - seq.TE_s - (t.samples - echo) * p.dwell_s));
  }
  return p;
}

void validate_noncart_sequence(const SequenceSpec& q, const std::string& source) {
  auto fail = [&](const std::string& what) { throw InputError(source + ": " + what); };
  if (q.type != SequenceType::SpoiledGre)
    fail("sequence.type = '" + name_of(q.type) + "' with sequence.trajectory = '" + name_of(q.trajectory) +
         "' (allowed: spoiled_gre)");
  if (q.acceleration != 1 || q.acs_lines != 0)
    fail("sequence.acceleration / acs_lines are Cartesian (allowed with a non-Cartesian trajectory: 1 / 0)");
  if (q.spokes < 0 || q.spokes > 4096) fail("sequence.spokes = " + std::to_string(q.spokes) + " is out of range: allowed [0, 4096]");
  if (q.interleaves < 0 || q.interleaves > 256)
    fail("sequence.interleaves = " + std::to_string(q.interleaves) + " is out of range: allowed [0, 256]");
  if (q.design_interleaves != 0 && q.trajectory != Trajectory::Spiral)
    fail("sequence.design_interleaves = " + std::to_string(q.design_interleaves) + " with sequence.trajectory '" + name_of(q.trajectory) +
         "' (allowed: 0; undersampled designs are for spiral)");
  const int acquired = q.interleaves > 0 ? q.interleaves : kDefaultInterleaves;
  if (q.design_interleaves != 0 && (q.design_interleaves < acquired || q.design_interleaves > 256))
    fail("sequence.design_interleaves = " + std::to_string(q.design_interleaves) + " is out of range: allowed 0 or [" +
         std::to_string(acquired) + " (interleaves), 256]");
  if (q.fov_m <= 0 || q.matrix < 8 || q.bandwidth_Hz_per_pixel <= 0) return;  // validate_scenario reports these
  const noncart::Trajectory t = noncart_trajectory(q);
  const double dwell = noncart_dwell_s(q), echo = noncart_echo_sample(q);
  const double before_s = echo * dwell, after_s = (t.samples - echo) * dwell;
  if (q.TE_s < before_s) fail("sequence.TE_s is out of range: must be at least " + std::to_string(before_s) + " s (readout start)");
  if (q.TE_s + after_s > q.TR_s)
    fail("sequence.TR_s is out of range: must be at least TE + the readout after the echo = " + std::to_string(q.TE_s + after_s) + " s");
}

void finish_noncart_raw(const SequenceSpec& seq, RawData& raw) {
  const noncart::Trajectory t = noncart_trajectory(seq);
  if (static_cast<std::size_t>(raw.nx) * raw.ny != t.count())
    throw InputError("simulated raw data: " + std::to_string(raw.nx * raw.ny) + " samples per coil for a trajectory of " +
                     std::to_string(t.count()));
  raw.nx = t.samples;  // the per-sample layout (nx = 1) folds back to readouts x samples in the same order
  raw.ny = t.readouts;
  raw.traj_dims = t.dims;
  raw.traj = t.k;
  // The ISMRMRD names (RawData::trajectory_type is a file-format field).
  raw.trajectory_type = seq.trajectory == Trajectory::GoldenRadial ? "goldenangle" : is_spiral(seq) ? "spiral" : name_of(seq.trajectory);
  raw.line_flags.clear();
  raw.dwell_s = noncart_dwell_s(seq);
  const float voxel_size = static_cast<float>(std::pow(1.0 / seq.matrix, t.dims));  // voxel area (2-D) or volume (3-D)
  for (auto& v : raw.kspace) v *= voxel_size;
}

}  // namespace mrwb
