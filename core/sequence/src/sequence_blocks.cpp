// Block model: event durations, gradient corner points, limit checks and the design helpers.
#include "mrwb/sequence/sequence_blocks.hpp"

#include "mrwb/base/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "mrwb/base/errors.hpp"

namespace mrwb::seq {

namespace {
bool on_raster(double t, double raster) {
  const double n = t / raster;
  return std::abs(n - std::round(n)) < 1e-6;
}
}  // namespace

double round_up_to_raster(double t_s, double raster_s) {
  return std::ceil(t_s / raster_s - 1e-9) * raster_s;
}

double RfPulse::duration_s(double rf_raster_s) const {
  if (!time.empty()) return time.back() * rf_raster_s;
  return static_cast<double>(mag.size()) * rf_raster_s;
}

double Gradient::duration_s(double grad_raster_s) const {
  if (type == Type::Trap) return delay_s + rise_s + flat_s + fall_s;
  if (!time.empty()) return delay_s + time.back() * grad_raster_s;
  return delay_s + static_cast<double>(waveform.size()) * grad_raster_s;
}

std::vector<std::pair<double, double>> Gradient::points(double r) const {
  std::vector<std::pair<double, double>> p;
  if (type == Type::Trap) {
    const double A = amplitude_Hz_per_m;
    p = {{delay_s, 0}, {delay_s + rise_s, A}, {delay_s + rise_s + flat_s, A}, {delay_s + rise_s + flat_s + fall_s, 0}};
  } else if (!time.empty()) {
    for (std::size_t i = 0; i < waveform.size(); ++i)
      p.emplace_back(delay_s + time[i] * r, amplitude_Hz_per_m * waveform[i]);
  } else {
    p.emplace_back(delay_s, first_Hz_per_m);
    for (std::size_t i = 0; i < waveform.size(); ++i)
      p.emplace_back(delay_s + (i + 0.5) * r, amplitude_Hz_per_m * waveform[i]);
    p.emplace_back(delay_s + waveform.size() * r, last_Hz_per_m);
  }
  return p;
}

double Gradient::area_Hz_s_per_m(double r) const {
  const auto p = points(r);
  double a = 0;
  for (std::size_t i = 1; i < p.size(); ++i) a += 0.5 * (p[i].second + p[i - 1].second) * (p[i].first - p[i - 1].first);
  return a;
}

double Block::events_duration_s(const SystemLimits& sys) const {
  double d = 0;
  if (rf) d = std::max(d, rf->delay_s + rf->duration_s(sys.rf_raster_s) + sys.rf_ringdown_s);
  for (const auto* g : {&gx, &gy, &gz})
    if (*g) d = std::max(d, (*g)->duration_s(sys.grad_raster_s));
  if (adc) d = std::max(d, adc->duration_s() + sys.adc_dead_time_s);
  return d;
}

double BlockSequence::duration_s() const {
  double t = 0;
  for (const auto& b : blocks) t += b.duration_s;
  return t;
}

long long BlockSequence::adc_samples() const {
  long long n = 0;
  for (const auto& b : blocks)
    if (b.adc) n += b.adc->num_samples;
  return n;
}

void check_limits(const BlockSequence& s, const std::string& source) {
  const SystemLimits& sys = s.sys;
  const char* axes[3] = {"gx", "gy", "gz"};
  for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
    const Block& b = s.blocks[bi];
    const std::string where = source + ": block " + std::to_string(bi + 1);
    if (!on_raster(b.duration_s, sys.block_raster_s))
      throw InputError(where + ": duration " + number_text(b.duration_s * 1e6) + " us is not a multiple of the block raster " +
                       number_text(sys.block_raster_s * 1e6) + " us");
    if (b.duration_s + 1e-12 < b.events_duration_s(sys))
      throw InputError(where + ": duration " + number_text(b.duration_s * 1e6) + " us is shorter than its events (" +
                       number_text(b.events_duration_s(sys) * 1e6) + " us)");
    const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
    for (int a = 0; a < 3; ++a) {
      if (!*g3[a]) continue;
      const Gradient& g = **g3[a];
      if (g.type == Gradient::Type::Trap)
        for (double t : {g.delay_s, g.rise_s, g.flat_s, g.fall_s})
          if (!on_raster(t, sys.grad_raster_s))
            throw InputError(where + ": " + axes[a] + " trapezoid timing " + number_text(t * 1e6) +
                             " us is not on the gradient raster " + number_text(sys.grad_raster_s * 1e6) + " us");
      const auto p = g.points(sys.grad_raster_s);
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (std::abs(p[i].second) > sys.max_grad_Hz_per_m * (1 + 1e-6))
          throw InputError(where + ": " + axes[a] + " amplitude " + number_text(p[i].second / gamma_Hz_per_T * 1e3) +
                           " mT/m exceeds the limit (allowed: |G| <= " +
                           number_text(sys.max_grad_Hz_per_m / gamma_Hz_per_T * 1e3) + " mT/m)");
        if (i == 0) continue;
        const double dt = p[i].first - p[i - 1].first;
        if (dt <= 0) continue;
        // The jumps at the edges of an arbitrary gradient join the neighbouring blocks: not a slew here.
        const bool edge = g.type == Gradient::Type::Arbitrary && g.time.empty() && (i == 1 || i + 1 == p.size());
        const double slew = std::abs(p[i].second - p[i - 1].second) / dt;
        if (!edge && slew > sys.max_slew_Hz_per_m_per_s * (1 + 1e-6))
          throw InputError(where + ": " + axes[a] + " slew rate " + number_text(slew / gamma_Hz_per_T) +
                           " T/m/s exceeds the limit (allowed: <= " + number_text(sys.max_slew_Hz_per_m_per_s / gamma_Hz_per_T) +
                           " T/m/s)");
      }
    }
    if (b.adc && !on_raster(b.adc->dwell_s, sys.adc_raster_s))
      throw InputError(where + ": ADC dwell " + number_text(b.adc->dwell_s * 1e9) + " ns is not a multiple of the ADC raster " +
                       number_text(sys.adc_raster_s * 1e9) + " ns");
  }
}

