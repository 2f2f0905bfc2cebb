// Cartesian block-sequence builders: spoiled GRE, spin echo, balanced SSFP, phase contrast.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "mrwb/errors.hpp"
#include "mrwb/sequence_blocks.hpp"

namespace mrwb::seq {

namespace {

std::string ms(double t) {
  std::ostringstream o;
  o.precision(4);
  o << t * 1e3 << " ms";
  return o.str();
}

struct Parts {
  Block excite;          // RF + slice select
  Gradient gz_reph;
  Block readout;         // gx + ADC (+ LIN label added per line)
  double pre_area = 0;   // readout prephaser area putting sample N/2 at k = 0
  double dk = 0;         // 1 / FOV
  double ro_area = 0;    // area of the readout trapezoid
  double rf_center_abs_s = 0;  // RF centre from the start of the excitation block
};

void validate(const CartesianParams& p, const std::string& src) {
  auto bad = [&](const std::string& field, const std::string& range) {
    throw InputError(src + ": " + field + " out of range (allowed: " + range + ")");
  };
  if (!(p.fov_m >= 0.01 && p.fov_m <= 1)) bad("fov_m", "0.01 .. 1 m");
  if (p.matrix < 8 || p.matrix > 1024 || p.matrix % 2) bad("matrix", "even, 8 .. 1024");
  if (!(p.flip_angle_deg > 0 && p.flip_angle_deg <= 180)) bad("flip_angle_deg", "(0, 180]");
  if (!(p.bandwidth_Hz_per_pixel >= 50 && p.bandwidth_Hz_per_pixel <= 5000)) bad("bandwidth_Hz_per_pixel", "50 .. 5000");
  if (!(p.slice_thickness_m >= 0.5e-3 && p.slice_thickness_m <= 0.05)) bad("slice_thickness_m", "0.5 .. 50 mm");
  if (!(p.rf_duration_s >= 0.1e-3 && p.rf_duration_s <= 10e-3)) bad("rf_duration_s", "0.1 .. 10 ms");
  if (p.dummy_scans < 0 || p.dummy_scans > 10000) bad("dummy_scans", "0 .. 10000");
  if (p.accel_R < 1 || p.accel_R > p.matrix / 2) bad("accel_R", "1 .. matrix/2 = " + std::to_string(p.matrix / 2));
  if (p.acs_lines < 0 || p.acs_lines > p.matrix)
    bad("acs_lines", "0 .. matrix = " + std::to_string(p.matrix) + ", got " + std::to_string(p.acs_lines));
  if (p.TE_s < 0 || p.TR_s < 0) bad("TE_s / TR_s", ">= 0 (0: the minimum)");
  if (!(p.sys.max_grad_Hz_per_m > 0 && p.sys.max_slew_Hz_per_m_per_s > 0)) bad("system limits", "> 0");
}

Parts make_parts(const CartesianParams& p, double flip_rad, char use) {
  const SystemLimits& sys = p.sys;
  Parts x;
  Gradient gz;
  RfPulse rf = make_sinc_pulse(flip_rad, p.rf_duration_s, 4, 0, sys, p.slice_thickness_m, &gz, &x.gz_reph);
  rf.use = use;
  const double rf_delay = std::max(gz.rise_s, round_up_to_raster(sys.rf_dead_time_s, sys.grad_raster_s));
  gz.delay_s = rf_delay - gz.rise_s;
  rf.delay_s = rf_delay;
  x.excite.rf = rf;
  x.excite.gz = gz;
  x.excite.duration_s = round_up_to_raster(x.excite.events_duration_s(sys), sys.block_raster_s);
  x.rf_center_abs_s = rf.delay_s + rf.center_s;

  const int n = p.matrix;
  x.dk = 1.0 / p.fov_m;
  double dwell = 1.0 / (p.bandwidth_Hz_per_pixel * n);
  dwell = std::max(sys.adc_raster_s, std::round(dwell / sys.adc_raster_s) * sys.adc_raster_s);
  const double flat = round_up_to_raster(n * dwell, sys.grad_raster_s);
  const double amp = x.dk / dwell;
  Gradient gx = make_trapezoid_flat(amp * flat, flat, sys);
  Adc adc;
  adc.num_samples = n;
  adc.dwell_s = dwell;
  adc.delay_s = gx.rise_s;
  x.readout.gx = gx;
  x.readout.adc = adc;
  x.readout.duration_s = round_up_to_raster(x.readout.events_duration_s(sys), sys.block_raster_s);
  x.ro_area = gx.area_Hz_s_per_m(sys.grad_raster_s);
  x.pre_area = -(amp * gx.rise_s / 2 + amp * (n / 2 + 0.5) * dwell);
  return x;
}

// Phase-encode lines in acquisition order (undersampled by R, plus ACS), each with its flags.
struct PeLine {
  int line;
  bool ref, ima;
};
std::vector<PeLine> pe_lines(const CartesianParams& p) {
  std::vector<PeLine> out;
  const int lo = p.matrix / 2 - p.acs_lines / 2, hi = lo + p.acs_lines;
  for (int l = 0; l < p.matrix; ++l) {
    const bool ima = l % p.accel_R == 0, ref = p.acs_lines > 0 && l >= lo && l < hi;
    if (ima || ref) out.push_back({l, ref, ima});
  }
  return out;
}

// Trapezoids of equal duration for all given areas (the shortest that fits the largest).
double common_duration(const std::vector<double>& areas, const SystemLimits& sys) {
  double d = sys.grad_raster_s;
  for (double a : areas) {
    const Gradient g = make_trapezoid_area(a, sys);
    d = std::max(d, g.duration_s(sys.grad_raster_s));
  }
  return d;
}

Block delay_block(double d) {
  Block b;
  b.duration_s = d;
  return b;
}

std::optional<Gradient> trap_or_none(double area, double dur, const SystemLimits& sys) {
  if (area == 0) return std::nullopt;
  return make_trapezoid_duration(area, dur, sys);
}

double snap(double t, double raster) { return std::round(t / raster) * raster; }

void check_te(double te, double te_min, const std::string& src) {
  if (te > 0 && te < te_min - 1e-9)
    throw InputError(src + ": TE_s " + ms(te) + " is below the minimum " + ms(te_min) +
                     " for this FOV, matrix, bandwidth and RF (allowed: >= " + ms(te_min) + ")");
}
void check_tr(double tr, double tr_min, const std::string& src) {
  if (tr > 0 && tr < tr_min - 1e-9)
    throw InputError(src + ": TR_s " + ms(tr) + " is below the minimum " + ms(tr_min) + " (allowed: >= " + ms(tr_min) + ")");
}

// Gradient-echo family: spoiled GRE (segments = 1), phase contrast (segments = 1 + axes), bSSFP.
BuiltSequence build_gre_family(const CartesianParams& p, const std::string& src, const std::string& kind) {
  validate(p, src);
  const SystemLimits& sys = p.sys;
  const bool balanced = kind == "bssfp", pc = kind == "pc";
  const double flip = p.flip_angle_deg * M_PI / 180;
  Parts x = make_parts(p, flip, 'e');
  const auto lines = pe_lines(p);
  const double max_pe = (p.matrix / 2) * x.dk;

  // Phase contrast: bipolar lobes of area A and duration T with 2·A·T = 1/(2·VENC).
  std::vector<int> axes;
  Gradient lobe;
  double lobe_T = 0;
  if (pc) {
    std::set<int> uniq(p.venc_axes.begin(), p.venc_axes.end());
    if (p.venc_axes.empty() || p.venc_axes.size() > 3 || uniq.size() != p.venc_axes.size() || *uniq.begin() < 0 ||
        *uniq.rbegin() > 2)
      throw InputError(src + ": venc_axes must hold 1 to 3 distinct axes (allowed: 0 x, 1 y, 2 z)");
    if (!(p.venc_m_per_s >= 0.01 && p.venc_m_per_s <= 10)) throw InputError(src + ": venc_m_per_s out of range (allowed: 0.01 .. 10 m/s)");
    axes = p.venc_axes;
    const double target = 1.0 / (4 * p.venc_m_per_s);  // A·T
    for (int k = 2; k < 100000; ++k) {
      const double T = k * sys.grad_raster_s;
      try {
        lobe = make_trapezoid_duration(target / T, T, sys);
        lobe_T = T;
        break;
      } catch (const InputError&) {
      }
    }
  }
  const int segments = pc ? 1 + static_cast<int>(axes.size()) : 1;

  // Prephaser / phase encode / slice rephase share one duration; balanced: the same after the readout.
  const double pre_dur = common_duration({x.pre_area, max_pe, x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s)}, sys);
  const double ro_rest = x.ro_area + x.pre_area;  // moment left after the readout, rewound in bSSFP
  const double post_dur = balanced ? common_duration({-ro_rest, max_pe, x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s)}, sys)
                                   : common_duration({2.0 * p.matrix * x.dk, 4.0 / p.slice_thickness_m, max_pe}, sys);
  const double bip_dur = pc ? 2 * lobe_T : 0;
  const double bip_block = round_up_to_raster(bip_dur, sys.block_raster_s);
  const double pre_block = round_up_to_raster(pre_dur, sys.block_raster_s);
  const double post_block = round_up_to_raster(post_dur, sys.block_raster_s);
  const Adc& adc = *x.readout.adc;
  const double te_min = (x.excite.duration_s - x.rf_center_abs_s) + bip_block + pre_block + adc.delay_s +
                        (p.matrix / 2 + 0.5) * adc.dwell_s;
  const double tr_fixed = x.excite.duration_s + bip_block + pre_block + x.readout.duration_s + post_block;
  double te = p.TE_s > 0 ? p.TE_s : te_min;
  if (balanced) {
    // TE = TR/2: the echo sits midway; the minimum TR is set by the blocks, TE follows.
    const double tr_min = tr_fixed;
    check_tr(p.TR_s, tr_min, src);
    if (p.TE_s > 0) throw InputError(src + ": TE_s is fixed to TR/2 in balanced SSFP (allowed: 0)");
    te = te_min;
  }
  check_te(te, te_min, src);
  const double te_delay = snap(te - te_min, sys.block_raster_s);
  const double tr_min = tr_fixed + te_delay;
  check_tr(p.TR_s, tr_min, src);
  const double tr = p.TR_s > 0 ? p.TR_s : tr_min;
  const double tr_delay = snap(tr - tr_min, sys.block_raster_s);

