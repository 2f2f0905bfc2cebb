#include "mrwb/phantom/vessel_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"

namespace mrwb {
namespace {
double dist(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.y - b.y, a.z - b.z); }
}  // namespace

std::vector<int> VesselTree::inlets() const {
  std::vector<int> out;
  for (int s = 0; s < static_cast<int>(segments.size()); ++s)
    if (segments[s].parent < 0) out.push_back(s);
  return out;
}

std::vector<int> VesselTree::outlets() const {
  std::vector<int> out;
  for (int s = 0; s < static_cast<int>(segments.size()); ++s)
    if (segments[s].children.empty()) out.push_back(s);
  return out;
}

double VesselTree::min_radius_m() const {
  double r = std::numeric_limits<double>::infinity();
  for (const auto& s : segments)
    for (double v : s.radius_m) r = std::min(r, v);
  for (const auto& a : sacs) r = std::min(r, a.radius_m);
  return r;
}

double VesselTree::segment_length_m(int s) const {
  const auto& c = segments.at(s).centreline_m;
  double L = 0;
  for (std::size_t i = 1; i < c.size(); ++i) L += dist(c[i - 1], c[i]);
  return L;
}

double VesselTree::lumen_volume_m3() const {
  double v = 0;
  for (const auto& g : segments)
    for (std::size_t i = 1; i < g.centreline_m.size(); ++i) {
      const double a = g.radius_m[i - 1], b = g.radius_m[i];
      v += M_PI / 3 * dist(g.centreline_m[i - 1], g.centreline_m[i]) * (a * a + a * b + b * b);  // frustum
    }
  return v;
}

void VesselTree::bounds(Vec3& lo, Vec3& hi) const {
  const double inf = std::numeric_limits<double>::infinity();
  lo = {inf, inf, inf};
  hi = {-inf, -inf, -inf};
  auto grow = [&](const Vec3& p, double r) {
    lo = {std::min(lo.x, p.x - r), std::min(lo.y, p.y - r), std::min(lo.z, p.z - r)};
    hi = {std::max(hi.x, p.x + r), std::max(hi.y, p.y + r), std::max(hi.z, p.z + r)};
  };
  for (const auto& s : segments)
    for (std::size_t i = 0; i < s.centreline_m.size(); ++i) grow(s.centreline_m[i], s.radius_m[i]);
  for (const auto& a : sacs) grow(a.centre_m, a.radius_m);
}

void validate_vessel_tree(const VesselTree& t, const std::string& where) {
  auto fail = [&](const std::string& what) { throw InputError(where + ": " + what); };
  const int n = static_cast<int>(t.segments.size());
  if (t.dims != 2 && t.dims != 3) fail("dims = " + number_text(t.dims) + " is out of range (allowed: 2, 3)");
  if (n == 0) fail("the vessel tree has no segment (at least 1 required)");
  for (int s = 0; s < n; ++s) {
    const auto& g = t.segments[s];
    const std::string sn = "segments[" + std::to_string(s) + "]";
    if (g.centreline_m.size() < 2)
      fail(sn + ".centreline_m has " + number_text(g.centreline_m.size()) + " points (at least 2)");
    if (g.radius_m.size() != g.centreline_m.size())
      fail(sn + ".radius_m has " + number_text(g.radius_m.size()) + " values; one per centreline point (" +
           number_text(g.centreline_m.size()) + ") required");
    for (double r : g.radius_m)
      if (!(r > 0) || !std::isfinite(r)) fail(sn + ".radius_m = " + number_text(r) + " is out of range: must be > 0 m");
    for (const auto& p : g.centreline_m) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) fail(sn + ".centreline_m has a non-finite point");
      if (t.dims == 2 && p.z != 0)
        fail(sn + ".centreline_m has z = " + number_text(p.z) + " in a 2-D tree (must be 0)");
    }
    if (g.parent >= n || g.parent < -1)
      fail(sn + ".parent = " + number_text(g.parent) + " is out of range [-1, " + number_text(n - 1) + "]");
    for (int c : g.children) {
      if (c < 0 || c >= n)
        fail(sn + ".children has " + number_text(c) + ", out of range [0, " + number_text(n - 1) + "]");
      if (t.segments[c].parent != s)
        fail(sn + ".children lists " + number_text(c) + " whose parent is " + number_text(t.segments[c].parent));
    }
    if (g.parent >= 0) {
      const auto& p = t.segments[g.parent];
      if (std::find(p.children.begin(), p.children.end(), s) == p.children.end())
        fail(sn + ".parent = " + number_text(g.parent) + " does not list it as a child");
      const double gap = dist(p.centreline_m.back(), g.centreline_m.front());
      if (gap > 1e-9 + 1e-6 * p.radius_m.back())
        fail(sn + " starts " + number_text(gap) + " m from the end of its parent " + number_text(g.parent) +
             " (must start there)");
      const double limit = p.radius_m.back() * (1 + k_child_radius_tolerance);
      if (g.radius_m.front() > limit)
        fail(sn + ".radius_m = " + number_text(g.radius_m.front()) + " m is wider than its parent's " +
             number_text(p.radius_m.back()) + " m beyond the tolerance of " +
             number_text(100 * k_child_radius_tolerance) + " %");
    }
  }
  const auto roots = t.inlets();
  if (roots.size() != 1)
    fail("the vessel tree is disconnected: " + number_text(roots.size()) + " root segments (exactly 1 allowed)");
  // Reachability from the root (also rejects cycles, which would leave some segment unreached).
  std::vector<char> seen(n, 0);
  std::vector<int> stack = {roots[0]};
  int count = 0;
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    if (seen[s]) fail("the vessel tree has a cycle through segment " + number_text(s));
    seen[s] = 1;
    ++count;
    for (int c : t.segments[s].children) stack.push_back(c);
  }
  if (count != n)
    fail("the vessel tree is disconnected: " + number_text(n - count) + " segments are not reachable from the root");
  for (std::size_t a = 0; a < t.sacs.size(); ++a) {
    const auto& s = t.sacs[a];
    const std::string sn = "sacs[" + std::to_string(a) + "]";
    if (s.segment < 0 || s.segment >= n)
      fail(sn + ".segment = " + number_text(s.segment) + " is out of range [0, " + number_text(n - 1) + "]");
    if (!(s.radius_m > 0)) fail(sn + ".radius_m = " + number_text(s.radius_m) + " is out of range: must be > 0 m");
  }
}

}  // namespace mrwb
