// A tree grown to fill an organ region by constrained constructive optimisation (CCO; Schreiner &
// Buxbaum 1993, Karch et al. 1999), simplified: terminals are added one by one at random points of the
// region (seeded) that keep a minimum distance from the existing vessels; each is connected to the one
// of its nearest segments that gives the smallest total tree volume sum(pi r^2 l). Every terminal
// carries the same flow, so by Murray's law r^3 is proportional to the flow a segment carries:
// r = r_root (n_terminals_downstream / n_terminals)^(1/3), which meets r0^3 = r1^3 + r2^3 exactly at
// every bifurcation. The bifurcation point is the centroid of the segment's ends and the new terminal
// (the usual starting point of CCO's geometric optimisation, which is not iterated here). Crossing
// vessels are not rejected (a limitation shared with 2-D CCO slices).
#include <algorithm>
#include <cmath>
#include <limits>

#include "vessel_generators_internal.hpp"

namespace mrwb::detail {
namespace {

struct Node {  // one straight segment of the growing binary tree
  Vec3 a, b;   // proximal, distal
  int parent = -1;
  int child[2] = {-1, -1};
  int terminals = 1;  // terminals downstream
};

double dist(const Vec3& p, const Vec3& q) { return std::hypot(p.x - q.x, p.y - q.y, p.z - q.z); }

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab{b.x - a.x, b.y - a.y, b.z - a.z};
  const double L2 = ab.x * ab.x + ab.y * ab.y + ab.z * ab.z;
  double t = L2 > 0 ? ((p.x - a.x) * ab.x + (p.y - a.y) * ab.y + (p.z - a.z) * ab.z) / L2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  return dist(p, {a.x + t * ab.x, a.y + t * ab.y, a.z + t * ab.z});
}

// Total volume / pi with the radii of Murray's law (r_root = 1).
double volume(const std::vector<Node>& nodes, int total_terminals) {
  double v = 0;
  for (const auto& n : nodes) v += std::pow(static_cast<double>(n.terminals) / total_terminals, 2.0 / 3.0) * dist(n.a, n.b);
  return v;
}

void add_terminal_count(std::vector<Node>& nodes, int from, int delta) {
  for (int i = from; i >= 0; i = nodes[i].parent) nodes[i].terminals += delta;
}

// Splits node s at point m and hangs a new terminal segment m -> p from it; returns the new terminal.
int connect(std::vector<Node>& nodes, int s, const Vec3& m, const Vec3& p) {
  Node lower = nodes[s];  // m -> old distal, keeps the old children
  lower.a = m;
  lower.parent = s;
  const int il = static_cast<int>(nodes.size());
  nodes.push_back(lower);
  for (int c : nodes[il].child)
    if (c >= 0) nodes[c].parent = il;
  Node term;
  term.a = m;
  term.b = p;
  term.parent = s;
  const int it = static_cast<int>(nodes.size());
  nodes.push_back(term);
  nodes[s].b = m;
  nodes[s].child[0] = il;
  nodes[s].child[1] = it;
  add_terminal_count(nodes, s, 1);
  return it;
}

}  // namespace

VesselTree grow_organ_tree(const VesselTreeSpec& spec) {
  Uniform01 rng(spec.seed);
  const double* ax = spec.organ_semi_axes_m;
  const bool is3 = spec.dims == 3;
  auto inside = [&](const Vec3& p) {
    const double q = p.x * p.x / (ax[0] * ax[0]) + p.y * p.y / (ax[1] * ax[1]) + (is3 ? p.z * p.z / (ax[2] * ax[2]) : 0);
    return q <= 0.9 * 0.9;  // keep the vessels a little inside the organ's boundary
  };
  auto sample = [&] {
    for (;;) {
      Vec3 p{ax[0] * (2 * rng() - 1), ax[1] * (2 * rng() - 1), is3 ? ax[2] * (2 * rng() - 1) : 0.0};
      if (inside(p)) return p;
    }
  };
  const double region = is3 ? 4.0 / 3.0 * M_PI * ax[0] * ax[1] * ax[2] * 0.729 : M_PI * ax[0] * ax[1] * 0.81;

  // Root: enters at the -x pole of the organ (the hilum) and runs to the first terminal.
  std::vector<Node> nodes;
  Node root;
  root.a = {-0.9 * ax[0] - spec.radius_m * 2, 0, 0};
  root.b = {-0.9 * ax[0] + 0.3 * ax[0], 0, 0};
  nodes.push_back(root);

  constexpr int k_candidates = 8;  // nearest segments tried per terminal
  for (int k = 1; k < spec.terminals; ++k) {
    // Distance criterion of CCO: the new terminal keeps d_crit from every vessel; relaxed by 10 % after
    // 50 failed draws.
    double d_crit = 0.5 * (is3 ? std::cbrt(region / (k + 1)) : std::sqrt(region / (k + 1)));
    Vec3 p;
    for (int tries = 0;; ++tries) {
      if (tries > 0 && tries % 50 == 0) d_crit *= 0.9;
      p = sample();
      double dmin = std::numeric_limits<double>::infinity();
      for (const auto& n : nodes) dmin = std::min(dmin, point_segment_distance(p, n.a, n.b));
      if (dmin > d_crit) break;
    }
    std::vector<std::pair<double, int>> near;
    for (int i = 0; i < static_cast<int>(nodes.size()); ++i) near.emplace_back(point_segment_distance(p, nodes[i].a, nodes[i].b), i);
    std::sort(near.begin(), near.end());
    near.resize(std::min<std::size_t>(near.size(), k_candidates));
    double best_v = std::numeric_limits<double>::infinity();
    int best = -1;
    for (auto [d, s] : near) {
      const Vec3 m{(nodes[s].a.x + nodes[s].b.x + p.x) / 3, (nodes[s].a.y + nodes[s].b.y + p.y) / 3,
                   (nodes[s].a.z + nodes[s].b.z + p.z) / 3};
      std::vector<Node> trial = nodes;
      connect(trial, s, m, p);
      const double v = volume(trial, k + 1);
      if (v < best_v) best_v = v, best = s;
    }
    const Vec3 m{(nodes[best].a.x + nodes[best].b.x + p.x) / 3, (nodes[best].a.y + nodes[best].b.y + p.y) / 3,
                 (nodes[best].a.z + nodes[best].b.z + p.z) / 3};
    connect(nodes, best, m, p);
  }

  // Binary nodes -> segments, in depth-first order from the root so that segments[0] is the root.
  VesselTree t;
  t.dims = spec.dims;
  const int total = nodes[0].terminals;
  std::vector<int> index(nodes.size(), -1);
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    index[i] = static_cast<int>(t.segments.size());
    VesselSegment g;
    const double r = spec.radius_m * std::cbrt(static_cast<double>(nodes[i].terminals) / total);
    g.centreline_m = {nodes[i].a, nodes[i].b};
    g.radius_m = {r, r};
    g.parent = nodes[i].parent >= 0 ? index[nodes[i].parent] : -1;
    if (g.parent >= 0) t.segments[g.parent].children.push_back(index[i]);
    t.segments.push_back(std::move(g));
    for (int c = 1; c >= 0; --c)
      if (nodes[i].child[c] >= 0) stack.push_back(nodes[i].child[c]);
  }
  return t;
}

}  // namespace mrwb::detail
