#pragma once
// Parameterised, seeded vessel-tree generators (Jurczuk et al. 2016's objects: straight tube, bifurcation,
// multiple bifurcations, liver-like tree) plus stenosis and aneurysms. The same spec and seed give the
// same tree, bit for bit, on every machine (own uniform deviates from std::mt19937_64, no
// std::uniform_real_distribution).
#include <cstdint>
#include <string>
#include <vector>

#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {

struct VesselTreeSpec {
  // straight_tube | stenosis | aneurysm_saccular | aneurysm_fusiform | bifurcation | multi_bifurcation
  // | organ_tree
  std::string generator = "straight_tube";
  int dims = 2;                       // 2: slice (z = 0); 3: volume
  std::uint64_t seed = 1;             // random choices (multi_bifurcation jitter, organ_tree terminals)
  double radius_m = 0.004;            // inlet (root) lumen radius
  double length_m = 0.08;             // root length (whole tube for tube, stenosis, aneurysms)
  double angle_deg = 0;               // root direction in the xy plane, from +x
  double stenosis_degree_percent = 50;  // diameter reduction at the throat (0, 95]
  double lesion_length_m = 0.02;      // axial length of the stenosis or the fusiform aneurysm
  double aneurysm_radius_m = 0.008;   // sac radius (saccular) or largest lumen radius (fusiform)
  double branch_angle1_deg = 35;      // first child's angle to the parent axis (counter-clockwise)
  double branch_angle2_deg = 35;      // second child's angle (clockwise)
  double radius_ratio = 1;            // r2 / r1 of the children (<= 1); Murray: r0^3 = r1^3 + r2^3
  int generations = 3;                // multi_bifurcation: levels of bifurcation
  double angle_jitter_deg = 0;        // multi_bifurcation: uniform random change of each angle, +-
  int terminals = 48;                 // organ_tree: terminal segments grown
  double organ_semi_axes_m[3] = {0.05, 0.035, 0.03};  // organ_tree: ellipse / ellipsoid at the origin
  std::vector<VesselSegmentEdit> segment_edits;  // applied to the generated tree, in this order
  bool operator==(const VesselTreeSpec&) const = default;
};

std::vector<std::string> vessel_generator_names();
// Checks the spec's ranges (InputError naming `where` + field and the allowed range).
void validate_vessel_tree_spec(const VesselTreeSpec& spec, const std::string& where);
// Builds the tree; validates the spec first. Trees other than organ_tree are centred on the origin.
// Then applies spec.segment_edits; `generated_index` (optional) receives apply_segment_edits' map.
VesselTree generate_vessel_tree(const VesselTreeSpec& spec, const std::string& where = "phantom.tree",
                                std::vector<int>* generated_index = nullptr);

// organ_tree with every bifurcation left at the centroid of its three ends (no geometric optimisation
// of the branch points), to compare with generate_vessel_tree's optimised tree. Same seed, same draws.
VesselTree generate_organ_tree_unoptimised(const VesselTreeSpec& spec, const std::string& where = "phantom.tree");

// Radii of two children by Murray's law for a parent of radius r0 and ratio q = r2 / r1.
void murray_children(double r0, double q, double& r1, double& r2);

}  // namespace mrwb
