// Cartesian block-sequence builders: spoiled GRE, spin echo, balanced SSFP, phase contrast, time of flight.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_limits.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"

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
  if (!limits::fov_m.contains(p.fov_m)) bad("fov_m", text(limits::fov_m));
  if (!limits::matrix.contains(p.matrix) || p.matrix % 2) bad("matrix", "even, " + text(limits::matrix));
  if (!limits::flip_angle_deg.contains(p.flip_angle_deg)) bad("flip_angle_deg", text(limits::flip_angle_deg));
  if (!limits::bandwidth_Hz_per_pixel.contains(p.bandwidth_Hz_per_pixel))
    bad("bandwidth_Hz_per_pixel", text(limits::bandwidth_Hz_per_pixel));
  if (!(p.slice_thickness_m >= 0.5e-3 && p.slice_thickness_m <= 0.05)) bad("slice_thickness_m", "0.5 .. 50 mm");
  if (!(p.rf_duration_s >= 0.1e-3 && p.rf_duration_s <= 10e-3)) bad("rf_duration_s", "0.1 .. 10 ms");
  if (!limits::dummy_scans.contains(p.dummy_scans)) bad("dummy_scans", text(limits::dummy_scans));
  if (p.accel_R < 1 || p.accel_R > p.matrix / 2) bad("accel_R", "1 .. matrix/2 = " + std::to_string(p.matrix / 2));
  if (p.acs_lines < 0 || p.acs_lines > p.matrix)
    bad("acs_lines", "0 .. matrix = " + std::to_string(p.matrix) + ", got " + std::to_string(p.acs_lines));
  if (p.TE_s < 0 || p.TR_s < 0) bad("TE_s / TR_s", ">= 0 (0: the minimum)");
  if (!(p.partial_fourier >= 0.5 && p.partial_fourier <= 1)) bad("partial_fourier", "0.5 .. 1");
  if (p.separate_acs && p.acs_lines == 0) bad("acs_lines", "1 .. matrix with a separate ACS block, got 0");
  if (p.undersampling != "regular" && p.undersampling != "random" && p.undersampling != "poisson_disc")
    bad("undersampling", "regular, random, poisson_disc");
  if (p.undersampling != "regular" && (p.separate_acs || p.partial_fourier != 1 || p.accel_R < 2))
    bad("undersampling", "regular with a separate ACS block, partial Fourier or R = 1; random / poisson_disc need R >= 2");
  if (p.acs_lines / 2 > p.partial_fourier * p.matrix - p.matrix / 2)
    bad("acs_lines", "at most " + std::to_string(2 * static_cast<int>(p.partial_fourier * p.matrix - p.matrix / 2)) +
                         " with partial_fourier " + std::to_string(p.partial_fourier) + " (the ACS block must be acquired)");
  if (!(p.sys.max_grad_Hz_per_m > 0 && p.sys.max_slew_Hz_per_m_per_s > 0)) bad("system limits", "> 0");
}

Parts make_parts(const CartesianParams& p, double flip_rad, char use) {
  Parts x;
  Excitation e = make_slice_excitation(flip_rad, p.rf_duration_s, p.slice_thickness_m, use, p.sys);
  x.excite = std::move(e.block);
  x.gz_reph = e.gz_rephase;
  x.rf_center_abs_s = e.rf_center_abs_s;
  ReadoutPart r = make_readout_part(p.fov_m, p.matrix, p.bandwidth_Hz_per_pixel, p.sys);
  x.readout = std::move(r.block);
  x.dk = r.dk;
  x.ro_area = r.ro_area;
  x.pre_area = r.pre_area;
  return x;
}

