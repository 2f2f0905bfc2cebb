#include "mrwb/phase_contrast.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>

#include "mrwb/coil_sensitivity.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/recon_fft.hpp"
#include "mrwb/sequence_scenario.hpp"

namespace mrwb {
namespace {

using cplx = std::complex<float>;

// ∫_0^t G dt of one gradient axis over the whole sequence, from the blocks' piecewise-linear corners.
class GradientArea {
 public:
  GradientArea(const seq::BlockSequence& s, int axis) {
    double start = 0;
    for (const seq::Block& b : s.blocks) {
      const std::optional<seq::Gradient>& g = axis == 0 ? b.gx : b.gy;
      if (g) {
        const auto pts = g->points(s.sys.grad_raster_s);
        for (std::size_t i = 1; i < pts.size(); ++i) {
          if (pts[i].first <= pts[i - 1].first) continue;
          t0_.push_back(start + pts[i - 1].first);
          t1_.push_back(start + pts[i].first);
          g0_.push_back(pts[i - 1].second);
          g1_.push_back(pts[i].second);
        }
      }
      start += b.duration_s;
    }
    before_.assign(t0_.size() + 1, 0.0);
    for (std::size_t i = 0; i < t0_.size(); ++i) before_[i + 1] = before_[i] + 0.5 * (g0_[i] + g1_[i]) * (t1_[i] - t0_[i]);
  }
  double at(double t) const {
    const auto it = std::upper_bound(t0_.begin(), t0_.end(), t);
    if (it == t0_.begin()) return 0;
    const std::size_t i = static_cast<std::size_t>(it - t0_.begin()) - 1;
    const double d = std::min(t, t1_[i]) - t0_[i];
    const double slope = (g1_[i] - g0_[i]) / (t1_[i] - t0_[i]);
    return before_[i] + g0_[i] * d + 0.5 * slope * d * d;
  }

 private:
  std::vector<double> t0_, t1_, g0_, g1_, before_;
};

double event_duration_s(const SeqEvent& e) {
  if (e.kind == EventKind::Free) return e.dt_s;
  if (e.kind == EventKind::Readout) return e.dt_s * e.n_samples;
  return 0;
}

// One coil's complex image of a segment through the FFT reconstruction (readout crop and partial Fourier
// handled there).
Image2D coil_image(const RawData& raw, int coil) {
  RawData one = raw;
  one.ncoils = 1;
  const std::size_t n = static_cast<std::size_t>(raw.ny) * raw.nx;
  one.kspace.assign(raw.kspace.begin() + coil * n, raw.kspace.begin() + (coil + 1) * n);
  one.noise.clear();
  one.noise_samples = 0;
  return reconstruct_fft(one);
}

}  // namespace

VelocityMap velocity_map(const std::vector<RawData>& segments, const std::vector<int>& axes, double venc_m_per_s,
                         VencEncoding encoding, double mask_fraction) {
  const std::size_t need = encoding == VencEncoding::Referenced ? 1 + axes.size() : 2 * axes.size();
  if (axes.empty() || axes.size() > 3 || segments.size() != need)
    throw InputError("phase contrast: " + std::to_string(segments.size()) + " segments for " + std::to_string(axes.size()) +
                     " encoded axes (allowed: 1 to 3 axes, " + std::to_string(need) + " segments)");
  if (!(venc_m_per_s > 0)) throw InputError("phase contrast: venc_m_per_s must be > 0");
  const RawData& first = segments.front();
  for (const RawData& r : segments)
    if (r.nx != first.nx || r.ny != first.ny || r.ncoils != first.ncoils || !r.cartesian())
      throw InputError("phase contrast: segments differ in matrix or coils, or are not Cartesian (allowed: one Cartesian grid)");

  // [segment][coil] complex images.
  std::vector<std::vector<Image2D>> img(segments.size());
  for (std::size_t s = 0; s < segments.size(); ++s)
    for (int c = 0; c < first.ncoils; ++c) img[s].push_back(coil_image(segments[s], c));
  const Image2D& grid = img[0][0];
  VelocityMap m;
  m.nx = grid.nx;
  m.ny = grid.ny;
  m.fov_x_m = grid.fov_x_m;
  m.fov_y_m = grid.fov_y_m;
  m.venc_m_per_s = venc_m_per_s;
  m.axes = axes;
  const std::size_t n = grid.size();
  m.magnitude.assign(n, 0.f);
  for (const Image2D& c : img[0])
    for (std::size_t i = 0; i < n; ++i) m.magnitude[i] += std::norm(c.data[i]);
  for (float& v : m.magnitude) v = std::sqrt(v);
  const float peak = *std::max_element(m.magnitude.begin(), m.magnitude.end());
  m.mask.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) m.mask[i] = peak > 0 && m.magnitude[i] >= mask_fraction * peak;

