// Voronoi density compensation (Rasche et al., IEEE TMI 1999): each sample's weight is the area of its
// Voronoi cell in the k-space plane, clipped to the sampled disc. Unlike Pipe-Menon it sees the gaps between
// spiral arms that are wider than the gridding kernel, so an undersampled spiral's centre is not
// over-weighted. Cells by half-plane clipping (the Voro++ scheme): start from the disc's bounding square,
// clip by the bisectors of neighbours found ring by ring on a bucket grid, stop when the next ring lies
// beyond twice the cell's farthest vertex. Stacks of spirals: one 2-D diagram per kz partition.
// The outer boundary is the disc half a ring spacing beyond the outermost sample (clipping at the outermost
// sample would halve the edge cells and blur the image); the spacing is the disc area over the trajectory's
// length, which for a spiral is the distance between neighbouring turns.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/gridding.hpp"

namespace mrwb::noncart {
namespace {

struct P2 {
  double x, y;
};
using Polygon = std::vector<P2>;

// Keeps the side of the bisector of p and q nearer p: (v - (p+q)/2).(q - p) <= 0 (Sutherland-Hodgman).
void clip_bisector(Polygon& poly, P2 p, P2 q) {
  const double nx = q.x - p.x, ny = q.y - p.y;
  const double c = 0.5 * (nx * (p.x + q.x) + ny * (p.y + q.y));
  Polygon out;
  out.reserve(poly.size() + 1);
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const P2 a = poly[i], b = poly[(i + 1) % poly.size()];
    const double fa = nx * a.x + ny * a.y - c, fb = nx * b.x + ny * b.y - c;
    if (fa <= 0) out.push_back(a);
    if ((fa < 0 && fb > 0) || (fa > 0 && fb < 0)) {
      const double t = fa / (fa - fb);
      out.push_back({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)});
    }
  }
  poly.swap(out);
}

// Keeps the inside of the line through a -> b of a counter-clockwise convex boundary.
void clip_edge(Polygon& poly, P2 a, P2 b) {
  // The inside of edge a->b is the side nearer the origin: the bisector of the origin's mirror image.
  const double ex = b.x - a.x, ey = b.y - a.y, len = std::hypot(ex, ey);
  const double nx = ey / len, ny = -ex / len;  // outward normal
  const double dist = nx * a.x + ny * a.y;     // distance of the edge from the origin
  clip_bisector(poly, {0, 0}, {2 * dist * nx, 2 * dist * ny});
}

double area(const Polygon& poly) {
  double a = 0;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const P2 u = poly[i], v = poly[(i + 1) % poly.size()];
    a += u.x * v.y - v.x * u.y;
  }
  return 0.5 * std::abs(a);
}

// Voronoi cell areas of distinct points inside the disc of radius R (approximated by a 720-gon, whose area
// error 1.3e-5 is below the float weights' resolution once normalised).
std::vector<double> voronoi_areas(const std::vector<P2>& pts, double R) {
  const std::size_t N = pts.size();
  std::vector<double> out(N);
  if (N == 0) return out;
  if (N == 1) {
    out[0] = M_PI * R * R;
    return out;
  }
  const int B = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(N) / 2)));  // ~2 points per bucket
  const double h = 2 * R / B;
  auto bucket_of = [&](double v) { return std::clamp(static_cast<int>((v + R) / h), 0, B - 1); };
  std::vector<std::vector<std::size_t>> buckets(static_cast<std::size_t>(B) * B);
  for (std::size_t i = 0; i < N; ++i) buckets[bucket_of(pts[i].y) * B + bucket_of(pts[i].x)].push_back(i);
  constexpr int kDiscSides = 720;
  Polygon disc(kDiscSides);
  const double rc = R / std::cos(M_PI / kDiscSides);  // circumscribed vertices: edges at distance R
  for (int i = 0; i < kDiscSides; ++i) disc[i] = {rc * std::cos(2 * M_PI * i / kDiscSides), rc * std::sin(2 * M_PI * i / kDiscSides)};
  for (std::size_t i = 0; i < N; ++i) {
    const P2 p = pts[i];
    Polygon cell{{-R, -R}, {R, -R}, {R, R}, {-R, R}};
    const int bx = bucket_of(p.x), by = bucket_of(p.y);
    for (int ring = 0; ring < B; ++ring) {
      double reach2 = 0;  // squared distance of the cell's farthest vertex
      for (const P2& v : cell) reach2 = std::max(reach2, (v.x - p.x) * (v.x - p.x) + (v.y - p.y) * (v.y - p.y));
      // Points of this ring are at least (ring - 1) h away; past twice the reach they cannot cut the cell.
      if (ring >= 2 && (ring - 1) * h > 2 * std::sqrt(reach2)) break;
      for (int y = by - ring; y <= by + ring; ++y)
        for (int x = bx - ring; x <= bx + ring; ++x) {
          if (x < 0 || y < 0 || x >= B || y >= B) continue;
          if (std::max(std::abs(x - bx), std::abs(y - by)) != ring) continue;
          for (std::size_t j : buckets[y * B + x])
            if (j != i) clip_bisector(cell, p, pts[j]);
        }
    }
    bool outside = false;
    for (const P2& v : cell) outside = outside || v.x * v.x + v.y * v.y > R * R;
    if (outside)
      for (int e = 0; e < kDiscSides; ++e) clip_edge(cell, disc[e], disc[(e + 1) % kDiscSides]);
    out[i] = area(cell);
  }
  return out;
}

}  // namespace