// Phase-encode lines in acquisition order (undersampled by R, plus ACS), each with its flags.
struct PeLine {
  int line;
  bool ref, ima;
};
std::vector<PeLine> pe_lines(const CartesianParams& p) {
  std::vector<PeLine> out;
  if (p.undersampling != "regular") {  // variable density: the pattern's lines, its ACS block among them
    const std::vector<std::uint8_t> flags =
        p.undersampling == "random" ? random_lines(p.matrix, p.accel_R, p.acs_lines, p.undersampling_seed)
                                    : poisson_disc_lines(p.matrix, p.accel_R, p.acs_lines, p.undersampling_seed);
    for (int l = 0; l < p.matrix; ++l)
      if (flags[l] & mrwb::kLineAcquired) out.push_back({l, (flags[l] & mrwb::kLineCalibration) != 0, true});
    return out;
  }
  const int lo = p.matrix / 2 - p.acs_lines / 2, hi = lo + p.acs_lines;
  const int first = p.matrix - static_cast<int>(std::lround(p.partial_fourier * p.matrix));  // partial Fourier
  // Separate ACS: the calibration block (REF only) is played first, then the imaging lattice (IMA only).
  if (p.separate_acs)
    for (int l = lo; l < hi; ++l) out.push_back({l, true, false});
  for (int l = first; l < p.matrix; ++l) {
    // The acquired lattice: lines with (line − matrix/2) % R == 0 (raw_data.hpp's line flags).
    const bool ima = (l - p.matrix / 2) % p.accel_R == 0, ref = p.acs_lines > 0 && l >= lo && l < hi;
    if (p.separate_acs ? ima : ima || ref) out.push_back({l, ref && !p.separate_acs, ima});
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

// Time-of-flight flow compensation: lobe length, block length and the TE gap placed before the lobes.
struct FlowCompDesign {
  double lobe_s = 0, block_s = 0, gap_s = 0;
  double m0x = 0, m1x = 0, m0z = 0, m1z = 0;  // fixed moments about the lobes' start
  double t_echo_s = 0;                         // echo from the lobes' start
};

// Gradient-echo family: spoiled GRE (segments = 1), phase contrast (segments = 1 + axes), bSSFP, time of
// flight (kz partitions, flow compensation).
BuiltSequence build_gre_family(const CartesianParams& p, const std::string& src, SequenceType kind) {
  validate(p, src);
  const SystemLimits& sys = p.sys;
  const bool balanced = kind == SequenceType::Bssfp, pc = kind == SequenceType::PhaseContrast, tof = kind == SequenceType::Tof;
  const bool fc = tof && p.flow_compensation;
  if (p.partitions < 1 || p.partitions > 256 || (!tof && p.partitions != 1))
    throw InputError(src + ": partitions = " + std::to_string(p.partitions) +
                     " out of range (allowed: 1 .. 256; above 1 only for time of flight)");
  const int nz = p.partitions;
  // Multi-slice (2-D spoiled GRE, time of flight): slices excited one after another within each TR.
  if (p.slices < 1 || p.slices > 64 || (p.slices > 1 && !(kind == SequenceType::SpoiledGre || (tof && nz == 1))))
    throw InputError(src + ": slices = " + std::to_string(p.slices) +
                     " out of range (allowed: 1 .. 64; above 1 only for 2-D spoiled_gre and tof)");
  if (!(p.slice_gap_m >= 0 && p.slice_gap_m <= 0.1)) throw InputError(src + ": slice_gap_m out of range (allowed: 0 .. 0.1 m)");
  const int nslices = p.slices;
  auto kz_of = [&](int pz) { return nz > 1 ? (pz - nz / 2) / p.slice_thickness_m : 0.0; };
  const double max_kz = std::max(std::abs(kz_of(0)), std::abs(kz_of(nz - 1)));
  const double flip = p.flip_angle_deg * M_PI / 180;
  Parts x = make_parts(p, flip, 'e');
  const auto lines = pe_lines(p);
  const double max_pe = (p.matrix / 2) * x.dk;
  const double reph = x.gz_reph.area_Hz_s_per_m(sys.grad_raster_s);
  const Adc& adc = *x.readout.adc;
  const double echo_in_ro = adc.sample_time_s(p.matrix / 2);  // sample n/2 sits at k = 0

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

  // Time of flight with flow compensation: x and z lobe pairs (and the y phase encode) in one block right
  // before the readout; M0 and M1 at the echo come out 0 on x and (kz, 0) on z. The TE gap sits before the
  // block, so the slice-select moments depend on it: the design is searched for the TE wanted.
  const double te_base = (x.excite.duration_s - x.rf_center_abs_s) + echo_in_ro;
  auto design_fc = [&](double te) -> std::optional<FlowCompDesign> {
    for (int k = 1; k <= 10000; ++k) {
      FlowCompDesign d;
      d.lobe_s = k * sys.grad_raster_s;
      d.block_s = round_up_to_raster(2 * d.lobe_s, sys.block_raster_s);
      d.gap_s = te > 0 ? snap(te - te_base - d.block_s, sys.block_raster_s) : 0;
      if (d.gap_s < 0) return std::nullopt;
      add_gradient_moments(*x.readout.gx, sys.grad_raster_s, 0, echo_in_ro, d.block_s, d.m0x, d.m1x);
      add_gradient_moments(*x.excite.gz, sys.grad_raster_s, x.rf_center_abs_s, x.excite.duration_s,
                           -(d.gap_s + x.excite.duration_s), d.m0z, d.m1z);
      d.t_echo_s = d.block_s + echo_in_ro;
      bool fits = make_moment_nulling_lobes(0, 0, d.m0x, d.m1x, d.lobe_s, sys).has_value();
      for (int pz : {0, nz - 1})  // lobe areas are affine in kz: the extremes bound them
        fits = fits && make_moment_nulling_lobes(kz_of(pz), kz_of(pz) * d.t_echo_s, d.m0z, d.m1z, d.lobe_s, sys);
      try {
        make_trapezoid_duration(max_pe, 2 * d.lobe_s, sys);
      } catch (const InputError&) {
        fits = false;
      }
      if (fits) return d;
    }
    return std::nullopt;
  };
  FlowCompDesign fcd;
  double pre_block = 0, pre_dur = 0;
  if (fc) {
    const auto d = design_fc(0);
    if (!d) throw InputError(src + ": flow-compensation lobes do not fit the gradient limits (allowed: flow_compensation false)");
    fcd = *d;
    pre_block = fcd.block_s;
  } else {
    // Prephaser / phase encode / slice rephase share one duration; balanced: the same after the readout.
    pre_dur = common_duration({x.pre_area, max_pe, std::abs(reph) + max_kz}, sys);
    pre_block = round_up_to_raster(pre_dur, sys.block_raster_s);
  }
  const double ro_rest = x.ro_area + x.pre_area;  // moment left after the readout, rewound in bSSFP
  const double spoil_area = 4.0 / p.slice_thickness_m;
  const double post_dur = balanced ? common_duration({-ro_rest, max_pe, reph}, sys)
                                   : common_duration({2.0 * p.matrix * x.dk, spoil_area + max_kz, max_pe}, sys);
  const double bip_dur = pc ? 2 * lobe_T : 0;
  const double bip_block = round_up_to_raster(bip_dur, sys.block_raster_s);
  const double post_block = round_up_to_raster(post_dur, sys.block_raster_s);
  const double te_min = te_base + bip_block + pre_block;
  const double tr_fixed_min = nslices * (x.excite.duration_s + bip_block + pre_block + x.readout.duration_s + post_block);
  double te_delay = 0, tr_delay = 0, tr = 0, tr_min = 0;
  if (balanced) {
    // Echo at TR/2: a delay d1 before the readout and d2 at the end of the TR.
    const double r = sys.block_raster_s;
    auto split = [&](double TR, double& d1, double& d2) {
      d1 = snap(TR / 2 - te_min, r);
      d2 = snap(TR - tr_fixed_min - d1, r);
      return d1 >= 0 && d2 >= 0;
    };
    double d1 = 0, d2 = 0;
    tr_min = round_up_to_raster(std::max(2 * te_min, 2 * (tr_fixed_min - te_min)), r);
    while (!split(tr_min, d1, d2)) tr_min += r;
    check_tr(p.TR_s, tr_min, src);
    tr = p.TR_s > 0 ? snap(p.TR_s, r) : tr_min;
    if (!split(tr, d1, d2)) throw InputError(src + ": TR_s " + ms(tr) + " cannot centre the echo (allowed: >= " + ms(tr_min) + ")");
    if (p.TE_s > 0 && std::abs(p.TE_s - tr / 2) > r)
      throw InputError(src + ": TE_s " + ms(p.TE_s) + " must be TR/2 in balanced SSFP (allowed: 0 or TR_s/2 = " + ms(tr / 2) + ")");
    te_delay = d1;
    tr_delay = d2;
  } else {
    check_te(p.TE_s, te_min, src);
    if (fc && p.TE_s > 0) {
      const auto d = design_fc(p.TE_s);
      if (!d) throw InputError(src + ": TE_s " + ms(p.TE_s) + " cannot be reached with flow compensation (allowed: " + ms(te_min) + " or flow_compensation false)");
      fcd = *d;
      pre_block = fcd.block_s;
      te_delay = fcd.gap_s;
    } else if (!fc) {
      te_delay = snap((p.TE_s > 0 ? p.TE_s : te_min) - te_min, sys.block_raster_s);
    }
    tr_min = nslices * (x.excite.duration_s + bip_block + pre_block + x.readout.duration_s + post_block + te_delay);
    check_tr(p.TR_s, tr_min, src);
    tr = p.TR_s > 0 ? p.TR_s : tr_min;
    tr_delay = snap(tr - tr_min, sys.block_raster_s);
  }

  BuiltSequence out;
  BlockSequence& s = out.seq;
  s.sys = sys;
  s.name = name_of(kind);
  s.fov_m[0] = s.fov_m[1] = p.fov_m;
  s.fov_m[2] = p.slice_thickness_m;
  long long rf_count = 0;
  auto add_slice = [&](const PeLine* pl, int segment, int pz, int slice) {
    Block ex = x.excite;
    double phase = 0;
    if (balanced) phase = (rf_count % 2) ? M_PI : 0;
    else if (p.rf_spoiling) phase = std::fmod(117.0 * M_PI / 180 * 0.5 * rf_count * (rf_count + 1), 2 * M_PI);
    ++rf_count;
    // Slice position by the RF frequency offset, its phase compensated at the pulse centre (Pulseq's
    // convention, see ConversionOptions): the ADC keeps the spoiling phase alone.
    const double z = (slice - 0.5 * (nslices - 1)) * (p.slice_thickness_m + p.slice_gap_m);
    ex.rf->freq_Hz = ex.gz->amplitude_Hz_per_m * z;
    ex.rf->phase_rad = std::remainder(phase - 2 * M_PI * ex.rf->freq_Hz * ex.rf->center_s, 2 * M_PI);
    s.blocks.push_back(ex);
    const double ky = pl ? (pl->line - p.matrix / 2) * x.dk : 0, kz = kz_of(pz);
    if (fc && te_delay > 0) s.blocks.push_back(delay_block(te_delay));
    if (pc) {
      Block b;
      b.duration_s = bip_block;
      std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const double sign = (segment == static_cast<int>(i) + 1) ? 1.0 : -1.0;
        // +M1/2: lobe −A then +A; −M1/2: +A then −A (M1 of (+A, −A) is −A·T).
        const double A = lobe.amplitude_Hz_per_m * -sign;
        *g3[axes[i]] = make_extended_trapezoid({0, lobe.rise_s, lobe.rise_s + lobe.flat_s, lobe_T, lobe_T + lobe.rise_s,
                                                lobe_T + lobe.rise_s + lobe.flat_s, 2 * lobe_T},
                                               {0, A, A, 0, -A, -A, 0}, sys);
      }
      s.blocks.push_back(b);
    }
    Block pre;
    pre.duration_s = pre_block;
    if (fc) {
      pre.gx = make_moment_nulling_lobes(0, 0, fcd.m0x, fcd.m1x, fcd.lobe_s, sys);
      pre.gy = trap_or_none(ky, 2 * fcd.lobe_s, sys);
      pre.gz = make_moment_nulling_lobes(kz, kz * fcd.t_echo_s, fcd.m0z, fcd.m1z, fcd.lobe_s, sys);
    } else {
      pre.gx = trap_or_none(x.pre_area, pre_dur, sys);
      pre.gy = trap_or_none(ky, pre_dur, sys);
      pre.gz = trap_or_none(reph + kz, pre_dur, sys);
    }
    s.blocks.push_back(pre);
    if (!fc && te_delay > 0) s.blocks.push_back(delay_block(te_delay));
    Block ro = x.readout;
    if (pl) {
      ro.adc->phase_rad = phase;
      ro.labels.push_back({false, "LIN", pl->line});
      if (nslices > 1) ro.labels.push_back({false, "SLC", slice});
      if (nz > 1) ro.labels.push_back({false, "PAR", pz});
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
      post.gz = trap_or_none(reph, post_dur, sys);
    } else {
      post.gx = trap_or_none(2.0 * p.matrix * x.dk, post_dur, sys);
      post.gy = trap_or_none(-ky, post_dur, sys);
      post.gz = trap_or_none(spoil_area - kz, post_dur, sys);
    }
    s.blocks.push_back(post);
  };
  auto add_tr = [&](const PeLine* pl, int segment, int pz) {
    for (int slice = 0; slice < nslices; ++slice) add_slice(pl, segment, pz, slice);
    if (tr_delay > 0) s.blocks.push_back(delay_block(tr_delay));
  };
  if (balanced) {  // alpha/2 preparation half a TR before the first alpha pulse
    Block prep = make_parts(p, flip / 2, 'e').excite;
    prep.rf->phase_rad = M_PI;
    s.blocks.push_back(prep);
    if (tr / 2 > prep.duration_s) s.blocks.push_back(delay_block(snap(tr / 2 - prep.duration_s, sys.block_raster_s)));
    rf_count = 0;
  }
  // Sized for 4 blocks per TR and slice (excitation, prephaser, readout, spoiler; delays and lobes add at most
  // one more doubling): growing from empty moved every block many times over.
  s.blocks.reserve(s.blocks.size() + std::size_t{4} * static_cast<std::size_t>(nslices) *
                                         (static_cast<std::size_t>(p.dummy_scans) +
                                          static_cast<std::size_t>(nz) * lines.size() * static_cast<std::size_t>(segments)));
  for (int d = 0; d < p.dummy_scans; ++d) add_tr(nullptr, 0, nz / 2);
  for (int pz = 0; pz < nz; ++pz)
    for (const PeLine& l : lines)
      for (int seg = 0; seg < segments; ++seg) add_tr(&l, seg, pz);
  check_limits(s, src);
  out.min_TE_s = te_min;
  out.min_TR_s = balanced ? tr_min : tr_fixed_min;
  out.TE_s = te_base + bip_block + pre_block + te_delay;
  out.TR_s = balanced ? tr : tr_min + tr_delay;
  std::ostringstream r;
  r << "sequence " << s.name << ": TE " << ms(out.TE_s) << " (minimum " << ms(out.min_TE_s) << "), TR "
    << ms(out.TR_s) << " (minimum " << ms(out.min_TR_s) << ")";
  if (pc) r << ", VENC " << p.venc_m_per_s << " m/s, bipolar " << ms(bip_dur);
  if (nslices > 1) r << ", " << nslices << " slices";
  if (tof) r << ", " << (nz > 1 ? std::to_string(nz) + " partitions" : std::string("2-D")) << ", flow compensation "
             << (fc ? "on (lobes " + ms(2 * fcd.lobe_s) + ")" : std::string("off"));
  out.report = r.str();
  return out;
}

}  // namespace

