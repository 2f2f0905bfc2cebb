// The sequence diagram as data (RF, gradients, ADC against time) and its PNG rendering.
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

namespace mrwb::seq {

namespace {
// A diagram is drawn a few thousand pixels wide: an event gets at most this many points per window width
// (min/max envelope beyond), so the point count stays bounded by the blocks in the window, not their samples.
constexpr double kPointsPerWindow = 4096;

// Appends n points (t(i), v(i)); beyond `budget` points, the min and max of each of budget/2 bins, in time order.
template <class T, class V>
void add_decimated(DiagramTrace& tr, std::size_t n, std::size_t budget, T t, V v) {
  budget = std::max<std::size_t>(budget, 8);
  if (n <= budget) {
    for (std::size_t i = 0; i < n; ++i) {
      tr.t_s.push_back(t(i));
      tr.value.push_back(v(i));
    }
    return;
  }
  const std::size_t bins = budget / 2;
  for (std::size_t b = 0; b < bins; ++b) {
    const std::size_t i0 = b * n / bins, i1 = (b + 1) * n / bins;
    std::size_t lo = i0, hi = i0;
    for (std::size_t i = i0; i < i1; ++i) {
      if (v(i) < v(lo)) lo = i;
      if (v(i) > v(hi)) hi = i;
    }
    for (std::size_t i : {std::min(lo, hi), std::max(lo, hi)}) {
      tr.t_s.push_back(t(i));
      tr.value.push_back(v(i));
    }
  }
}
}  // namespace

SequenceDiagram sequence_diagram(const BlockSequence& s, double t_begin, double t_end) {
  const SystemLimits& sys = s.sys;
  if (t_end <= t_begin) {
    t_begin = 0;
    t_end = s.duration_s();
  }
  SequenceDiagram d;
  d.t_begin_s = t_begin;
  d.t_end_s = t_end;
  const double window = std::max(t_end - t_begin, 1e-12);
  auto budget = [&](double span_s) {
    const double b = 8 + 2 * std::ceil(kPointsPerWindow * std::min(1.0, std::max(0.0, span_s) / window));
    return std::isfinite(b) ? static_cast<std::size_t>(b) : std::size_t(8);
  };
  d.traces = {{"RF", "uT", {}, {}}, {"Gx", "mT/m", {}, {}}, {"Gy", "mT/m", {}, {}}, {"Gz", "mT/m", {}, {}}, {"ADC", "", {}, {}}};
  auto add = [&](DiagramTrace& tr, double t, double v) {
    tr.t_s.push_back(t);
    tr.value.push_back(v);
  };
  double t0 = 0;
  for (const Block& b : s.blocks) {
    const double t1 = t0 + b.duration_s;
    if (t1 >= t_begin && t0 <= t_end) {
      if (b.rf) {
        const RfPulse& rf = *b.rf;
        const double r = sys.rf_raster_s;
        const double scale = rf.amplitude_Hz / gamma_Hz_per_T * 1e6;
        add(d.traces[0], t0 + rf.delay_s, 0);
        add_decimated(
            d.traces[0], rf.mag.size(), budget(rf.duration_s(r)),
            [&](std::size_t i) { return t0 + rf.delay_s + (rf.time.empty() ? (i + 0.5) * r : rf.time[i] * r); },
            [&](std::size_t i) { return std::abs(scale * rf.mag[i]); });
        add(d.traces[0], t0 + rf.delay_s + rf.duration_s(r), 0);
      }
      const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
      for (int a = 0; a < 3; ++a) {
        if (!*g3[a]) continue;
        const auto p = (*g3[a])->points(sys.grad_raster_s);
        add_decimated(
            d.traces[1 + a], p.size(), budget((*g3[a])->duration_s(sys.grad_raster_s)),
            [&](std::size_t i) { return t0 + p[i].first; }, [&](std::size_t i) { return p[i].second / gamma_Hz_per_T * 1e3; });
      }
      if (b.adc) {
        add(d.traces[4], t0 + b.adc->delay_s, 0);
        add(d.traces[4], t0 + b.adc->delay_s, 1);
        add(d.traces[4], t0 + b.adc->duration_s(), 1);
        add(d.traces[4], t0 + b.adc->duration_s(), 0);
      }
    }
    t0 = t1;
  }
  return d;
}

void write_diagram_png(const SequenceDiagram& d, const std::string& path, int w, int h) {
  require_output_folder(path);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3, 255);
  auto put = [&](int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
    p[0] = r;
    p[1] = g;
    p[2] = b;
  };
  auto line = [&](double x0, double y0, double x1, double y1, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) return;
    // Clip to the image columns first, so the steps below never exceed the image size whatever the times.
    if (x1 < x0) {
      std::swap(x0, x1);
      std::swap(y0, y1);
    }
    if (x1 < -1 || x0 > w) return;
    if (x0 < -1) {
      y0 += (y1 - y0) * (-1 - x0) / (x1 - x0);
      x0 = -1;
    }
    if (x1 > w) {
      y1 -= (y1 - y0) * (x1 - w) / (x1 - x0);
      x1 = w;
    }
    y0 = std::clamp(y0, -1.0, static_cast<double>(h));
    y1 = std::clamp(y1, -1.0, static_cast<double>(h));
    const int n = static_cast<int>(std::max(std::abs(x1 - x0), std::abs(y1 - y0))) + 1;
    for (int i = 0; i <= n; ++i) {
      const double f = static_cast<double>(i) / n;
      put(static_cast<int>(std::lround(x0 + f * (x1 - x0))), static_cast<int>(std::lround(y0 + f * (y1 - y0))), r, g, b);
    }
  };
  const std::uint8_t colours[5][3] = {{200, 30, 30}, {30, 90, 200}, {30, 150, 60}, {140, 60, 170}, {0, 0, 0}};
  const int panels = static_cast<int>(d.traces.size());
  const double span = std::max(d.t_end_s - d.t_begin_s, 1e-12);
  const int margin = 10;
  for (int k = 0; k < panels; ++k) {
    const DiagramTrace& tr = d.traces[k];
    const int top = k * h / panels + margin, bottom = (k + 1) * h / panels - margin;
    double lo = 0, hi = 0;
    for (double v : tr.value) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (hi - lo < 1e-12) hi = lo + 1;
    auto Y = [&](double v) { return bottom - (v - lo) / (hi - lo) * (bottom - top); };
    auto X = [&](double t) { return (t - d.t_begin_s) / span * (w - 1); };
    line(0, Y(0), w - 1, Y(0), 190, 190, 190);  // zero line
    line(0, bottom + margin - 1, w - 1, bottom + margin - 1, 230, 230, 230);
    for (std::size_t i = 1; i < tr.t_s.size(); ++i) {
      if (tr.t_s[i] < d.t_begin_s && tr.t_s[i - 1] < d.t_begin_s) continue;
      if (tr.t_s[i - 1] > d.t_end_s) continue;
      // Points of different blocks join only when the second follows directly (same time or later).
      line(X(tr.t_s[i - 1]), Y(tr.value[i - 1]), X(tr.t_s[i]), Y(tr.value[i]), colours[k % 5][0], colours[k % 5][1],
           colours[k % 5][2]);
    }
  }
  AtomicOutput out(path);
  FILE* f = std::fopen(out.temp_path().c_str(), "wb");
  if (!f) out.fail();
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    const int e = errno;  // libpng fails a short fwrite: a full disk
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    errno = e;
    out.fail();
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) png_write_row(png, &rgb[static_cast<std::size_t>(y) * w * 3]);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0) out.fail();
  out.commit();
}

}  // namespace mrwb::seq