  BuiltSequence out;
  BlockSequence& s = out.seq;
  s.sys = sys;
  s.name = kind == "gre" ? "spoiled_gre" : kind == "pc" ? "phase_contrast" : "bssfp";
  s.fov_m[0] = s.fov_m[1] = p.fov_m;
  s.fov_m[2] = p.slice_thickness_m;
  long long rf_count = 0;
  auto add_tr = [&](const PeLine* pl, int segment) {
    Block ex = x.excite;
    double phase = 0;
    if (balanced) phase = (rf_count % 2) ? M_PI : 0;
    else if (p.rf_spoiling) phase = std::fmod(117.0 * M_PI / 180 * 0.5 * rf_count * (rf_count + 1), 2 * M_PI);
    ++rf_count;
    ex.rf->phase_rad = phase;
    s.blocks.push_back(ex);
    const double ky = pl ? (pl->line - p.matrix / 2) * x.dk : 0;
    if (pc) {
      Block b;
      b.duration_s = bip_block;
      std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const double sign = (segment == static_cast<int>(i) + 1) ? 1.0 : -1.0;
        // +M1/2: lobe −A then +A; −M1/2: +A then −A (M1 of (+A, −A) is −A·T).
        Gradient w;
        w.type = Gradient::Type::Arbitrary;
        const double A = lobe.amplitude_Hz_per_m * -sign;
        w.amplitude_Hz_per_m = 1.0;
        w.time = {0, lobe.rise_s, lobe.rise_s + lobe.flat_s, lobe_T, lobe_T + lobe.rise_s,
                  lobe_T + lobe.rise_s + lobe.flat_s, 2 * lobe_T};
        for (double& t : w.time) t = std::round(t / sys.grad_raster_s);
        w.waveform = {0, A, A, 0, -A, -A, 0};
        // Collapse duplicate corners of triangular lobes.
        std::vector<double> tt, ww;
        for (std::size_t k = 0; k < w.time.size(); ++k)
          if (tt.empty() || w.time[k] != tt.back()) {
            tt.push_back(w.time[k]);
            ww.push_back(w.waveform[k]);
          }
        w.time = tt;
        w.waveform = ww;
        *g3[axes[i]] = w;
      }
      s.blocks.push_back(b);
    }
    Block pre;
    pre.duration_s = pre_block;
    pre.gx = trap_or_none(x.pre_area, pre_dur, sys);
    pre.gy = trap_or_none(ky, pre_dur, sys);
    pre.gz = trap_or_none(x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s), pre_dur, sys);
    s.blocks.push_back(pre);
    if (te_delay > 0) s.blocks.push_back(delay_block(te_delay));
    Block ro = x.readout;
    if (pl) {
      ro.adc->phase_rad = ex.rf->phase_rad;
      ro.labels.push_back({false, "LIN", pl->line});
      ro.labels.push_back({false, "REF", pl->ref ? 1 : 0});
      ro.labels.push_back({false, "IMA", pl->ima ? 1 : 0});
      if (pc) ro.labels.push_back({false, "SET", segment});
    } else {
      ro.adc.reset();
      ro.duration_s = round_up_to_raster(ro.events_duration_s(sys), sys.block_raster_s);
    }
    s.blocks.push_back(ro);
    Block post;
    post.duration_s = post_block;
    if (balanced) {
      post.gx = trap_or_none(-ro_rest, post_dur, sys);
      post.gy = trap_or_none(-ky, post_dur, sys);
      post.gz = trap_or_none(x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s), post_dur, sys);
    } else {
      post.gx = trap_or_none(2.0 * p.matrix * x.dk, post_dur, sys);
      post.gy = trap_or_none(-ky, post_dur, sys);
      post.gz = trap_or_none(4.0 / p.slice_thickness_m, post_dur, sys);
    }
    s.blocks.push_back(post);
    if (tr_delay > 0) s.blocks.push_back(delay_block(tr_delay));
  };
  if (balanced) {  // alpha/2 preparation half a TR before the first alpha pulse
    Block prep = make_parts(p, flip / 2, 'e').excite;
    prep.rf->phase_rad = M_PI;
    s.blocks.push_back(prep);
    if (tr / 2 > prep.duration_s) s.blocks.push_back(delay_block(snap(tr / 2 - prep.duration_s, sys.block_raster_s)));
    rf_count = 0;
  }
  for (int d = 0; d < p.dummy_scans; ++d) add_tr(nullptr, 0);
  for (const PeLine& l : lines)
    for (int seg = 0; seg < segments; ++seg) add_tr(&l, seg);
  check_limits(s, src);
  out.min_TE_s = te_min;
  out.min_TR_s = tr_fixed;
  out.TE_s = te_min + te_delay;
  out.TR_s = tr_min + tr_delay;
  std::ostringstream r;
  r << "sequence " << s.name << ": TE " << ms(out.TE_s) << " (minimum " << ms(out.min_TE_s) << "), TR "
    << ms(out.TR_s) << " (minimum " << ms(out.min_TR_s) << ")";
  if (pc) r << ", VENC " << p.venc_m_per_s << " m/s, bipolar " << ms(bip_dur);
  out.report = r.str();
  return out;
}

}  // namespace