Gradient make_trapezoid_area(double area, const SystemLimits& sys) {
  Gradient g;
  if (area == 0) return g;
  const double r = sys.grad_raster_s, a = std::abs(area);
  const double t_tri = std::sqrt(a / sys.max_slew_Hz_per_m_per_s);
  if (t_tri * sys.max_slew_Hz_per_m_per_s <= sys.max_grad_Hz_per_m) {
    g.rise_s = g.fall_s = std::max(r, round_up_to_raster(t_tri, r));
    g.amplitude_Hz_per_m = area / g.rise_s;
  } else {
    g.rise_s = g.fall_s = round_up_to_raster(sys.max_grad_Hz_per_m / sys.max_slew_Hz_per_m_per_s, r);
    g.flat_s = round_up_to_raster((a - sys.max_grad_Hz_per_m * g.rise_s) / sys.max_grad_Hz_per_m, r);
    g.amplitude_Hz_per_m = area / (g.rise_s + g.flat_s);
  }
  return g;
}

Gradient make_trapezoid_flat(double flat_area, double flat_s, const SystemLimits& sys) {
  Gradient g;
  g.flat_s = flat_s;
  g.amplitude_Hz_per_m = flat_area / flat_s;
  if (std::abs(g.amplitude_Hz_per_m) > sys.max_grad_Hz_per_m * (1 + 1e-9))
    throw InputError("gradient: " + number_text(std::abs(g.amplitude_Hz_per_m) / gamma_Hz_per_T * 1e3) +
                     " mT/m needed (allowed: <= " + number_text(sys.max_grad_Hz_per_m / gamma_Hz_per_T * 1e3) +
                     " mT/m); lower the bandwidth or enlarge the FOV / slice");
  g.rise_s = g.fall_s =
      std::max(sys.grad_raster_s, round_up_to_raster(std::abs(g.amplitude_Hz_per_m) / sys.max_slew_Hz_per_m_per_s,
                                                     sys.grad_raster_s));
  return g;
}

