#pragma once
// The lumen of a vessel tree as simple solids: one truncated cone per pair of consecutive centreline
// points (flat ends), a sphere at every inner joint and bifurcation (so bends and junctions are closed),
// and the aneurysm sacs. Open ends (the inlet and the outlets) stay flat.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb::detail {

struct TubePiece {
  Vec3 a, b;        // axis ends
  double ra, rb;    // radii at a and b
  int segment;
  double s0_m;      // arc length of `a` along its segment
  double length_m;  // |b - a|
  Vec3 axis;        // unit vector a -> b
};

struct Ball {
  Vec3 c;
  double r;
  int segment;
  int piece;  // the piece whose axis direction the flow in the ball follows (-1 for a sac: no through flow)
};

struct VesselGeometry {
  std::vector<TubePiece> pieces;
  std::vector<Ball> balls;
};

inline VesselGeometry vessel_geometry(const VesselTree& t) {
  VesselGeometry g;
  for (int s = 0; s < static_cast<int>(t.segments.size()); ++s) {
    const auto& seg = t.segments[s];
    double s0 = 0;
    const std::size_t n = seg.centreline_m.size();
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const Vec3 a = seg.centreline_m[i], b = seg.centreline_m[i + 1];
      const double L = std::hypot(b.x - a.x, b.y - a.y, b.z - a.z);
      const Vec3 e = L > 0 ? Vec3{(b.x - a.x) / L, (b.y - a.y) / L, (b.z - a.z) / L} : Vec3{1, 0, 0};
      g.pieces.push_back({a, b, seg.radius_m[i], seg.radius_m[i + 1], s, s0, L, e});
      const int piece = static_cast<int>(g.pieces.size()) - 1;
      // Sphere at the far end unless it is an outlet (open end).
      if (i + 2 < n || !seg.children.empty()) g.balls.push_back({b, seg.radius_m[i + 1], s, piece});
      s0 += L;
    }
  }
  for (const auto& sac : t.sacs) g.balls.push_back({sac.centre_m, sac.radius_m, sac.segment, -1});
  return g;
}

// Where point p lies relative to a piece: t along the axis in [0, 1] if inside the slab, d from the axis.
struct PieceHit {
  bool inside = false;
  double t = 0, d = 0, r = 0;
};

inline PieceHit hit_piece(const TubePiece& q, const Vec3& p) {
  PieceHit h;
  const double s = (p.x - q.a.x) * q.axis.x + (p.y - q.a.y) * q.axis.y + (p.z - q.a.z) * q.axis.z;
  if (s < 0 || s > q.length_m) return h;
  h.t = q.length_m > 0 ? s / q.length_m : 0;
  const Vec3 f{q.a.x + s * q.axis.x, q.a.y + s * q.axis.y, q.a.z + s * q.axis.z};
  h.d = std::hypot(p.x - f.x, p.y - f.y, p.z - f.z);
  h.r = q.ra + h.t * (q.rb - q.ra);
  h.inside = h.d <= h.r;
  return h;
}

inline void piece_box(const TubePiece& q, Vec3& lo, Vec3& hi) {
  const double r = std::max(q.ra, q.rb);
  lo = {std::min(q.a.x, q.b.x) - r, std::min(q.a.y, q.b.y) - r, std::min(q.a.z, q.b.z) - r};
  hi = {std::max(q.a.x, q.b.x) + r, std::max(q.a.y, q.b.y) + r, std::max(q.a.z, q.b.z) + r};
}

}  // namespace mrwb::detail
