// Per-segment edits of a generated vessel tree (the GUI's segment editor writes them into the scenario):
// radius scaling of a branch, a local stenosis, removal of a branch.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {
namespace {

constexpr int k_stenosis_points = 33;  // the throat resolved as by the stenosis generator (~L/32)

std::string item(const std::string& where, std::size_t i) {
  return where + "[" + number_text(static_cast<double>(i)) + "]";
}

// The segment and every segment downstream of it.
std::vector<int> subtree(const VesselTree& t, int s) {
  std::vector<int> out{s};
  for (std::size_t i = 0; i < out.size(); ++i)
    for (int c : t.segments[out[i]].children) out.push_back(c);
  return out;
}

// Resamples the centreline to n points evenly spaced in arc length (position and radius linear), then
// narrows the middle half: r(s) *= 1 - d bump(s), bump a raised cosine over [L/4, 3L/4].
void add_stenosis(VesselSegment& g, double degree_percent) {
  const auto& c = g.centreline_m;
  std::vector<double> arc{0};
  for (std::size_t i = 1; i < c.size(); ++i)
    arc.push_back(arc.back() + std::hypot(c[i].x - c[i - 1].x, c[i].y - c[i - 1].y, c[i].z - c[i - 1].z));
  const double L = arc.back(), Ls = 0.5 * L, d = degree_percent / 100;
  VesselSegment out = g;
  out.centreline_m.clear();
  out.radius_m.clear();
  std::size_t k = 1;
  for (int i = 0; i < k_stenosis_points; ++i) {
    const double s = L * i / (k_stenosis_points - 1);
    while (k + 1 < arc.size() && arc[k] < s) ++k;
    const double w = arc[k] > arc[k - 1] ? std::clamp((s - arc[k - 1]) / (arc[k] - arc[k - 1]), 0.0, 1.0) : 0.0;
    const Vec3 &a = c[k - 1], &b = c[k];
    out.centreline_m.push_back({a.x + w * (b.x - a.x), a.y + w * (b.y - a.y), a.z + w * (b.z - a.z)});
    const double bump = std::abs(s - L / 2) < Ls / 2 ? 0.5 * (1 + std::cos(2 * std::numbers::pi * (s - L / 2) / Ls)) : 0.0;
    out.radius_m.push_back((g.radius_m[k - 1] + w * (g.radius_m[k] - g.radius_m[k - 1])) * (1 - d * bump));
  }
  // Keep the ends exact: children start at the parent's last point.
  out.centreline_m.front() = c.front();
  out.centreline_m.back() = c.back();
  g = std::move(out);
}

}  // namespace

void validate_segment_edits(const std::vector<VesselSegmentEdit>& edits, const std::string& where) {
  std::set<int> seen;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const VesselSegmentEdit& e = edits[i];
    const std::string w = item(where, i);
    if (e.segment < 0) throw InputError(w + ".segment = " + number_text(e.segment) + " is out of range: allowed >= 0");
    if (!seen.insert(e.segment).second)
      throw InputError(w + ".segment = " + number_text(e.segment) + " is edited twice (allowed: one edit per segment)");
    if (!(e.radius_scale > 0 && e.radius_scale <= 2))
      throw InputError(w + ".radius_scale = " + number_text(e.radius_scale) + " is out of range: allowed (0, 2]");
    if (!(e.stenosis_degree_percent >= 0 && e.stenosis_degree_percent <= 95))
      throw InputError(w + ".stenosis_degree_percent = " + number_text(e.stenosis_degree_percent) +
                       " is out of range: allowed [0, 95] % (diameter reduction)");
    if (e.remove && e.segment == 0) throw InputError(w + ".segment = 0 is the root: it cannot be removed");
  }
}

std::vector<int> apply_segment_edits(VesselTree& t, const std::vector<VesselSegmentEdit>& edits, const std::string& where) {
  validate_segment_edits(edits, where);
  const int n = static_cast<int>(t.segments.size());
  for (std::size_t i = 0; i < edits.size(); ++i)
    if (edits[i].segment >= n)
      throw InputError(item(where, i) + ".segment = " + number_text(edits[i].segment) +
                       " is out of range: allowed [0, " + number_text(n - 1) + "] (segments of the generated tree)");

  std::vector<bool> removed(n, false);
  for (const auto& e : edits)
    if (e.remove)
      for (int s : subtree(t, e.segment)) removed[s] = true;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const VesselSegmentEdit& e = edits[i];
    if (e.remove) continue;
    if (removed[e.segment])
      throw InputError(item(where, i) + ".segment = " + number_text(e.segment) +
                       " lies in a removed branch (edit it or remove it, not both)");
    if (e.radius_scale != 1)
      for (int s : subtree(t, e.segment))
        for (double& r : t.segments[s].radius_m) r *= e.radius_scale;
  }
  // Stenoses after the scalings, so the degree is relative to the scaled lumen.
  for (const auto& e : edits)
    if (!e.remove && e.stenosis_degree_percent > 0) add_stenosis(t.segments[e.segment], e.stenosis_degree_percent);

  // Drop removed segments and renumber parents, children and sacs.
  std::vector<int> new_index(n, -1), generated;
  for (int s = 0; s < n; ++s)
    if (!removed[s]) {
      new_index[s] = static_cast<int>(generated.size());
      generated.push_back(s);
    }
  VesselTree out;
  out.dims = t.dims;
  for (int s : generated) {
    VesselSegment g = std::move(t.segments[s]);
    if (g.parent >= 0) g.parent = new_index[g.parent];
    std::vector<int> kept;
    for (int c : g.children)
      if (!removed[c]) kept.push_back(new_index[c]);
    g.children = std::move(kept);
    out.segments.push_back(std::move(g));
  }
  for (AneurysmSac sac : t.sacs)
    if (!removed[sac.segment]) {
      sac.segment = new_index[sac.segment];
      out.sacs.push_back(sac);
    }
  t = std::move(out);
  return generated;
}

}  // namespace mrwb