Gradient make_trapezoid_duration(double area, double duration_s, const SystemLimits& sys) {
  Gradient g;
  if (area == 0) return g;
  const double r = sys.grad_raster_s;
  const int n = static_cast<int>(std::lround(duration_s / r));
  for (int k = 1; 2 * k <= n; ++k) {
    const double rise = k * r, amp = area / (n * r - rise);
    if (std::abs(amp) <= sys.max_grad_Hz_per_m && std::abs(amp) / rise <= sys.max_slew_Hz_per_m_per_s) {
      g.rise_s = g.fall_s = rise;
      g.flat_s = (n - 2 * k) * r;
      g.amplitude_Hz_per_m = amp;
      return g;
    }
  }
  throw InputError("gradient: area " + number_text(area) + " /m does not fit in " + number_text(duration_s * 1e6) +
                   " us within the gradient limits");
}

namespace {
// A real, symmetric envelope w(t) (t from the pulse centre) on the RF raster, scaled to `flip`; negative
// lobes carry phase 0.5 cycles. With a slice thickness also the slice-select trapezoid (bandwidth tbw/dur
// over the thickness) and its rephaser.
template <class Envelope>
RfPulse shaped_pulse(Envelope w_of_t, double flip, double dur, double tbw, double phase, const SystemLimits& sys,
                     double thickness, Gradient* gz, Gradient* gz_reph) {
  RfPulse rf;
  const int n = static_cast<int>(std::lround(dur / sys.rf_raster_s));
  const double bw = tbw / dur;
  std::vector<double> w(n);
  double wmax = 0;
  for (int i = 0; i < n; ++i) {
    w[i] = w_of_t((i + 0.5) * sys.rf_raster_s - 0.5 * dur, bw);
    wmax = std::max(wmax, std::abs(w[i]));
  }
  double sum = 0;
  std::vector<double> mag(n), ph(n);
  for (int i = 0; i < n; ++i) {
    mag[i] = std::abs(w[i]) / wmax;
    ph[i] = w[i] < 0 ? 0.5 : 0.0;
    sum += w[i] / wmax;
  }
  rf.mag = std::move(mag);
  rf.phase = std::move(ph);
  rf.amplitude_Hz = flip / (2 * M_PI * sum * sys.rf_raster_s);
  rf.phase_rad = phase;
  rf.center_s = 0.5 * dur;
  rf.use = 'e';
  if (thickness > 0 && gz) {
    *gz = make_trapezoid_flat(bw / thickness * dur, dur, sys);
    if (gz_reph) *gz_reph = make_trapezoid_area(-0.5 * gz->amplitude_Hz_per_m * (dur + gz->fall_s), sys);
  }
  return rf;
}
}  // namespace

RfPulse make_sinc_pulse(double flip, double dur, double tbw, double phase, const SystemLimits& sys,
                        double thickness, Gradient* gz, Gradient* gz_reph) {
  auto hann_sinc = [dur](double t, double bw) {
    const double x = M_PI * bw * t;
    return (std::abs(x) < 1e-12 ? 1.0 : std::sin(x) / x) * (0.5 + 0.5 * std::cos(2 * M_PI * t / dur));
  };
  return shaped_pulse(hann_sinc, flip, dur, tbw, phase, sys, thickness, gz, gz_reph);
}

RfPulse make_gauss_pulse(double flip, double dur, double tbw, double phase, const SystemLimits& sys,
                         double thickness, Gradient* gz, Gradient* gz_reph) {
  // exp(-pi (bw t)^2): its spectrum exp(-pi (f/bw)^2) is bw wide at 1/e^(pi/4) (Pulseq makeGaussPulse).
  auto gauss = [](double t, double bw) { return std::exp(-M_PI * (bw * t) * (bw * t)); };
  return shaped_pulse(gauss, flip, dur, tbw, phase, sys, thickness, gz, gz_reph);
}

RfPulse make_block_pulse(double flip, double dur, double phase, const SystemLimits& sys) {
  RfPulse rf;
  const int n = static_cast<int>(std::lround(dur / sys.rf_raster_s));
  rf.mag = std::vector<double>(n, 1.0);
  rf.phase = std::vector<double>(n, 0.0);
  rf.amplitude_Hz = flip / (2 * M_PI * n * sys.rf_raster_s);
  rf.phase_rad = phase;
  rf.center_s = 0.5 * dur;
  return rf;
}

