// Block sequence -> SequenceProgram: shaped RF as a train of hard pulses, gradients integrated exactly
// (piecewise linear) between consecutive RF / ADC instants, ADC samples at their exact times.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

namespace mrwb::seq {

namespace {

using Points = std::vector<std::pair<double, double>>;

// A piecewise-linear gradient (0 outside its points) with its running integral at the points, so that the
// moment over an interval costs two binary searches: a readout of n samples on a waveform of m points
// costs n log m, not n m (a 251000-sample ADC on an arbitrary gradient took seconds).
class Moment {
 public:
  Moment() = default;
  explicit Moment(Points p) : p_(std::move(p)), cum_(p_.size(), 0.0) {
    for (std::size_t i = 1; i < p_.size(); ++i) {
      const double dt = p_[i].first - p_[i - 1].first;
      cum_[i] = cum_[i - 1] + (dt > 0 ? 0.5 * (p_[i - 1].second + p_[i].second) * dt : 0.0);
    }
  }
  bool empty() const { return p_.empty(); }
  const Points& points() const { return p_; }
  // ∫_a^b g dt (0 for b <= a).
  double integrate(double a, double b) const { return b <= a ? 0.0 : at(b) - at(a); }

 private:
  // ∫ g dt from the first point to t.
  double at(double t) const {
    if (p_.size() < 2 || t <= p_.front().first) return 0.0;
    if (t >= p_.back().first) return cum_.back();
    // p_[i].first <= t < p_[i + 1].first (the points' times never decrease: the reader checks them).
    const auto next = std::upper_bound(p_.begin(), p_.end(), t, [](double v, const auto& q) { return v < q.first; });
    const std::size_t i = static_cast<std::size_t>(next - p_.begin()) - 1;
    const double t0 = p_[i].first, g0 = p_[i].second, slope = (p_[i + 1].second - g0) / (p_[i + 1].first - t0);
    return cum_[i] + (g0 + 0.5 * slope * (t - t0)) * (t - t0);
  }
  Points p_;
  std::vector<double> cum_;
};

enum class Kind { Rf, Sample, Center };
struct Instant {
  double t;
  Kind kind;
  double flip = 0, phase = 0;  // Rf
  int sample = 0;              // Sample
  int order;                   // stable tie-break
};

// Complex B1 [Hz] of the pulse on the RF raster (time-shaped pulses resampled, linear in between).
std::vector<std::complex<double>> rf_on_raster(const RfPulse& rf) {
  auto b = [&](std::size_t i) { return rf.amplitude_Hz * rf.mag[i] * std::polar(1.0, 2 * M_PI * rf.phase[i]); };
  std::vector<std::complex<double>> out;
  if (rf.time.empty()) {
    for (std::size_t i = 0; i < rf.mag.size(); ++i) out.push_back(b(i));
    return out;
  }
  const int n = static_cast<int>(std::lround(rf.time.back()));
  std::size_t seg = 1;
  for (int k = 0; k < n; ++k) {
    const double t = k + 0.5;  // in raster units
    while (seg + 1 < rf.time.size() && rf.time[seg] < t) ++seg;
    const double t0 = rf.time[seg - 1], t1 = rf.time[seg];
    const double w = t1 > t0 ? std::clamp((t - t0) / (t1 - t0), 0.0, 1.0) : 1.0;
    out.push_back((1 - w) * b(seg - 1) + w * b(seg));
  }
  return out;
}

// A Free of `dt` and moments dk continues event e's gradient: the same moment per time on every axis (merged,
// the two stay one constant gradient).
bool same_gradient(const SeqEvent& e, double dt, double dkx, double dky, double dkz) {
  const double was[3] = {e.dk_x, e.dk_y, e.dk_z}, now[3] = {dkx, dky, dkz};
  for (int a = 0; a < 3; ++a)
    if (std::abs(was[a] * dt - now[a] * e.dt_s) > 1e-9 * (std::abs(was[a]) * dt + std::abs(now[a]) * e.dt_s)) return false;
  return true;
}

}  // namespace

ProgramConversion to_sequence_program(const BlockSequence& s, const ConversionOptions& opt) {
  const SystemLimits& sys = s.sys;
  ProgramConversion c;
  SequenceProgram& p = c.program;

  // Pass 1: can every ADC be one Readout event (same sample count, constant moment per dwell)?
  int common_n = -1;
  bool uniform = true;
  for (const Block& b : s.blocks) {
    if (!b.adc) continue;
    const Adc& a = *b.adc;
    if (common_n < 0) common_n = a.num_samples;
    if (a.num_samples != common_n) uniform = false;
    for (const auto* g : {&b.gx, &b.gy, &b.gz}) {
      if (!uniform || !*g) continue;
      const Moment pts((*g)->points(sys.grad_raster_s));
      const double m0 = pts.integrate(a.sample_time_s(0), a.sample_time_s(0) + a.dwell_s);
      double scale = std::abs(m0);
      // The last dwell may run past the flat top or the block: corrected after the Readout event.
      for (int i = 1; i + 1 < a.num_samples && uniform; ++i) {
        const double mi = pts.integrate(a.sample_time_s(i), a.sample_time_s(i) + a.dwell_s);
        if (std::abs(mi - m0) > 1e-9 * std::max(scale, 1e-6)) uniform = false;
      }
    }
  }
  c.per_sample_readouts = !uniform;
  // Sized once: a per-sample readout makes an event of every sample, and growing by doubling held up to
  // three copies at once (the Pulseq reader bounds the samples, pulseq_limits.hpp).
  {
    std::size_t samples = 0, adcs = 0;
    for (const Block& b : s.blocks)
      if (b.adc) samples += static_cast<std::size_t>(b.adc->num_samples), ++adcs;
    p.events.reserve(4 * s.blocks.size() + (uniform ? adcs : samples));
    for (auto* v : {&c.kx, &c.ky, &c.kz, &c.demod_phase_rad, &c.sample_time_s}) v->reserve(samples);
  }
  p.nx = uniform ? std::max(common_n, 0) : 1;
  p.fov_m = s.fov_m[0];

  std::map<std::string, int> labels;
  double k[3] = {0, 0, 0};
  double best_k = INFINITY, last_excitation = NAN;
  bool best_imaging = false;  // the truth is taken in an imaging ADC where one reaches the smallest |k|
  std::vector<double> excitations;
  double t0 = 0;
  int order = 0;
  double carry = 0;  // time a Readout event already ran into this block
  double frame = 0;  // follow_rf_phase: the spins are simulated as Mxy·exp(-i·frame)

  // Consecutive Free intervals merge, but never beyond max_free_step_s (the split pieces stay apart).
  const double max_step = opt.max_free_step_s;
  // A per-sample Readout event takes the interval that follows it (to the next instant) as its own dwell
  // and moment, as a Readout event of several samples does: half the events of a sample then a Free.
  std::size_t open_sample = SIZE_MAX;
  auto push_free = [&](double dt, double dkx, double dky, double dkz) {
    if (dt <= 0 && dkx == 0 && dky == 0 && dkz == 0) return;
    if (open_sample != SIZE_MAX && open_sample + 1 == p.events.size() && (max_step <= 0 || dt <= max_step * (1 + 1e-9))) {
      SeqEvent& e = p.events.back();
      e.dt_s = dt;
      e.dk_x = dkx;
      e.dk_y = dky;
      e.dk_z = dkz;
      open_sample = SIZE_MAX;
      return;
    }
    open_sample = SIZE_MAX;
    if (!p.events.empty() && p.events.back().kind == EventKind::Free && !p.events.back().rf_centre &&
        (max_step <= 0 || p.events.back().dt_s + dt <= max_step * (1 + 1e-9)) &&
        (!opt.cell_states || same_gradient(p.events.back(), dt, dkx, dky, dkz))) {
      SeqEvent& e = p.events.back();
      e.dt_s += dt;
      e.dk_x += dkx;
      e.dk_y += dky;
      e.dk_z += dkz;
      return;
    }
    SeqEvent e;
    e.kind = EventKind::Free;
    e.dt_s = dt;
    e.dk_x = dkx;
    e.dk_y = dky;
    e.dk_z = dkz;
    p.events.push_back(e);
  };

  std::vector<Instant> inst;  // one block's instants; its memory kept from block to block
  for (const Block& b : s.blocks) {
    Moment g[3];
    const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
    for (int a = 0; a < 3; ++a)
      if (*g3[a]) g[a] = Moment((*g3[a])->points(sys.grad_raster_s));
    inst.clear();
    double rf_flip = 0;
    bool spoil_pending = false;  // ideal spoiling: a Spoil right before the excitation's first rotation
    if (b.rf) {
      const RfPulse& rf = *b.rf;
      const auto b1 = rf_on_raster(rf);
      std::complex<double> b1_area{};
      for (const auto& v : b1) b1_area += v;
      rf_flip = 2 * M_PI * std::abs(b1_area) * sys.rf_raster_s;
      spoil_pending = opt.ideal_spoiling && (rf.use == 'e' || (rf.use == 'u' && rf_flip <= 100 * M_PI / 180));
      // Ideal spoiling leaves Mxy = 0 right before this excitation, so the frame may turn to its RF phase
      // for free: RF spoiling's phase then never reaches the spins, and an ADC that follows it (the
      // builders' convention) needs no demodulation.
      if (spoil_pending) frame = -rf.phase_rad;
      if (opt.follow_rf_phase) {
        // Rotate the spins by exp(-i·delta): two 180° pulses about phases 0 and −delta/2 compose to it. A
        // rotation about z commutes with free precession, relaxation and transport, so it goes before the
        // trailing Free events: they stay one run that merges as without the rotation (the moving spins of
        // "gradient moments" then see the same intervals whether the RF phase is followed or not).
        const double delta = std::remainder(-rf.phase_rad - frame, 2 * M_PI);
        if (std::abs(delta) > 1e-12) {
          auto at = p.events.end();
          while (at != p.events.begin() && std::prev(at)->kind == EventKind::Free) --at;
          SeqEvent pair[2];
          for (int i = 0; i < 2; ++i) {
            pair[i].kind = EventKind::Rf;
            pair[i].flip_rad = M_PI;
            pair[i].phase_rad = i == 0 ? 0.0 : -delta / 2;
          }
          p.events.insert(at, pair, pair + 2);
        }
        frame = -rf.phase_rad;
      }
      const int group = opt.rf_step_s > 0 ? std::max(1, static_cast<int>(std::lround(opt.rf_step_s / sys.rf_raster_s))) : 1;
      // With cell states the centre comes first where it ties with the pulse (hard RF): the states shift
      // for the moments before the pulse, then it rotates them.
      if (opt.cell_states && opt.hard_rf) inst.push_back({rf.delay_s + rf.center_s, Kind::Center, 0, 0, 0, order++});
      if (opt.hard_rf) {
        const double area = std::abs(b1_area) * sys.rf_raster_s;
        if (area > 0)
          inst.push_back({rf.delay_s + rf.center_s, Kind::Rf, 2 * M_PI * area,
                          -(std::arg(b1_area) + rf.phase_rad + 2 * M_PI * rf.freq_Hz * rf.center_s) - frame, 0, order++});
      }
      for (std::size_t i0 = 0; !opt.hard_rf && i0 < b1.size(); i0 += group) {
        const std::size_t i1 = std::min(b1.size(), i0 + group);
        std::complex<double> sum{};
        for (std::size_t i = i0; i < i1; ++i) sum += b1[i];
        const double tc = 0.5 * (i0 + i1) * sys.rf_raster_s;  // centre of the group, from the pulse start
        const double area = std::abs(sum) * sys.rf_raster_s;
        if (area == 0) continue;
        Instant x{rf.delay_s + tc, Kind::Rf, 2 * M_PI * area,
                  -(std::arg(sum) + rf.phase_rad + 2 * M_PI * rf.freq_Hz * tc) - frame, 0, order++};
        inst.push_back(x);
      }
      if (!(opt.cell_states && opt.hard_rf)) inst.push_back({rf.delay_s + rf.center_s, Kind::Center, 0, 0, 0, order++});
    }
    int first_flat = static_cast<int>(c.sample_time_s.size());
    if (b.adc) {
      for (const Label& l : b.labels) labels[l.name] = l.increment ? labels[l.name] + l.value : l.value;
      const Adc& a = *b.adc;
      for (int i = 0; i < a.num_samples; ++i) inst.push_back({a.sample_time_s(i), Kind::Sample, 0, 0, i, order++});
      const bool has_lin = labels.count("LIN") > 0;
      c.adc_samples.push_back(a.num_samples);
      c.adc_line.push_back(has_lin ? labels["LIN"] : c.adc_count);
      std::uint8_t flags = kLineAcquired;
      const bool ref = labels.count("REF") && labels["REF"], ima = labels.count("IMA") && labels["IMA"];
      if (ref) flags |= kLineCalibration;
      if (!ref || ima) flags |= kLineImaging;
      c.adc_flags.push_back(flags);
      for (int i = 0; i < a.num_samples; ++i) {
        const double ts = a.sample_time_s(i) - a.delay_s;
        c.demod_phase_rad.push_back(-(a.phase_rad + 2 * M_PI * a.freq_Hz * ts) - frame);
        c.sample_time_s.push_back(t0 + a.sample_time_s(i));
      }
    } else {
      for (const Label& l : b.labels) labels[l.name] = l.increment ? labels[l.name] + l.value : l.value;
    }
    // In time, ties in the order pushed; mostly pushed in time already (an ADC's samples), so checked first.
    const auto earlier = [](const Instant& x, const Instant& y) { return x.t < y.t || (x.t == y.t && x.order < y.order); };
    if (!std::is_sorted(inst.begin(), inst.end(), earlier)) std::sort(inst.begin(), inst.end(), earlier);

    double cursor = 0;
    if (carry > 0) {
      const double d[3] = {g[0].integrate(0, carry), g[1].integrate(0, carry), g[2].integrate(0, carry)};
      push_free(0, d[0], d[1], d[2]);
      for (int a = 0; a < 3; ++a) k[a] += d[a];
      cursor = carry;
      carry = 0;
    }
    // With max_free_step_s, a gradient interval is cut into equal pieces, each with its exact moment,
    // so that moving spins see when the gradient acts (the first moment), not only its total. With cell
    // states it is also cut at the gradients' corners, so that each Free is one ramp or one constant
    // gradient: the states' diffusion takes each event's moment as growing linearly (cell_state_chunk.hpp).
    auto advance = [&](double to) {
      if (to < cursor) return;
      const bool gradient = !g[0].empty() || !g[1].empty() || !g[2].empty();
      std::vector<double> cuts{cursor};
      if (opt.cell_states && gradient) {
        for (const Moment& m : g)
          for (const auto& [t, v] : m.points())
            if (t > cursor && t < to) cuts.push_back(t);
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      }
      cuts.push_back(to);
      for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
        const double from = cuts[c], len = cuts[c + 1] - from;
        const int pieces = max_step > 0 && gradient ? std::max(1, static_cast<int>(std::ceil(len / max_step - 1e-9))) : 1;
        for (int i = 0; i < pieces; ++i) {
          const double a = from + len * i / pieces, b = i + 1 == pieces ? cuts[c + 1] : from + len * (i + 1) / pieces;
          const double d[3] = {g[0].integrate(a, b), g[1].integrate(a, b), g[2].integrate(a, b)};
          push_free(b - a, d[0], d[1], d[2]);
          for (int ax = 0; ax < 3; ++ax) k[ax] += d[ax];
        }
      }
      cursor = to;
    };
    bool readout = false;
    const int adc_index = c.adc_count;
    for (const Instant& x : inst) {
      if (x.kind == Kind::Sample && uniform && x.sample > 0) {
        // Inside a uniform readout: the Readout event itself advances by one dwell per sample.
        const double to = b.adc->sample_time_s(x.sample);
        for (int a = 0; a < 3; ++a) k[a] += g[a].integrate(cursor, to);
        cursor = to;
      } else {
        advance(x.t);
      }
      switch (x.kind) {
        case Kind::Rf: {
          if (spoil_pending) {
            // What the last TR left transverse is gone. The gradient moments since the last readout or
            // pulse act on that transverse magnetization only (Mz carries no phase, static or moving), so
            // they are dropped: exact, and the free interval stays the in-plane one the engines compose fast.
            for (auto it = p.events.rbegin(); it != p.events.rend() && it->kind == EventKind::Free; ++it)
              it->dk_x = it->dk_y = it->dk_z = 0;
            SeqEvent spoil;
            spoil.kind = EventKind::Spoil;
            p.events.push_back(spoil);
            spoil_pending = false;
          }
          SeqEvent e;
          e.kind = EventKind::Rf;
          e.flip_rad = x.flip;
          e.phase_rad = x.phase;
          p.events.push_back(e);
          break;
        }
        case Kind::Center: {
          if (opt.cell_states) {
            SeqEvent centre;
            centre.kind = EventKind::Free;
            centre.rf_centre = true;
            p.events.push_back(centre);
            open_sample = SIZE_MAX;
          }
          const char use = b.rf->use;
          const bool excite = use == 'e' || (use == 'u' && rf_flip <= 100 * M_PI / 180);
          const bool refocus = use == 'r' || (use == 'u' && rf_flip >= 150 * M_PI / 180);
          if (excite) {
            k[0] = k[1] = k[2] = 0;
            last_excitation = t0 + x.t;
            excitations.push_back(last_excitation);
            if (p.flip_angle_deg == 0) p.flip_angle_deg = rf_flip * 180 / M_PI;
          } else if (refocus) {
            for (double& v : k) v = -v;
          }
          break;
        }
        case Kind::Sample: {
          const int flat = first_flat + x.sample;
          c.kx.push_back(k[0]);
          c.ky.push_back(k[1]);
          c.kz.push_back(k[2]);
          const double kabs = std::hypot(k[0], k[1], k[2]);
          const bool imaging = (c.adc_flags.back() & kLineImaging) != 0;
          if (kabs < best_k - 1e-9 || (imaging && !best_imaging && kabs < best_k + 1e-9)) {
            best_k = kabs;
            best_imaging = imaging;
            c.k0_adc = adc_index;
            c.k0_sample = x.sample;
            if (!std::isnan(last_excitation)) c.TE_s = t0 + x.t - last_excitation;
          }
          (void)flat;
          if (uniform) {
            if (x.sample == 0) {
              const Adc& a = *b.adc;
              SeqEvent e;
              e.kind = EventKind::Readout;
              e.dt_s = a.dwell_s;
              e.dk_x = g[0].integrate(x.t, x.t + a.dwell_s);
              e.dk_y = g[1].integrate(x.t, x.t + a.dwell_s);
              e.dk_z = g[2].integrate(x.t, x.t + a.dwell_s);
              e.n_samples = a.num_samples;
              e.line = c.adc_line.back();
              p.events.push_back(e);
              readout = true;
              ++p.readouts;
            }
          } else {
            SeqEvent e;
            e.kind = EventKind::Readout;
            e.n_samples = 1;
            e.line = c.adc_line.back();
            p.events.push_back(e);
            open_sample = p.events.size() - 1;
            ++p.readouts;
          }
          break;
        }
      }
    }
    if (readout) {
      // The Readout event ends one dwell after its last sample with the constant per-dwell moment; replace
      // that last step's moment by the true one (a zero-length Free), and carry any overrun of the block.
      const Adc& a = *b.adc;
      const SeqEvent& ro = *std::find_if(p.events.rbegin(), p.events.rend(),
                                         [](const SeqEvent& e) { return e.kind == EventKind::Readout; });
      const double last = a.sample_time_s(a.num_samples - 1), end = last + a.dwell_s;
      const double stop = std::min(end, b.duration_s);
      double d[3];
      for (int ax = 0; ax < 3; ++ax) {
        d[ax] = g[ax].integrate(last, stop);
        k[ax] += d[ax];
      }
      push_free(0, d[0] - ro.dk_x, d[1] - ro.dk_y, d[2] - ro.dk_z);
      cursor = stop;
      if (end > b.duration_s) carry = end - b.duration_s;
    }
    advance(b.duration_s);
    if (b.adc) ++c.adc_count;
    t0 += b.duration_s;
  }
  // Moments that cancel by design (a slice rephaser against its select lobe) leave integration residuals of
  // ~1e-13 cycles/m; as exact zeros they tell the engines that the interval has no gradient on that axis.
  for (SeqEvent& e : p.events)
    for (double* dk : {&e.dk_x, &e.dk_y, &e.dk_z})
      if (std::abs(*dk) < 1e-9) *dk = 0;
  // Truth at the k-space centre.
  if (c.k0_adc >= 0) {
    int adc = 0, flat = 0;
    for (SeqEvent& e : p.events) {
      if (e.kind != EventKind::Readout) continue;
      if (uniform) {
        if (adc == c.k0_adc) e.truth_sample = c.k0_sample;
        ++adc;
      } else {
        int before = 0;
        for (int i = 0; i < c.k0_adc; ++i) before += c.adc_samples[i];
        if (flat == before + c.k0_sample) e.truth_sample = 0;
        ++flat;
      }
    }
  }
  if (excitations.size() >= 2) {
    std::vector<double> d;
    for (std::size_t i = 1; i < excitations.size(); ++i) d.push_back(excitations[i] - excitations[i - 1]);
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    c.TR_s = d[d.size() / 2];
  }
  int max_line = -1;
  for (int l : c.adc_line) max_line = std::max(max_line, l);
  p.ny = max_line + 1;
  p.TE_s = c.TE_s;
  p.TR_s = c.TR_s;
  for (const Block& b : s.blocks)
    if (b.adc) {
      p.dwell_s = b.adc->dwell_s;
      break;
    }
  p.duration_s = t0;
  p.cell_states = opt.cell_states;
  return c;
}

void demodulate(const ProgramConversion& c, std::span<std::complex<float>> samples, int ncoils) {
  const std::size_t n = c.demod_phase_rad.size();
  if (samples.size() != n * static_cast<std::size_t>(ncoils))
    throw std::invalid_argument("demodulate: sample count does not match the conversion");
  for (int coil = 0; coil < ncoils; ++coil)
    for (std::size_t i = 0; i < n; ++i)
      samples[coil * n + i] *= std::polar(1.0f, static_cast<float>(-c.demod_phase_rad[i]));
}

}  // namespace mrwb::seq