  for (std::size_t a = 0; a < axes.size(); ++a) {
    const std::size_t plus = encoding == VencEncoding::Referenced ? 1 + a : 2 * a;
    const std::size_t minus = encoding == VencEncoding::Referenced ? 0 : 2 * a + 1;
    std::vector<float> v(n, 0.f);
    for (std::size_t i = 0; i < n; ++i) {
      if (!m.mask[i]) continue;
      std::complex<double> z{};
      for (int c = 0; c < first.ncoils; ++c) z += std::complex<double>(img[plus][c].data[i] * std::conj(img[minus][c].data[i]));
      v[i] = static_cast<float>(-std::arg(z) / M_PI * venc_m_per_s);
    }
    m.v_m_per_s.push_back(std::move(v));
  }
  return m;
}

void refine_free_events(seq::ProgramConversion& c, const seq::BlockSequence& s, double max_step_s) {
  if (!(max_step_s > 0)) throw std::invalid_argument("refine_free_events: max_step_s must be > 0");
  const GradientArea ax(s, 0), ay(s, 1);
  std::vector<SeqEvent> out;
  out.reserve(c.program.events.size());
  double t = 0;
  bool spoiled = false;  // after an ideal spoil and before the next RF, gradients act on Mxy = 0
  for (const SeqEvent& e : c.program.events) {
    const double dt = event_duration_s(e);
    if (e.kind == EventKind::Spoil) spoiled = true;
    if (e.kind == EventKind::Rf) spoiled = false;
    if (e.kind != EventKind::Free || dt <= 0 || spoiled) {
      out.push_back(e);
      t += dt;
      continue;
    }
    const int pieces = std::max(1, static_cast<int>(std::ceil(dt / max_step_s - 1e-9)));
    std::vector<SeqEvent> part(pieces, e);
    double sum_x = 0, sum_y = 0;
    bool gradient = false;
    for (int k = 0; k < pieces; ++k) {
      const double a = t + dt * k / pieces, b = t + dt * (k + 1) / pieces;
      part[k].dt_s = dt / pieces;
      part[k].dk_x = ax.at(b) - ax.at(a);
      part[k].dk_y = ay.at(b) - ay.at(a);
      sum_x += part[k].dk_x;
      sum_y += part[k].dk_y;
      gradient = gradient || part[k].dk_x != 0 || part[k].dk_y != 0;
    }
    t += dt;
    if (!gradient) {
      out.push_back(e);
      continue;
    }
    // What the converter added beyond the waveform over this interval (the readout's last-dwell
    // correction, merged at the start of the next interval) stays at the start.
    part[0].dk_x += e.dk_x - sum_x;
    part[0].dk_y += e.dk_y - sum_y;
    out.insert(out.end(), part.begin(), part.end());
  }
  if (std::abs(t - c.program.duration_s) > 1e-9 * std::max(1.0, c.program.duration_s))
    throw std::logic_error("refine_free_events: program timeline (" + std::to_string(t) + " s) does not match the sequence (" +
                           std::to_string(c.program.duration_s) + " s)");
  c.program.events = std::move(out);
}