void check_builder_params(const CartesianParams& p, const std::string& source) { validate(p, source); }

std::vector<std::uint8_t> cartesian_line_flags(const CartesianParams& p, const std::string& source) {
  validate(p, source);
  std::vector<std::uint8_t> flags(p.matrix, 0);
  for (const PeLine& l : pe_lines(p))
    flags[l.line] |= mrwb::kLineAcquired | (l.ref ? mrwb::kLineCalibration : 0) | (l.ima ? mrwb::kLineImaging : 0);
  return flags;
}

Excitation make_slice_excitation(double flip_rad, double rf_duration_s, double slice_thickness_m, char use,
                                 const SystemLimits& sys) {
  Excitation x;
  Gradient gz;
  RfPulse rf = make_sinc_pulse(flip_rad, rf_duration_s, 4, 0, sys, slice_thickness_m, &gz, &x.gz_rephase);
  rf.use = use;
  const double rf_delay = std::max(gz.rise_s, round_up_to_raster(sys.rf_dead_time_s, sys.grad_raster_s));
  gz.delay_s = rf_delay - gz.rise_s;
  rf.delay_s = rf_delay;
  x.block.rf = rf;
  x.block.gz = gz;
  x.block.duration_s = round_up_to_raster(x.block.events_duration_s(sys), sys.block_raster_s);
  x.rf_center_abs_s = rf.delay_s + rf.center_s;
  return x;
}