BuiltSequence build_spoiled_gre_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, "gre");
}
BuiltSequence build_bssfp_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, "bssfp");
}
BuiltSequence build_phase_contrast_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, "pc");
}

BuiltSequence build_spin_echo_blocks(const CartesianParams& p, const std::string& src) {
  validate(p, src);
  const SystemLimits& sys = p.sys;
  Parts x = make_parts(p, M_PI / 2, 'e');
  Parts r = make_parts(p, M_PI, 'r');
  Block refocus = r.excite;
  refocus.rf->phase_rad = M_PI / 2;
  const auto lines = pe_lines(p);
  const double max_pe = (p.matrix / 2) * x.dk;
  // The 180° negates the phase: prephase with the opposite sign; crushers on z around the 180°.
  const double crush_area = 4.0 / p.slice_thickness_m;
  const double pre_dur = common_duration({-x.pre_area, max_pe, x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s)}, sys);
  const double crush_dur = common_duration({crush_area}, sys);
  const double pre_block = round_up_to_raster(pre_dur, sys.block_raster_s);
  const double crush_block = round_up_to_raster(crush_dur, sys.block_raster_s);
  const double spoil_dur = common_duration({2.0 * p.matrix * x.dk, crush_area}, sys);
  const double spoil_block = round_up_to_raster(spoil_dur, sys.block_raster_s);
  const Adc& adc = *x.readout.adc;
  const double part1 = (x.excite.duration_s - x.rf_center_abs_s) + pre_block + crush_block + r.rf_center_abs_s;
  const double part2 = (refocus.duration_s - r.rf_center_abs_s) + crush_block + adc.delay_s + (p.matrix / 2 + 0.5) * adc.dwell_s;
  const double te_min = 2 * std::max(part1, part2);
  check_te(p.TE_s, te_min, src);
  const double te = p.TE_s > 0 ? p.TE_s : te_min;
  const double d1 = std::max(0.0, snap(te / 2 - part1, sys.block_raster_s));
  const double d2 = std::max(0.0, snap(te / 2 - part2, sys.block_raster_s));
  const double tr_min = x.excite.duration_s + pre_block + 2 * crush_block + refocus.duration_s + x.readout.duration_s +
                        spoil_block + d1 + d2;
  check_tr(p.TR_s, tr_min, src);
  const double tr = p.TR_s > 0 ? p.TR_s : tr_min;
  const double tr_delay = snap(tr - tr_min, sys.block_raster_s);

  BuiltSequence out;
  BlockSequence& s = out.seq;
  s.sys = sys;
  s.name = "spin_echo";
  s.fov_m[0] = s.fov_m[1] = p.fov_m;
  s.fov_m[2] = p.slice_thickness_m;
  auto add_tr = [&](const PeLine* pl) {
    s.blocks.push_back(x.excite);
    const double ky = pl ? (pl->line - p.matrix / 2) * x.dk : 0;
    Block pre;
    pre.duration_s = pre_block;
    pre.gx = trap_or_none(-x.pre_area, pre_dur, sys);
    pre.gy = trap_or_none(-ky, pre_dur, sys);
    pre.gz = trap_or_none(x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s), pre_dur, sys);
    s.blocks.push_back(pre);
    if (d1 > 0) s.blocks.push_back(delay_block(d1));
    Block c;
    c.duration_s = crush_block;
    c.gz = make_trapezoid_duration(crush_area, crush_dur, sys);
    s.blocks.push_back(c);
    s.blocks.push_back(refocus);
    s.blocks.push_back(c);
    if (d2 > 0) s.blocks.push_back(delay_block(d2));
    Block ro = x.readout;
    if (pl) {
      ro.labels.push_back({false, "LIN", pl->line});
      ro.labels.push_back({false, "REF", pl->ref ? 1 : 0});
      ro.labels.push_back({false, "IMA", pl->ima ? 1 : 0});
    } else {
      ro.adc.reset();
    }
    s.blocks.push_back(ro);
    Block sp;
    sp.duration_s = spoil_block;
    sp.gx = make_trapezoid_duration(2.0 * p.matrix * x.dk, spoil_dur, sys);
    sp.gz = make_trapezoid_duration(crush_area, spoil_dur, sys);
    s.blocks.push_back(sp);
    if (tr_delay > 0) s.blocks.push_back(delay_block(tr_delay));
  };
  for (int d = 0; d < p.dummy_scans; ++d) add_tr(nullptr);
  for (const PeLine& l : lines) add_tr(&l);
  check_limits(s, src);
  out.min_TE_s = te_min;
  out.min_TR_s = tr_min - d1 - d2 + std::max(0.0, snap(te_min / 2 - part1, sys.block_raster_s)) +
                 std::max(0.0, snap(te_min / 2 - part2, sys.block_raster_s));
  out.TE_s = te;
  out.TR_s = tr_min + tr_delay;
  out.report = "sequence spin_echo: TE " + ms(out.TE_s) + " (minimum " + ms(te_min) + "), TR " + ms(out.TR_s) +
               " (minimum for this TE " + ms(tr_min) + ")";
  return out;
}

BuiltSequence build_blocks(const std::string& type, const CartesianParams& p, const std::string& src) {
  if (type == "spoiled_gre") return build_spoiled_gre_blocks(p, src);
  if (type == "spin_echo") return build_spin_echo_blocks(p, src);
  if (type == "bssfp") return build_bssfp_blocks(p, src);
  if (type == "phase_contrast") return build_phase_contrast_blocks(p, src);
  throw InputError(src + ": sequence type '" + type + "' has no block builder (allowed: spoiled_gre, spin_echo, bssfp, phase_contrast)");
}

}  // namespace mrwb::seq
