// Radial / spiral spoiled GRE as blocks: the simulator's trajectory (noncart_trajectory) played by
// rotated trapezoids (radial) or arbitrary waveforms on the gradient raster (spiral).
#include "mrwb/sequence/sequence_noncart_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/noncart_design.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

namespace mrwb::seq {

namespace {

constexpr double kWaveDelay_s = 20e-6;        // spiral waveform start in its block (a multiple of 4 and 10 us)
constexpr double kBlockPulse_s = 200e-6;      // stack of spirals: non-selective excitation
constexpr double kSpoilCyclesPerSlice = 4.0;  // z spoiler, as the Cartesian builders

bool is_spiral(const SequenceSpec& q) { return q.trajectory == Trajectory::Spiral || q.trajectory == Trajectory::StackOfSpirals; }

std::string ms(double t) {
  std::ostringstream o;
  o.precision(4);
  o << t * 1e3 << " ms";
  return o.str();
}

double snap(double t, double raster) { return std::round(t / raster) * raster; }

// One readout: its block (gradients + ADC), the prephaser areas before it and the spoiler areas after it.
struct Leg {
  Block ro;
  double pre[3] = {0, 0, 0};
  double post[3] = {0, 0, 0};
};

Block delay_block(double d) {
  Block b;
  b.duration_s = d;
  return b;
}

std::optional<Gradient> trap_or_none(double area, double dur, const SystemLimits& sys) {
  if (std::abs(area) < 1e-9) return std::nullopt;
  return make_trapezoid_duration(area, dur, sys);
}

// Trapezoids of `areas` (z plus `extra_z`) lasting `dur` each, in a block of `block_s`.
Block trapezoid_block(const double (&areas)[3], double extra_z, double dur, double block_s, const SystemLimits& sys) {
  Block b;
  b.duration_s = block_s;
  b.gx = trap_or_none(areas[0], dur, sys);
  b.gy = trap_or_none(areas[1], dur, sys);
  b.gz = trap_or_none(areas[2] + extra_z, dur, sys);
  return b;
}

// Shortest trapezoid duration for the areas of `areas` (z plus `extra_z`).
double trap_duration(const double (&areas)[3], double extra_z, const SystemLimits& sys) {
  double d = sys.grad_raster_s;
  for (int a = 0; a < 3; ++a) {
    const double area = areas[a] + (a == 2 ? extra_z : 0);
    if (std::abs(area) > 1e-9) d = std::max(d, make_trapezoid_area(area, sys).duration_s(sys.grad_raster_s));
  }
  return d;
}

// Arbitrary waveform [Hz/m] on the raster as a Pulseq gradient (amplitude · normalised shape, 0 at both edges).
std::optional<Gradient> arbitrary(const std::vector<double>& w, double delay_s) {
  double peak = 0;
  for (double v : w) peak = std::max(peak, std::abs(v));
  if (peak == 0) return std::nullopt;
  Gradient g;
  g.type = Gradient::Type::Arbitrary;
  g.amplitude_Hz_per_m = peak;
  std::vector<double> shape;
  shape.reserve(w.size());
  for (double v : w) shape.push_back(v / peak);
  g.waveform = std::move(shape);
  g.delay_s = delay_s;
  return g;
}

// Radial: the Cartesian readout turned onto the spoke's direction (sample i at (i − n/2)·dk along it).
Leg radial_leg(const noncart::Trajectory& t, int r, const ReadoutPart& rp, int matrix) {
  const int D = t.dims;
  const float* k = t.k.data() + static_cast<std::size_t>(r) * t.samples * D;
  const double dx = k[D * (t.samples - 1)] - k[0], dy = k[D * (t.samples - 1) + 1] - k[1];
  const double len = std::hypot(dx, dy), u[2] = {dx / len, dy / len};
  Leg l;
  l.ro = rp.block;
  const Gradient g = *rp.block.gx;
  l.ro.gx.reset();
  for (int a = 0; a < 2; ++a) {
    if (std::abs(u[a]) < 1e-12) continue;
    Gradient ga = g;
    ga.amplitude_Hz_per_m *= u[a];
    (a == 0 ? l.ro.gx : l.ro.gy) = ga;
    l.pre[a] = rp.pre_area * u[a];
    l.post[a] = 2.0 * matrix * rp.dk * u[a];
  }
  return l;
}

// Spiral: raster value i = (k[i+1] − k[i]) / dt, so that with sample j at the raster edge j the gradient's
// integral reaches k[j] (to a second difference of k); after the last sample a linear ramp to 0 at 99% of
// the slew limit; the spoiler block rewinds what the ramp leaves.
Leg spiral_leg(const noncart::Trajectory& t, int r, double fov_m, double dt, const SystemLimits& sys) {
  const int D = t.dims, S = t.samples;
  const float* k = t.k.data() + static_cast<std::size_t>(r) * S * D;
  std::vector<double> w[2];
  for (int a = 0; a < 2; ++a)
    for (int j = 0; j + 1 < S; ++j) w[a].push_back((k[D * (j + 1) + a] - k[D * j + a]) / fov_m / dt);
  const double g_end = std::hypot(w[0].back(), w[1].back());
  const int ramp = std::max(1, static_cast<int>(std::ceil(g_end / (0.99 * sys.max_slew_Hz_per_m_per_s * dt))));
  Leg l;
  std::optional<Gradient>* g2[2] = {&l.ro.gx, &l.ro.gy};
  for (int a = 0; a < 2; ++a) {
    const double last = w[a].back();
    for (int q = 1; q <= ramp; ++q) w[a].push_back(last * (1.0 - static_cast<double>(q) / ramp));
    w[a].push_back(0.0);  // two closing zeros: Pulseq 1.4 extrapolates the end value from the last two
    *g2[a] = arbitrary(w[a], kWaveDelay_s);
    l.pre[a] = k[a] / fov_m;  // the first sample (0 for spiral-out)
    l.post[a] = -(l.pre[a] + (*g2[a] ? (*g2[a])->area_Hz_s_per_m(sys.grad_raster_s) : 0.0));
  }
  if (D == 3) {
    l.pre[2] = k[2] / fov_m;  // partition encode, rewound after the readout
    l.post[2] = -l.pre[2];
  }
  Adc adc;
  adc.num_samples = S;
  adc.dwell_s = dt;
  adc.delay_s = kWaveDelay_s - dt / 2;  // sample j at kWaveDelay + j·dt: the raster edges
  l.ro.adc = adc;
  return l;
}

}  // namespace

SystemLimits noncart_system_limits(const SequenceSpec& q) {
  SystemLimits sys;
  if (is_spiral(q)) {  // the spiral design's hardware (noncart::SpiralLimits defaults)
    const noncart::SpiralLimits lim;
    sys.max_grad_Hz_per_m = lim.gmax_T_per_m * gamma_Hz_per_T;
    sys.max_slew_Hz_per_m_per_s = lim.smax_T_per_m_s * gamma_Hz_per_T;
    sys.grad_raster_s = noncart_dwell_s(q);
  }
  // The scenario's own hardware (the spiral is then designed within it: noncart_trajectory).
  if (q.max_grad_mT_per_m > 0) sys.max_grad_Hz_per_m = q.max_grad_mT_per_m * 1e-3 * gamma_Hz_per_T;
  if (q.max_slew_T_per_m_per_s > 0) sys.max_slew_Hz_per_m_per_s = q.max_slew_T_per_m_per_s * gamma_Hz_per_T;
  return sys;
}

BuiltSequence build_noncart_gre_blocks(const SequenceSpec& q, const SystemLimits& sys, const std::string& src, bool assemble) {
  CartesianParams p = cartesian_params(q);
  p.sys = sys;
  check_builder_params(p, src);
  const bool spiral = is_spiral(q), three_d = q.trajectory == Trajectory::StackOfSpirals;
  if (spiral && std::abs(noncart_dwell_s(q) - sys.grad_raster_s) > 1e-12)
    throw InputError(src + ": the spiral is designed on a " + ms(noncart_dwell_s(q)) + " gradient raster (allowed: " +
                     "GradientRasterTime = the design's, got " + ms(sys.grad_raster_s) + ")");
  const noncart::Trajectory t = noncart_trajectory(q);
  const double flip = p.flip_angle_deg * M_PI / 180;

  Excitation ex;
  if (three_d) {
    RfPulse rf = make_block_pulse(flip, kBlockPulse_s, 0, sys);
    rf.use = 'e';
    rf.delay_s = round_up_to_raster(sys.rf_dead_time_s, sys.grad_raster_s);
    ex.block.rf = rf;
    ex.block.duration_s = round_up_to_raster(ex.block.events_duration_s(sys), sys.block_raster_s);
    ex.rf_center_abs_s = rf.delay_s + rf.center_s;
  } else {
    ex = make_slice_excitation(flip, p.rf_duration_s, p.slice_thickness_m, 'e', sys);
  }
  const double reph = ex.gz_rephase.area_Hz_s_per_m(sys.grad_raster_s);

  const ReadoutPart rp = make_readout_part(q.fov_m, q.matrix, q.bandwidth_Hz_per_pixel, sys);
  auto leg = [&](int r) { return spiral ? spiral_leg(t, r, q.fov_m, noncart_dwell_s(q), sys) : radial_leg(t, r, rp, q.matrix); };
  const double spoil_z = kSpoilCyclesPerSlice / p.slice_thickness_m;
  // Pass 1, one readout at a time (a stack of spirals holds many waveforms): common timing, limits.
  double pre_dur = 0, post_dur = 0, ro_block = 0;
  for (int r = 0; r < t.readouts; ++r) {
    const Leg l = leg(r);
    pre_dur = std::max(pre_dur, trap_duration(l.pre, reph, sys));
    post_dur = std::max(post_dur, trap_duration(l.post, spoil_z, sys));
    ro_block = std::max(ro_block, l.ro.events_duration_s(sys));
    BlockSequence one;
    one.sys = sys;
    one.blocks.push_back(l.ro);
    one.blocks.back().duration_s = round_up_to_raster(ro_block, sys.block_raster_s);
    check_limits(one, src + ": readout " + std::to_string(r));
  }
  const double pre_block = round_up_to_raster(pre_dur, sys.block_raster_s);
  const double post_block = round_up_to_raster(post_dur, sys.block_raster_s);
  ro_block = round_up_to_raster(ro_block, sys.block_raster_s);
  const Leg first = leg(0);

  const double echo_in_ro = first.ro.adc->sample_time_s(noncart_echo_sample(q));  // k = 0 there
  const double te_min = (ex.block.duration_s - ex.rf_center_abs_s) + pre_block + echo_in_ro;
  if (p.TE_s > 0 && p.TE_s < te_min - 1e-9)
    throw InputError(src + ": TE_s " + ms(p.TE_s) + " is below the minimum " + ms(te_min) + " for this trajectory, FOV, " +
                     "matrix and RF (allowed: >= " + ms(te_min) + ")");
  const double te_delay = p.TE_s > 0 ? snap(p.TE_s - te_min, sys.block_raster_s) : 0;
  const double tr_fixed = ex.block.duration_s + pre_block + ro_block + post_block;
  const double tr_min = tr_fixed + te_delay;
  if (p.TR_s > 0 && p.TR_s < tr_min - 1e-9)
    throw InputError(src + ": TR_s " + ms(p.TR_s) + " is below the minimum " + ms(tr_min) + " for this TE (allowed: >= " +
                     ms(tr_min) + ")");
  const double tr = p.TR_s > 0 ? p.TR_s : tr_min;
  const double tr_delay = snap(tr - tr_min, sys.block_raster_s);

  BuiltSequence out;
  BlockSequence& s = out.seq;
  s.sys = sys;
  s.name = "spoiled_gre_" + name_of(q.trajectory);
  s.fov_m[0] = s.fov_m[1] = q.fov_m;
  s.fov_m[2] = three_d ? q.fov_m : p.slice_thickness_m;
  long long rf_count = 0;
  auto add_tr = [&](const Leg& l, int line) {
    const double phase = std::fmod(117.0 * M_PI / 180 * 0.5 * rf_count * (rf_count + 1), 2 * M_PI);
    ++rf_count;
    Block e = ex.block;
    e.rf->phase_rad = phase;
    s.blocks.push_back(e);
    s.blocks.push_back(trapezoid_block(l.pre, reph, pre_dur, pre_block, sys));
    if (te_delay > 0) s.blocks.push_back(delay_block(te_delay));
    Block ro = l.ro;
    ro.duration_s = ro_block;
    if (line >= 0) {
      ro.adc->phase_rad = phase;
      ro.labels.push_back({false, "LIN", line});
    } else {
      ro.adc.reset();
    }
    s.blocks.push_back(ro);
    s.blocks.push_back(trapezoid_block(l.post, spoil_z, post_dur, post_block, sys));
    if (tr_delay > 0) s.blocks.push_back(delay_block(tr_delay));
  };
  if (assemble) {
    for (int d = 0; d < q.dummy_scans; ++d) add_tr(first, -1);
    for (int r = 0; r < t.readouts; ++r) add_tr(leg(r), r);
    check_limits(s, src);
  }

  out.min_TE_s = te_min;
  out.min_TR_s = tr_fixed;
  out.TE_s = te_min + te_delay;
  out.TR_s = tr_min + tr_delay;
  std::ostringstream r;
  r << "sequence " << s.name << ": TE " << ms(out.TE_s) << " (minimum " << ms(out.min_TE_s) << "), TR " << ms(out.TR_s)
    << " (minimum " << ms(out.min_TR_s) << "), " << t.readouts << " readouts x " << t.samples << " samples, dwell "
    << noncart_dwell_s(q) * 1e6 << " us";
  out.report = r.str();
  return out;
}

}  // namespace mrwb::seq