ReadoutPart make_readout_part(double fov_m, int matrix, double bandwidth_Hz_per_pixel, const SystemLimits& sys) {
  ReadoutPart x;
  const int n = matrix;
  x.dk = 1.0 / fov_m;
  double dwell = 1.0 / (bandwidth_Hz_per_pixel * n);
  dwell = std::max(sys.adc_raster_s, std::round(dwell / sys.adc_raster_s) * sys.adc_raster_s);
  const double flat = round_up_to_raster(n * dwell, sys.grad_raster_s);
  const double amp = x.dk / dwell;
  Gradient gx = make_trapezoid_flat(amp * flat, flat, sys);
  Adc adc;
  adc.num_samples = n;
  adc.dwell_s = dwell;
  adc.delay_s = gx.rise_s;
  x.block.gx = gx;
  x.block.adc = adc;
  x.block.duration_s = round_up_to_raster(x.block.events_duration_s(sys), sys.block_raster_s);
  x.ro_area = gx.area_Hz_s_per_m(sys.grad_raster_s);
  x.pre_area = -(amp * gx.rise_s / 2 + amp * (n / 2 + 0.5) * dwell);
  return x;
}

BuiltSequence build_spoiled_gre_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, SequenceType::SpoiledGre);
}
BuiltSequence build_tof_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, SequenceType::Tof);
}
BuiltSequence build_bssfp_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, SequenceType::Bssfp);
}
BuiltSequence build_phase_contrast_blocks(const CartesianParams& p, const std::string& src) {
  return build_gre_family(p, src, SequenceType::PhaseContrast);
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

BuiltSequence build_blocks(SequenceType type, const CartesianParams& p, const std::string& src) {
  switch (type) {
    case SequenceType::SpoiledGre: return build_spoiled_gre_blocks(p, src);
    case SequenceType::SpinEcho: return build_spin_echo_blocks(p, src);
    case SequenceType::Bssfp: return build_bssfp_blocks(p, src);
    case SequenceType::PhaseContrast: return build_phase_contrast_blocks(p, src);
    case SequenceType::Tof: return build_tof_blocks(p, src);
  }
  // Only a value cast from an integer gets here.
  throw InputError(src + ": sequence type '" + name_of(type) + "' has no block builder (allowed: " +
                   enum_name_list(k_sequence_type_names) + ")");
}

}  // namespace mrwb::seq