std::vector<RawData> simulate_block_sequence(const CellPhantom& ph, const seq::BlockSequence& s, SimulationEngine& engine,
                                             const CoilMaps& coils, Image2D* truth, const ProgressFn& progress,
                                             const CancelToken& cancel, const BlockSimulationOptions& options) {
  seq::ConversionOptions opt;
  opt.rf_step_s = 1.0;  // longer than any pulse: each RF is one hard pulse at its centre
  opt.ideal_spoiling = options.ideal_spoiling;
  seq::ProgramConversion c = seq::to_sequence_program(s, opt);
  if (c.per_sample_readouts) throw InputError("simulate: readouts of unequal length are not supported here (allowed: Cartesian)");
  refine_free_events(c, s, options.max_step_s);
  const SequenceProgram& prog = c.program;
  std::vector<cplx> samples(static_cast<std::size_t>(coils.ncoils) * prog.readouts * prog.nx);
  std::vector<cplx> cell_truth(ph.size());
  engine.run(ph, prog, coils, samples, cell_truth, progress, cancel);
  seq::demodulate(c, samples, coils.ncoils);

  // Segment of every ADC from the SET label (set on the ADC block or earlier).
  std::vector<int> segment_of;
  std::map<std::string, int> labels;
  for (const seq::Block& b : s.blocks) {
    for (const seq::Label& l : b.labels) labels[l.name] = l.increment ? labels[l.name] + l.value : l.value;
    if (b.adc) segment_of.push_back(labels.count("SET") ? labels["SET"] : 0);
  }
  const int n_segments = segment_of.empty() ? 0 : 1 + *std::max_element(segment_of.begin(), segment_of.end());
  const int cpv = std::max(1, ph.cells_per_voxel);
  const float scale = 1.0f / static_cast<float>(cpv * cpv);
  std::vector<RawData> raw(n_segments);
  for (RawData& r : raw) {
    r.nx = prog.nx;
    r.ny = prog.ny;
    r.ncoils = coils.ncoils;
    r.fov_x_m = s.fov_m[0];
    r.fov_y_m = s.fov_m[1];
    r.TE_s = c.TE_s;
    r.TR_s = c.TR_s;
    r.flip_angle_deg = prog.flip_angle_deg;
    r.dwell_s = prog.dwell_s;
    r.kspace.assign(static_cast<std::size_t>(r.ncoils) * r.ny * r.nx, {});
    r.line_flags.assign(r.ny, 0);
  }
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  for (int a = 0; a < c.adc_count; ++a) {
    RawData& r = raw[segment_of[a]];
    const int line = c.adc_line[a];
    r.line_flags[line] = c.adc_flags[a];
    for (int coil = 0; coil < r.ncoils; ++coil)
      for (int i = 0; i < r.nx; ++i) r.at(coil, line, i) = samples[coil * per_coil + static_cast<std::size_t>(a) * prog.nx + i] * scale;
  }
  for (RawData& r : raw) {
    const bool all = std::all_of(r.line_flags.begin(), r.line_flags.end(),
                                 [](std::uint8_t f) { return f == (kLineAcquired | kLineImaging); });
    if (all) r.line_flags.clear();
  }

  if (truth && c.k0_adc >= 0) {
    // Cell Mxy at the k-space centre, in the receiver's frame, averaged over each voxel (one coil's view
    // when there are several: the root sum of squares of their sensitivities).
    const int matrix = ph.nx / cpv;
    truth->nx = truth->ny = matrix;
    truth->fov_x_m = s.fov_m[0];
    truth->fov_y_m = s.fov_m[1];
    truth->data.assign(truth->size(), {});
    const cplx demod = std::polar(1.0f, static_cast<float>(-c.demod_phase_rad[static_cast<std::size_t>(c.k0_adc) * prog.nx + c.k0_sample]));
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
        float w = 1.f;
        if (!coils.uniform()) {
          w = 0.f;
          for (int k = 0; k < coils.ncoils; ++k) w += std::norm(coils.sens[static_cast<std::size_t>(k) * ph.size() + i]);
          w = std::sqrt(w);
        }
        truth->data[static_cast<std::size_t>(iy / cpv) * matrix + ix / cpv] += cell_truth[i] * demod * (scale * w);
      }
  }
  return raw;
}

PhaseContrastResult simulate_phase_contrast(const Scenario& sc, SimulationEngine& engine, const ProgressFn& progress,
                                            const CancelToken& cancel) {
  validate_scenario(sc, "scenario");
  if (sc.sequence.type != "phase_contrast")
    throw InputError("scenario: sequence.type = '" + sc.sequence.type + "' is not a phase-contrast sequence (allowed: phase_contrast)");
  const auto t0 = std::chrono::steady_clock::now();
  const seq::CartesianParams params = seq::cartesian_params(sc.sequence);
  const seq::BuiltSequence built = seq::build_phase_contrast_blocks(params, "scenario: sequence");
  const CellPhantom ph = build_phantom(sc);
  CoilMaps coils;
  if (sc.coils.count > 1) {
    coils.ncoils = sc.coils.count;
    coils.sens = sc.coils.arrangement == "uniform" ? uniform_coil_sensitivities(coils.ncoils, ph.nx, ph.ny)
                                                   : loop_coil_sensitivities(coils.ncoils, ph.nx, ph.ny, sc.sequence.fov_m);
  }
  PhaseContrastResult r;
  r.segments = simulate_block_sequence(ph, built.seq, engine, coils, &r.truth, progress, cancel);
  for (RawData& raw : r.segments) raw.scenario_name = sc.name;
  for (const RawData& raw : r.segments) r.images.push_back(reconstruct_fft(raw));
  r.velocity = velocity_map(r.segments, params.venc_axes, params.venc_m_per_s);
  r.backend = engine.name();
  r.sequence_report = built.report;
  r.simulate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace mrwb
