// Straight tube, stenosis, aneurysms, bifurcations. The organ tree (constrained constructive
// optimisation) lives in vessel_generators_organ.cpp.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/phantom/vessel_generators.hpp"
#include "vessel_generators_internal.hpp"

namespace mrwb {
namespace {

double rad(double deg) { return deg * std::numbers::pi / 180.0; }

void range(const std::string& where, const std::string& field, double v, double lo, double hi, bool lo_open,
           const std::string& unit) {
  if ((lo_open ? v > lo : v >= lo) && v <= hi && std::isfinite(v)) return;
  throw InputError(where + "." + field + " = " + number_text(v) + " is out of range: allowed " + (lo_open ? "(" : "[") +
                   number_text(lo) + ", " + number_text(hi) + "]" + (unit.empty() ? "" : " " + unit));
}

Vec3 add(Vec3 a, Vec3 b, double s = 1) { return {a.x + s * b.x, a.y + s * b.y, a.z + s * b.z}; }

// A straight segment of n points whose radius follows r(s), s = arc length from `a`.
template <typename RadiusFn>
VesselSegment straight(Vec3 a, Vec3 dir, double L, int n, RadiusFn r) {
  VesselSegment g;
  for (int i = 0; i < n; ++i) {
    const double s = L * i / (n - 1);
    g.centreline_m.push_back(add(a, dir, s));
    g.radius_m.push_back(r(s));
  }
  return g;
}

void centre_on_origin(VesselTree& t) {
  Vec3 lo, hi;
  t.bounds(lo, hi);
  Vec3 c{-(lo.x + hi.x) / 2, -(lo.y + hi.y) / 2, t.dims == 3 ? -(lo.z + hi.z) / 2 : 0.0};
  for (auto& s : t.segments)
    for (auto& p : s.centreline_m) p = add(p, c);
  for (auto& a : t.sacs) a.centre_m = add(a.centre_m, c);
}

// Rotates v about the unit axis k by angle a (Rodrigues).
Vec3 rotate(Vec3 v, Vec3 k, double a) {
  const double c = std::cos(a), s = std::sin(a), d = k.x * v.x + k.y * v.y + k.z * v.z;
  const Vec3 kxv{k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x};
  return {v.x * c + kxv.x * s + k.x * d * (1 - c), v.y * c + kxv.y * s + k.y * d * (1 - c),
          v.z * c + kxv.z * s + k.z * d * (1 - c)};
}

Vec3 normalise(Vec3 v) {
  const double n = std::hypot(v.x, v.y, v.z);
  return {v.x / n, v.y / n, v.z / n};
}

Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// Adds the two children of segment `p` (which ends at its last point) and returns their indices.
// `normal` is the axis about which the children are turned away from the parent direction.
std::pair<int, int> add_children(VesselTree& t, int p, Vec3 normal, double a1, double a2, double q, double L_per_r) {
  const Vec3 end = t.segments[p].centreline_m.back();
  const Vec3 dir = normalise(add(end, t.segments[p].centreline_m[t.segments[p].centreline_m.size() - 2], -1));
  double r1, r2;
  murray_children(t.segments[p].radius_m.back(), q, r1, r2);
  const Vec3 d1 = rotate(dir, normal, a1), d2 = rotate(dir, normal, -a2);
  VesselSegment c1 = straight(end, d1, L_per_r * r1, 2, [&](double) { return r1; });
  VesselSegment c2 = straight(end, d2, L_per_r * r2, 2, [&](double) { return r2; });
  c1.parent = c2.parent = p;
  const int i1 = static_cast<int>(t.segments.size());
  t.segments.push_back(std::move(c1));
  t.segments.push_back(std::move(c2));
  t.segments[p].children = {i1, i1 + 1};
  return {i1, i1 + 1};
}

}  // namespace

void murray_children(double r0, double q, double& r1, double& r2) {
  r1 = r0 / std::cbrt(1 + q * q * q);
  r2 = q * r1;
}

std::vector<std::string> vessel_generator_names() {
  return {"straight_tube", "stenosis", "aneurysm_saccular", "aneurysm_fusiform", "bifurcation", "multi_bifurcation",
          "organ_tree"};
}

void validate_vessel_tree_spec(const VesselTreeSpec& s, const std::string& w) {
  const auto names = vessel_generator_names();
  if (std::find(names.begin(), names.end(), s.generator) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(w + ".generator = '" + s.generator + "' is not allowed (allowed: " + list + ")");
  }
  if (s.dims != 2 && s.dims != 3)
    throw InputError(w + ".dims = " + number_text(s.dims) + " is out of range (allowed: 2, 3)");
  range(w, "radius_m", s.radius_m, 0, 0.05, true, "m");
  range(w, "length_m", s.length_m, 0, 1.0, true, "m");
  if (s.length_m < 2 * s.radius_m)
    throw InputError(w + ".length_m = " + number_text(s.length_m) +
                     " is out of range: at least 2 x radius_m = " + number_text(2 * s.radius_m) + " m");
  range(w, "angle_deg", s.angle_deg, -180, 180, false, "deg");
  range(w, "stenosis_degree_percent", s.stenosis_degree_percent, 0, 95, true, "% (diameter reduction)");
  const bool lesion = s.generator == "stenosis" || s.generator == "aneurysm_fusiform";
  range(w, "lesion_length_m", s.lesion_length_m, 0, lesion ? s.length_m : 1.0, true, lesion ? "m (up to length_m)" : "m");
  range(w, "aneurysm_radius_m", s.aneurysm_radius_m, 0, 0.1, true, "m");
  if (s.generator == "aneurysm_fusiform" && s.aneurysm_radius_m <= s.radius_m)
    throw InputError(w + ".aneurysm_radius_m = " + number_text(s.aneurysm_radius_m) +
                     " is out of range: must exceed radius_m = " + number_text(s.radius_m) +
                     " m for a fusiform aneurysm");
  range(w, "branch_angle1_deg", s.branch_angle1_deg, 0, 90, false, "deg");
  range(w, "branch_angle2_deg", s.branch_angle2_deg, 0, 90, false, "deg");
  range(w, "radius_ratio", s.radius_ratio, 0, 1, true, "(r2 / r1)");
  range(w, "generations", s.generations, 1, 8, false, "");
  range(w, "angle_jitter_deg", s.angle_jitter_deg, 0, 30, false, "deg");
  range(w, "terminals", s.terminals, 2, 2000, false, "");
  for (int a = 0; a < 3; ++a)
    range(w, std::string("organ_semi_axes_m[") + char('0' + a) + "]", s.organ_semi_axes_m[a], 0, 0.5, true, "m");
  validate_segment_edits(s.segment_edits, w + ".segment_edits");
}

VesselTree generate_vessel_tree(const VesselTreeSpec& s, const std::string& where, std::vector<int>* generated_index) {
  validate_vessel_tree_spec(s, where);
  VesselTree t;
  t.dims = s.dims;
  const Vec3 dir{std::cos(rad(s.angle_deg)), std::sin(rad(s.angle_deg)), 0};
  const Vec3 start = add({}, dir, -0.5 * s.length_m);
  const Vec3 z{0, 0, 1};
  const double r0 = s.radius_m, L = s.length_m, Ls = s.lesion_length_m, sc = 0.5 * s.length_m;
  // Cosine-shaped lesion: bump(s) goes 0 -> 1 -> 0 over [sc - Ls/2, sc + Ls/2].
  auto bump = [&](double x) { return std::abs(x - sc) < Ls / 2 ? 0.5 * (1 + std::cos(2 * std::numbers::pi * (x - sc) / Ls)) : 0.0; };
  // Points every ~Ls/32 over the lesion so the throat is resolved; 2 points elsewhere would do.
  const int n_lesion = std::max(3, static_cast<int>(std::ceil(32 * L / Ls)) + 1);

  if (s.generator == "straight_tube") {
    t.segments.push_back(straight(start, dir, L, 2, [&](double) { return r0; }));
  } else if (s.generator == "stenosis") {
    const double d = s.stenosis_degree_percent / 100;  // r_min = r0 (1 - d)
    t.segments.push_back(straight(start, dir, L, n_lesion, [&](double x) { return r0 * (1 - d * bump(x)); }));
  } else if (s.generator == "aneurysm_fusiform") {
    const double ra = s.aneurysm_radius_m;
    t.segments.push_back(straight(start, dir, L, n_lesion, [&](double x) { return r0 + (ra - r0) * bump(x); }));
  } else if (s.generator == "aneurysm_saccular") {
    t.segments.push_back(straight(start, dir, L, 2, [&](double) { return r0; }));
    // The sac sits on the +normal side; its centre is r0 + 0.6 Ra from the axis, so it opens into the
    // lumen through a neck (the sphere reaches 0.4 Ra inside the wall).
    const Vec3 normal = cross(z, dir);
    t.sacs.push_back({0, add({}, normal, r0 + 0.6 * s.aneurysm_radius_m), s.aneurysm_radius_m});
  } else if (s.generator == "bifurcation") {
    t.segments.push_back(straight(start, dir, L, 2, [&](double) { return r0; }));
    add_children(t, 0, z, rad(s.branch_angle1_deg), rad(s.branch_angle2_deg), s.radius_ratio, L / r0);
  } else if (s.generator == "multi_bifurcation") {
    detail::Uniform01 rng(s.seed);
    t.segments.push_back(straight(start, dir, L, 2, [&](double) { return r0; }));
    std::vector<std::pair<int, Vec3>> level = {{0, z}};  // segment, bifurcation-plane normal
    for (int g = 0; g < s.generations; ++g) {
      std::vector<std::pair<int, Vec3>> next;
      for (auto [p, normal] : level) {
        const double j1 = s.angle_jitter_deg * (2 * rng() - 1), j2 = s.angle_jitter_deg * (2 * rng() - 1);
        const double a1 = rad(std::clamp(s.branch_angle1_deg + j1, 0.0, 90.0));
        const double a2 = rad(std::clamp(s.branch_angle2_deg + j2, 0.0, 90.0));
        auto [c1, c2] = add_children(t, p, normal, a1, a2, s.radius_ratio, L / r0);
        // 3-D: the next bifurcation plane is turned 90 deg about the child's axis (as in real trees);
        // 2-D: everything stays in the slice.
        for (int c : {c1, c2}) {
          Vec3 n2 = normal;
          if (s.dims == 3) {
            const auto& cl = t.segments[c].centreline_m;
            n2 = normalise(cross(normalise(add(cl[1], cl[0], -1)), normal));
          }
          next.emplace_back(c, n2);
        }
      }
      level = std::move(next);
    }
  } else {
    t = detail::grow_organ_tree(s, true);
  }
  if (s.generator != "organ_tree") centre_on_origin(t);
  validate_vessel_tree(t, where);
  if (s.segment_edits.empty()) {
    if (generated_index) {
      generated_index->resize(t.segments.size());
      for (std::size_t i = 0; i < t.segments.size(); ++i) (*generated_index)[i] = static_cast<int>(i);
    }
    return t;
  }
  // Centred before the edits, so removing a branch does not move the rest of the tree.
  std::vector<int> index = apply_segment_edits(t, s.segment_edits, where + ".segment_edits");
  validate_vessel_tree(t, where + ".segment_edits");
  if (generated_index) *generated_index = std::move(index);
  return t;
}

VesselTree generate_organ_tree_unoptimised(const VesselTreeSpec& spec, const std::string& where) {
  validate_vessel_tree_spec(spec, where);
  if (spec.generator != "organ_tree") throw InputError(where + ".generator must be 'organ_tree' here (got '" + spec.generator + "')");
  VesselTree t = detail::grow_organ_tree(spec, false);
  validate_vessel_tree(t, where);
  return t;
}

}  // namespace mrwb
