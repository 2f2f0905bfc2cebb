// A tree grown to fill an organ region by constrained constructive optimisation (CCO; Schreiner &
// Buxbaum 1993, Karch et al. 1999): terminals are added one by one at random points of the region
// (seeded) that keep a minimum distance from the existing vessels; each is connected to the one of its
// nearest segments that gives the smallest total tree volume sum(pi r^2 l). Every terminal carries the
// same flow, so the Poiseuille split at each bifurcation divides the flow in proportion to the terminals
// downstream, and Murray's law (r^3 proportional to the flow) gives
// r = r_root (n_terminals_downstream / n_terminals)^(1/3), which meets r0^3 = r1^3 + r2^3 exactly at
// every bifurcation. Geometric optimisation of each new bifurcation point (CCO's step after the
// connection): with the radii fixed, the volume depends on the point m only through the three segments
// that meet there, V(m) = pi sum_i r_i^2 |m - x_i|, a weighted Fermat-Weber problem solved by Weiszfeld's
// iteration from the centroid of the three ends; when the tree is complete, every branch point is
// optimised again with the final radii (sweeps until it settles). Points stay inside the organ and leave
// every segment at least 2 % of the organ's smaller semi-axis long; V is convex, so pulling an optimum
// back to meet these constraints never gives more volume than the starting point.
// Crossing vessels are not rejected (a limitation shared with 2-D CCO slices).
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

// Weighted Fermat-Weber point of x[0..2] with weights w (Weiszfeld 1937), from `start`.
Vec3 weiszfeld(const Vec3 (&x)[3], const double (&w)[3], Vec3 m) {
  for (int it = 0; it < 200; ++it) {
    Vec3 num{0, 0, 0};
    double den = 0;
    for (int i = 0; i < 3; ++i) {
      const double d = dist(m, x[i]);
      if (d < 1e-15) return m;  // on a vertex: the iteration is undefined there
      num.x += w[i] * x[i].x / d, num.y += w[i] * x[i].y / d, num.z += w[i] * x[i].z / d;
      den += w[i] / d;
    }
    const Vec3 next{num.x / den, num.y / den, num.z / den};
    const double step = dist(next, m);
    m = next;
    if (step < 1e-12) break;
  }
  return m;
}

// The point of least sum_i w_i |m - x_i| on the way from `from` to the Weiszfeld optimum that keeps the
// three segments at least min_len long and that `allowed` accepts; `from` itself when none does. The sum
// is convex, so the result never holds more volume than `from`.
template <typename Allowed>
Vec3 least_volume_point(const Vec3 (&x)[3], const double (&w)[3], const Vec3& from, double min_len,
                        const Allowed& allowed) {
  const Vec3 opt = weiszfeld(x, w, from);
  for (double t = 1; t > 1e-3; t *= 0.5) {  // back towards `from` until feasible
    const Vec3 m{from.x + t * (opt.x - from.x), from.y + t * (opt.y - from.y), from.z + t * (opt.z - from.z)};
    if (dist(m, x[0]) >= min_len && dist(m, x[1]) >= min_len && dist(m, x[2]) >= min_len && allowed(m)) return m;
  }
  return from;
}

// r^2 of a segment carrying n of `total` terminals (Murray: r^3 proportional to the flow), r_root = 1.
double murray_r2(double n, int total) { return std::pow(n / total, 2.0 / 3.0); }

// Branch point for hanging terminal p from segment s: the centroid of the three ends, or (optimise) the
// point of least volume from there. After the connection a-m carries n + 1 terminals, m-b n, m-p one.
template <typename Allowed>
Vec3 branch_point(const std::vector<Node>& nodes, int s, const Vec3& p, int total_terminals, bool optimise,
                  double min_len, const Allowed& allowed) {
  const Vec3& a = nodes[s].a;
  const Vec3& b = nodes[s].b;
  const Vec3 c{(a.x + b.x + p.x) / 3, (a.y + b.y + p.y) / 3, (a.z + b.z + p.z) / 3};
  if (!optimise) return c;
  const double n = nodes[s].terminals;
  const Vec3 x[3] = {a, b, p};
  const double w[3] = {murray_r2(n + 1, total_terminals), murray_r2(n, total_terminals), murray_r2(1, total_terminals)};
  return least_volume_point(x, w, c, min_len, allowed);
}

// Later connections change the radii and split segments, so each branch point is optimised again with
// the final tree: sweeps of one-point minimisations (block coordinate descent on the convex total volume).
template <typename Allowed>
void relax_branch_points(std::vector<Node>& nodes, double min_len, const Allowed& allowed) {
  const int total = nodes[0].terminals;
  for (int sweep = 0; sweep < 20; ++sweep)
    for (auto& g : nodes) {
      if (g.child[0] < 0) continue;
      Node& c0 = nodes[g.child[0]];
      Node& c1 = nodes[g.child[1]];
      const Vec3 x[3] = {g.a, c0.b, c1.b};
      const double w[3] = {murray_r2(g.terminals, total), murray_r2(c0.terminals, total), murray_r2(c1.terminals, total)};
      g.b = c0.a = c1.a = least_volume_point(x, w, g.b, min_len, allowed);
    }
}

}  // namespace

VesselTree grow_organ_tree(const VesselTreeSpec& spec, bool optimise_branch_points) {
  Uniform01 rng(spec.seed);
  const double* ax = spec.organ_semi_axes_m;
  const bool is3 = spec.dims == 3;
  auto inside = [&](const Vec3& p) {
    const double q = p.x * p.x / (ax[0] * ax[0]) + p.y * p.y / (ax[1] * ax[1]) + (is3 ? p.z * p.z / (ax[2] * ax[2]) : 0);
    return q <= 0.9 * 0.9;  // keep the vessels a little inside the organ's boundary
  };
  auto in_organ = [&](const Vec3& p) {
    return p.x * p.x / (ax[0] * ax[0]) + p.y * p.y / (ax[1] * ax[1]) + (is3 ? p.z * p.z / (ax[2] * ax[2]) : 0) <= 1;
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
  // Shortest segment an optimised branch point may leave (no degenerate, zero-length segments).
  const double min_len = 0.02 * std::min(ax[0], ax[1]);
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
    Vec3 best_m;
    for (auto [d, s] : near) {
      const Vec3 m = branch_point(nodes, s, p, k + 1, optimise_branch_points, min_len, in_organ);
      std::vector<Node> trial = nodes;
      connect(trial, s, m, p);
      const double v = volume(trial, k + 1);
      if (v < best_v) best_v = v, best = s, best_m = m;
    }
    connect(nodes, best, best_m, p);
  }

  if (optimise_branch_points) relax_branch_points(nodes, min_len, in_organ);

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
