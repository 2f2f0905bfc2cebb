#include <algorithm>
#include <cmath>
#include <numbers>

#include "mrwb/base/errors.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/vessel_geometry.hpp"

namespace mrwb {

double segment_resistance_Pa_s_per_m3(const VesselTree& tree, int s, double mu) {
  const auto& g = tree.segments.at(s);
  double R = 0;
  for (std::size_t i = 0; i + 1 < g.centreline_m.size(); ++i) {
    const Vec3 a = g.centreline_m[i], b = g.centreline_m[i + 1];
    const double L = std::hypot(b.x - a.x, b.y - a.y, b.z - a.z);
    const double ra = g.radius_m[i], rb = g.radius_m[i + 1];
    // integral_0^L dl / r(l)^4 with r linear from ra to rb.
    const double I = std::abs(rb - ra) < 1e-12 * ra ? L / std::pow(ra, 4)
                                                    : L / (3 * (rb - ra)) * (1 / std::pow(ra, 3) - 1 / std::pow(rb, 3));
    R += 8 * mu / std::numbers::pi * I;
  }
  return R;
}

std::vector<SegmentFlow> poiseuille_split(const VesselTree& tree, double Q_in, double mu) {
  const int n = static_cast<int>(tree.segments.size());
  std::vector<SegmentFlow> out(n);
  std::vector<double> R_sub(n, 0);  // equivalent resistance of the subtree rooted at each segment
  // Children have larger indices than parents in generated trees, but do not rely on it: post-order.
  std::vector<int> order, stack = {tree.inlets().at(0)};
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    order.push_back(s);
    for (int c : tree.segments[s].children) stack.push_back(c);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int s = *it;
    out[s].resistance_Pa_s_per_m3 = segment_resistance_Pa_s_per_m3(tree, s, mu);
    double G = 0;  // conductance of the children in parallel
    for (int c : tree.segments[s].children) G += 1 / R_sub[c];
    R_sub[s] = out[s].resistance_Pa_s_per_m3 + (G > 0 ? 1 / G : 0);
  }
  out[order[0]].flow_m3_per_s = Q_in;
  for (int s : order) {
    double G = 0;
    for (int c : tree.segments[s].children) G += 1 / R_sub[c];
    for (int c : tree.segments[s].children) out[c].flow_m3_per_s = out[s].flow_m3_per_s * (1 / R_sub[c]) / G;
    out[s].pressure_drop_Pa = out[s].resistance_Pa_s_per_m3 * out[s].flow_m3_per_s;
  }
  return out;
}

double waveform_factor(const FlowSpec& spec, double t) {
  const double p = spec.pulsatility, w = 2 * std::numbers::pi / spec.period_s;
  if (spec.waveform == "constant") return 1.0;
  if (spec.waveform == "sinusoid") return 1.0 + p * std::sin(w * t);
  if (spec.waveform == "cardiac") {
    // Synthetic cardiac-like shape (not patient data): harmonics phased to give a systolic peak near
    // 0.15 T and a dicrotic notch; normalised so the peak over the cycle is 1 + p. Mean stays 1.
    auto g = [&](double tt) {
      const double a[4] = {1.0, 0.62, 0.32, 0.12}, ph[4] = {0.95, 2.1, 3.3, 4.4};
      double v = 0;
      for (int k = 0; k < 4; ++k) v += a[k] * std::cos((k + 1) * (w * tt) - ph[k]);
      return v;
    };
    double peak = 0;
    for (int i = 0; i < 1000; ++i) peak = std::max(peak, g(spec.period_s * i / 1000.0));
    return 1.0 + p * g(t) / peak;
  }
  throw InputError("flow.waveform = '" + spec.waveform + "' is not allowed (allowed: constant, sinusoid, cardiac)");
}

double FlowField::max_speed_m_per_s() const {
  double m = 0;
  for (std::size_t i = 0; i < ux_m_per_s.size(); ++i)
    m = std::max(m, std::hypot(double(ux_m_per_s[i]), double(uy_m_per_s[i]), double(uz_m_per_s[i])));
  return m;
}