std::vector<float> density_voronoi(const Samples& s) {
  const std::size_t M = s.count();
  const int D = s.dims;
  double r2max = 0;
  for (std::size_t m = 0; m < M; ++m)
    r2max = std::max(r2max, double(s.k[m * D]) * s.k[m * D] + double(s.k[m * D + 1]) * s.k[m * D + 1]);
  const double r_max = std::sqrt(r2max);
  // Trajectory length in the plane: steps between consecutive samples of a readout (a jump to the next
  // readout is longer than 4 median steps and is left out).
  std::vector<double> steps;
  for (std::size_t m = 0; m + 1 < M; ++m)
    steps.push_back(std::hypot(double(s.k[(m + 1) * D]) - s.k[m * D], double(s.k[(m + 1) * D + 1]) - s.k[m * D + 1]));
  std::vector<double> sorted = steps;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double step_cap = sorted.empty() ? 0.0 : 4 * sorted[sorted.size() / 2];
  double length = 0;
  for (double d : steps)
    if (d <= step_cap) length += d;
  // Samples grouped by plane (kz partition) and, within it, by position: repeated points (every spiral
  // interleave starts at k = 0) share one cell. Positions are merged on a 1e-5 cycles/FOV lattice.
  std::map<float, std::map<std::pair<long long, long long>, std::vector<std::size_t>>> planes;
  for (std::size_t m = 0; m < M; ++m) {
    const float kz = D == 3 ? s.k[m * D + 2] : 0.0f;
    const auto key = std::make_pair(std::llround(s.k[m * D] * 1e5), std::llround(s.k[m * D + 1] * 1e5));
    planes[kz][key].push_back(m);
  }
  if (D == 3 && planes.size() * 16 > M)
    throw InputError("Voronoi density: a 3-D trajectory that is not a stack of planes (" + std::to_string(planes.size()) +
                     " distinct kz for " + std::to_string(M) + " samples; allowed: stacks of 2-D trajectories)");
  const double ring_spacing = length > 0 ? M_PI * r2max * planes.size() / length : 0.0;
  const double R = r_max + ring_spacing / 2;
  const double dkz = planes.size() > 1 ? (planes.rbegin()->first - planes.begin()->first) / (planes.size() - 1) : 1.0;
  std::vector<float> w(M);
  for (const auto& [kz, sites] : planes) {
    std::vector<P2> pts;
    pts.reserve(sites.size());
    for (const auto& [key, members] : sites) pts.push_back({double(s.k[members[0] * D]), double(s.k[members[0] * D + 1])});
    const std::vector<double> a = voronoi_areas(pts, R);
    std::size_t i = 0;
    for (const auto& [key, members] : sites) {
      for (std::size_t m : members) w[m] = static_cast<float>(a[i] * dkz / members.size());
      ++i;
    }
  }
  return w;
}

}  // namespace mrwb::noncart