Gradient make_extended_trapezoid(const std::vector<double>& t_s, const std::vector<double>& g, const SystemLimits& sys) {
  Gradient w;
  w.type = Gradient::Type::Arbitrary;
  w.amplitude_Hz_per_m = 1.0;
  std::vector<double> time, waveform;
  for (std::size_t k = 0; k < t_s.size(); ++k) {
    const double t = std::round(t_s[k] / sys.grad_raster_s);
    if (!time.empty() && t == time.back()) continue;
    time.push_back(t);
    waveform.push_back(g[k]);
  }
  w.time = std::move(time);
  w.waveform = std::move(waveform);
  return w;
}

std::optional<Gradient> make_moment_nulling_lobes(double m0_target, double m1_target, double m0_fixed, double m1_fixed,
                                                  double T, const SystemLimits& sys) {
  // Symmetric lobes have their centroids at T/2 and 3T/2: A1 + A2 = S, A1·T/2 + A2·3T/2 = Q.
  const double S = m0_target - m0_fixed, Q = m1_target - m1_fixed;
  const double A2 = Q / T - S / 2, A1 = S - A2;
  Gradient l1, l2;
  try {
    l1 = make_trapezoid_duration(A1, T, sys);
    l2 = make_trapezoid_duration(A2, T, sys);
  } catch (const InputError&) {
    return std::nullopt;
  }
  return make_extended_trapezoid({0, l1.rise_s, T - l1.fall_s, T, T + l2.rise_s, 2 * T - l2.fall_s, 2 * T},
                                 {0, l1.amplitude_Hz_per_m, l1.amplitude_Hz_per_m, 0, l2.amplitude_Hz_per_m,
                                  l2.amplitude_Hz_per_m, 0},
                                 sys);
}

void add_gradient_moments(const Gradient& g, double r, double t_from, double t_to, double offset, double& m0, double& m1) {
  const auto p = g.points(r);
  for (std::size_t i = 1; i < p.size(); ++i) {
    const double t0 = p[i - 1].first, t1 = p[i].first;
    const double a = std::max(t_from, t0), b = std::min(t_to, t1);
    if (b <= a || t1 <= t0) continue;
    auto G = [&](double t) { return p[i - 1].second + (p[i].second - p[i - 1].second) * (t - t0) / (t1 - t0); };
    const double mid = 0.5 * (a + b);
    m0 += 0.5 * (G(a) + G(b)) * (b - a);
    // Simpson: exact for the quadratic G(t)·t.
    m1 += (b - a) / 6 * (G(a) * (a + offset) + 4 * G(mid) * (mid + offset) + G(b) * (b + offset));
  }
}

double rf_flip_rad(const RfPulse& rf, double r) {
  std::complex<double> s{};
  auto b = [&](std::size_t i) { return rf.mag[i] * std::polar(1.0, 2 * M_PI * rf.phase[i]); };
  if (rf.time.empty()) {
    for (std::size_t i = 0; i < rf.mag.size(); ++i) s += b(i) * r;
  } else {
    for (std::size_t i = 1; i < rf.mag.size(); ++i) s += 0.5 * (b(i) + b(i - 1)) * (rf.time[i] - rf.time[i - 1]) * r;
  }
  return 2 * M_PI * std::abs(rf.amplitude_Hz * s);
}

std::vector<int> adc_label_values(const BlockSequence& s, std::string_view name) {
  std::vector<int> out;
  std::map<std::string, int, std::less<>> labels;
  for (const Block& b : s.blocks) {
    for (const Label& l : b.labels) labels[l.name] = l.increment ? labels[l.name] + l.value : l.value;
    if (b.adc) {
      const auto it = labels.find(name);
      out.push_back(it != labels.end() ? it->second : 0);
    }
  }
  return out;
}

std::vector<int> adc_set_labels(const BlockSequence& s) { return adc_label_values(s, "SET"); }

}  // namespace mrwb::seq