FlowField poiseuille_flow_field(const VesselTree& tree, const VesselCells& cells, const FlowSpec& spec) {
  const auto flows = poiseuille_split(tree, spec.inlet_flow_m3_per_s * waveform_factor(spec, spec.time_s), spec.viscosity_Pa_s);
  const CellGrid& g = cells.grid;
  FlowField f;
  f.grid = g;
  f.solver = "poiseuille";
  f.ux_m_per_s.assign(g.size(), 0.f);
  f.uy_m_per_s.assign(g.size(), 0.f);
  f.uz_m_per_s.assign(g.size(), 0.f);
  f.fluid_fraction = cells.fluid_fraction;
  f.type = cells.type;
  std::vector<float> speed(g.size(), 0.f);
  const auto geo = detail::vessel_geometry(tree);
  const double h = g.cell_m;
  // Keeps the fastest contribution where pieces overlap (joints).
  auto put = [&](std::size_t i, double u, const Vec3& e) {
    if (u <= speed[i]) return;
    speed[i] = static_cast<float>(u);
    f.ux_m_per_s[i] = static_cast<float>(u * e.x);
    f.uy_m_per_s[i] = static_cast<float>(u * e.y);
    f.uz_m_per_s[i] = static_cast<float>(u * e.z);
  };
  auto for_cells = [&](Vec3 lo, Vec3 hi, auto&& fn) {
    auto span = [&](double a, double b, double o, int n, int& i0, int& i1) {
      i0 = std::max(0, static_cast<int>(std::floor((a - o) / h)));
      i1 = std::min(n - 1, static_cast<int>(std::ceil((b - o) / h)));
    };
    int x0, x1, y0, y1, z0 = 0, z1 = 0;
    span(lo.x, hi.x, g.origin_m.x, g.nx, x0, x1);
    span(lo.y, hi.y, g.origin_m.y, g.ny, y0, y1);
    if (g.nz > 1) span(lo.z, hi.z, g.origin_m.z, g.nz, z0, z1);
    for (int z = z0; z <= z1; ++z)
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) fn(g.index(x, y, z), g.centre(x, y, z));
  };
  for (const auto& q : geo.pieces) {
    Vec3 lo, hi;
    detail::piece_box(q, lo, hi);
    const double Q = flows[q.segment].flow_m3_per_s;
    for_cells(lo, hi, [&](std::size_t i, const Vec3& c) {
      const auto hit = detail::hit_piece(q, c);
      if (!hit.inside) return;
      put(i, 2 * Q / (std::numbers::pi * hit.r * hit.r) * (1 - hit.d * hit.d / (hit.r * hit.r)), q.axis);
    });
  }
  for (const auto& b : geo.balls) {
    if (b.piece < 0) continue;  // aneurysm sac: no through flow in the analytic model
    const auto& q = geo.pieces[b.piece];
    const double Q = flows[q.segment].flow_m3_per_s;
    const Vec3 lo{b.c.x - b.r, b.c.y - b.r, b.c.z - b.r}, hi{b.c.x + b.r, b.c.y + b.r, b.c.z + b.r};
    for_cells(lo, hi, [&](std::size_t i, const Vec3& c) {
      const double d2 = (c.x - b.c.x) * (c.x - b.c.x) + (c.y - b.c.y) * (c.y - b.c.y) + (c.z - b.c.z) * (c.z - b.c.z);
      if (d2 > b.r * b.r) return;
      // Distance from the axis through the joint, along the piece's direction.
      const double s = (c.x - b.c.x) * q.axis.x + (c.y - b.c.y) * q.axis.y + (c.z - b.c.z) * q.axis.z;
      const double d_axis2 = std::max(0.0, d2 - s * s);
      put(i, 2 * Q / (std::numbers::pi * b.r * b.r) * (1 - d_axis2 / (b.r * b.r)), q.axis);
    });
  }
  // Cells that are not fluid carry no velocity (the simulator moves only fluid cells).
  for (std::size_t i = 0; i < g.size(); ++i)
    if (f.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) f.ux_m_per_s[i] = f.uy_m_per_s[i] = f.uz_m_per_s[i] = 0;
  return f;
}

}  // namespace mrwb
