// Non-Cartesian spoiled GE design (radial, golden-angle radial, spiral, 3-D stack of spirals) and its checks.
#include "mrwb/sequence/noncart_design.hpp"

#include <cmath>

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
  if (seq.max_grad_mT_per_m > 0) lim.gmax_T_per_m = seq.max_grad_mT_per_m * 1e-3;
  if (seq.max_slew_T_per_m_per_s > 0) lim.smax_T_per_m_s = seq.max_slew_T_per_m_per_s;
  return lim;
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
}

}  // namespace mrwb
