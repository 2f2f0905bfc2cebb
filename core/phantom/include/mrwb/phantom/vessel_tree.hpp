#pragma once
// A vascular tree: segments with a centreline, a radius at each centreline point, a parent and children.
// The root segment's first point is the inlet; the last point of every leaf is an outlet. Children start
// where their parent ends. A 2-D tree (dims = 2) lies in the plane z = 0 and is imaged as the mid-plane
// slice through its tubes; a 3-D tree is a volume. Units: metres.
#include <string>
#include <vector>

namespace mrwb {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  bool operator==(const Vec3&) const = default;
};

struct VesselSegment {
  int parent = -1;                  // index of the parent segment; -1 for the root
  std::vector<int> children;        // indices of the child segments
  std::vector<Vec3> centreline_m;   // at least 2 points, from the parent end towards the children
  std::vector<double> radius_m;     // lumen radius at each centreline point (> 0)
  bool operator==(const VesselSegment&) const = default;
};

// A saccular aneurysm: a sphere of blood opening into the side of `segment`.
struct AneurysmSac {
  int segment = 0;
  Vec3 centre_m;
  double radius_m = 0;
  bool operator==(const AneurysmSac&) const = default;
};

struct VesselTree {
  int dims = 2;                        // 2: slice in z = 0; 3: volume
  std::vector<VesselSegment> segments;  // segments[0] is the root
  std::vector<AneurysmSac> sacs;
  bool operator==(const VesselTree&) const = default;

  std::vector<int> inlets() const;   // segments with no parent
  std::vector<int> outlets() const;  // segments with no children
  double min_radius_m() const;
  double segment_length_m(int s) const;
  double lumen_volume_m3() const;  // sum of pi r^2 l over the segments (frustum per centreline piece)
  void bounds(Vec3& lo, Vec3& hi) const;  // axis-aligned box holding every tube and sac
};

// A user's edit of one generated segment (scenario: phantom.tree.segment_edits), applied after the
// generator. `segment` indexes the generated tree. radius_scale multiplies the lumen radius of the
// segment and everything downstream of it (so the Murray ratios below it stay); a stenosis narrows the
// segment's middle half by a cosine profile (diameter reduction, as the stenosis generator); remove
// deletes the segment and its whole subtree (not the root).
struct VesselSegmentEdit {
  int segment = 0;
  double radius_scale = 1;             // (0, 2]
  double stenosis_degree_percent = 0;  // [0, 95]
  bool remove = false;
  bool operator==(const VesselSegmentEdit&) const = default;
};

// Checks the edits' fields without a tree (ranges, one edit per segment). InputError naming `where`.
void validate_segment_edits(const std::vector<VesselSegmentEdit>& edits, const std::string& where);
// Applies the edits to a generated tree; returns, for each segment of the result, the index it had in
// the generated tree (removals renumber). InputError naming `where` for a segment out of range, the root
// removed, or an edit inside a removed branch.
std::vector<int> apply_segment_edits(VesselTree& tree, const std::vector<VesselSegmentEdit>& edits, const std::string& where);

// Tolerance on Murray's law checks and on a child wider than its parent (relative).
constexpr double k_child_radius_tolerance = 0.05;

// Checks the tree: radii > 0, at least 2 points per segment, parent/children links consistent, one
// root, every segment reachable from it (not disconnected), children starting at their parent's end,
// no child wider than its parent beyond k_child_radius_tolerance, 2-D trees in z = 0. Throws InputError
// naming `where` and the segment.
void validate_vessel_tree(const VesselTree& tree, const std::string& where);

// JSON round trip, exact: doubles are written in their shortest round-trip form.
// {"format": "mrwb-vessel-tree", "version": 1, "dims": 2, "segments": [{"parent": -1, "children": [..],
//  "centreline_m": [[x, y, z], ...], "radius_m": [...]}], "sacs": [{"segment": 0, "centre_m": [..],
//  "radius_m": r}]}
std::string vessel_tree_to_json_text(const VesselTree& tree);
VesselTree vessel_tree_from_json_text(const std::string& text, const std::string& source);

}  // namespace mrwb
